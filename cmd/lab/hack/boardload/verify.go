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

// What the run asserts, and the figures it reports. The board keys each
// result on (attendee, seq), so its count of an attendee's checks equals
// the results that attendee made only if none was lost and none counted
// twice; and only results the attendees saw acknowledged, and the page
// saw, have a latency.

import (
	"context"
	"debug/buildinfo"
	"os"
	"runtime"
	"time"
)

type figures struct {
	when                    time.Time
	wall                    time.Duration
	cfg                     config
	host, cpuModel, command string
	cpus                    int
	goVersion               string // the board's: the toolchain bin/lab was built with
	loadAvg                 string // the machine's, as the run began: it shares the CPUs

	sent, stored, shown    int
	lost, twice            int // -1: unknown, the final snapshot could not be read
	putBack, dups, refused int
	resultBytes            int // one typical result's JSON

	toStored, toShown             dist
	toStoredSteady, toShownSteady dist
	readsEarly, readsLate         dist // the page's GET of the snapshot, first and last tenth
	snapshotBytes                 int

	killKB, endKB          int64 // VmHWM of the killed board, and of the last one
	killed                 bool
	restart, outage        time.Duration
	checksAtKill           int
	dbBytes                int64
	events, snaps, streams int64

	failures []string
}

// finish verifies the final state, stops the board and gathers the figures.
func (r *run) finish(ctx context.Context, began time.Time) figures {
	final, snapErr := r.finalSnapshot(ctx)
	if snapErr != nil {
		r.failf("could not read the board's final snapshot: %v", snapErr)
	}
	endKB := peakRSS(r.board.pid())
	r.board.stop()
	f := figures{when: time.Now().UTC(), cfg: r.cfg, lost: -1, twice: -1, endKB: endKB, loadAvg: r.loadAvg,
		cpus: runtime.NumCPU(), cpuModel: cpuModel(), command: commandLine(), goVersion: labGoVersion(r.cfg.lab),
		events: r.watch.events.Load(), snaps: r.watch.snapshots.Load(), streams: r.watch.connects.Load()}
	f.host, _ = os.Hostname()
	if o := r.outage; !o.killed.IsZero() && !o.answered.IsZero() {
		f.killed, f.restart, f.outage, f.checksAtKill = true, o.answered.Sub(o.started), o.answered.Sub(o.killed), o.checksAtKill
		f.killKB = o.peakKB
	}
	// The board recomputes the snapshot from every result it holds: the
	// first and the last tenth of the checks show whether that grows.
	tenth := r.cfg.dur / 10
	f.readsEarly = distOf(r.watch.readsBetween(r.t0, r.t0.Add(tenth)))
	f.readsLate = distOf(r.watch.readsBetween(r.stopAt.Add(-tenth), r.stopAt))
	r.watch.mu.Lock()
	f.snapshotBytes = r.watch.lastBytes
	r.watch.mu.Unlock()
	for _, suffix := range []string{"", "-wal"} {
		if fi, err := os.Stat(r.board.db + suffix); err == nil {
			f.dbBytes += fi.Size()
		}
	}
	r.latencies(&f)
	if snapErr == nil {
		f.lost, f.twice = r.verify(final, f)
	}
	f.resultBytes = typicalResultBytes(r.cfg)
	f.wall = time.Since(began)
	r.mu.Lock()
	f.failures = append([]string(nil), r.failures...)
	r.mu.Unlock()
	return f
}

// verify compares the final snapshot with what each attendee made, and
// returns how many results are lost and how many counted twice.
func (r *run) verify(s snapshot, f figures) (lost, twice int) {
	type view struct {
		lastSeq int64
		checks  int
	}
	views := map[int64]view{}
	for _, v := range s.Attendees {
		views[v.ID] = view{v.LastSeq, v.Checks}
	}
	if len(views) != len(r.attendees) {
		r.failf("the board lists %d attendees, %d joined", len(views), len(r.attendees))
	}
	for _, a := range r.attendees {
		l := a.ledger()
		made := len(l.made)
		v, ok := views[a.id]
		switch {
		case !ok:
			r.failf("attendee %d (board id %d) is not on the board", a.n, a.id)
			lost += made
		case v.checks < made:
			r.failf("attendee %d made %d results, the board holds %d", a.n, made, v.checks)
			lost += made - v.checks
		case v.checks > made:
			r.failf("attendee %d made %d results, the board counts %d", a.n, made, v.checks)
			twice += v.checks - made
		}
		if ok && v.lastSeq != int64(made) {
			r.failf("attendee %d's last result is %d, the board's %d", a.n, made, v.lastSeq)
		}
		for seq := range made {
			if l.storedAt[seq].IsZero() || l.shownAt[seq].IsZero() {
				r.failf("attendee %d's result %d was never seen stored and shown", a.n, seq+1)
				break
			}
		}
	}
	if f.refused > 0 {
		r.failf("the board refused %d results as malformed", f.refused)
	}
	// Every result put back was acknowledged before the kill: the board
	// must have answered each one as a duplicate.
	if f.dups < f.putBack {
		r.failf("%d results were sent again after the restart, the board recognised only %d duplicates", f.putBack, f.dups)
	}
	return lost, twice
}

// latencies gathers the send → stored and send → shown times.
func (r *run) latencies(f *figures) {
	var stored, shown, storedSteady, shownSteady []time.Duration
	for _, a := range r.attendees {
		l := a.ledger()
		f.sent += len(l.made)
		f.putBack, f.dups, f.refused = f.putBack+l.putBack, f.dups+l.dups, f.refused+l.refused
		for i, made := range l.made {
			if at := l.storedAt[i]; !at.IsZero() {
				f.stored++
				stored = append(stored, at.Sub(made))
				if !r.metOutage(made, at) {
					storedSteady = append(storedSteady, at.Sub(made))
				}
			}
			if at := l.shownAt[i]; !at.IsZero() {
				f.shown++
				shown = append(shown, at.Sub(made))
				if !r.metOutage(made, at) {
					shownSteady = append(shownSteady, at.Sub(made))
				}
			}
		}
	}
	f.toStored, f.toShown = distOf(stored), distOf(shown)
	f.toStoredSteady, f.toShownSteady = distOf(storedSteady), distOf(shownSteady)
}

// metOutage is whether a result made at made and stored (or shown) at at
// waited for the killed board: it then waited for the restart, and for its
// attendee's next check after it, which says nothing of the board's speed.
func (r *run) metOutage(made, at time.Time) bool {
	o := r.outage
	if o.killed.IsZero() {
		return false
	}
	return at.After(o.killed) && (o.answered.IsZero() || made.Before(o.answered))
}

// labGoVersion is the Go release bin/lab was built with.
func labGoVersion(lab string) string {
	if bi, err := buildinfo.ReadFile(lab); err == nil {
		return bi.GoVersion
	}
	return runtime.Version()
}
