#!/usr/bin/env bash
# Two local clusters of the same name, under two HOMEs on one machine (two
# attendees on a shared workshop machine, two CI jobs on one runner): bringing
# either one down must leave the other serving.
#
# Run from the Makefile (make test-cluster-isolation) with this HOME's cluster
# up; at the end that cluster is down too, as `make cluster-down` leaves it.
# Set by the Makefile: KUBE_BIN_CACHE KUBECTL
set -euo pipefail
cd "$(dirname "$0")/.."
: "${KUBE_BIN_CACHE:?} ${KUBECTL:?}"
log() { printf '[isolation] %s\n' "$*" >&2; }

ours_kubeconfig=${KUBECONFIG:-$HOME/.kube/config}
ours_kwok=${KWOK_WORKDIR:-$HOME/.kwok}
other_home=$(mktemp -d "${TMPDIR:-/tmp}/cronlab-other-home-XXXXXX")
other_kubeconfig=$other_home/.kube/config
other_kwok=$other_home/.kwok
# The other user shares the machine's Go caches and Kubernetes binaries, so
# that their cluster starts in seconds; its kwokctl files and kubeconfig are
# its own, under its HOME.
as_other() {
  env -u KWOK_WORKDIR HOME="$other_home" KUBECONFIG="$other_kubeconfig" \
    GOPATH="$(go env GOPATH)" GOMODCACHE="$(go env GOMODCACHE)" GOCACHE="$(go env GOCACHE)" \
    KUBE_BIN_CACHE=$KUBE_BIN_CACHE "$@"
}
cleanup() {
  as_other make --no-print-directory cluster-down >/dev/null 2>&1 || true
  chmod -R u+w "$other_home" 2>/dev/null || true
  rm -rf "$other_home"
}
trap cleanup EXIT

serves() { # serves KUBECONFIG: the nodes of its cluster answer
  "$KUBECTL" --kubeconfig "$1" --context kwok-cronlab --request-timeout=10s get nodes >/dev/null
}
pids_of() { # pids_of KWOK_WORKDIR: the PIDs that kwokctl recorded for its cluster
  local f pids=""
  for f in "$1"/clusters/cronlab/pids/*.pid; do
    [ -f "$f" ] && pids="$pids $(tr -cd '0-9' < "$f")"
  done
  [ -n "$pids" ] || { log "no PID files in $1/clusters/cronlab/pids"; exit 1; }
  echo $pids
}
running() { # running PID: the process runs (an exited one that its parent has not reaped yet does not)
  local stat
  stat=$(ps -o stat= -p "$1" 2>/dev/null || true)
  [ -n "$stat" ] && [ "${stat#Z}" = "$stat" ]
}
all_gone() { # all_gone PIDS: none of them runs, within 10 seconds
  local pid tries=0
  for pid in $1; do
    while running "$pid"; do
      tries=$((tries + 1))
      [ "$tries" -le 20 ] || { log "PID $pid still runs: $(ps -o args= -p "$pid")"; return 1; }
      sleep 0.5
    done
  done
}

serves "$ours_kubeconfig" || { log "this HOME's cluster does not answer: run make cluster first"; exit 1; }
log "a second cluster named cronlab, under another HOME ($other_home)"
as_other make --no-print-directory cluster
serves "$other_kubeconfig"

theirs=$(pids_of "$other_kwok")
log "bringing the other HOME's cluster down (PIDs $theirs)"
as_other make --no-print-directory cluster-down
all_gone "$theirs" || { log "processes of the other cluster still run after its cluster-down"; exit 1; }
serves "$ours_kubeconfig" || { log "FAIL: this HOME's cluster stopped when the other HOME's went down"; exit 1; }
log "ok: this HOME's cluster still serves"

log "and the other way round: the other cluster up again, this HOME's down"
as_other make --no-print-directory cluster
ours=$(pids_of "$ours_kwok")
make --no-print-directory cluster-down
all_gone "$ours" || { log "processes of this HOME's cluster still run after its cluster-down"; exit 1; }
serves "$other_kubeconfig" || { log "FAIL: the other HOME's cluster stopped when this HOME's went down"; exit 1; }
log "ok: the other HOME's cluster still serves; each cluster-down stopped its own processes only"
