#!/usr/bin/env bash
# Prints the directory that KUBEBUILDER_ASSETS must name for envtest: one that
# holds etcd, kube-apiserver and kubectl of Kubernetes MINOR (for example 1.36).
# Progress goes to stderr; only the path goes to stdout.
#
# Ways to get the binaries, tried in order:
#   1. already in setup-envtest's store (no network at all);
#   1b. built before, or put there by a class kit, in the build cache: sideloaded;
#   2. setup-envtest's own download (the usual kubebuilder way);
#   3. built from source through the Go module proxy (hack/kube-binaries.sh),
#      then handed to setup-envtest with `setup-envtest sideload`, so that the
#      store looks exactly as if the download had worked.
#
# Usage: hack/setup-envtest.sh SETUP_ENVTEST MINOR KUBE_VERSION STORE_DIR BUILD_CACHE
set -euo pipefail

if [ $# -ne 5 ]; then
  echo "usage: $0 SETUP_ENVTEST MINOR KUBE_VERSION STORE_DIR BUILD_CACHE" >&2
  exit 2
fi
setup_envtest=$1 minor=$2 kube_version=$3 store=$4 build_cache=$5
log() { printf '[setup-envtest] %s\n' "$*" >&2; }
here=$(cd "$(dirname "$0")" && pwd)

# check_dir DIR: the three binaries are there and runnable.
check_dir() {
  local b
  for b in etcd kube-apiserver kubectl; do
    [ -x "$1/$b" ] || return 1
  done
}

use() { "$setup_envtest" use "$@" --bin-dir "$store" -p path 2>/dev/null; }

if path=$(use -i "$minor.x") && check_dir "$path"; then
  echo "$path"
  exit 0
fi

# sideload: hand the binaries of the build cache to setup-envtest's store.
sideload() {
  # setup-envtest sideload takes a .tar.gz and keeps the base names of its files.
  # The X's end the template: BSD mktemp (macOS) replaces only trailing X's.
  tarball=$(mktemp "${TMPDIR:-/tmp}/envtest-$kube_version.XXXXXX")
  trap 'rm -f "$tarball"' EXIT
  tar -C "$build_cache" -czf "$tarball" etcd kube-apiserver kubectl
  "$setup_envtest" sideload "${kube_version#v}" --bin-dir "$store" -p path < "$tarball" >/dev/null
}

mkdir -p "$store"
# Built before, or put there by a class kit (hack/class-kit.sh): no download.
if check_dir "$build_cache"; then
  sideload
  if path=$(use -i "${kube_version#v}") && check_dir "$path"; then
    log "installed $kube_version from $build_cache into $store"
    echo "$path"
    exit 0
  fi
fi
download_log=$store/download.log
log "no Kubernetes $minor test binaries in $store yet; trying setup-envtest's download"
# A download that hangs on a blocked network gives way to the build after five
# minutes. hack/deadline does what GNU timeout does, which stock macOS lacks.
if path=$(cd "$here/.." && go run ./hack/deadline 300 "$setup_envtest" use "$minor.x" --bin-dir "$store" -p path 2>"$download_log") &&
  check_dir "$path"; then
  echo "$path"
  exit 0
fi
reason=$(grep -Eo 'no such host|i/o timeout|connection refused|certificate[^"]*|still ran after [0-9a-z]*' "$download_log" | head -n 1 || true)
log "the download failed (${reason:-see $download_log})"
log "falling back to building $kube_version from the Go module proxy (a cold build takes ~10 minutes)"

"$here/kube-binaries.sh" "$build_cache" "$kube_version" etcd kube-apiserver kubectl

sideload

if path=$(use -i "${kube_version#v}") && check_dir "$path"; then
  log "installed $kube_version into $store"
  echo "$path"
  exit 0
fi
cat >&2 <<MSG
[setup-envtest] could not get envtest binaries for Kubernetes $minor.
  - download: see $download_log
  - build from the Go module proxy: see the output above
Fix one of them (check 'go env GOPROXY', or set KUBEBUILDER_ASSETS to a
directory holding etcd, kube-apiserver and kubectl) and run 'make setup-envtest' again.
MSG
exit 1
