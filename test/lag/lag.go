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

// Package lag makes an informer cache fall behind the API server on
// purpose, so that tests can show what a stale cache does (discussion
// questions 5 and 6, and the stale-cache bonus) deterministically instead
// of by luck.
//
// An informer learns about changes from a long-running WATCH request: the
// API server streams one event after another in the response body. Watches
// wraps the transport of a rest.Config so that, while a resource is paused,
// the events of its watches are held back: they reach the informer, in
// order, when the resource is resumed. Lists, gets and writes are not
// touched, and neither are the watches of other resources.
package lag

import (
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"

	"k8s.io/client-go/rest"
)

// Watches holds back the watch events of paused resources.
type Watches struct {
	mu      sync.Mutex
	changed *sync.Cond
	paused  map[string]bool // by resource name, such as "jobs"
	// told, when set (Tell), hears of each Pause and Resume: a test's
	// trace marks them.
	told func(paused bool, resources []string)
}

// Tell has f called on each Pause (paused true) and Resume, with the
// resources named.
func (w *Watches) Tell(f func(paused bool, resources []string)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.told = f
}

// Paused lists the resources paused now.
func (w *Watches) Paused() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for r := range w.paused {
		out = append(out, r)
	}
	sort.Strings(out)
	return out
}

// NewWatches returns a Watches with nothing paused.
func NewWatches() *Watches {
	w := &Watches{paused: map[string]bool{}}
	w.changed = sync.NewCond(&w.mu)
	return w
}

// Config returns a copy of cfg whose watches go through w. Give it to the
// manager (or informer factory) whose cache should lag.
func (w *Watches) Config(cfg *rest.Config) *rest.Config {
	lagging := rest.CopyConfig(cfg)
	lagging.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripper{w: w, next: rt}
	})
	return lagging
}

// Pause holds back, from now on, the watch events of the resources (plural
// names, as in URLs: "jobs", "cronjobs"). An event whose bytes arrive after
// Pause is not delivered until Resume.
func (w *Watches) Pause(resources ...string) {
	w.mu.Lock()
	for _, r := range resources {
		w.paused[r] = true
	}
	told := w.told
	w.mu.Unlock()
	if told != nil {
		told(true, resources)
	}
}

// Resume delivers what was held back and lets later events through.
func (w *Watches) Resume(resources ...string) {
	w.mu.Lock()
	for _, r := range resources {
		delete(w.paused, r)
	}
	w.changed.Broadcast()
	told := w.told
	w.mu.Unlock()
	if told != nil {
		told(false, resources)
	}
}

func (w *Watches) waitWhilePaused(resource string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for w.paused[resource] {
		w.changed.Wait()
	}
}

// lab:begin lag-gate

type roundTripper struct {
	w    *Watches
	next http.RoundTripper
}

func (rt roundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := rt.next.RoundTrip(req)
	if err != nil || req.URL.Query().Get("watch") != "true" {
		return resp, err
	}
	resource := req.URL.Path[strings.LastIndex(req.URL.Path, "/")+1:]
	resp.Body = &heldBody{ReadCloser: resp.Body, w: rt.w, resource: resource}
	return resp, nil
}

// heldBody checks the pause after each read from the network, not before:
// a read that was already waiting for bytes when Pause was called would
// otherwise deliver the next event anyway.
type heldBody struct {
	io.ReadCloser
	w        *Watches
	resource string
}

func (b *heldBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.w.waitWhilePaused(b.resource)
	return n, err
}

// lab:end
