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

// The watcher does what the instructor's page does (board/page): it keeps
// the event stream open, and on each "changed", and at least every second,
// reads the snapshot again. A result is shown once a snapshot counts it:
// that is when the page can draw it. When the board dies the stream ends,
// and the watcher connects again every 200 ms, as the page's EventSource
// retries.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// snapshot is the part of the board's GET /api/v1/board (board/snapshot.go)
// this program reads.
type snapshot struct {
	Version   int64 `json:"version"`
	Attendees []struct {
		ID      int64  `json:"id"`
		Name    string `json:"name"`
		LastSeq int64  `json:"lastSeq"`
		Checks  int    `json:"checks"`
	} `json:"attendees"`
	bytes int
}

type watcher struct {
	board *boardProc
	byID  map[int64]*attendee
	fail  func(format string, args ...any)
	poke  chan struct{} // an event came: read the snapshot

	events, snapshots, connects atomic.Int64

	mu        sync.Mutex
	reads     []read
	lastBytes int // the latest snapshot's size: what the page downloads each time
}

// read is one GET of the snapshot that was answered.
type read struct {
	at   time.Time
	took time.Duration
}

func newWatcher(r *run) *watcher {
	w := &watcher{board: r.board, byID: map[int64]*attendee{}, fail: r.failf, poke: make(chan struct{}, 1)}
	for _, a := range r.attendees {
		w.byID[a.id] = a
	}
	return w
}

func (w *watcher) run(ctx context.Context) {
	go w.listen(ctx)
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-w.poke:
		case <-tick.C:
		}
		asked := time.Now()
		if s, err := fetchSnapshot(ctx, w.board); err == nil {
			now := time.Now()
			w.snapshots.Add(1)
			w.mu.Lock()
			w.reads, w.lastBytes = append(w.reads, read{at: now, took: now.Sub(asked)}), s.bytes
			w.mu.Unlock()
			w.mark(s, now)
		}
	}
}

func (w *watcher) mark(s snapshot, now time.Time) {
	for _, v := range s.Attendees {
		a := w.byID[v.ID]
		if a == nil {
			continue // not one of ours: the verification counts attendees
		}
		if before, ok := a.markShown(v.LastSeq, now); !ok {
			w.fail("attendee %d: the page showed up to result %d, then only up to %d (snapshot version %d)",
				a.n, before, v.LastSeq, s.Version)
		}
	}
}

// listen keeps the event stream open until ctx ends.
func (w *watcher) listen(ctx context.Context) {
	for ctx.Err() == nil {
		w.stream(ctx)
		sleepUntil(ctx, time.Now().Add(200*time.Millisecond))
	}
}

// stream reads one connection's events until it ends; the board ends it
// only by stopping, or dying.
func (w *watcher) stream(ctx context.Context) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, w.board.url()+"/api/v1/events?key="+w.board.key, nil)
	if err != nil {
		return
	}
	resp, err := http.DefaultClient.Do(req) // no time-out: the stream is meant to stay open
	if err != nil {
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return
	}
	w.connects.Add(1)
	lines := bufio.NewScanner(resp.Body)
	for lines.Scan() {
		if lines.Text() == "event: changed" {
			w.events.Add(1)
			select {
			case w.poke <- struct{}{}:
			default: // a read is due already, and will see this change too
			}
		}
	}
}

var snapshotClient = &http.Client{Timeout: 3 * time.Second}

func fetchSnapshot(ctx context.Context, b *boardProc) (snapshot, error) {
	var s snapshot
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.url()+"/api/v1/board?key="+b.key, nil)
	if err != nil {
		return s, err
	}
	resp, err := snapshotClient.Do(req)
	if err != nil {
		return s, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, resp.Body)
		return s, fmt.Errorf("the board answered %s", resp.Status)
	}
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return s, err
	}
	s.bytes = len(raw)
	return s, json.Unmarshal(raw, &s)
}

// readsBetween are the times the snapshot's reads took, of those answered
// from from to to.
func (w *watcher) readsBetween(from, to time.Time) []time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	var ds []time.Duration
	for _, r := range w.reads {
		if !r.at.Before(from) && r.at.Before(to) {
			ds = append(ds, r.took)
		}
	}
	return ds
}
