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
"$helm" lint --strict "$chart" --set namespaced=true

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

step "server-side dry run of the rendered chart, with the webhooks off and on (v2 served, converted by the release's Service)"
"$kubectl" get namespace "$ns" >/dev/null 2>&1 || "$kubectl" create namespace "$ns" >/dev/null
"$helm" template "$release" "$chart" -n "$ns" | "$kubectl" apply --server-side --dry-run=server -f - >/dev/null
"$helm" template "$release" "$chart" -n "$ns" --set namespaced=true | "$kubectl" apply --server-side --dry-run=server -f - >/dev/null
ca=$(openssl req -x509 -newkey rsa:2048 -nodes -keyout /dev/null -subj /CN=cronlab-chart-test -days 1 2>/dev/null | base64 | tr -d '\n')
"$helm" template "$release" "$chart" -n "$ns" --set webhooks.enabled=true,webhooks.caBundle="$ca" |
  "$kubectl" apply --server-side --dry-run=server -f - >/dev/null
echo "ok"

step "server-side dry run of dist/install.yaml"
"$kubectl" get namespace cronlab-system >/dev/null 2>&1 || "$kubectl" create namespace cronlab-system >/dev/null
"$kubectl" apply --server-side --dry-run=server -f dist/install.yaml >/dev/null
"$kubectl" delete namespace cronlab-system --wait=false >/dev/null
echo "ok"

crd=cronjobs.batch.cronlab.dev
owner() { "$kubectl" get crd "$crd" -o jsonpath='{.metadata.annotations.meta\.helm\.sh/release-name}' 2>/dev/null; }
took_crd=false install_args=()
if [ -n "$(owner)" ] && [ "$(owner)" != "$release" ]; then
  step "the CRD belongs to release $(owner): install this one without it (crd.enable=false)"
  install_args=(--set crd.enable=false)
elif "$kubectl" get crd "$crd" >/dev/null 2>&1 && [ -z "$(owner)" ]; then
  step "the CRD is already there (make install): helm install refuses it, saying what to do"
  if out=$("$helm" install "$release" "$chart" -n "$ns" 2>&1); then
    echo "helm install took over a CRD that no release owned"; exit 1
  fi
  grep -q 'crd.enable=false' <<<"$out" || { echo "helm install failed without the way out: $out"; exit 1; }
  echo "refused as expected: $out"

  step "adopt the CRD as docs/packaging.md says (given back after the test)"
  "$kubectl" label crd "$crd" app.kubernetes.io/managed-by=Helm --overwrite >/dev/null
  "$kubectl" annotate crd "$crd" meta.helm.sh/release-name="$release" meta.helm.sh/release-namespace="$ns" --overwrite >/dev/null
fi
# After the test the CRD is left as make install leaves it: owned by no
# release, so that the next helm install, of any name, may take it.
give_back() {
  $took_crd || return 0
  "$kubectl" label crd "$crd" app.kubernetes.io/managed-by- helm.sh/chart- app.kubernetes.io/name- \
    app.kubernetes.io/instance- control-plane- >/dev/null 2>&1 || true
  "$kubectl" annotate crd "$crd" meta.helm.sh/release-name- meta.helm.sh/release-namespace- \
    helm.sh/resource-policy- >/dev/null 2>&1 || true
}
cleanup() { "$helm" uninstall "$release" -n "$ns" >/dev/null 2>&1 || true; give_back; }

step "helm install: the manager Deployment becomes Available, the release owns the CRD"
[ ${#install_args[@]} -gt 0 ] || took_crd=true
"$helm" install "$release" "$chart" -n "$ns" ${install_args[@]+"${install_args[@]}"} --wait --timeout 3m
"$kubectl" -n "$ns" wait --for=condition=Available deployment -l "app.kubernetes.io/instance=$release" --timeout=60s
[ ${#install_args[@]} -gt 0 ] || [ "$(owner)" = "$release" ] || { echo "the CRD does not belong to release $release"; exit 1; }

step "helm uninstall: everything goes but the CRD, which the chart keeps (crd.keep)"
"$helm" uninstall "$release" -n "$ns" --wait --timeout 2m
left=$("$kubectl" get deployments,serviceaccounts,services,roles,rolebindings -n "$ns" -l "app.kubernetes.io/instance=$release" -o name)
left+=$("$kubectl" get clusterroles,clusterrolebindings -l "app.kubernetes.io/instance=$release" -o name)
if [ -n "$left" ]; then echo "left behind after uninstall: $left"; exit 1; fi
"$kubectl" get crd "$crd" >/dev/null || { echo "the CRD is gone, and every CronJob with it: crd.keep failed"; exit 1; }
give_back
took_crd=false
"$kubectl" delete namespace "$ns" --wait=false >/dev/null
echo "ok: nothing left but the CRD"
