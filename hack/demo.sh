#!/usr/bin/env bash
# make demo: the operator at work on a local cluster, shown as it happens.
# The Makefile has already started the cluster, installed the CRD and built
# bin/manager. This script runs the manager, applies a CronJob that runs
# every 10 seconds, and prints each change it sees until Ctrl-C (or, for
# CI, until DEMO_SECONDS have passed).
set -euo pipefail

kubectl=${KUBECTL:-kubectl}
manager=${MANAGER:-bin/manager}
sample=config/samples/demo_cronjob.yaml
log_file=bin/demo-manager.log
seconds=${DEMO_SECONDS:-0}

say() { printf '%s  %s\n' "$(date +%H:%M:%S)" "$*"; }

manager_pid=
cleanup() {
  trap - INT TERM EXIT
  echo
  if [ -n "$manager_pid" ] && kill -0 "$manager_pid" 2>/dev/null; then
    say "stopping the manager"
    # It may have stopped on the same Ctrl-C meanwhile: no error for that.
    kill -TERM "$manager_pid" 2>/dev/null && wait "$manager_pid" 2>/dev/null || true
  fi
  "$kubectl" delete -f "$sample" --ignore-not-found --wait=false >/dev/null 2>&1 || true
  say "removed the demo CronJob (its Jobs go with it). The cluster keeps running: 'make cluster-down' removes it."
  say "manager log: $log_file"
}
trap cleanup INT TERM EXIT

say "starting the manager (log: $log_file)"
ENABLE_WEBHOOKS=false "$manager" --metrics-bind-address=0 --health-probe-bind-address=0 > "$log_file" 2>&1 &
manager_pid=$!

say "applying $sample: schedule @every 10s, successfulJobsHistoryLimit 2"
"$kubectl" apply -f "$sample" >/dev/null

say "watching; press Ctrl-C to stop"
# Every second, take a snapshot of the CronJob's status, its Jobs, their pods
# and its Events, and print the lines that are new since the last snapshot.
snapshot() {
  "$kubectl" get cronjobs.batch.cronlab.dev demo --no-headers \
    -o custom-columns='x:.metadata.name,active:.status.active[*].name,last:.status.lastScheduleTime,ok:.status.lastSuccessfulTime' 2>/dev/null |
    awk '{printf "cronjob  %s  active=[%s] lastSchedule=%s lastSuccessful=%s\n", $1, $2, $3, $4}'
  "$kubectl" get jobs -l app=cronlab-demo --no-headers \
    -o custom-columns='n:.metadata.name,s:.status.conditions[?(@.status=="True")].type' 2>/dev/null |
    awk '{n=split($2, c, ","); s=c[n]; if (s=="<none>") s="Running"; printf "job      %s  %s\n", $1, s}'
  "$kubectl" get pods -l app=cronlab-demo --no-headers -o custom-columns='n:.metadata.name,p:.status.phase' 2>/dev/null |
    awk '{printf "pod      %s  %s\n", $1, $2}'
  "$kubectl" get events --field-selector involvedObject.name=demo --no-headers \
    -o custom-columns='r:.reason,m:.note,m2:.message' 2>/dev/null |
    awk '{r=$1; $1=""; sub(/^ +/, ""); sub(/ +<none>$/, ""); sub(/^<none> +/, ""); printf "event    %s: %s\n", r, $0}'
}
# The lines printed so far, one per line: a file and grep -Fx rather than an
# associative array, which macOS's bash 3.2 does not have (docs/laptops.md).
seen=bin/demo-seen.txt
: > "$seen"
start=$SECONDS
while :; do
  if ! kill -0 "$manager_pid" 2>/dev/null; then
    # Ctrl-C reaches the manager too (it is in the terminal's process group),
    # and it shuts down cleanly, with status 0: that is the demo's normal
    # end. Any other status is a failure, shown with the manager's log.
    status=0
    wait "$manager_pid" || status=$?
    manager_pid=
    if [ "$status" -eq 0 ]; then
      say "stopped (Ctrl-C); the manager shut down cleanly"
      exit 130
    fi
    say "the manager exited with status $status; last lines of $log_file:"
    tail -n 20 "$log_file"
    exit 1
  fi
  current=$(snapshot)
  while IFS= read -r line; do
    [ -n "$line" ] || continue
    if ! grep -Fxq -- "$line" "$seen"; then
      printf '%s\n' "$line" >> "$seen"
      say "$line"
    fi
  done <<<"$current"
  # A Job seen before and no longer listed was deleted by the history limit.
  for name in $(awk '$1 == "job" {print $2}' "$seen" | sort -u); do
    if ! awk -v n="$name" '$1 == "job" && $2 == n {found=1} END {exit !found}' <<<"$current" &&
      ! grep -Fxq -- "gone $name" "$seen"; then
      printf 'gone %s\n' "$name" >> "$seen"
      say "job      $name  deleted (history limit)"
    fi
  done
  if [ "$seconds" -gt 0 ] && [ $((SECONDS - start)) -ge "$seconds" ]; then
    exit 0
  fi
  sleep 1
done
