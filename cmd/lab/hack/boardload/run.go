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

// The run's phases once everyone joined: checks, the kill and the restart
// in the middle, the drain, and the page catching up.

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"cronlab.dev/cronlab/cmd/lab/internal/class"
)

type run struct {
	cfg       config
	work      string
	board     *boardProc
	attendees []*attendee
	watch     *watcher

	t0, stopAt, drainBy time.Time
	// restarts counts the board's starts after a kill; an attendee that
	// sees it move puts back the result whose answer the kill "lost".
	restarts atomic.Int64
	outage   outage // written by the killer alone, read once it has ended
	loadAvg  string

	mu       sync.Mutex
	failures []string
}

type outage struct {
	killed, started, answered time.Time
	checksAtKill              int   // what the restarted board had to replay
	peakKB                    int64 // the killed board's VmHWM, read just before
}

func (r *run) failf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.failures) < 1000 { // a broken board would fail every check: keep the report short
		r.failures = append(r.failures, msg)
	}
}

func (r *run) clock() string {
	return fmt.Sprintf("%6.1fs", time.Since(r.t0).Seconds())
}

// exercise runs the checks, the kill and the drain, and returns once every
// attendee's queue is empty (or the drain's deadline passed) and the page
// has caught up.
func (r *run) exercise(ctx context.Context) {
	wctx, stopWatching := context.WithCancel(ctx)
	defer stopWatching()
	r.t0 = time.Now()
	r.stopAt, r.drainBy = r.t0.Add(r.cfg.dur), r.t0.Add(r.cfg.dur+drainBudget)
	go r.watch.run(wctx)
	var attendees sync.WaitGroup
	for _, a := range r.attendees {
		a.sim = newSimulated(a.n, r.t0, r.cfg.every, r.cfg.dur)
		attendees.Add(1)
		go func() { defer attendees.Done(); a.run(ctx, r) }()
	}
	killer := make(chan struct{})
	go func() {
		defer close(killer)
		if r.cfg.killAt > 0 {
			r.killAndRestart(ctx)
		}
	}()
	quiet := make(chan struct{})
	go r.progress(quiet)
	attendees.Wait()
	<-killer
	r.awaitShown(ctx)
	close(quiet)
	r.printProgress()
}

// killAndRestart SIGKILLs the board at -kill-at, leaves it down for -down,
// and starts it again on the same database and port.
func (r *run) killAndRestart(ctx context.Context) {
	if !sleepUntil(ctx, r.t0.Add(r.cfg.killAt)) {
		return
	}
	r.outage.peakKB = peakRSS(r.board.pid())
	if s, err := fetchSnapshot(ctx, r.board); err == nil {
		for _, v := range s.Attendees {
			r.outage.checksAtKill += v.Checks
		}
	}
	if r.cfg.lostAnswers {
		for _, a := range r.attendees {
			a.loseAnswer()
		}
	}
	pid := r.board.pid()
	r.outage.killed = time.Now()
	if err := r.board.kill(); err != nil {
		r.failf("could not kill the board (pid %d): %v", pid, err)
		return
	}
	fmt.Printf("%s  board SIGKILLed (pid %d) holding %d results; starting it again in %v\n", r.clock(), pid, r.outage.checksAtKill, r.cfg.down)
	if !sleepUntil(ctx, time.Now().Add(r.cfg.down)) {
		return
	}
	started, answered, err := r.board.start(startBudget)
	if err != nil {
		r.failf("the board did not come back after the kill: %v", err)
		return
	}
	r.outage.started, r.outage.answered = started, answered
	r.restarts.Add(1)
	fmt.Printf("%s  board started again (pid %d): answering %v after its start, %v after the kill\n", r.clock(), r.board.pid(),
		answered.Sub(started).Round(time.Millisecond), answered.Sub(r.outage.killed).Round(time.Millisecond))
}

// progress says where the run is every ten seconds, so that a long run is
// not silent.
func (r *run) progress(quiet <-chan struct{}) {
	tick := time.NewTicker(10 * time.Second)
	defer tick.Stop()
	for {
		select {
		case <-quiet:
			return
		case <-tick.C:
			r.printProgress()
		}
	}
}

func (r *run) printProgress() {
	var sent, stored, shown, waiting int
	for _, a := range r.attendees {
		m, st, sh := a.tally()
		sent, stored, shown = sent+m, stored+st, shown+sh
		waiting += len(class.Waiting(a.dir))
	}
	state := "up"
	if !r.board.up.Load() {
		state = "DOWN"
	}
	fmt.Printf("%s  sent %d  stored %d  shown %d  waiting in queues %d  board %s\n", r.clock(), sent, stored, shown, waiting, state)
}

// awaitShown waits until the page has counted every result, or
// shownBudget has passed: the verification then says which are missing.
func (r *run) awaitShown(ctx context.Context) {
	deadline := time.Now().Add(shownBudget)
	for time.Now().Before(deadline) {
		all := true
		for _, a := range r.attendees {
			if made, _, shown := a.tally(); shown < made {
				all = false
				break
			}
		}
		if all || !sleepUntil(ctx, time.Now().Add(100*time.Millisecond)) {
			return
		}
	}
}

// finalSnapshot is the board's snapshot once all is sent, read again for a
// few seconds if the board does not answer at once.
func (r *run) finalSnapshot(ctx context.Context) (snapshot, error) {
	var err error
	for range 20 {
		var s snapshot
		if s, err = fetchSnapshot(ctx, r.board); err == nil {
			return s, nil
		}
		if !sleepUntil(ctx, time.Now().Add(250*time.Millisecond)) {
			break
		}
	}
	return snapshot{}, err
}
