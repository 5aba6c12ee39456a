/*
Copyright 2026 The cronlab Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package main

// The report: the same Markdown on stdout and in -out, so that what a CI
// log shows and what docs/bench/board-load.md keeps read alike.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"cronlab.dev/cronlab/cmd/lab/internal/classwire"
)

// dist is a latency distribution, by nearest rank.
type dist struct {
	n                  int
	p50, p95, p99, max time.Duration
}

func distOf(ds []time.Duration) dist {
	if len(ds) == 0 {
		return dist{}
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	rank := func(p int) time.Duration { return s[max((p*len(s)+99)/100-1, 0)] } // ceil(p% of n)
	return dist{n: len(s), p50: rank(50), p95: rank(95), p99: rank(99), max: s[len(s)-1]}
}

func ms(d time.Duration) string {
	if d < 10*time.Millisecond {
		return fmt.Sprintf("%.1f", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%.0f", float64(d)/float64(time.Millisecond))
}

func mib(bytes int64) string { return fmt.Sprintf("%.1f MiB", float64(bytes)/(1<<20)) }

func count(n int) string {
	if n < 0 {
		return "unknown"
	}
	return fmt.Sprint(n)
}

func printReport(w io.Writer, f figures) { _, _ = io.WriteString(w, "\n"+markdown(f)) }

func writeReport(path string, f figures) error { return os.WriteFile(path, []byte(markdown(f)), 0o644) }

func markdown(f figures) string {
	var b bytes.Buffer
	c := f.cfg
	fmt.Fprintf(&b, "# The class board under load\n\n")
	fmt.Fprintf(&b, "Measured %s UTC on %s (%d CPUs%s%s), bin/lab built with %s; the run took %v:\n\n",
		f.when.Format("2006-01-02 15:04"), f.host, f.cpus, prefixed(": ", f.cpuModel), prefixed(", load average at the start ", f.loadAvg),
		f.goVersion, f.wall.Round(time.Second))
	fmt.Fprintf(&b, "    %s\n\n", f.command)
	fmt.Fprintf(&b, "%d attendees, each checking every %v for %v: a result of %d specs and %d functions (%d bytes of JSON), queued and sent by package class as bin/lab check does.",
		c.attendees, c.every, c.dur, specsPerStage, functionsPerResult, f.resultBytes)
	if c.killAt > 0 {
		fmt.Fprintf(&b, " At %v the board was killed with SIGKILL, and started again %v later on the same database and port.", c.killAt, c.down)
	}
	b.WriteString("\n\n")
	if len(f.failures) == 0 {
		b.WriteString("**PASS**: every result stored and shown, none lost, none counted twice.\n\n")
	} else {
		fmt.Fprintf(&b, "**FAIL**: %d problems; the first ones:\n\n", len(f.failures))
		for _, p := range f.failures[:min(len(f.failures), 20)] {
			fmt.Fprintf(&b, "- %s\n", p)
		}
		b.WriteString("\n")
	}
	counts(&b, f)
	latencyTable(&b, f)
	explain(&b, f)
	return b.String()
}

func counts(b *bytes.Buffer, f figures) {
	rows := [][2]string{
		{"results sent", count(f.sent)},
		{"stored (acknowledged by the board)", count(f.stored)},
		{"shown (counted by the page's snapshot)", count(f.shown)},
		{"**lost**", count(f.lost)},
		{"**counted twice**", count(f.twice)},
	}
	if f.killed || f.putBack > 0 {
		rows = append(rows, [2]string{"sent again after the restart, as if the kill had cut off their answer", count(f.putBack)})
	}
	// Whether they were also left out of the count is the row "counted twice".
	rows = append(rows, [2]string{"sent again and answered by the board as already stored", count(f.dups)})
	if f.killed {
		rows = append(rows, [2]string{fmt.Sprintf("board's peak RSS (VmHWM) before the kill, holding %d results", f.checksAtKill), peak(f.killKB)})
	}
	rows = append(rows, [2]string{fmt.Sprintf("board's peak RSS (VmHWM) at the end, holding %d results", f.sent), peak(f.endKB)})
	if f.killed {
		rows = append(rows,
			[2]string{fmt.Sprintf("restart: start to first answer, replaying %d results", f.checksAtKill), f.restart.Round(time.Millisecond).String()},
			[2]string{"outage: kill to first answer", f.outage.Round(time.Millisecond).String()})
	}
	rows = append(rows,
		[2]string{"database at the end", mib(f.dbBytes)},
		[2]string{"snapshot the page reads, at the end", fmt.Sprintf("%.0f KiB", float64(f.snapshotBytes)/1024)},
		[2]string{"page: change events, snapshots read, stream connections", fmt.Sprintf("%d, %d, %d", f.events, f.snaps, f.streams)})
	b.WriteString("| | |\n|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(b, "| %s | %s |\n", r[0], r[1])
	}
	b.WriteString("\n")
}

func peak(kb int64) string {
	if kb == 0 {
		return "unknown (no /proc)"
	}
	return mib(kb << 10)
}

func latencyTable(b *bytes.Buffer, f figures) {
	b.WriteString("| latency, ms | p50 | p95 | p99 | max | count |\n|---|---|---|---|---|---|\n")
	row := func(name string, d dist) {
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %d |\n", name, ms(d.p50), ms(d.p95), ms(d.p99), ms(d.max), d.n)
	}
	row("send → stored", f.toStored)
	if f.killed {
		row("send → stored, not waiting for the outage", f.toStoredSteady)
	}
	row("send → shown", f.toShown)
	if f.killed {
		row("send → shown, not waiting for the outage", f.toShownSteady)
	}
	row("the page's read of the snapshot, first tenth of the run", f.readsEarly)
	row("the page's read of the snapshot, last tenth of the run", f.readsLate)
	b.WriteString("\n")
}

func explain(b *bytes.Buffer, f figures) {
	b.WriteString(`Send is when an attendee's result was made and queued (class.Enqueue). Stored is when
its send (class.Flush, at most 5 s) returned with the result's file gone from the queue:
the board answers only after the result's transaction committed. Shown is when a snapshot
(GET /api/v1/board), read as the page reads it, on each "changed" event of the stream
(at most one every 150 ms) and at least every second, first counted it.
`)
	if f.killed {
		b.WriteString(`A result that met the outage (made before the restarted board answered, stored or
shown after the kill) waits for the board and then for its attendee's next check, as a real
clone's queue does: the rows "not waiting for the outage" leave those out.
`)
	}
	b.WriteString(`Lost and counted twice compare each attendee's results with the checks the final
snapshot counts for it; the board stores a result once per (attendee, seq).
`)
}

func prefixed(prefix, s string) string {
	if s == "" {
		return ""
	}
	return prefix + s
}

// cpuModel is the processor's name, where Linux says it.
func cpuModel() string {
	raw, _ := os.ReadFile("/proc/cpuinfo")
	for _, line := range strings.Split(string(raw), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// loadAverage is the machine's 1-minute load average, where Linux says it:
// a run on a machine others use measures them too.
func loadAverage() string {
	raw, _ := os.ReadFile("/proc/loadavg")
	if fields := strings.Fields(string(raw)); len(fields) > 0 {
		return fields[0]
	}
	return ""
}

// commandLine is how this run was started, as one would type it again.
func commandLine() string {
	name := os.Args[0]
	if strings.Contains(name, "go-build") { // the temporary binary of go run
		name = "go run ./cmd/lab/hack/boardload"
	}
	parts := []string{name}
	for _, a := range os.Args[1:] {
		if strings.ContainsAny(a, " \t'\"$") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		parts = append(parts, a)
	}
	return strings.Join(parts, " ")
}

// typicalResultBytes is the size of a check's message: the largest of an
// attendee's first ten, as one that did not compile is much smaller.
func typicalResultBytes(c config) int {
	t0 := time.Now()
	sim := newSimulated(1, t0, c.every, c.dur)
	most := 0
	for i := range 10 {
		at := t0.Add(time.Duration(i) * c.every)
		raw, _ := json.Marshal(classwire.Message{Seq: int64(i + 1), At: at.UTC(), Result: sim.result(at)})
		most = max(most, len(raw))
	}
	return most
}
