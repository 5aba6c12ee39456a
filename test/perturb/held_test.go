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

package perturb

import (
	"context"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	toolscache "k8s.io/client-go/tools/cache"
)

// held holds the manager's cache back under the stale perturbation.
//
// test/lag does the same at the HTTP transport, but that transport is what
// stage 13 has the attendee write (its region lag-gate): on a lab branch of
// an earlier stage it is a stub that fails every request, the manager's
// discovery included. bin/lab perturb works from stage 06 on, so the
// scenario must need nothing a later stage writes: it holds the events
// back one floor up, where the informer takes them from its watch.
type held struct {
	mu      sync.Mutex
	changed *sync.Cond
	on      bool
}

func newHeld() *held {
	h := &held{}
	h.changed = sync.NewCond(&h.mu)
	return h
}

// hold keeps every watch event that arrives from now on from the informers
// until release.
func (h *held) hold() {
	h.mu.Lock()
	h.on = true
	h.mu.Unlock()
}

// release delivers what was held, in order, and lets later events through.
func (h *held) release() {
	h.mu.Lock()
	h.on = false
	h.changed.Broadcast()
	h.mu.Unlock()
}

func (h *held) waitWhileHeld() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for h.on {
		h.changed.Wait()
	}
}

// newInformer is the cache's informer constructor (cache.Options'
// NewInformer): controller-runtime's own, over a ListerWatcher whose
// watches pass through h. Lists are not held: a new manager's cache starts
// from what the API server has, as it would after a restart.
func (h *held) newInformer(lw toolscache.ListerWatcher, obj runtime.Object, resync time.Duration, indexers toolscache.Indexers) toolscache.SharedIndexInformer {
	inner := toolscache.ToListerWatcherWithContext(lw)
	return toolscache.NewSharedIndexInformer(&toolscache.ListWatch{
		ListWithContextFunc: inner.ListWithContext,
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			w, err := inner.WatchWithContext(ctx, opts)
			if err != nil {
				return nil, err
			}
			return h.through(w), nil
		},
	}, obj, resync, indexers)
}

// heldWatch passes on the events of a watch, each one only once it is not
// held.
type heldWatch struct {
	watch.Interface
	out  chan watch.Event
	done chan struct{}
	once sync.Once
}

// through waits after an event has arrived, not before: an event that
// arrives while held must not slip through because the wait had begun
// before hold.
func (h *held) through(in watch.Interface) watch.Interface {
	w := &heldWatch{Interface: in, out: make(chan watch.Event), done: make(chan struct{})}
	go func() {
		defer close(w.out)
		for e := range in.ResultChan() {
			h.waitWhileHeld()
			select {
			case w.out <- e:
			case <-w.done:
				return
			}
		}
	}()
	return w
}

func (w *heldWatch) ResultChan() <-chan watch.Event { return w.out }

// Stop also ends an event's wait to be taken: the informer that stopped
// will not take it.
func (w *heldWatch) Stop() {
	w.once.Do(func() { close(w.done) })
	w.Interface.Stop()
}
