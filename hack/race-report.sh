#!/usr/bin/env bash
# The packages whose code runs on several goroutines (informers' handlers, a
# work queue and its workers, a manager's reconciles beside a lease renewal,
# event writers), tested with Go's race detector. Too long for CI (every
# test binary is built again with the detector; the report gives the times),
# so it is a make target whose report is committed: make test-race writes
# docs/bench/race.md, with the machine, the load and each package's time,
# and fails if a package fails or a race is reported.
#
# Run from the Makefile, which sets KUBEBUILDER_ASSETS for the envtest suites.
set -uo pipefail
cd "$(dirname "$0")/.."
: "${KUBEBUILDER_ASSETS:?run it with make test-race}"
out=${RACE_REPORT:-docs/bench/race.md}
packages=(
	./internal/leader          # the fence: renewals from the elector, checks from reconciles
	./internal/ownwrites       # the memory of own writes, read and written by every worker
	./internal/expectations    # the same, for the hand-written controller's expectations
	./internal/eventsink       # Events written by several writers
	./internal/handwritten     # informers' handlers, the work queue, its workers
	./exercises/q4-level-based # a manager's queue coalescing events from its informers
	./internal/controller      # the Reconciler under a real manager, with the fence and the leader's Lease
)
logs=$(mktemp -d "${TMPDIR:-/tmp}/cronlab-race-XXXXXX")
trap 'rm -rf "$logs"' EXIT

# The one-minute load average, as uptime prints it on Linux and on macOS.
load() { uptime | sed -E 's/.*load averages?: ([0-9.]+).*/\1/'; }
rows=()
failed=0
started=$(date +%s)
load_before=$(load)
for p in "${packages[@]}"; do
	log=$logs/$(echo "$p" | tr / _).log
	printf '[race] %s ...\n' "$p" >&2
	s=$(date +%s)
	if go test -race -count=1 "$p" >"$log" 2>&1; then result=ok; else result=FAIL; failed=1; fi
	took=$(($(date +%s) - s))
	races=$(grep -c '^WARNING: DATA RACE' "$log" || true)
	[ "$races" -gt 0 ] && failed=1
	printf '[race] %s: %s in %d s, %d race(s) reported (load %s)\n' "$p" "$result" "$took" "$races" "$(load)" >&2
	if [ "$result" = FAIL ] || [ "$races" -gt 0 ]; then
		tail -40 "$log" >&2
	fi
	rows+=("| \`$p\` | $result | $races | $took s |")
done
total=$(($(date +%s) - started))

{
	echo "# The race detector on the packages that run on several goroutines"
	echo
	echo "Written by \`make test-race\` (hack/race-report.sh); do not edit. Each package's tests ran with"
	echo "\`go test -race -count=1\`, one package after the other; a package passes when its tests pass and the"
	echo "race detector reported no race (\`WARNING: DATA RACE\`)."
	echo
	echo "Measured $(date -u +%Y-%m-%d) on $(getconf _NPROCESSORS_ONLN) cores ($(go version | cut -d' ' -f3), $(uname -s)/$(uname -m)); load"
	echo "average $load_before before, $(load) after; $total s in all. The times include building each test binary"
	echo "with the race detector where the build cache does not hold it yet."
	echo
	echo "| package | result | races reported | time |"
	echo "|---|---|---|---|"
	printf '%s\n' "${rows[@]}"
} >"$out"
printf '[race] wrote %s (%d s)\n' "$out" "$total" >&2
exit $failed
