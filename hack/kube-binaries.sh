#!/usr/bin/env bash
# Builds Kubernetes binaries from source fetched through the Go module proxy.
#
# Why this exists: envtest and the local kwok cluster need etcd, kube-apiserver,
# kubectl (and, for the cluster, kube-controller-manager and kube-scheduler).
# The usual way to get them is a download from a release bucket, which many
# workshop networks block while the Go module proxy still works. Everything
# Kubernetes ships is Go, so we can build the same release from the proxy.
#
# `go install k8s.io/kubernetes/cmd/kube-apiserver@v1.36.3` does not work: the
# k8s.io/kubernetes module points its 33 "staging" modules (k8s.io/api,
# k8s.io/apiserver, ...) at ./staging with replace directives, which go install
# refuses. So we write a throw-away module that requires k8s.io/kubernetes and
# replaces each staging module with its published twin (v1.36.3 <-> v0.36.3).
#
# Usage: hack/kube-binaries.sh DEST_DIR K8S_VERSION BINARY...
#   BINARY is one of: etcd kube-apiserver kubectl kube-controller-manager kube-scheduler
# Binaries already in DEST_DIR are kept. For the rest, the official release
# downloads are tried first (dl.k8s.io and etcd's GitHub releases, checked
# against their published SHA-256 sums); what cannot be downloaded is built.
# KUBE_BINARIES_BUILD=1 skips the downloads. Files are moved into DEST_DIR
# only when complete, so an interrupted run never leaves half a set.
set -euo pipefail

if [ $# -lt 3 ]; then
  echo "usage: $0 DEST_DIR K8S_VERSION BINARY..." >&2
  exit 2
fi
dest=$1 version=$2
shift 2

# The etcd release that this Kubernetes release is tested with (hack/lib/etcd.sh
# in the Kubernetes source). Keep both in step when moving to a new minor.
ETCD_VERSION=${ETCD_VERSION:-v3.6.8}

log() { printf '[kube-binaries] %s\n' "$*" >&2; }
root=$(cd "$(dirname "$0")/.." && pwd)

[[ $version =~ ^v1\.([0-9]+)\.([0-9]+)$ ]] || {
  echo "K8S_VERSION must look like v1.36.3, got '$version'" >&2
  exit 2
}
minor=${BASH_REMATCH[1]} patch=${BASH_REMATCH[2]}
staging_version="v0.${minor}.${patch}"

missing=()
for b in "$@"; do
  case $b in
    etcd|kube-apiserver|kubectl|kube-controller-manager|kube-scheduler) ;;
    *) echo "unknown binary '$b'" >&2; exit 2 ;;
  esac
  [ -x "$dest/$b" ] || missing+=("$b")
done
if [ ${#missing[@]} -eq 0 ]; then
  log "all of [$*] already in $dest"
  exit 0
fi

command -v go >/dev/null || { echo "go is not on PATH: install Go 1.26 first" >&2; exit 1; }
mkdir -p "$dest"
work=$(mktemp -d "${dest%/}/.build.XXXXXX")
trap 'rm -rf "$work"' EXIT
export CGO_ENABLED=0 GOFLAGS=-mod=mod

# download BINARY: fetch the official release build into $work/out, checked
# against its published SHA-256 sum, or fail. hack/fetch does the download and
# the check in Go: stock macOS has no sha256sum (docs/laptops.md). etcd ships a
# .tar.gz for Linux and a .zip for macOS and Windows; dl.k8s.io has
# kube-apiserver, kube-controller-manager and kube-scheduler for Linux only,
# so on a Mac those are built.
download() {
  local b=$1 os arch url
  os=$(go env GOOS) arch=$(go env GOARCH)
  mkdir -p "$work/out" "$work/dl"
  if [ "$b" = etcd ]; then
    local ext=tar.gz
    [ "$os" = linux ] || ext=zip
    local archive="etcd-$ETCD_VERSION-$os-$arch.$ext"
    url="https://github.com/etcd-io/etcd/releases/download/$ETCD_VERSION"
    fetch -sum "$url/SHA256SUMS" -name "$archive" "$url/$archive" "$work/dl/$archive" || return 1
    if [ "$ext" = zip ]; then
      unzip -q "$work/dl/$archive" -d "$work/dl" || return 1
    else
      tar -xzf "$work/dl/$archive" -C "$work/dl" || return 1
    fi
    mv "$work/dl/etcd-$ETCD_VERSION-$os-$arch/etcd" "$work/out/etcd"
  else
    url="https://dl.k8s.io/release/$version/bin/$os/$arch/$b"
    fetch -sum "$url.sha256" "$url" "$work/out/$b" || return 1
    chmod +x "$work/out/$b"
  fi
}

fetch() { (cd "$root" && go run ./hack/fetch -timeout 10m "$@") 2>>"$work/download.log"; }

# build_with_progress NAME PACKAGE GO-BUILD-COMMAND...: runs a `go build -v`,
# which names each package as it compiles it, and turns those names into a
# line every 20 seconds: "kube-apiserver: 812 of 2403 packages (33%)". The
# total is what `go list -deps` says the binary needs; packages already in Go's
# build cache are not compiled again, so a warm build ends early.
build_with_progress() {
  local name=$1 pkg=$2 total done=0 last=$SECONDS line
  shift 2
  total=$(go list -deps "$pkg" 2>/dev/null | wc -l | tr -d ' ')
  log "$name needs $total packages"
  # go build -v writes package names and errors to stderr; a line that is not
  # an import path is an error and is shown as it is.
  "$@" 2>&1 | while IFS= read -r line; do
    case $line in
      *' '*|'') printf '%s\n' "$line" >&2; continue ;;
    esac
    done=$((done + 1))
    if [ $((SECONDS - last)) -ge 20 ]; then
      last=$SECONDS
      log "$name: $done of $total packages compiled ($((100 * done / (total > 0 ? total : 1)))%)"
    fi
  done
}

to_build=()
if [ "${KUBE_BINARIES_BUILD:-0}" != 1 ]; then
  log "downloading [${missing[*]}] for Kubernetes $version"
  for b in "${missing[@]}"; do
    if download "$b"; then
      log "downloaded $b"
    else
      to_build+=("$b")
    fi
  done
  if [ ${#to_build[@]} -gt 0 ]; then
    reason=$(sed -n 's/^fetch: //p' "$work/download.log" 2>/dev/null | head -n 1 || true)
    log "could not download [${to_build[*]}] (${reason:-no reason given}); building them instead"
  fi
else
  to_build=("${missing[@]}")
fi
# ${a[@]+"${a[@]}"}: an empty array under set -u is an error in bash before
# 4.4, such as the 3.2 of macOS.
missing_built=(${to_build[@]+"${to_build[@]}"})

if [ ${#to_build[@]} -gt 0 ]; then
  log "building [${to_build[*]}] for Kubernetes $version from the Go module proxy into $dest"
  log "a cold build takes several minutes per binary on a laptop; later runs reuse the cache"
fi

kube_targets=()
for b in ${to_build[@]+"${to_build[@]}"}; do
  [ "$b" = etcd ] || kube_targets+=("k8s.io/kubernetes/cmd/$b")
done

if [ ${#kube_targets[@]} -gt 0 ]; then
  mkdir -p "$work/kube" && cd "$work/kube"
  log "fetching k8s.io/kubernetes@$version (module source, about 60 MB the first time)"
  gomod=$(go mod download -json "k8s.io/kubernetes@$version" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",$/\1/p')
  [ -n "$gomod" ] || { echo "could not download k8s.io/kubernetes@$version: is the Go module proxy reachable (go env GOPROXY)?" >&2; exit 1; }
  {
    echo "module cronlab.dev/kube-binaries"
    echo
    echo "go 1.26"
    echo
    echo "require k8s.io/kubernetes $version"
    echo
    # Every "k8s.io/x => ./staging/src/k8s.io/x" becomes "k8s.io/x => k8s.io/x v0.MINOR.PATCH".
    sed -n 's#^[[:space:]]*\(k8s\.io/[a-z0-9./-]*\) => \./staging/.*#replace \1 => \1 '"$staging_version"'#p' "$gomod"
  } > go.mod
  log "go.mod replaces $(grep -c '^replace' go.mod) staging modules with their $staging_version releases"

  # The version variables that Kubernetes' own build sets (hack/lib/version.sh),
  # so that `kube-apiserver --version` reports the real release and the API
  # server's compatibility version matches it.
  ldflags="-s -w"
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldflags+=" -X $pkg.gitVersion=$version -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor"
    ldflags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z"
  done
  for t in "${kube_targets[@]}"; do
    b=${t##*/}
    start=$SECONDS
    log "go build $b ..."
    build_with_progress "$b" "$t" go build -v -trimpath -ldflags "$ldflags" -o "$work/out/$b" "$t"
    log "built $b in $((SECONDS - start))s"
  done
fi

for b in ${missing_built[@]+"${missing_built[@]}"}; do
  [ "$b" = etcd ] || continue
  mkdir -p "$work/etcd" && cd "$work/etcd"
  printf 'module cronlab.dev/etcd-binary\n\ngo 1.26\n\nrequire go.etcd.io/etcd/server/v3 %s\n' "$ETCD_VERSION" > go.mod
  start=$SECONDS
  log "go build etcd $ETCD_VERSION ..."
  build_with_progress etcd go.etcd.io/etcd/server/v3 go build -v -trimpath -ldflags "-s -w" -o "$work/out/etcd" go.etcd.io/etcd/server/v3
  log "built etcd in $((SECONDS - start))s"
done

for b in "${missing[@]}"; do
  mv -f "$work/out/$b" "$dest/$b"
done
log "done: $(cd "$dest" && ls | tr '\n' ' ')"
