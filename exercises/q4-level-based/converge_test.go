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

// Package levelbased checks discussion question 4: why does Reconcile not
// distinguish Create, Update and Delete? Because it cannot rely on them.
// Updates are coalesced in the work queue, and after a restart everything
// arrives as a create. So Reconcile looks at the state as it is and
// converges from wherever it starts.
package levelbased

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	kbatchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	batchv1 "cronlab.dev/cronlab/api/v1"
	"cronlab.dev/cronlab/internal/controller"
	"cronlab.dev/cronlab/internal/trace"
	"cronlab.dev/cronlab/internal/trace/record"
	"cronlab.dev/cronlab/test/say"
	"cronlab.dev/cronlab/test/tracing"
	"cronlab.dev/cronlab/test/utils"
)

var (
	nineAM   = time.Date(2030, time.January, 7, 9, 0, 0, 0, time.UTC)
	tenAM    = nineAM.Add(time.Hour)
	testTime = tenAM.Add(30 * time.Second)
)

// world: a direct client, a manager's cache, and the reference Reconciler
// reading it at testTime. Specs call Reconcile themselves.
type world struct {
	direct client.Client
	cache  client.Client
	r      reconcile.Reconciler
	scheme *runtime.Scheme
	clock  clock.PassiveClock
	ns     string
	// rec records the test's trace (test/tracing): the world's reconciles
	// and, once recordCache is called, its cache; the controllers that
	// runController starts, with their event filter, reads, writes and
	// reconciles. docs/answers/q4-level-based.md draws one.
	rec      *record.Recorder
	informer cache.Cache
	// filtered is the resourceVersion of the newest change of one of the
	// world's CronJobs that the running controller's event filter let
	// through, that is, made a request of.
	filtered atomic.Uint64
}

func newWorld(t *testing.T, cfg *rest.Config) *world {
	t.Helper()
	scheme := utils.Scheme(t)
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}})
	must(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	must(t, controller.IndexJobsByOwner(ctx, mgr.GetFieldIndexer()))
	for _, obj := range []client.Object{&batchv1.CronJob{}, &kbatchv1.Job{}} {
		_, err := mgr.GetCache().GetInformer(ctx, obj)
		must(t, err)
	}
	go func() { _ = mgr.Start(ctx) }()
	mgr.GetCache().WaitForCacheSync(ctx)
	w := &world{cache: mgr.GetClient(), scheme: scheme, clock: clocktesting.NewFakeClock(testTime), informer: mgr.GetCache()}
	w.direct, err = client.New(cfg, client.Options{Scheme: scheme})
	must(t, err)
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "q4-"}}
	must(t, w.direct.Create(ctx, ns))
	w.ns = ns.Name

	rec, path, err := tracing.Start(ctx, tracing.Spec{Root: filepath.Join("..", ".."), Name: t.Name(),
		Config: cfg, Scheme: scheme, Clock: w.clock, Namespace: w.ns})
	must(t, err)
	t.Cleanup(func() {
		must(t, tracing.Stop(context.Background(), rec))
		if pointer := tracing.Pointer(path); pointer != "" && t.Failed() {
			t.Log(pointer)
		}
	})
	w.rec = rec
	w.r = rec.Reconciler(&controller.CronJobReconciler{
		Client: rec.Client(mgr.GetClient(), trace.FromCache), APIReader: rec.Reader(mgr.GetAPIReader()), Scheme: scheme,
		Recorder: events.NewFakeRecorder(1000), Clock: w.clock,
	})
	return w
}

// recordCache adds the world's cache to its trace, for a test whose
// reconciles read it (runController's managers have caches of their own).
func (w *world) recordCache(t *testing.T) {
	t.Helper()
	must(t, w.rec.WatchCache(context.Background(), w.informer, &batchv1.CronJob{}, &kbatchv1.Job{}))
}

// lab:begin steady

// reconcileUntilSteady reconciles cj until a reconcile changes nothing, at
// most max times, and returns how many reconciles changed something. A
// level-based Reconciler reaches that fixed point, whatever state it starts
// from: once the world is as the spec says, it has nothing left to do.
func reconcileUntilSteady(t *testing.T, w *world, cj *batchv1.CronJob, max int) int {
	t.Helper()
	for changed := 0; changed <= max; changed++ {
		before := w.state(t, cj)
		w.waitForCache(t, cj)
		if _, err := w.r.Reconcile(context.Background(), reconcile.Request{NamespacedName: client.ObjectKeyFromObject(cj)}); err != nil {
			t.Fatal(say.Both("reconcile %d: %v",
				"第 %d 次调和：%v", changed+1, err))
		}
		if slices.Equal(w.state(t, cj), before) {
			return changed
		}
	}
	t.Fatal(say.Both("still changing things after %d reconciles: not converging",
		"调和 %d 次之后仍在改动：没有收敛", max))
	return max
}

// lab:end

// state is the resourceVersions of cj and its namespace's Jobs on the API
// server: any write changes it.
func (w *world) state(t *testing.T, cj *batchv1.CronJob) []string {
	t.Helper()
	var got batchv1.CronJob
	must(t, w.direct.Get(context.Background(), client.ObjectKeyFromObject(cj), &got))
	var jobs kbatchv1.JobList
	must(t, w.direct.List(context.Background(), &jobs, client.InNamespace(w.ns)))
	s := []string{"cronjob@" + got.ResourceVersion}
	for _, j := range jobs.Items {
		s = append(s, j.Name+"@"+j.ResourceVersion)
	}
	slices.Sort(s)
	return s
}

// waitForCache waits until the cache holds what the API server holds, so
// that each reconcile starts from a known state.
func (w *world) waitForCache(t *testing.T, cj *batchv1.CronJob) {
	t.Helper()
	ctx := context.Background()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		var direct, cached batchv1.CronJob
		must(t, w.direct.Get(ctx, client.ObjectKeyFromObject(cj), &direct))
		var dj, cjobs kbatchv1.JobList
		must(t, w.direct.List(ctx, &dj, client.InNamespace(w.ns)))
		if w.cache.Get(ctx, client.ObjectKeyFromObject(cj), &cached) == nil && cached.ResourceVersion == direct.ResourceVersion &&
			w.cache.List(ctx, &cjobs, client.InNamespace(w.ns)) == nil && slices.Equal(versions(cjobs.Items), versions(dj.Items)) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal(say.Both("the cache did not catch up within 30s",
				"缓存在 30 秒内没有跟上"))
		}
	}
}

func versions(jobs []kbatchv1.Job) []string {
	var v []string
	for _, j := range jobs {
		v = append(v, j.Name+"@"+j.ResourceVersion)
	}
	slices.Sort(v)
	return v
}

// The tests of this package share one API server (utils.StartAPIServer),
// each in namespaces of its own; it stops after the last test.
func TestMain(m *testing.M) { os.Exit(utils.RunTests(m)) }

func TestItConvergesFromAnyStartingState(t *testing.T) {
	cfg := utils.StartAPIServer(t, filepath.Join("..", ".."))
	for _, tc := range []struct {
		name string
		// setup makes the starting state: the CronJob's status and its Jobs.
		setup func(t *testing.T, w *world, cj *batchv1.CronJob)
		// want is checked once nothing changes any more.
		wantJobs   []string
		wantActive []string
		// wantChanged is how many reconciles change something on the way:
		// one, since the Reconciler acts on the whole difference it sees,
		// or none when the state is steady already.
		wantChanged int
	}{{
		name:        "the 10:00 run is due and nothing exists",
		setup:       func(*testing.T, *world, *batchv1.CronJob) {},
		wantJobs:    []string{"hourly-31566840"},
		wantActive:  []string{"hourly-31566840"},
		wantChanged: 1,
	}, {
		name: "the 10:00 Job exists but the status forgot it",
		setup: func(t *testing.T, w *world, cj *batchv1.CronJob) {
			w.job(t, cj, "hourly-31566840", false)
		},
		wantJobs:    []string{"hourly-31566840"},
		wantActive:  []string{"hourly-31566840"},
		wantChanged: 1,
	}, {
		name: "the status lists a Job that no longer exists",
		setup: func(t *testing.T, w *world, cj *batchv1.CronJob) {
			w.job(t, cj, "hourly-31566840", false)
			cj.Status.LastScheduleTime = &metav1.Time{Time: tenAM}
			cj.Status.Active = []corev1.ObjectReference{{Kind: "Job", Namespace: w.ns, Name: "hourly-31566780", UID: types.UID("gone")}}
			must(t, w.direct.Status().Update(context.Background(), cj))
		},
		wantJobs:    []string{"hourly-31566840"},
		wantActive:  []string{"hourly-31566840"},
		wantChanged: 1,
	}, {
		name: "a finished Job is still listed as active, and the history is too long",
		setup: func(t *testing.T, w *world, cj *batchv1.CronJob) {
			cj.Spec.SuccessfulJobsHistoryLimit = ptr.To[int32](1)
			must(t, w.direct.Update(context.Background(), cj))
			w.job(t, cj, "hourly-31566720", true)
			w.job(t, cj, "hourly-31566780", true)
			done := w.job(t, cj, "hourly-31566840", true)
			cj.Status.LastScheduleTime = &metav1.Time{Time: tenAM}
			cj.Status.Active = []corev1.ObjectReference{{Kind: "Job", Namespace: w.ns, Name: done.Name, UID: done.UID}}
			must(t, w.direct.Status().Update(context.Background(), cj))
		},
		wantJobs:   []string{"hourly-31566840"},
		wantActive: nil,
		// Two: the first writes what it saw (lastSuccessfulTime, active),
		// the second deletes the history beyond the limit, which only then
		// the stored status records (docs/reliability.md, "A crash between
		// two writes").
		wantChanged: 2,
	}, {
		name: "a reconcile has just settled everything",
		setup: func(t *testing.T, w *world, cj *batchv1.CronJob) {
			w.waitForCache(t, cj)
			if _, err := w.r.Reconcile(context.Background(), reconcile.Request{NamespacedName: client.ObjectKeyFromObject(cj)}); err != nil {
				t.Fatal(err)
			}
		},
		wantJobs:    []string{"hourly-31566840"},
		wantActive:  []string{"hourly-31566840"},
		wantChanged: 0,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, cfg)
			w.recordCache(t)
			cj := w.cronJob(t)
			tc.setup(t, w, cj)

			changed := reconcileUntilSteady(t, w, cj, 3)
			if changed != tc.wantChanged {
				t.Error(say.Both("reconcileUntilSteady says %d reconcile(s) changed something; want %d: count a reconcile only when "+
					"w.state after it differs from w.state before it, and stop at the first that changes nothing",
					"reconcileUntilSteady 报告有 %d 次调和做了改动，应为 %d："+
						"只有调和后的 w.state 与调和前的 w.state 不同时才计数，"+
						"并在第一次没有任何改动的调和处停下", changed, tc.wantChanged))
			}
			// Steady means that one more reconcile changes nothing.
			before := w.state(t, cj)
			w.waitForCache(t, cj)
			if _, err := w.r.Reconcile(context.Background(), reconcile.Request{NamespacedName: client.ObjectKeyFromObject(cj)}); err != nil {
				t.Fatal(err)
			}
			if after := w.state(t, cj); !slices.Equal(after, before) {
				t.Error(say.Both("reconcileUntilSteady returned before the fixed point: one more reconcile changed %v to %v",
					"reconcileUntilSteady 在到达不动点之前就返回了：再调和一次，把 %v 改成了 %v", before, after))
			}
			var jobs kbatchv1.JobList
			must(t, w.direct.List(context.Background(), &jobs, client.InNamespace(w.ns)))
			if got := names(jobs.Items); !slices.Equal(got, tc.wantJobs) {
				t.Error(say.Both("Jobs %v, want %v",
					"Job 为 %v，应为 %v", got, tc.wantJobs))
			}
			var got batchv1.CronJob
			must(t, w.direct.Get(context.Background(), client.ObjectKeyFromObject(cj), &got))
			var active []string
			for _, ref := range got.Status.Active {
				active = append(active, ref.Name)
			}
			if !slices.Equal(active, tc.wantActive) {
				t.Error(say.Both("status.active %v, want %v",
					"status.active 为 %v，应为 %v", active, tc.wantActive))
			}
			if got.Status.ObservedGeneration != got.Generation {
				t.Error(say.Both("observedGeneration %d, want %d",
					"observedGeneration 为 %d，应为 %d", got.Status.ObservedGeneration, got.Generation))
			}
		})
	}
}

// gatedReconciler counts the reconciles of one namespace's CronJobs, and
// holds the first one until the gate opens: meanwhile, events pile up in
// the work queue. The controller also reconciles the CronJobs that the
// package's other tests left on the shared API server: those pass.
type gatedReconciler struct {
	inner reconcile.Reconciler
	ns    string
	gate  chan struct{}
	first sync.Once
	count atomic.Int32 // reconciles begun
	ended atomic.Int32 // and ended
}

func (g *gatedReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	if req.Namespace != g.ns {
		return g.inner.Reconcile(ctx, req)
	}
	g.count.Add(1)
	defer g.ended.Add(1)
	g.first.Do(func() { <-g.gate })
	return g.inner.Reconcile(ctx, req)
}

func TestManyUpdatesAreCoalescedIntoFewReconciles(t *testing.T) {
	cfg := utils.StartAPIServer(t, filepath.Join("..", ".."))
	w := newWorld(t, cfg)
	g := &gatedReconciler{ns: w.ns, gate: make(chan struct{})}
	w.runController(t, cfg, "coalesce", func(r reconcile.Reconciler) reconcile.Reconciler {
		g.inner = r
		return g
	})

	cj := w.cronJob(t)
	// Wait until the first reconcile is in progress (and held).
	eventuallyTrue(t, func() bool { return g.count.Load() >= 1 })
	const updates = 30
	for i := range updates {
		must(t, w.direct.Get(context.Background(), client.ObjectKeyFromObject(cj), cj))
		cj.Spec.FailedJobsHistoryLimit = ptr.To(int32(i))
		must(t, w.direct.Update(context.Background(), cj))
	}
	// Every update is a request before the held reconcile goes on: on a
	// busy machine the watch can deliver them late, and each that came
	// after the reconcile had ended would start one of its own.
	last, err := strconv.ParseUint(cj.ResourceVersion, 10, 64)
	must(t, err)
	eventuallyTrue(t, func() bool { return w.filtered.Load() >= last })
	close(g.gate)
	eventuallyTrue(t, func() bool {
		var got batchv1.CronJob
		must(t, w.direct.Get(context.Background(), client.ObjectKeyFromObject(cj), &got))
		return got.Status.ObservedGeneration == got.Generation
	})
	// The held reconcile read the last update, so the status above can be
	// its; the updates that came while it was held are one more reconcile,
	// which the trace must hold too (docs/answers draws it).
	eventuallyTrue(t, func() bool { return g.ended.Load() >= 2 })
	n := g.count.Load()
	t.Logf("%d updates of the spec, %d reconciles", updates, n)
	if n >= updates {
		t.Error(say.Both("%d updates gave %d reconciles: the work queue should have coalesced them",
			"%d 次更新引发了 %d 次调和：工作队列本应把它们合并", updates, n))
	}
}

func TestAfterARestartChangesMadeWhileDownArriveAsCreates(t *testing.T) {
	cfg := utils.StartAPIServer(t, filepath.Join("..", ".."))
	w := newWorld(t, cfg)
	ctx := context.Background()

	// The first manager runs, and starts the 10:00 run. (It starts after
	// the CronJob is set up, so that its status write cannot race the
	// test's.)
	cj := w.cronJob(t)
	stop := w.runController(t, cfg, "before", nil)
	eventuallyTrue(t, func() bool { return len(w.jobsNow(t)) == 1 })
	stop()

	// While no controller runs: the Job is deleted, the CronJob suspended.
	for _, j := range w.jobsNow(t) {
		must(t, w.direct.Delete(ctx, &j, client.PropagationPolicy(metav1.DeletePropagationBackground)))
	}
	must(t, w.direct.Get(ctx, client.ObjectKeyFromObject(cj), cj))
	cj.Spec.Suspend = ptr.To(true)
	must(t, w.direct.Update(ctx, cj))

	// A new manager knows nothing of those changes: its informers list
	// what exists, and hand each object to the handlers as an add. A
	// Reconcile that waited for "Job deleted" or "suspend changed" would
	// wait forever.
	w.runController(t, cfg, "after", nil)
	eventuallyTrue(t, func() bool {
		var got batchv1.CronJob
		must(t, w.direct.Get(ctx, client.ObjectKeyFromObject(cj), &got))
		ready := meta.FindStatusCondition(got.Status.Conditions, batchv1.ConditionReady)
		return got.Status.ObservedGeneration == got.Generation && len(got.Status.Active) == 0 &&
			ready != nil && ready.Reason == batchv1.ReasonSuspended
	})
	if n := len(w.jobsNow(t)); n != 0 {
		t.Error(say.Both("suspended: no new Job may start, found %d",
			"已挂起：不能启动新的 Job，却发现了 %d 个", n))
	}
}

// runController runs the reference Reconciler as a controller
// (WatchWithOwns), in a manager of its own whose cache it reads, with the
// world's clock; wrap, if not nil, wraps it. It returns a function that
// stops the manager, cache and all.
func (w *world) runController(t *testing.T, cfg *rest.Config, name string, wrap func(reconcile.Reconciler) reconcile.Reconciler) func() {
	t.Helper()
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: w.scheme, Metrics: metricsserver.Options{BindAddress: "0"}})
	must(t, err)
	must(t, controller.IndexJobsByOwner(context.Background(), mgr.GetFieldIndexer()))
	var r reconcile.Reconciler = &controller.CronJobReconciler{
		Client:    w.rec.Client(mgr.GetClient(), trace.FromCache),
		APIReader: w.rec.Reader(mgr.GetAPIReader()),
		Scheme:    w.scheme,
		Recorder:  events.NewFakeRecorder(1000),
		Clock:     w.clock,
	}
	if wrap != nil {
		r = wrap(r)
	}
	// Recorded outside wrap: a reconcile starts when the worker takes the
	// request, even one that wrap then holds.
	r = w.rec.Reconciler(r)
	b := controller.WatchWithOwns(ctrl.NewControllerManagedBy(mgr)).Named(name)
	if w.rec != nil {
		b = b.WithEventFilter(w.rec.Predicate()) // the cache lane: each event as it becomes a request
	}
	b = b.WithEventFilter(predicate.NewPredicateFuncs(func(obj client.Object) bool {
		if _, ok := obj.(*batchv1.CronJob); ok && obj.GetNamespace() == w.ns {
			if rv, err := strconv.ParseUint(obj.GetResourceVersion(), 10, 64); err == nil {
				w.filtered.Store(rv)
			}
		}
		return true
	}))
	must(t, b.Complete(r))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = mgr.Start(ctx)
	}()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			<-done
		})
	}
	t.Cleanup(stop)
	return stop
}

func (w *world) cronJob(t *testing.T) *batchv1.CronJob {
	t.Helper()
	cj := &batchv1.CronJob{
		ObjectMeta: metav1.ObjectMeta{Name: "hourly", Namespace: w.ns},
		Spec: batchv1.CronJobSpec{
			Schedule: "0 * * * *",
			TimeZone: ptr.To("Etc/UTC"),
			JobTemplate: kbatchv1.JobTemplateSpec{Spec: kbatchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever,
				Containers:    []corev1.Container{{Name: "c", Image: "busybox"}},
			}}}},
		},
	}
	must(t, w.direct.Create(context.Background(), cj))
	cj.Status.LastScheduleTime = &metav1.Time{Time: nineAM}
	must(t, w.direct.Status().Update(context.Background(), cj))
	return cj
}

// job makes a Job controlled by cj, finished (Complete) or running.
func (w *world) job(t *testing.T, cj *batchv1.CronJob, name string, finished bool) *kbatchv1.Job {
	t.Helper()
	job := &kbatchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: w.ns},
		Spec:       kbatchv1.JobSpec{Template: cj.Spec.JobTemplate.Spec.Template},
	}
	must(t, ctrl.SetControllerReference(cj, job, w.scheme))
	must(t, w.direct.Create(context.Background(), job))
	if finished {
		start, end := metav1.NewTime(tenAM.Add(-time.Minute)), metav1.NewTime(tenAM)
		job.Status.StartTime, job.Status.CompletionTime, job.Status.Succeeded = &start, &end, 1
		job.Status.Conditions = []kbatchv1.JobCondition{
			{Type: kbatchv1.JobSuccessCriteriaMet, Status: corev1.ConditionTrue, LastTransitionTime: end},
			{Type: kbatchv1.JobComplete, Status: corev1.ConditionTrue, LastTransitionTime: end},
		}
		must(t, w.direct.Status().Update(context.Background(), job))
	}
	return job
}

func (w *world) jobsNow(t *testing.T) []kbatchv1.Job {
	t.Helper()
	var list kbatchv1.JobList
	must(t, w.direct.List(context.Background(), &list, client.InNamespace(w.ns)))
	return list.Items
}

func names(jobs []kbatchv1.Job) []string {
	var n []string
	for _, j := range jobs {
		n = append(n, j.Name)
	}
	slices.Sort(n)
	return n
}

func eventuallyTrue(t *testing.T, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !ok(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal(say.Both("not reached within 30s",
				"30 秒内没有达到"))
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
