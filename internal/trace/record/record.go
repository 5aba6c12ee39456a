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

// Package record writes a trace (package trace) of a controller at work:
// what the API server had, what reached the cache, and what each Reconcile
// read and wrote. One spec of each of stages 12, 13 and 14 records one, and
// each of stage 15's three; so does `make run TRACE=file` (cmd/main.go's
// --trace). `bin/lab trace FILE` draws it.
//
// Each of the picture's three lanes is recorded where controller-runtime
// lets us look, without changing the controller:
//
//   - the API server: a watch of our own, not through the cache (WatchAPI),
//     and the answer to every write;
//   - the cache: an event handler on the manager's informers (WatchCache),
//     or the controller's own event filter (Predicate), which sees each
//     event just before it becomes a request in the work queue;
//   - the Reconcile: its client wrapped with controller-runtime's
//     interceptor (Client, Reader) and the Reconciler wrapped (Reconciler).
package record

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"cronlab.dev/cronlab/internal/trace"
)

// Recorder writes the events of one trace, one JSON line each, as they
// happen: a trace cut short by a crash keeps everything before it. A nil
// *Recorder records nothing: its Client, Reader and Reconciler return what
// they are given, so a spec runs the same with tracing off.
type Recorder struct {
	scheme *runtime.Scheme
	clock  clock.PassiveClock // the Reconciler's; nil: none recorded
	// namespace, when set, keeps the api and cache lanes to one namespace:
	// a spec's objects, not its neighbours'.
	namespace string

	mu         sync.Mutex
	out        io.Writer
	closer     io.Closer
	seq        int
	reconciles int
	err        error // the first write that failed; later events are dropped
	watches    []*apiWatch
	handlers   []*cacheHandler
}

// Options are a Recorder's.
type Options struct {
	Scheme *runtime.Scheme
	// Clock is the Reconciler's clock, recorded beside each event's wall
	// time: a spec with a fake clock shows the time its Reconciler saw.
	Clock clock.PassiveClock
	// Namespace keeps the api and cache lanes to one namespace.
	Namespace string
}

// New records into w.
func New(w io.Writer, o Options) *Recorder {
	return &Recorder{out: w, scheme: o.Scheme, clock: o.Clock, namespace: o.Namespace}
}

// Create records into the file at path, replacing it, and creates its
// directory.
func Create(path string, o Options) (*Recorder, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	r := New(f, o)
	r.closer = f
	return r, nil
}

// Close stops the watches and closes the file, and returns the first
// error met while writing.
func (r *Recorder) Close() error {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	watches := r.watches
	r.watches = nil
	r.mu.Unlock()
	for _, w := range watches {
		w.stop()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	err := r.err
	if r.closer != nil {
		err = errors.Join(err, r.closer.Close())
		r.closer = nil
	}
	r.out = io.Discard
	return err
}

// reserve numbers an event that has not happened yet: a read takes its
// place in the trace when it begins (trace.Event.Seq).
func (r *Recorder) reserve() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seq++
	return r.seq
}

// emit writes e, numbered now unless it was reserved.
func (r *Recorder) emit(e trace.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if e.Seq == 0 {
		r.seq++
		e.Seq = r.seq
	}
	e.At = time.Now().UTC()
	if r.clock != nil {
		t := r.clock.Now().UTC()
		e.Clock = &t
	}
	line, err := json.Marshal(e)
	if err == nil && r.err == nil {
		_, err = r.out.Write(append(line, '\n'))
	}
	if err != nil && r.err == nil {
		r.err = err
	}
}

// ref names obj as the trace does.
func (r *Recorder) ref(obj client.Object) *trace.Ref {
	ref := &trace.Ref{Namespace: obj.GetNamespace(), Name: obj.GetName(), RV: obj.GetResourceVersion()}
	if gvk, err := apiutil.GVKForObject(obj, r.scheme); err == nil {
		ref.Kind = gvk.Kind
	}
	if owner := metav1.GetControllerOf(obj); owner != nil {
		ref.Owner, ref.OwnerUID = owner.Name, string(owner.UID)
	}
	return ref
}

// ours says whether an object of namespace ns belongs in the api and cache
// lanes.
func (r *Recorder) ours(ns string) bool { return r.namespace == "" || ns == r.namespace }

// reason is what the trace keeps of an error: the API server's reason
// (AlreadyExists, Conflict, NotFound), or the error's text.
func reason(err error) string {
	if err == nil {
		return ""
	}
	if why := apierrors.ReasonForError(err); why != metav1.StatusReasonUnknown {
		return string(why)
	}
	return err.Error()
}

// describe is a Reconcile's result in a word or two.
func describe(requeue time.Duration, err error) string {
	switch {
	case err != nil:
		return "error: " + err.Error()
	case requeue > 0:
		return fmt.Sprintf("requeue after %s", requeue)
	}
	return "done"
}

// Note writes a line of its own into a lane: what a test did to the loop
// (a perturbation), drawn where it happened.
func (r *Recorder) Note(lane, text string) {
	if r == nil {
		return
	}
	r.emit(trace.Event{Lane: lane, Kind: trace.Note, Text: text})
}

// Sync waits until the api lane has seen every version the API server
// has of what it watches, and the cache lane every version the cache has,
// so that what a spec does next is drawn after them. It gives up after
// five seconds (the trace is then only less complete), and says whether
// every lane caught up. An api lane that never received an object now gone
// looks caught up: Sync compares it with what the API server has now.
func (r *Recorder) Sync(ctx context.Context) bool {
	if r == nil {
		return true
	}
	r.mu.Lock()
	watches, handlers := r.watches, r.handlers
	r.mu.Unlock()
	deadline := time.Now().Add(5 * time.Second)
	caughtUp := true
	for _, w := range watches {
		for !w.caughtUp(ctx) {
			if !time.Now().Before(deadline) {
				caughtUp = false
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	for _, h := range handlers {
		for !h.caughtUp(ctx) {
			if !time.Now().Before(deadline) {
				caughtUp = false
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	return caughtUp
}
