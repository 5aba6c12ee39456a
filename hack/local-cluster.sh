#!/usr/bin/env bash
# A local Kubernetes control plane without Docker, for attendees who have no
# Docker (or no kind), and for the end-to-end tests in CI.
#
# kwokctl runs the real etcd, kube-apiserver, kube-controller-manager and
# kube-scheduler as plain processes, and kwok pretends to be the kubelets of a
# few fake nodes: pods are scheduled and bound for real, then kwok marks them
# Running and, for pods of Jobs, Completed. So the Job controller, the
# garbage collector and the scheduler all do their real work; only the
# containers are imaginary.
#
# Usage: hack/local-cluster.sh up|down|status
# Set by the Makefile: KWOKCTL KWOK KWOK_VERSION KUBE_VERSION KUBE_BIN_CACHE
set -euo pipefail

name=${CLUSTER_NAME:-cronlab}
nodes=${CLUSTER_NODES:-3}
context="kwok-$name"
# kwokctl's own bookkeeping for this user and HOME: the cluster's files, and
# a PID file for each process it started (pids/<component>.pid).
workdir="${KWOK_WORKDIR:-$HOME/.kwok}/clusters/$name"
here=$(cd "$(dirname "$0")" && pwd)
log() { printf '[cluster] %s\n' "$*" >&2; }
: "${KWOKCTL:?} ${KWOK:?} ${KWOK_VERSION:?} ${KUBE_VERSION:?} ${KUBE_BIN_CACHE:?}"
kubectl="$KUBE_BIN_CACHE/kubectl"

# kwokctl prints JSON log lines when it is not on a terminal; keep only the
# message, so the output stays readable in CI logs and in `make demo`.
kwokctl() {
  "$KWOKCTL" "$@" 2>&1 | sed -E 's/^\{.*"msg":"([^"]*)".*$/[kwokctl] \1/' >&2
}

exists() { "$KWOKCTL" get clusters 2>/dev/null | grep -qx "$name"; }

# stages writes the kwok Stage configuration: how fake nodes and pods behave.
# They come from kwok's own module (fetched through the Go module proxy):
#  - node/fast and node/heartbeat-with-lease: nodes become Ready and stay so;
#  - pod/general: pods go Pending -> Running -> Succeeded (for Job pods), and
#    honour per-pod annotations, e.g. pod-complete.stage.kwok.x-k8s.io/delay: "90s"
#    for a long-running Job;
#  - pod/chaos container failure: pods labelled
#    pod-container-running-failed.stage.kwok.x-k8s.io=true fail, for failed Jobs.
stages() {
  local dir out=$1
  dir=$(cd "$here" && go mod download -json "sigs.k8s.io/kwok@$KWOK_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  [ -d "$dir/kustomize/stage" ] || { log "could not fetch sigs.k8s.io/kwok@$KWOK_VERSION through the Go module proxy"; exit 1; }
  : > "$out"
  for f in node/fast/node-initialize.yaml node/heartbeat-with-lease/node-heartbeat-with-lease.yaml \
           pod/general/pod-create.yaml pod/general/pod-init-container-running.yaml \
           pod/general/pod-init-container-completed.yaml pod/general/pod-ready.yaml \
           pod/general/pod-complete.yaml pod/general/pod-delete.yaml \
           pod/chaos/pod-container-running-failed.yaml; do
    { echo "---"; cat "$dir/kustomize/stage/$f"; } >> "$out"
  done
}

up() {
  local start=$SECONDS
  "$here/kube-binaries.sh" "$KUBE_BIN_CACHE" "$KUBE_VERSION" \
    etcd kube-apiserver kube-controller-manager kube-scheduler kubectl
  if exists; then
    log "cluster $name exists; making sure it runs"
    kwokctl start cluster --name "$name"
  else
    local config="$KUBE_BIN_CACHE/kwok-stages-$KWOK_VERSION.yaml"
    stages "$config"
    log "creating cluster $name: Kubernetes $KUBE_VERSION control plane as local processes, kwok for the nodes"
    kwokctl create cluster --name "$name" --runtime binary --config "$config" \
      --etcd-binary "$KUBE_BIN_CACHE/etcd" \
      --kube-apiserver-binary "$KUBE_BIN_CACHE/kube-apiserver" \
      --kube-controller-manager-binary "$KUBE_BIN_CACHE/kube-controller-manager" \
      --kube-scheduler-binary "$KUBE_BIN_CACHE/kube-scheduler" \
      --kwok-controller-binary "$KWOK" \
      --wait 2m
  fi
  kwokctl scale node --name "$name" --replicas "$nodes"
  "$kubectl" config use-context "$context" >/dev/null
  "$kubectl" wait --for=condition=Ready nodes --all --timeout=60s >/dev/null
  log "cluster $name is up in $((SECONDS - start))s, with $nodes fake nodes; kubectl context: $context"
  local minor=${KUBE_VERSION#v1.}
  minor=${minor%%.*}
  log "kubectl for it: $kubectl (or a kubectl 1.$((minor - 1)) to 1.$((minor + 1)) on PATH; bin/lab doctor checks yours)"
}

# ours tells whether the process PID runs this cluster: its command line
# names this cluster's own directory. A PID that was reused by any other
# process, or that belongs to the cluster of the same name under another
# HOME, is not ours.
ours() {
  case $(ps -o args= -p "$1" 2>/dev/null || true) in
    *"$workdir/"*) return 0 ;;
  esac
  return 1
}

# recorded prints "PID component" for each process that kwokctl recorded for
# this cluster and that is still ours.
recorded() {
  local f pid
  for f in "$workdir"/pids/*.pid; do
    [ -f "$f" ] || continue
    pid=$(tr -cd '0-9' < "$f")
    if [ -n "$pid" ] && ours "$pid"; then
      echo "$pid $(basename "$f" .pid)"
    fi
  done
}

down() {
  # Read before kwokctl deletes the cluster, and its PID files with it.
  local before
  before=$(recorded)
  if exists; then
    kwokctl delete cluster --name "$name"
  else
    log "no cluster $name"
  fi
  # kwokctl stops its processes; stop any that outlived it, and only those.
  local pid component
  while read -r pid component; do
    if [ -n "$pid" ] && ours "$pid"; then
      log "stopping $component (PID $pid), which outlived kwokctl delete"
      kill "$pid" 2>/dev/null || true
    fi
  done <<PIDS
$before
PIDS
}

status() {
  if exists; then
    "$kubectl" --context "$context" get nodes
  else
    log "no cluster $name; start one with 'make cluster'"
    return 1
  fi
}

case ${1:-} in
  up) up ;;
  down) down ;;
  status) status ;;
  *) echo "usage: $0 up|down|status" >&2; exit 2 ;;
esac
