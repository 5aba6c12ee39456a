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

// Package stalecache is the bonus stage: correctness under a stale cache.
// Each spec makes the controller's cache lag in one of the three ways the
// course names (c-lag, u-lag, d-lag), shows the error that lag produces,
// and shows that the Reconciler shrugs it off and converges once the
// lagging event arrives.
package stalecache

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	kbatchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/events"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	batchv1 "cronlab.dev/cronlab/api/v1"
	"cronlab.dev/cronlab/internal/controller"
	"cronlab.dev/cronlab/internal/trace"
	"cronlab.dev/cronlab/internal/trace/record"
	"cronlab.dev/cronlab/test/lag"
	"cronlab.dev/cronlab/test/say"
	"cronlab.dev/cronlab/test/tracing"
	"cronlab.dev/cronlab/test/utils"
)

var (
	cfg       *rest.Config
	scheme    *runtime.Scheme
	k8sClient client.Client // direct: for setup and assertions
)

// The tests of this package share one API server (utils.StartAPIServer),
// each in namespaces of its own; it stops after the last test.
func TestMain(m *testing.M) { os.Exit(utils.RunTests(m)) }

func TestStaleCache(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Bonus: correctness under a stale cache")
}

var _ = BeforeSuite(func() {
	cfg = utils.StartAPIServer(GinkgoT(), filepath.Join("..", ".."))
	scheme = utils.Scheme(GinkgoT())
	var err error
	k8sClient, err = client.New(cfg, client.Options{Scheme: scheme})
	Expect(err).NotTo(HaveOccurred(),
		say.Both("the suite's setup: a client of the test API server",
			"测试套件的准备步骤：连接测试用 API 服务器的客户端"))
})

// tenAM is when the run under test is due; the fake clock starts there.
var tenAM = time.Date(2030, time.January, 7, 10, 0, 0, 0, time.UTC)

// world is one spec's: a namespace, a manager whose cache lags when told
// to (w.lag), and the reference Reconciler reading that cache, with a fake
// clock. Every error that the API server returns to the Reconciler's
// writes is kept in w.writeErrors.
type world struct {
	ns    string
	lag   *lag.Watches
	clock *clocktesting.FakeClock
	r     *controller.CronJobReconciler
	cache client.Client
	// rec records the spec's trace (test/tracing): bin/lab check points to
	// it when the spec fails, and `bin/lab trace` draws it. traced is r
	// with its reconciles recorded.
	rec       *record.Recorder
	traced    reconcile.Reconciler
	traceFile string // from this folder
	tracePath string // from the repository's root, to say
	// lanesLate is set when a Sync gave up before the trace's lanes caught
	// up: the trace may then not show a lag that happened.
	lanesLate bool

	mu     sync.Mutex
	errors []error
}

// newWorld's spec names the function of yours that the world is made for,
// when a mutant's spec runs each of them: its trace is named after it.
func newWorld(m *mutant, spec string) *world {
	ctx, cancel := context.WithCancel(context.Background())
	w := &world{lag: lag.NewWatches(), clock: clocktesting.NewFakeClock(tenAM)}
	DeferCleanup(func() {
		w.lag.Resume("cronjobs", "jobs")
		cancel()
	})
	mgr, err := ctrl.NewManager(w.lag.Config(cfg), ctrl.Options{Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}})
	Expect(err).NotTo(HaveOccurred(),
		say.Both("the world's setup: a manager whose watches can be paused",
			"测试环境的准备步骤：一个可以暂停 watch 的管理器"))
	Expect(controller.IndexJobsByOwner(ctx, mgr.GetFieldIndexer())).To(Succeed(),
		say.Both("the world's setup: registering the field index of the Jobs by their controller",
			"测试环境的准备步骤：注册按控制者索引 Job 的字段索引"))
	for _, obj := range []client.Object{&batchv1.CronJob{}, &kbatchv1.Job{}} {
		_, err := mgr.GetCache().GetInformer(ctx, obj)
		Expect(err).NotTo(HaveOccurred(),
			say.Both("the world's setup: an informer of the manager's cache",
				"测试环境的准备步骤：管理器缓存的一个 informer"))
	}
	go func() { _ = mgr.Start(ctx) }()
	Expect(mgr.GetCache().WaitForCacheSync(ctx)).To(BeTrue(),
		say.Both("the world's setup: the manager's cache did not sync",
			"测试环境的准备步骤：管理器的缓存没有完成同步"))
	w.cache = mgr.GetClient()

	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "stale-"}}
	Expect(k8sClient.Create(ctx, ns)).To(Succeed(),
		say.Both("the world's setup: creating its namespace",
			"测试环境的准备步骤：创建它的名字空间"))
	w.ns = ns.Name
	w.rec = w.startTrace(ctx, mgr.GetCache(), traceName(m, spec))

	var c client.WithWatch = withWatch{mgr.GetClient()}
	var reader client.Reader = mgr.GetAPIReader()
	if m != nil {
		c = interceptor.NewClient(c, m.funcs)
		if m.apiReader != nil {
			reader = m.apiReader(reader)
		}
	}
	w.r = &controller.CronJobReconciler{
		Client:    w.rec.Client(interceptor.NewClient(c, w.recordErrors()), trace.FromCache),
		APIReader: w.rec.Reader(reader),
		Scheme:    scheme,
		Recorder:  events.NewFakeRecorder(100),
		Clock:     w.clock,
	}
	w.traced = w.rec.Reconciler(w.r)
	return w
}

// startTrace records the spec's trace, and says where it is when the spec
// fails.
func (w *world) startTrace(ctx context.Context, c cache.Cache, name string) *record.Recorder {
	GinkgoHelper()
	rec, path, err := tracing.Start(ctx, tracing.Spec{Root: filepath.Join("..", ".."), Name: name,
		Config: cfg, Scheme: scheme, Cache: c, Clock: w.clock, Namespace: w.ns})
	Expect(err).NotTo(HaveOccurred(),
		say.Both("the world's setup: starting the trace of the reconcile loop",
			"测试环境的准备步骤：开始记录调和循环的追踪"))
	w.traceFile, w.tracePath = tracing.File(filepath.Join("..", ".."), path), path
	// Each Pause and Resume of your spec is a line of the trace.
	w.lag.Tell(func(paused bool, resources []string) {
		if paused {
			rec.Note(trace.LaneCache, say.Both("the watches of %s held back (w.lag.Pause)", "%s 的 watch 被扣住（w.lag.Pause）", strings.Join(resources, ", ")))
		} else {
			rec.Note(trace.LaneCache, say.Both("the watches of %s let go (w.lag.Resume)", "%s 的 watch 被放行（w.lag.Resume）", strings.Join(resources, ", ")))
		}
	})
	DeferCleanup(func() {
		Expect(tracing.Stop(context.Background(), rec)).To(Succeed(),
			say.Both("the world's teardown: stopping the trace",
				"测试环境的收尾步骤：停止追踪"))
		if pointer := tracing.Pointer(path); pointer != "" && CurrentSpecReport().Failed() {
			AddReportEntry("trace", pointer)
		}
	})
	return rec
}

// traceName is what a world's trace is named after: the spec's name; under
// a mutant, the spec's and the function of yours that runs. The run of
// the function meant to catch the mutant (mutant.caughtBy) has the spec's
// name alone: bin/lab check points to that one when the mutant survives.
func traceName(m *mutant, spec string) string {
	name := CurrentSpecReport().LeafNodeText
	if m != nil && spec != m.caughtBy {
		name += " with " + spec
	}
	return name
}

// madeItsLag fails a spec of yours that passed without its lag ever
// happening: its trace must show a stale read of the kind its name says
// (c-lag, u-lag, d-lag), or the spec shows nothing about that lag.
func (w *world) madeItsLag() {
	GinkgoHelper()
	if CurrentSpecReport().Failed() {
		return
	}
	if w.rec == nil {
		GinkgoWriter.Println(say.Both("not checked that the lag happened: CRONLAB_TRACE=off records no trace",
			"没有检查滞后是否发生：CRONLAB_TRACE=off 时不记录追踪记录"))
		return
	}
	lag, _, _ := strings.Cut(CurrentSpecReport().LeafNodeText, ":")
	w.rec.Sync(context.Background())
	events, err := trace.Load(w.traceFile)
	Expect(err).NotTo(HaveOccurred(),
		say.Both("reading the trace the spec recorded",
			"读取测试用例记录下的追踪"))
	a := trace.Analyze(events)
	for _, s := range a.Stale {
		if s.Lag == lag {
			return
		}
	}
	if w.lanesLate {
		Fail(say.Both("the spec passed, but the trace cannot show whether a read was stale: the machine was too busy for the trace's own watches, which had not caught up when w.settle or a reconcile gave up waiting for them. Run the check again (bin/lab trace %s)",
			"测试用例通过了，但追踪记录无法判断某次读取是否陈旧：机器太忙，追踪记录自己的 watch 在 w.settle 或某次调和放弃等待时仍未追上。请再运行一次检查（bin/lab trace %s）", w.tracePath))
	}
	if unseen := unseenWhenRead(a.Events); len(unseen) > 0 {
		Fail(say.Both("the spec passed, but the trace cannot show whether a read was stale: its own watch of the API server had not yet received these when the Reconciler read them: %s. Wait for what you create with w.settle, before w.lag.Pause (bin/lab trace %s)",
			"测试用例通过了，但追踪记录无法判断某次读取是否陈旧：调和器读取以下对象时，追踪记录自己对 API 服务器的 watch 还没有收到它们：%s。请在 w.lag.Pause 之前用 w.settle 等待你创建的对象（bin/lab trace %s）", strings.Join(unseen, ", "), w.tracePath))
	}
	Fail(say.Both("the spec passed, but no read of the Reconciler was stale in the %s way: the lag never reached it, so the spec shows nothing about %s. Pause the watches before the change the cache must miss, and reconcile before Resume (bin/lab trace %s)",
		"测试用例通过了，但调和器没有任何一次读取是以 %s 的方式陈旧的：滞后从未影响到它，所以这个测试用例对 %s 什么也没有证明。请在缓存必须错过的那次改动之前暂停 watch，并在 Resume 之前调和（bin/lab trace %s）", lag, lag, w.tracePath))
}

// unseenWhenRead names the objects a reconcile read from the cache before
// the trace's api lane had received them, or the Reconciler had written
// them: the lane's watch is new and can deliver late (settle). events are
// in the analysis's order (trace.Analysis.Events).
func unseenWhenRead(events []trace.Event) []string {
	seen := map[string]bool{}
	var unseen []string
	for _, e := range events {
		switch {
		case e.Object == nil:
		case e.Lane == trace.LaneAPI, e.Kind == trace.Write && e.Error == "" && e.Object.RV != "":
			seen[e.Object.Key()] = true
		}
		if e.Kind != trace.Read || e.Source != trace.FromCache || e.Reconcile == 0 {
			continue
		}
		refs := e.Items
		if e.Object != nil && e.Object.RV != "" {
			refs = append(refs[:len(refs):len(refs)], *e.Object)
		}
		for _, r := range refs {
			name := r.Kind + " " + r.Name
			if !seen[r.Key()] && !slices.Contains(unseen, name) {
				unseen = append(unseen, name)
			}
		}
	}
	return unseen
}

// recordErrors keeps the errors of the Reconciler's writes.
func (w *world) recordErrors() interceptor.Funcs {
	keep := func(err error) error {
		if err != nil {
			w.mu.Lock()
			w.errors = append(w.errors, err)
			w.mu.Unlock()
		}
		return err
	}
	return interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			return keep(c.Create(ctx, obj, opts...))
		},
		Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
			return keep(c.Delete(ctx, obj, opts...))
		},
		SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
			return keep(c.SubResource(sub).Patch(ctx, obj, patch, opts...))
		},
	}
}

// writeErrors returns the errors the Reconciler's writes got so far.
func (w *world) writeErrors() []error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]error(nil), w.errors...)
}

// reconcileAt sets the clock and reconciles cj once. It does not wait for
// the cache: the cache lags on purpose.
func (w *world) reconcileAt(now time.Time, cj *batchv1.CronJob) error {
	w.clock.SetTime(now)
	if !w.rec.Sync(context.Background()) {
		w.lanesLate = true
	}
	_, err := w.traced.Reconcile(context.Background(), ctrl.Request{NamespacedName: client.ObjectKeyFromObject(cj)})
	return err
}

// settle waits until the cache holds what the API server holds: the
// CronJob and every Job at their resourceVersions (a Job's count alone would
// let a cache that has not yet seen a Job complete pass for settled). Then
// it waits for the trace's api lane to have received them too: that lane
// is a watch started a moment before, which on a busy machine delivers its
// first events late (internal/controlplane says why). A Job created and
// deleted before the lane received it could not be shown as d-lag: Sync
// sees an empty lane and an empty API server as caught up.
func (w *world) settle(cj *batchv1.CronJob) {
	GinkgoHelper()
	if paused := w.lag.Paused(); len(paused) > 0 {
		Fail(say.Both("w.settle waits for the cache to catch up, but the watches of %s are still paused: call w.lag.Resume first",
			"w.settle 等待缓存追上，但 %s 的 watch 仍处于暂停状态：请先调用 w.lag.Resume", strings.Join(paused, ", ")))
	}
	Eventually(func(g Gomega) {
		var direct, cached batchv1.CronJob
		g.Expect(k8sClient.Get(context.Background(), client.ObjectKeyFromObject(cj), &direct)).To(Succeed(),
			say.Both("reading the CronJob from the API server",
				"从 API 服务器读取 CronJob"))
		g.Expect(w.cache.Get(context.Background(), client.ObjectKeyFromObject(cj), &cached)).To(Succeed(),
			say.Both("reading the CronJob from the cache",
				"从缓存读取 CronJob"))
		g.Expect(cached.ResourceVersion).To(Equal(direct.ResourceVersion),
			say.Both("the cached CronJob's resourceVersion, against the API server's",
				"缓存中 CronJob 的 resourceVersion，与 API 服务器上的相比"))
		var directJobs, cachedJobs kbatchv1.JobList
		g.Expect(k8sClient.List(context.Background(), &directJobs, client.InNamespace(w.ns))).To(Succeed(),
			say.Both("listing the Jobs from the API server",
				"从 API 服务器列举 Job"))
		g.Expect(w.cache.List(context.Background(), &cachedJobs, client.InNamespace(w.ns))).To(Succeed(),
			say.Both("listing the Jobs from the cache",
				"从缓存列举 Job"))
		g.Expect(versions(cachedJobs)).To(Equal(versions(directJobs)),
			say.Both("the cached Jobs' resourceVersions, against the API server's",
				"缓存中各 Job 的 resourceVersion，与 API 服务器上的相比"))
	}).WithTimeout(30*time.Second).WithPolling(10*time.Millisecond).Should(Succeed(),
		say.Both("w.settle: the cache did not catch up with the API server (the CronJob and the Jobs) in time",
			"w.settle：缓存没有及时追上 API 服务器（CronJob 和 Job）"))
	if !w.rec.Sync(context.Background()) {
		w.lanesLate = true
		GinkgoWriter.Println(say.Both("the trace's lanes had not caught up when Sync gave up: the trace may show a change late, or not at all",
			"等到 Sync 放弃时，追踪记录的泳道仍未追上：某些变化可能记录得晚，或根本没有记录"))
	}
}

// cronJob returns an hourly CronJob whose last run was at 09:00, created.
func (w *world) cronJob(name string, mutate ...func(*batchv1.CronJob)) *batchv1.CronJob {
	GinkgoHelper()
	cj := &batchv1.CronJob{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: w.ns},
		Spec: batchv1.CronJobSpec{
			Schedule: "0 * * * *",
			TimeZone: ptr.To("Etc/UTC"),
			JobTemplate: kbatchv1.JobTemplateSpec{Spec: kbatchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever,
				Containers:    []corev1.Container{{Name: "c", Image: "busybox"}},
			}}}},
		},
	}
	for _, m := range mutate {
		m(cj)
	}
	Expect(k8sClient.Create(context.Background(), cj)).To(Succeed(),
		say.Both("w.cronJob: creating the CronJob",
			"w.cronJob：创建 CronJob"))
	cj.Status.LastScheduleTime = &metav1.Time{Time: tenAM.Add(-time.Hour)}
	Expect(k8sClient.Status().Update(context.Background(), cj)).To(Succeed(),
		say.Both("w.cronJob: writing the CronJob's status.lastScheduleTime",
			"w.cronJob：写入 CronJob 的 status.lastScheduleTime"))
	return cj
}

// jobs lists the namespace's Jobs from the API server.
func (w *world) jobs() []kbatchv1.Job {
	GinkgoHelper()
	var list kbatchv1.JobList
	Expect(k8sClient.List(context.Background(), &list, client.InNamespace(w.ns))).To(Succeed(),
		say.Both("w.jobs: listing the namespace's Jobs from the API server",
			"w.jobs：从 API 服务器列举名字空间里的 Job"))
	return list.Items
}

// completedJob makes a Job of cj's that finished at 09:01, as the Job
// controller would have marked it, and records its success in cj's status,
// as an earlier reconcile would have: history cleanup deletes only a Job
// whose end the stored status records (runs.Recorded).
func (w *world) completedJob(cj *batchv1.CronJob, name string) *kbatchv1.Job {
	GinkgoHelper()
	job := &kbatchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: w.ns},
		Spec:       kbatchv1.JobSpec{Template: cj.Spec.JobTemplate.Spec.Template},
	}
	Expect(ctrl.SetControllerReference(cj, job, scheme)).To(Succeed(),
		say.Both("w.completedJob: giving the Job its controller reference",
			"w.completedJob：给 Job 设置控制者引用"))
	Expect(k8sClient.Create(context.Background(), job)).To(Succeed(),
		say.Both("w.completedJob: creating the Job",
			"w.completedJob：创建 Job"))
	start, end := metav1.NewTime(tenAM.Add(-time.Hour)), metav1.NewTime(tenAM.Add(-59*time.Minute))
	job.Status.StartTime, job.Status.CompletionTime, job.Status.Succeeded = &start, &end, 1
	job.Status.Conditions = []kbatchv1.JobCondition{
		{Type: kbatchv1.JobSuccessCriteriaMet, Status: corev1.ConditionTrue, LastTransitionTime: end},
		{Type: kbatchv1.JobComplete, Status: corev1.ConditionTrue, LastTransitionTime: end},
	}
	Expect(k8sClient.Status().Update(context.Background(), job)).To(Succeed(),
		say.Both("w.completedJob: writing the Job's completed status",
			"w.completedJob：写入 Job 已完成的状态"))
	Eventually(func() error {
		var stored batchv1.CronJob
		if err := k8sClient.Get(context.Background(), client.ObjectKeyFromObject(cj), &stored); err != nil {
			return err
		}
		stored.Status.LastSuccessfulTime = &end
		return k8sClient.Status().Update(context.Background(), &stored)
	}).Should(Succeed(), say.Both("w.completedJob: recording the success in the CronJob's status",
		"w.completedJob：把这次成功记入 CronJob 的状态"))
	return job
}

// withWatch lets the interceptor wrap the manager's client, which has no
// Watch: the Reconciler never watches.
type withWatch struct{ client.Client }

func (withWatch) Watch(context.Context, client.ObjectList, ...client.ListOption) (watch.Interface, error) {
	panic("the Reconciler does not watch")
}

// versions maps each Job of a list to its resourceVersion.
func versions(jobs kbatchv1.JobList) map[string]string {
	out := map[string]string{}
	for _, j := range jobs.Items {
		out[j.Name] = j.ResourceVersion
	}
	return out
}
