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

// An attendee does what bin/lab does after each check in a joined clone:
// the result goes to the queue on disk, then what waits is sent (package
// class, the same code). Beside that it keeps a ledger of each result: when
// it was made, when its file left the queue (the board answered that it
// holds it: stored), and when a snapshot of the page first counted it
// (shown).

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"cronlab.dev/cronlab/cmd/lab/internal/class"
	"cronlab.dev/cronlab/cmd/lab/internal/classwire"
)

// flushBudget bounds one send of the queue, as bin/lab's background send
// is bounded: a board that is down costs a refused connection, one that
// hangs a request's time-out (class.RequestTimeout) and a bit.
const flushBudget = 5 * time.Second

type attendee struct {
	n   int    // 1..N, in the order they joined
	dir string // its clone's class state: class.json, queue/
	id  int64  // the board's number for it
	sim *simulated

	mu         sync.Mutex
	made       []time.Time // by seq-1: when the result was made and queued
	storedAt   []time.Time // by seq-1: when its file was seen gone; zero before
	shownAt    []time.Time // by seq-1: when a snapshot first counted it; zero before
	storedUpTo int         // seqs 1..storedUpTo are all stored
	shownUpTo  int64
	unacked    map[int64]classwire.Message
	acked      *classwire.Message // the latest result the board acknowledged
	lost       *classwire.Message // the one whose answer the kill is taken to have lost
	seenBack   int64              // the board's restarts this attendee has reacted to
	putBack    int                // results put back in the queue as if their answer was lost
	dups       int                // results the board said it had already (class.Attempt)
	refused    int
}

// run checks every interval from the attendee's phase until the run stops
// producing, then sends what still waits.
func (a *attendee) run(ctx context.Context, r *run) {
	next := r.t0.Add(a.sim.phase)
	for sleepUntil(ctx, next) && next.Before(r.stopAt) {
		a.check(ctx, r)
		// A check that took longer than the interval (the board was slow)
		// is followed by the next at once, not by a burst of missed ones.
		next = later(next.Add(r.cfg.every), time.Now())
	}
	a.drain(ctx, r)
}

func (a *attendee) check(ctx context.Context, r *run) {
	a.afterRestart(r)
	made := time.Now()
	msg := classwire.Message{At: made.UTC(), Result: a.sim.result(made)}
	seq, err := class.Enqueue(a.dir, msg)
	if err != nil {
		r.failf("attendee %d could not queue a result: %v", a.n, err)
		return
	}
	msg.Seq = seq
	a.mu.Lock()
	if want := int64(len(a.made)) + 1; seq != want {
		r.failf("attendee %d got seq %d from the queue, expected %d", a.n, seq, want)
	}
	a.made = append(a.made, made)
	a.storedAt = append(a.storedAt, time.Time{})
	a.shownAt = append(a.shownAt, time.Time{})
	a.unacked[seq] = msg
	a.mu.Unlock()
	_ = a.flush(ctx) // a board that is down keeps the result queued: it goes with the next
}

// drain sends what waits until the queue is empty, as the attendees' next
// checks would, within the run's drain deadline.
func (a *attendee) drain(ctx context.Context, r *run) {
	for ctx.Err() == nil {
		a.afterRestart(r)
		if a.flush(ctx) == nil && len(class.Waiting(a.dir)) == 0 {
			return
		}
		if time.Now().After(r.drainBy) {
			r.failf("attendee %d: %d results still queued %v after the checks stopped", a.n, len(class.Waiting(a.dir)), drainBudget)
			return
		}
		sleepUntil(ctx, time.Now().Add(200*time.Millisecond))
	}
}

func (a *attendee) flush(ctx context.Context) error {
	fctx, cancel := context.WithTimeout(ctx, flushBudget)
	att, err := class.Flush(fctx, a.dir)
	cancel()
	a.markStored(time.Now(), queuedSeqs(a.dir), att)
	return err
}

// markStored records as stored at now every result whose file has left
// the queue: class removes it only once the board answered that it holds it.
func (a *attendee) markStored(now time.Time, queued map[int64]bool, att class.Attempt) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.dups += att.Duplicates
	a.refused += att.Refused
	for seq := int64(a.storedUpTo) + 1; seq <= int64(len(a.made)); seq++ {
		if queued[seq] || !a.storedAt[seq-1].IsZero() {
			continue
		}
		a.storedAt[seq-1] = now
		if m, ok := a.unacked[seq]; ok {
			a.acked = &m
			delete(a.unacked, seq)
		}
	}
	for a.storedUpTo < len(a.made) && !a.storedAt[a.storedUpTo].IsZero() {
		a.storedUpTo++
	}
}

// markShown records as shown at now the results up to lastSeq, the
// highest one the page's snapshot has of this attendee; it is false when
// lastSeq went back, which only a board that lost stored results shows,
// with how far it had shown before.
func (a *attendee) markShown(lastSeq int64, now time.Time) (int64, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if lastSeq < a.shownUpTo {
		return a.shownUpTo, false
	}
	for a.shownUpTo < lastSeq && a.shownUpTo < int64(len(a.made)) {
		a.shownAt[a.shownUpTo] = now
		a.shownUpTo++
	}
	return a.shownUpTo, true
}

// loseAnswer is called just before the kill: the latest result the board
// acknowledged is taken to be one whose answer the kill cut off.
func (a *attendee) loseAnswer() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.lost = a.acked
}

// afterRestart puts the result whose answer was "lost" back in the queue,
// once the board answers again. That is the state a clone is in when the
// board committed a result and died before its answer left: the file is
// still queued and goes again, and the board must count it once.
func (a *attendee) afterRestart(r *run) {
	back := r.restarts.Load()
	a.mu.Lock()
	m := a.lost
	if back == a.seenBack {
		a.mu.Unlock()
		return
	}
	a.seenBack, a.lost = back, nil
	a.mu.Unlock()
	if m == nil {
		return
	}
	raw, err := json.Marshal(m)
	if err == nil {
		// The name class gives a queued file (queue.go's queueName): the
		// seq, zero-padded so that the names sort in seq order.
		err = os.WriteFile(filepath.Join(a.dir, "queue", fmt.Sprintf("%012d.json", m.Seq)), raw, 0o600)
	}
	if err != nil {
		r.failf("attendee %d could not put result %d back in its queue: %v", a.n, m.Seq, err)
		return
	}
	a.mu.Lock()
	a.putBack++
	a.mu.Unlock()
}

// queuedSeqs are the sequence numbers whose files wait in dir's queue.
func queuedSeqs(dir string) map[int64]bool {
	seqs := map[int64]bool{}
	for _, f := range class.Waiting(dir) {
		if seq, err := strconv.ParseInt(strings.TrimSuffix(filepath.Base(f), ".json"), 10, 64); err == nil {
			seqs[seq] = true
		}
	}
	return seqs
}

// tally is how many results were made, stored and shown so far.
func (a *attendee) tally() (made, stored, shown int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.made), a.storedUpTo, int(a.shownUpTo)
}

// ledger is a copy of the attendee's records, for the report.
type ledger struct {
	made, storedAt, shownAt []time.Time
	putBack, dups, refused  int
}

func (a *attendee) ledger() ledger {
	a.mu.Lock()
	defer a.mu.Unlock()
	return ledger{made: append([]time.Time(nil), a.made...), storedAt: append([]time.Time(nil), a.storedAt...),
		shownAt: append([]time.Time(nil), a.shownAt...), putBack: a.putBack, dups: a.dups, refused: a.refused}
}

// sleepUntil waits for t; false when ctx ended first.
func sleepUntil(ctx context.Context, t time.Time) bool {
	timer := time.NewTimer(time.Until(t))
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-timer.C:
		return true
	}
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
