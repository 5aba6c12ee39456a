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

package board

// Live updates by server-sent events: the page keeps one GET
// /api/v1/events open and is told "changed" (with the class's version)
// when a message, a join or a hand changed the class; it then asks for the
// snapshot again. Changes that come in a burst (a room saving at once) are
// told at most every Coalesce, so a page of 200 attendees is not asked to
// redraw 40 times a second; the page still sees a change within a second.

import (
	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"
)

const (
	Coalesce  = 150 * time.Millisecond
	heartbeat = 15 * time.Second
)

// broadcaster wakes every subscriber on a change; a subscriber that has not
// drawn the last one yet is woken once for both.
type broadcaster struct {
	mu     sync.Mutex
	subs   map[chan struct{}]bool
	closed chan struct{}
}

func newBroadcaster() *broadcaster {
	return &broadcaster{subs: map[chan struct{}]bool{}, closed: make(chan struct{})}
}

func (b *broadcaster) subscribe() (chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	b.mu.Lock()
	b.subs[ch] = true
	b.mu.Unlock()
	return ch, func() {
		b.mu.Lock()
		delete(b.subs, ch)
		b.mu.Unlock()
	}
}

func (b *broadcaster) notify() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for ch := range b.subs {
		select {
		case ch <- struct{}{}:
		default: // already woken
		}
	}
}

func (b *broadcaster) close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	select {
	case <-b.closed:
	default:
		close(b.closed)
	}
}

func (b *Board) serveEvents(w http.ResponseWriter, r *http.Request) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		fail(w, refuse(http.StatusInternalServerError, i18n.Errorf("this server cannot stream events", "这个服务器不能推送事件流")))
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	ch, unsubscribe := b.changed.subscribe()
	defer unsubscribe()
	tell := func() {
		b.mu.Lock()
		v := b.class.version
		b.mu.Unlock()
		fmt.Fprintf(w, "event: changed\ndata: {\"version\":%d}\n\n", v)
		flusher.Flush()
	}
	tell() // the page draws at once
	beat := time.NewTicker(heartbeat)
	defer beat.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-b.changed.closed:
			return
		case <-beat.C:
			fmt.Fprint(w, ": still here\n\n")
			flusher.Flush()
		case <-ch:
			tell()
			select { // let a burst gather before the next one is told
			case <-time.After(Coalesce):
			case <-r.Context().Done():
				return
			}
		}
	}
}

func listen(addr string) (net.Listener, error) { return net.Listen("tcp", addr) }
