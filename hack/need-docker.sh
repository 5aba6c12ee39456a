#!/usr/bin/env bash
# need-docker.sh DOCKER WHAT: stop at once, in one sentence, when the Docker
# daemon does not answer, before kind spends a minute failing on it.
# Portable to macOS's bash 3.2: no timeout(1); the docker CLI gives up by
# itself when the daemon's socket is absent.
set -u
docker=${1:-docker}
what=${2:-this}
if ! command -v "$docker" >/dev/null 2>&1; then
  echo "$what needs Docker, and there is no '$docker' command here: install Docker (Docker Desktop on macOS and Windows), or run \`make cluster\` instead, a local Kubernetes 1.36 that needs no Docker." >&2
  exit 1
fi
if ! err=$("$docker" info 2>&1 >/dev/null); then
  reason=$(printf '%s\n' "$err" | grep -v '^$' | head -n 1)
  echo "$what needs a running Docker daemon, and '$docker info' cannot reach one ($reason): start Docker, or run \`make cluster\` instead, a local Kubernetes 1.36 that needs no Docker." >&2
  exit 1
fi
