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
	"errors"
	"path/filepath"
	"runtime/debug"
	"sync"
	"testing"
	"time"

	kbatchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/events"
	clocktesting "k8s.io/utils/clock/testing"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	batchv1 "cronlab.dev/cronlab/api/v1"
	"cronlab.dev/cronlab/internal/controller"
	"cronlab.dev/cronlab/internal/runs"
	"cronlab.dev/cronlab/internal/trace"
	"cronlab.dev/cronlab/internal/trace/record"
	"cronlab.dev/cronlab/test/say"
	"cronlab.dev/cronlab/test/tracing"
)

// errStopped is what every write returns once the manager has "stopped"
// (intermediate-N): the process would be gone, and write nothing more. The
// trace shows it, in the language of the attendee who runs bin/lab.
func errStopped(n int) error {
	return errors.New(say.Both("the manager stopped here (bin/lab perturb intermediate-%d)",
		"管理器在这里停止了（bin/lab perturb intermediate-%d）", n))
}

// A world is the loop that the scenario drives: a manager's cache whose
// watches can be held back, the Reconciler reading it, and in place of the
// work queue a notification that coalesces as the queue does (one pending
// request at most). Driving it by hand makes each perturbation happen at
// the same moment in every run.
type world struct {
	t      *testing.T
	cfg    *rest.Config
	scheme *runtime.Scheme
	direct client.Client
	ns     string
	clock  *clocktesting.FakeClock
	held   *held // the stale perturbation holds the cache back (held_test.go)
	rec    *record.Recorder
	p      perturbation

	mu       sync.Mutex
	writes   int            // the scenario's writes so far (intermediate-N counts them)
	failed   int            // reconciles that returned an error, the stop of intermediate-N aside
	created  map[string]int // Jobs created, by the run (scheduled time) each is for
	stopped  bool           // the manager stopped after the N-th write; later writes fail
	dropNext bool           // unobserved: drop the next Job completion's notification

	stop   context.CancelFunc // the manager of the moment
	r      reconcile.Reconciler
	cached client.Client
	wake   chan struct{}
}

func newWorld(t *testing.T, cfg *rest.Config, scheme *runtime.Scheme, p perturbation) *world {
	w := &world{t: t, cfg: cfg, scheme: scheme, p: p, held: newHeld(), clock: clocktesting.NewFakeClock(tenAM.Add(30 * time.Second)),
		created: map[string]int{}}
	var err error
	w.direct, err = client.New(cfg, client.Options{Scheme: scheme})
	must(t, err)
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "perturb-"}}
	must(t, w.direct.Create(context.Background(), ns))
	w.ns = ns.Name

	rec, path, err := tracing.Start(context.Background(), tracing.Spec{Root: filepath.Join("..", ".."), Name: t.Name(),
		Config: cfg, Scheme: scheme, Clock: w.clock, Namespace: w.ns})
	must(t, err)
	w.rec = rec
	t.Cleanup(func() {
		w.held.release()
		if w.stop != nil {
			w.stop()
		}
		must(t, tracing.Stop(context.Background(), rec))
		if pointer := tracing.Pointer(path); pointer != "" {
			t.Log(pointer)
		}
	})
	w.start()
	return w
}

// start starts a manager: its cache lists what the API server has, and
// each object it lists is an add, which asks for a reconcile.
func (w *world) start() {
	t := w.t
	ctx, cancel := context.WithCancel(context.Background())
	w.stop = cancel
	w.wake = make(chan struct{}, 1)
	mgr, err := ctrl.NewManager(w.cfg, ctrl.Options{Scheme: w.scheme, Metrics: metricsserver.Options{BindAddress: "0"},
		Cache: cache.Options{NewInformer: w.held.newInformer}})
	must(t, err)
	must(t, controller.IndexJobsByOwner(ctx, mgr.GetFieldIndexer()))
	for _, obj := range []client.Object{&batchv1.CronJob{}, &kbatchv1.Job{}} {
		inf, err := mgr.GetCache().GetInformer(ctx, obj)
		must(t, err)
		_, err = inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
			AddFunc:    func(o any) { w.notify(o) },
			UpdateFunc: func(_, o any) { w.notify(o) },
			DeleteFunc: func(o any) { w.notify(o) },
		})
		must(t, err)
	}
	must(t, w.rec.WatchCache(ctx, mgr.GetCache(), &batchv1.CronJob{}, &kbatchv1.Job{}))
	go func() { _ = mgr.Start(ctx) }()
	if !mgr.GetCache().WaitForCacheSync(ctx) {
		t.Fatal(say.Both("the cache did not sync", "缓存没有完成同步"))
	}
	w.cached = mgr.GetClient()
	r := &controller.CronJobReconciler{
		Client:    w.rec.Client(interceptor.NewClient(withWatch{mgr.GetClient()}, w.stopAfterN()), trace.FromCache),
		APIReader: w.rec.Reader(mgr.GetAPIReader()),
		Scheme:    w.scheme,
		Recorder:  events.NewFakeRecorder(100),
		Clock:     w.clock,
	}
	w.r = w.rec.Reconciler(r)
}

// notify is the event handler: an event of the CronJob, or of a Job it
// controls, asks for a reconcile, as Owns does. Unobserved drops one.
func (w *world) notify(o any) {
	if gone, ok := o.(toolscache.DeletedFinalStateUnknown); ok {
		o = gone.Obj
	}
	obj, ok := o.(client.Object)
	if !ok || obj.GetNamespace() != w.ns {
		return
	}
	if job, ok := obj.(*kbatchv1.Job); ok {
		w.mu.Lock()
		drop := w.dropNext
		if finished, _ := runs.JobFinished(job); finished && drop {
			w.dropNext = false
			w.mu.Unlock()
			w.rec.Note(trace.LaneCache, say.Both("unobserved: the event of Job %s finishing asks for no reconcile",
				"unobserved：Job %s 结束的事件没有请求调和", job.Name))
			return
		}
		w.mu.Unlock()
	}
	select {
	case w.wake <- struct{}{}:
	default: // a request is pending already: coalesced, as in the work queue
	}
}

// stopAfterN lets the N-th write of the scenario through and then stops
// the manager: every later write of that reconcile fails, as if the
// process were gone.
func (w *world) stopAfterN() interceptor.Funcs {
	write := func(do func() error) error {
		w.mu.Lock()
		if w.stopped {
			w.mu.Unlock()
			return errStopped(w.p.stopAfter)
		}
		w.writes++
		n := w.writes
		w.mu.Unlock()
		err := do()
		if w.p.stopAfter > 0 && n == w.p.stopAfter {
			w.mu.Lock()
			w.stopped = true
			w.mu.Unlock()
		}
		return err
	}
	return interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			return write(func() error {
				err := c.Create(ctx, obj, opts...)
				if _, isJob := obj.(*kbatchv1.Job); isJob && err == nil {
					w.mu.Lock()
					w.created[obj.GetAnnotations()[batchv1.ScheduledTimeAnnotation]]++
					w.mu.Unlock()
				}
				return err
			})
		},
		Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
			return write(func() error { return c.Delete(ctx, obj, opts...) })
		},
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
			return write(func() error { return c.Patch(ctx, obj, patch, opts...) })
		},
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			return write(func() error { return c.Update(ctx, obj, opts...) })
		},
		SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
			return write(func() error { return c.SubResource(sub).Patch(ctx, obj, patch, opts...) })
		},
		SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
			return write(func() error { return c.SubResource(sub).Update(ctx, obj, opts...) })
		},
	}
}

// reconcile runs one reconcile of the CronJob; when the manager stopped
// during it, a new manager starts, and its initial list asks again.
func (w *world) reconcile() {
	w.rec.Sync(context.Background())
	err := func() (err error) {
		// A Reconcile that panics would end the test binary before
		// TestMain stops its etcd and kube-apiserver, which would then
		// outlive the run: the spec fails with the panic instead.
		defer func() {
			if p := recover(); p != nil {
				w.t.Fatalf("panic: %v (the Reconciler panicked)\n%s", p, debug.Stack())
			}
		}()
		_, err = w.r.Reconcile(context.Background(), reconcile.Request{NamespacedName: client.ObjectKey{Namespace: w.ns, Name: cronJobName}})
		return err
	}()
	w.mu.Lock()
	stopped := w.stopped
	w.stopped = false
	w.mu.Unlock()
	if stopped {
		w.stop()
		w.rec.Note(trace.LaneReconcile, say.Both("%s: the manager stopped after write %d; a new one starts",
			"%s：管理器在第 %d 次写入之后停止；一个新的管理器启动", w.p.name, w.p.stopAfter))
		w.start()
		return
	}
	if err != nil {
		w.failed++
		w.t.Log(say.Both("Reconcile returned %v (the next event or requeue tries again)",
			"Reconcile 返回了 %v（下一个事件或重新入队时会再试）", err))
	}
}

// settle reconciles while events ask for it, as a worker would: after
// each reconcile it waits for the cache to catch up (unless it is held
// back) and takes the request that came meanwhile, if any.
func (w *world) settle() {
	for range 20 {
		if !w.waitForRequest() {
			return
		}
		w.reconcile()
	}
	w.t.Fatal(say.Both("the Reconciler did not settle within 20 reconciles: does every reconcile write something?",
		"调和器在 20 次调和之内没有稳定下来：是不是每次调和都会写入点什么？"))
}

// waitForRequest waits until the cache holds what the API server holds
// (a second at most: it may be held back), then takes a pending request.
func (w *world) waitForRequest() bool {
	deadline := time.Now().Add(time.Second)
	for !w.caughtUp() && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	select {
	case <-w.wake:
		return true
	case <-time.After(50 * time.Millisecond):
		return false
	}
}

func (w *world) caughtUp() bool {
	ctx := context.Background()
	for _, pair := range [][2]client.ObjectList{{&batchv1.CronJobList{}, &batchv1.CronJobList{}}, {&kbatchv1.JobList{}, &kbatchv1.JobList{}}} {
		if w.direct.List(ctx, pair[0], client.InNamespace(w.ns)) != nil || w.cached.List(ctx, pair[1], client.InNamespace(w.ns)) != nil {
			return false
		}
		if versions(pair[0]) != versions(pair[1]) {
			return false
		}
	}
	return true
}

// withWatch lets the interceptor wrap the manager's client, which has no
// Watch: the Reconciler never watches.
type withWatch struct{ client.Client }

func (withWatch) Watch(context.Context, client.ObjectList, ...client.ListOption) (watch.Interface, error) {
	panic("the Reconciler does not watch")
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
