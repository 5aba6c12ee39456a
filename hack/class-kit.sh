#!/usr/bin/env bash
# Builds the class kit: everything that `make test` and `make demo` download on a
# new laptop, in one directory an instructor hands out on a USB stick or serves
# over the room's network, so that a class with a slow or absent internet link
# loses no hour to downloads (docs/instructor-guide.md, "A room without internet").
#
#   goproxy/                        the Go modules in the module proxy's layout: what
#                                   the repository, its tests and its tools need;
#   kubernetes-<version>/<os>-<arch>/  etcd, kube-apiserver, kubectl,
#                                   kube-controller-manager, kube-scheduler, built for
#                                   each platform asked for (cross-compiled: all Go);
#   use.sh                          sourced by an attendee: GOPROXY at the kit, and the
#                                   binaries of their platform where the Makefile looks;
#   MANIFEST.txt                    versions, platforms and sizes.
#
# Usage: hack/class-kit.sh KIT_DIR KUBE_VERSION "PLATFORMS" TOOL@VERSION...
#   KIT_BINARIES names the binaries (default: all five; CI's check takes envtest's three).
#   PLATFORMS: e.g. "linux/amd64 linux/arm64 darwin/amd64 darwin/arm64" (Windows
#   attendees work in WSL2, which is Linux). A platform's binaries already in the kit
#   are kept, so an interrupted run goes on where it stopped.
set -euo pipefail

if [ $# -lt 3 ]; then
  echo "usage: $0 KIT_DIR KUBE_VERSION \"PLATFORMS\" TOOL@VERSION..." >&2
  exit 2
fi
kit=$1 version=$2 platforms=$3
shift 3
root=$(cd "$(dirname "$0")/.." && pwd)
log() { printf '[class-kit] %s\n' "$*" >&2; }
mkdir -p "$kit"
kit=$(cd "$kit" && pwd)
start=$SECONDS

# The modules go through a module cache of the kit's own, so that the kit holds
# exactly what a fresh laptop fetches; its download directory is the proxy.
mods=$kit/.modcache
binaries=${KIT_BINARIES:-etcd kube-apiserver kubectl kube-controller-manager kube-scheduler}
export GOFLAGS=-mod=mod
# What this machine's module cache holds already is copied from it, the rest
# fetched as usual: the kit is the same, made in a fraction of the time.
export GOPROXY="file://$(go env GOMODCACHE)/cache/download,$(go env GOPROXY)"

log "modules of the repository and its tests"
(cd "$root" && GOMODCACHE=$mods go mod download)

tmpbin=$(mktemp -d "${TMPDIR:-/tmp}/class-kit-bin.XXXXXX")
trap 'rm -rf "$tmpbin"' EXIT
for tool in "$@"; do
  log "modules of $tool"
  # go install resolves the tool's own dependencies, as the Makefile's does,
  # and loads every package it would compile, which fetches their modules.
  # -n stops it there: the kit needs the modules, not the tools, and
  # compiling them (helm, kind, kwok...) took most of the kit's time.
  # Its list of commands goes to stderr, which is kept for a failure only
  # (go stops at the error, before printing any command).
  (cd "$tmpbin" && GOMODCACHE=$mods GOBIN=$tmpbin go install -n "$tool" 2>"$tmpbin/log") ||
    { cat "$tmpbin/log" >&2; exit 1; }
done

for platform in $platforms; do
  os=${platform%/*} arch=${platform#*/}
  dest=$kit/kubernetes-$version/$os-$arch
  host_cache=${XDG_CACHE_HOME:-$HOME/.cache}/cronlab/kubernetes-$version
  if [ "$os/$arch" = "$(go env GOOS)/$(go env GOARCH)" ] && [ -d "$host_cache" ]; then
    mkdir -p "$dest"
    for b in $binaries; do
      [ -x "$dest/$b" ] || { [ -x "$host_cache/$b" ] && cp "$host_cache/$b" "$dest/$b"; } || true
    done
  fi
  log "Kubernetes $version binaries for $os/$arch"
  # Downloaded for that platform where the release has them, else cross-compiled
  # (all of it is Go); the build's modules stay out of the kit.
  GOOS=$os GOARCH=$arch GOMODCACHE=$(go env GOMODCACHE) \
    "$root/hack/kube-binaries.sh" "$dest" "$version" $binaries
done

log "the module proxy"
rm -rf "$kit/goproxy.tmp"
cp -R "$mods/cache/download" "$kit/goproxy.tmp"
rm -rf "$kit/goproxy" && mv "$kit/goproxy.tmp" "$kit/goproxy"
chmod -R u+w "$mods" && rm -rf "$mods"

cat > "$kit/use.sh" <<'USE'
# Source this file in the shell you work in:  . /path/to/class-kit/use.sh
# Go then fetches modules from the kit only, and the Kubernetes binaries of this
# laptop's platform are put where the Makefile looks for them.
kit_dir=$(cd "$(dirname "${BASH_SOURCE[0]:-$0}")" && pwd)
export GOPROXY="file://$kit_dir/goproxy" GOSUMDB=off GOFLAGS=-mod=mod
for kit_bins in "$kit_dir"/kubernetes-*/"$(go env GOOS)-$(go env GOARCH)"; do
  [ -d "$kit_bins" ] || { echo "the class kit has no Kubernetes binaries for $(go env GOOS)/$(go env GOARCH): make test will download or build them, which needs the internet" >&2; continue; }
  kit_version=$(basename "$(dirname "$kit_bins")")
  kit_cache="${XDG_CACHE_HOME:-$HOME/.cache}/cronlab/$kit_version"
  mkdir -p "$kit_cache" && cp -p "$kit_bins"/* "$kit_cache"/
  echo "class kit: GOPROXY=$GOPROXY; Kubernetes binaries in $kit_cache"
done
unset kit_dir kit_bins kit_version kit_cache
USE

{
  echo "cronlab class kit, made $(date -u +%Y-%m-%dT%H:%MZ) from $(git -C "$root" rev-parse --short HEAD) in $((SECONDS - start)) s"
  echo "Kubernetes $version; platforms: $platforms"
  echo "tools: $*"
  echo
  du -sh "$kit/goproxy" "$kit"/kubernetes-*/* "$kit" 2>/dev/null | sed "s#$kit/##; s#\t$kit\$#\ttotal#"
} > "$kit/MANIFEST.txt"
cat "$kit/MANIFEST.txt" >&2
