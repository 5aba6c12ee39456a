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

package record

import (
	"context"
	"strconv"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"cronlab.dev/cronlab/internal/trace"
)

// versions is what a lane has seen of each object: its resourceVersion by
// namespace/name, deleted objects left out.
type versions struct {
	mu   sync.Mutex
	seen map[string]string
}

func (v *versions) note(kind string, obj client.Object) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.seen == nil {
		v.seen = map[string]string{}
	}
	key := obj.GetNamespace() + "/" + obj.GetName()
	if kind == trace.Deleted {
		delete(v.seen, key)
		return
	}
	v.seen[key] = obj.GetResourceVersion()
}

// covers says whether the lane has seen every object of list at its
// version or a later one, and nothing that list no longer has.
func (v *versions) covers(list client.ObjectList) bool {
	items, err := meta.ExtractList(list)
	if err != nil {
		return false
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if len(items) != len(v.seen) {
		return false
	}
	for _, item := range items {
		obj, ok := item.(client.Object)
		if !ok {
			return false
		}
		seen, ok := v.seen[obj.GetNamespace()+"/"+obj.GetName()]
		if !ok || !notOlder(seen, obj.GetResourceVersion()) {
			return false
		}
	}
	return true
}

func notOlder(seen, rv string) bool {
	a, errA := strconv.ParseUint(seen, 10, 64)
	b, errB := strconv.ParseUint(rv, 10, 64)
	if errA != nil || errB != nil {
		return seen == rv
	}
	return a >= b
}

// apiWatch is the api lane for one kind: a watch of the API server that
// does not go through the manager's cache (nor through a lagging transport).
type apiWatch struct {
	r      *Recorder
	c      client.WithWatch
	list   client.ObjectList
	opts   []client.ListOption
	cancel context.CancelFunc
	done   chan struct{}
	versions
}

// WatchAPI records in the api lane what the API server has of the kind
// of list (opts as for a List: a namespace, a label selector), from what it
// already has on. c must not read from a cache: client.NewWithWatch.
func (r *Recorder) WatchAPI(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
	if r == nil {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	w := &apiWatch{r: r, c: c, list: list, opts: opts, cancel: cancel, done: make(chan struct{})}
	first, err := c.Watch(ctx, list.DeepCopyObject().(client.ObjectList), opts...)
	if err != nil {
		cancel()
		return err
	}
	r.mu.Lock()
	r.watches = append(r.watches, w)
	r.mu.Unlock()
	go w.run(ctx, first)
	return nil
}

// run records the watch's events, and watches again from the last version
// seen when the API server ends a watch (it does, after some minutes).
func (w *apiWatch) run(ctx context.Context, wi watch.Interface) {
	defer close(w.done)
	last := ""
	for {
		for ev := range wi.ResultChan() {
			obj, ok := ev.Object.(client.Object)
			if !ok || ev.Type == watch.Bookmark || ev.Type == watch.Error {
				continue
			}
			kind := map[watch.EventType]string{watch.Added: trace.Added, watch.Modified: trace.Modified, watch.Deleted: trace.Deleted}[ev.Type]
			w.note(kind, obj)
			last = obj.GetResourceVersion()
			if w.r.ours(obj.GetNamespace()) {
				w.r.emit(trace.Event{Lane: trace.LaneAPI, Kind: kind, Object: w.r.ref(obj)})
			}
		}
		wi.Stop()
		if ctx.Err() != nil {
			return
		}
		opts := append([]client.ListOption{&client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: last}}}, w.opts...)
		var err error
		if wi, err = w.c.Watch(ctx, w.list.DeepCopyObject().(client.ObjectList), opts...); err != nil {
			if apierrors.IsResourceExpired(err) || apierrors.IsGone(err) {
				last = ""
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(100 * time.Millisecond):
			}
			wi = watch.NewEmptyWatch()
		}
	}
}

func (w *apiWatch) stop() {
	w.cancel()
	<-w.done
}

// caughtUp lists from the API server and compares.
func (w *apiWatch) caughtUp(ctx context.Context) bool {
	list := w.list.DeepCopyObject().(client.ObjectList)
	if err := w.c.List(ctx, list, w.opts...); err != nil {
		return false
	}
	return w.covers(list)
}

// cacheHandler is the cache lane for one kind: a handler on the manager's
// informer, called once the cache holds the change.
type cacheHandler struct {
	r     *Recorder
	cache cache.Cache
	list  client.ObjectList
	versions
}

// WatchCache records in the cache lane each change of objs' kinds that
// reaches the cache. Use it where no controller runs (a spec that calls
// Reconcile itself); with a controller, Predicate sees the same changes
// at the moment they become requests.
func (r *Recorder) WatchCache(ctx context.Context, c cache.Cache, objs ...client.Object) error {
	if r == nil {
		return nil
	}
	for _, obj := range objs {
		gvk, err := apiutil.GVKForObject(obj, r.scheme)
		if err != nil {
			return err
		}
		gvk.Kind += "List"
		list, err := r.scheme.New(gvk)
		if err != nil {
			return err
		}
		h := &cacheHandler{r: r, cache: c, list: list.(client.ObjectList)}
		inf, err := c.GetInformer(ctx, obj)
		if err != nil {
			return err
		}
		if _, err := inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
			AddFunc:    func(o any) { h.saw(trace.Added, o) },
			UpdateFunc: func(_, o any) { h.saw(trace.Modified, o) },
			DeleteFunc: func(o any) { h.saw(trace.Deleted, o) },
		}); err != nil {
			return err
		}
		r.mu.Lock()
		r.handlers = append(r.handlers, h)
		r.mu.Unlock()
	}
	return nil
}

func (h *cacheHandler) saw(kind string, o any) {
	if gone, ok := o.(toolscache.DeletedFinalStateUnknown); ok {
		o = gone.Obj
	}
	obj, ok := o.(client.Object)
	if !ok || !h.r.ours(obj.GetNamespace()) {
		return
	}
	h.note(kind, obj)
	h.r.emit(trace.Event{Lane: trace.LaneCache, Kind: kind, Object: h.r.ref(obj)})
}

func (h *cacheHandler) caughtUp(ctx context.Context) bool {
	list := h.list.DeepCopyObject().(client.ObjectList)
	var opts []client.ListOption
	if h.r.namespace != "" {
		opts = append(opts, client.InNamespace(h.r.namespace))
	}
	if err := h.cache.List(ctx, list, opts...); err != nil {
		return false
	}
	return h.covers(list)
}

// Predicate records in the cache lane each event that reaches the
// controller, and lets every one through: give it to the controller's
// builder (WithEventFilter) when tracing `make run`.
func (r *Recorder) Predicate() predicate.Predicate {
	saw := func(kind string, obj client.Object) bool {
		if obj != nil && r.ours(obj.GetNamespace()) {
			r.emit(trace.Event{Lane: trace.LaneCache, Kind: kind, Object: r.ref(obj)})
		}
		return true
	}
	return predicate.Funcs{
		CreateFunc:  func(e event.CreateEvent) bool { return saw(trace.Added, e.Object) },
		UpdateFunc:  func(e event.UpdateEvent) bool { return saw(trace.Modified, e.ObjectNew) },
		DeleteFunc:  func(e event.DeleteEvent) bool { return saw(trace.Deleted, e.Object) },
		GenericFunc: func(event.GenericEvent) bool { return true },
	}
}
