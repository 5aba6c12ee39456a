#!/usr/bin/env bash
# make test-chart: the Helm chart and dist/install.yaml against the cluster of
# the current kubeconfig (CI uses the local cluster, where kwok runs the pods).
set -euo pipefail
helm=${HELM:?} kubectl=${KUBECTL:?}
chart=charts/cronlab
release=cronlab-chart-test
ns=cronlab-chart-test
step() { printf '\n--- %s\n' "$*"; }
cleanup() { "$helm" uninstall "$release" -n "$ns" >/dev/null 2>&1 || true; }
trap cleanup EXIT

step "helm lint, with the default values and with every switch on"
"$helm" lint --strict "$chart"
"$helm" lint --strict "$chart" --set webhooks.enabled=true,certManager.enabled=true,serviceMonitor.enabled=true,networkPolicy.enabled=true,replicas=2

step "bad values are refused with a message"
expect_fail() {
  local want=$1; shift
  if out=$("$helm" template x "$chart" "$@" 2>&1); then
    echo "expected helm to refuse: $*"; exit 1
  fi
  grep -q "$want" <<<"$out" || { echo "expected '$want' in: $out"; exit 1; }
  echo "refused as expected: $want"
}
expect_fail "webhooks.caBundle is needed" --set webhooks.enabled=true
expect_fail "replicas > 1 needs leaderElection" --set replicas=2,leaderElection=false
expect_fail "additional properties 'replica' not allowed" --set replica=2
expect_fail "pullPolicy" --set image.pullPolicy=Sometimes

step "server-side dry run of the rendered chart"
"$kubectl" get namespace "$ns" >/dev/null 2>&1 || "$kubectl" create namespace "$ns" >/dev/null
"$helm" template "$release" "$chart" -n "$ns" --include-crds | "$kubectl" apply --server-side --dry-run=server -f - >/dev/null
echo "ok"

step "server-side dry run of dist/install.yaml"
"$kubectl" get namespace cronlab-system >/dev/null 2>&1 || "$kubectl" create namespace cronlab-system >/dev/null
"$kubectl" apply --server-side --dry-run=server -f dist/install.yaml >/dev/null
"$kubectl" delete namespace cronlab-system --wait=false >/dev/null
echo "ok"

step "helm install: the manager Deployment becomes Available"
"$helm" install "$release" "$chart" -n "$ns" --wait --timeout 3m
"$kubectl" -n "$ns" wait --for=condition=Available deployment -l "app.kubernetes.io/instance=$release" --timeout=60s
"$kubectl" get crd cronjobs.batch.cronlab.dev >/dev/null

step "helm uninstall: everything goes but the CRD, as Helm does"
"$helm" uninstall "$release" -n "$ns" --wait --timeout 2m
left=$("$kubectl" get deployments,serviceaccounts,services,roles,rolebindings -n "$ns" -l "app.kubernetes.io/instance=$release" -o name)
left+=$("$kubectl" get clusterroles,clusterrolebindings -l "app.kubernetes.io/instance=$release" -o name)
if [ -n "$left" ]; then echo "left behind after uninstall: $left"; exit 1; fi
"$kubectl" get crd cronjobs.batch.cronlab.dev >/dev/null || { echo "the CRD is gone, but Helm keeps CRDs"; exit 1; }
"$kubectl" delete namespace "$ns" --wait=false >/dev/null
echo "ok: nothing left but the CRD"
