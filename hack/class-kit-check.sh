#!/usr/bin/env bash
# CI's proof of the class kit: a kit for this machine's platform, then a fresh
# clone set up from it alone, the way an attendee in a room without internet
# does (docs/instructor-guide.md): an empty HOME (no Go modules, no Kubernetes
# binaries), GOPROXY at the kit and nothing else, then `make lab setup-envtest`
# and stage 01's check of the reference. Go's build cache is kept: it holds
# compiled code, nothing fetched, and a cold one would only measure compiling.
# Go keys a compiled package by its directory, so the check works in the same
# folder every time (emptied before and after): from the second run on, the
# clone's packages and the modules' come from the cache. Go still fetches
# every module from the kit, since it reads a package's files to know its key.
# Prints how long each part took and how big the kit is.
#
# Usage: hack/class-kit-check.sh KUBE_VERSION TOOL@VERSION...
set -euo pipefail

version=$1
shift
root=$(cd "$(dirname "$0")/.." && pwd)
log() { printf '[class-kit-check] %s\n' "$*" >&2; }
work=${XDG_CACHE_HOME:-$HOME/.cache}/cronlab-class-kit-check
# The kit's module cache is read-only, as Go makes every module cache. The
# clone's check started a shared API server (bin/lab-state/apiserver): stop
# it before its folder goes, or its etcd and kube-apiserver outlive the run.
# A run that was killed left its folder, and maybe its server: the same.
clean() {
  if [ -x "$work/cronlab/bin/lab" ]; then (cd "$work/cronlab" && bin/lab stop >/dev/null 2>&1) || true; fi
  chmod -R u+w "$work" 2>/dev/null || true
  rm -rf "$work"
}
# The folder is this user's, one check at a time: a second one at once would
# empty the first one's.
lock=$work.lock
if ! mkdir -p "$(dirname "$lock")" || ! mkdir "$lock" 2>/dev/null; then
  holder=$(cat "$lock/pid" 2>/dev/null || true)
  if [ -n "$holder" ] && kill -0 "$holder" 2>/dev/null; then
    log "another class-kit-check (PID $holder) is using $work: wait for it to end"
    exit 1
  fi
  # Its holder is gone (killed): the lock is taken over.
  mkdir -p "$lock"
fi
echo $$ >"$lock/pid"
trap 'clean; rm -rf "$lock"' EXIT
clean
mkdir -p "$work"
gocache=$(go env GOCACHE)

start=$SECONDS
KIT_BINARIES="etcd kube-apiserver kubectl" "$root/hack/class-kit.sh" "$work/kit" "$version" "$(go env GOOS)/$(go env GOARCH)" "$@"
made=$((SECONDS - start))

git clone -q "$root" "$work/cronlab"
mkdir -p "$work/home"
cd "$work/cronlab"
start=$SECONDS
# Only what an attendee's shell has: PATH (go, git, make), a HOME of its own,
# and the kit. GOTOOLCHAIN=local: no Go toolchain is fetched either.
env -i PATH="$PATH" HOME="$work/home" GOCACHE="$gocache" GOTOOLCHAIN=local TERM=dumb bash -c '
  set -euo pipefail
  . "$1/use.sh"
  [ "$(go env GOPROXY)" = "file://$1/goproxy" ] || { echo "GOPROXY is $(go env GOPROXY), not the kit" >&2; exit 1; }
  make lab setup-envtest
  bin/lab check 01
' _ "$work/kit"
used=$((SECONDS - start))

log "kit made in ${made}s; a fresh clone set up from it and passed stage 01 in ${used}s, with GOPROXY at the kit only"
log "kit size: $(du -sh "$work/kit" | cut -f1) (modules $(du -sh "$work/kit/goproxy" | cut -f1); this platform's three envtest binaries $(du -sh "$work/kit"/kubernetes-*/* | cut -f1))"
