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

// Package nextreconcile checks discussion question 5: if a reconcile
// created a Job, how does the next reconcile know that it exists? Usually
// through the cache: the Job's create event fills it (and, through Owns,
// asks for that next reconcile). But the next reconcile can come before the
// event. Here it does, every time: test/lag holds back the watch events of
// Jobs and CronJobs between two reconciles of the same run.
package nextreconcile

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	kbatchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/events"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	batchv1 "cronlab.dev/cronlab/api/v1"
	"cronlab.dev/cronlab/internal/controller"
	"cronlab.dev/cronlab/internal/expectations"
	"cronlab.dev/cronlab/internal/trace"
	"cronlab.dev/cronlab/test/lag"
	"cronlab.dev/cronlab/test/say"
	"cronlab.dev/cronlab/test/tracing"
	"cronlab.dev/cronlab/test/utils"
)

var tenAM = time.Date(2030, time.January, 7, 10, 0, 0, 0, time.UTC)

// naming is how the Reconciler names the Jobs it creates.
type naming int

const (
	deterministic          naming = iota // cronlab's: <cronjob>-<scheduled time>
	random                               // generateName: <cronjob>-<random>
	randomWithExpectations               // random, and internal/expectations
)

func (n naming) String() string {
	return [...]string{"deterministic names", "random names", "random names with expectations"}[n]
}

// said is String in the tests' language, for failures (String names the
// subtests).
func (n naming) said() string {
	return [...]string{
		say.Both("deterministic names", "确定性命名"),
		say.Both("random names", "随机命名"),
		say.Both("random names with expectations", "随机命名加预期（expectations）"),
	}[n]
}

type world struct {
	direct  client.Client
	cached  client.Client
	lag     *lag.Watches
	ns      string
	r       reconcile.Reconciler
	mu      sync.Mutex
	creates []error // what each Create of a Job returned
}

// newWorld starts a manager whose cache can lag, on the API server of cfg,
// and a Reconciler that names Jobs as n says.
func newWorld(t *testing.T, cfg *rest.Config, n naming) *world {
	t.Helper()
	scheme := utils.Scheme(t)
	w := &world{lag: lag.NewWatches()}
	var err error
	if w.direct, err = client.New(cfg, client.Options{Scheme: scheme}); err != nil {
		t.Fatal(err)
	}
	mgr, err := ctrl.NewManager(w.lag.Config(cfg), ctrl.Options{Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() {
		w.lag.Resume("cronjobs", "jobs")
		cancel()
	})
	must(t, controller.IndexJobsByOwner(ctx, mgr.GetFieldIndexer()))

	exp := expectations.New(clocktesting.NewFakeClock(tenAM), 5*time.Minute)
	jobs, err := mgr.GetCache().GetInformer(ctx, &kbatchv1.Job{})
	must(t, err)
	if n == randomWithExpectations {
		// The informer tells the expectations what it sees, as upstream's
		// controllers do in their add handlers.
		_, err := jobs.AddEventHandler(toolscache.ResourceEventHandlerFuncs{AddFunc: func(obj any) {
			if job, ok := obj.(*kbatchv1.Job); ok {
				if owner := metav1.GetControllerOf(job); owner != nil && owner.Kind == "CronJob" {
					exp.Observed(job.Namespace + "/" + owner.Name)
				}
			}
		}})
		must(t, err)
	}
	_, err = mgr.GetCache().GetInformer(ctx, &batchv1.CronJob{})
	must(t, err)
	go func() { _ = mgr.Start(ctx) }()
	if !mgr.GetCache().WaitForCacheSync(ctx) {
		t.Fatal(say.Both("the cache did not sync",
			"缓存没有完成同步"))
	}
	w.cached = mgr.GetClient()

	c := interceptor.NewClient(withWatch{mgr.GetClient()}, interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			job, ok := obj.(*kbatchv1.Job)
			if !ok {
				return c.Create(ctx, obj, opts...)
			}
			owner := metav1.GetControllerOf(job).Name
			if n != deterministic {
				job.GenerateName, job.Name = owner+"-", ""
			}
			// As upstream: expect the child before the create (the informer may
			// see it before Create returns), and count a failed create as seen.
			if n == randomWithExpectations {
				exp.Expect(job.Namespace+"/"+owner, 1)
			}
			err := c.Create(ctx, job, opts...)
			if err != nil && n == randomWithExpectations {
				exp.Observed(job.Namespace + "/" + owner)
			}
			w.mu.Lock()
			w.creates = append(w.creates, err)
			w.mu.Unlock()
			return err
		},
	})
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "q5-"}}
	must(t, w.direct.Create(ctx, ns))
	w.ns = ns.Name

	// The test's trace (test/tracing): docs/answers/q5-next-reconcile.md
	// draws the one of random names.
	clock := clocktesting.NewFakeClock(tenAM)
	rec, path, err := tracing.Start(ctx, tracing.Spec{Root: filepath.Join("..", ".."), Name: t.Name(),
		Config: cfg, Scheme: scheme, Cache: mgr.GetCache(), Clock: clock, Namespace: w.ns})
	must(t, err)
	t.Cleanup(func() {
		must(t, tracing.Stop(context.Background(), rec))
		if pointer := tracing.Pointer(path); pointer != "" && t.Failed() {
			t.Log(pointer)
		}
	})
	var r reconcile.Reconciler = &controller.CronJobReconciler{
		Client:    rec.Client(c, trace.FromCache),
		APIReader: rec.Reader(mgr.GetAPIReader()),
		Scheme:    scheme,
		Recorder:  events.NewFakeRecorder(100),
		Clock:     clock,
	}
	if n == randomWithExpectations {
		r = expectingReconciler{inner: r, exp: exp}
	}
	w.r = rec.Reconciler(r)
	return w
}

// expectingReconciler does not reconcile an owner while creations for it
// are not yet in the cache: it comes back later instead.
type expectingReconciler struct {
	inner reconcile.Reconciler
	exp   *expectations.Expectations
}

func (r expectingReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	if !r.exp.Satisfied(req.String()) {
		return reconcile.Result{RequeueAfter: time.Second}, nil
	}
	return r.inner.Reconcile(ctx, req)
}

// The tests of this package share one API server (utils.StartAPIServer),
// each in namespaces of its own; it stops after the last test.
func TestMain(m *testing.M) { os.Exit(utils.RunTests(m)) }

func TestTheNextReconcileBeforeTheCacheHasSeenTheJob(t *testing.T) {
	cfg := utils.StartAPIServer(t, filepath.Join("..", ".."))
	for _, tc := range []struct {
		naming naming
		jobs   int // after two reconciles of the 10:00 run with a stale cache
	}{
		{deterministic, 1},
		{random, 2},
		{randomWithExpectations, 1},
	} {
		t.Run(tc.naming.String(), func(t *testing.T) {
			ctx := context.Background()
			w := newWorld(t, cfg, tc.naming)
			cj := cronJob(w.ns, "hourly")
			must(t, w.direct.Create(ctx, cj))
			cj.Status.LastScheduleTime = &metav1.Time{Time: tenAM.Add(-time.Hour)}
			must(t, w.direct.Status().Update(ctx, cj))
			w.caughtUp(t, cj)

			// From here the cache sees neither the new Job nor the status
			// that records the run.
			w.lag.Pause("jobs", "cronjobs")
			req := reconcile.Request{NamespacedName: client.ObjectKeyFromObject(cj)}
			for i := range 2 {
				if _, err := w.r.Reconcile(ctx, req); err != nil {
					t.Fatal(say.Both("reconcile %d: %v",
						"第 %d 次调和：%v", i+1, err))
				}
			}
			if got := len(w.jobs(t)); got != tc.jobs {
				t.Error(say.Both("with %s, two reconciles of one run before the cache saw the Job left %d Jobs, want %d",
					"使用%s时，在缓存看到 Job 之前对同一次运行调和两次，留下了 %d 个 Job，应为 %d", tc.naming.said(), got, tc.jobs))
			}
			if tc.naming == deterministic {
				// The second create was refused by name, and the Reconciler
				// adopted the Job instead of failing.
				if len(w.creates) != 2 || w.creates[0] != nil || !apierrors.IsAlreadyExists(w.creates[1]) {
					t.Error(say.Both("want the second create to fail with AlreadyExists; creates returned %v",
						"第二次创建应以 AlreadyExists 失败；各次创建返回的是 %v", w.creates))
				}
			}

			// The events arrive; the next reconcile sees the truth and
			// changes nothing.
			w.lag.Resume("jobs", "cronjobs")
			var fresh batchv1.CronJob
			must(t, w.direct.Get(ctx, req.NamespacedName, &fresh))
			w.caughtUp(t, &fresh)
			w.jobsCaughtUp(t)
			if _, err := w.r.Reconcile(ctx, req); err != nil {
				t.Fatal(err)
			}
			if got := len(w.jobs(t)); got != tc.jobs {
				t.Error(say.Both("after the cache caught up: %d Jobs, want still %d",
					"缓存跟上之后：有 %d 个 Job，应仍为 %d", got, tc.jobs))
			}
			must(t, w.direct.Get(ctx, req.NamespacedName, &fresh))
			if len(fresh.Status.Active) != tc.jobs {
				t.Error(say.Both("status.active lists %d Jobs, want %d",
					"status.active 列出了 %d 个 Job，应为 %d", len(fresh.Status.Active), tc.jobs))
			}
		})
	}
}

func (w *world) jobs(t *testing.T) []kbatchv1.Job {
	t.Helper()
	var list kbatchv1.JobList
	must(t, w.direct.List(context.Background(), &list, client.InNamespace(w.ns)))
	return list.Items
}

// caughtUp waits until the cache holds obj at the server's resourceVersion.
func (w *world) caughtUp(t *testing.T, obj *batchv1.CronJob) {
	t.Helper()
	eventually(t, func() bool {
		var cached batchv1.CronJob
		err := w.cached.Get(context.Background(), client.ObjectKeyFromObject(obj), &cached)
		return err == nil && cached.ResourceVersion == obj.ResourceVersion
	})
}

func (w *world) jobsCaughtUp(t *testing.T) {
	t.Helper()
	want := len(w.jobs(t))
	eventually(t, func() bool {
		var list kbatchv1.JobList
		return w.cached.List(context.Background(), &list, client.InNamespace(w.ns)) == nil && len(list.Items) == want
	})
}

func eventually(t *testing.T, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !ok(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal(say.Both("the cache did not catch up within 30s",
				"缓存在 30 秒内没有跟上"))
		}
	}
}

// withWatch lets the interceptor wrap the manager's client, which has no
// Watch: the Reconciler never watches.
type withWatch struct{ client.Client }

func (withWatch) Watch(context.Context, client.ObjectList, ...client.ListOption) (watch.Interface, error) {
	panic("the Reconciler does not watch")
}

func cronJob(ns, name string) *batchv1.CronJob {
	return &batchv1.CronJob{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: batchv1.CronJobSpec{
			Schedule: "0 * * * *",
			TimeZone: ptr.To("Etc/UTC"),
			JobTemplate: kbatchv1.JobTemplateSpec{Spec: kbatchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever,
				Containers:    []corev1.Container{{Name: "c", Image: "busybox"}},
			}}}},
		},
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
