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

package controller

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	kbatchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	batchv1 "cronlab.dev/cronlab/api/v1"
	"cronlab.dev/cronlab/test/say"
)

// harness is one test's world: its own namespace, a Reconciler that reads
// the manager's cache, a fake clock and a recorder that keeps Events in
// memory. Tests call Reconcile themselves, as the workqueue would, so each
// call and its result can be checked; the timer of RequeueAfter is not
// needed because the test moves the clock.
type harness struct {
	ns       string
	clock    *clocktesting.FakeClock
	recorder *events.FakeRecorder
	r        *CronJobReconciler
}

// monday10am is where the fake clock starts. Tests set status.lastScheduleTime
// to say when the previous run was; the creation time is real time and so
// unknown to the test.
var monday10am = time.Date(2030, time.January, 7, 10, 0, 0, 0, time.UTC)

func newHarness() *harness {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "cronlab-test-"}}
	Expect(k8sClient.Create(ctx, ns)).To(Succeed(),
		say.Both("the spec's own setup: creating its namespace",
			"测试用例自己的准备步骤：创建它的名字空间"))
	h := &harness{ns: ns.Name, clock: clocktesting.NewFakeClock(monday10am), recorder: events.NewFakeRecorder(1000)}
	h.r = &CronJobReconciler{
		Client:    mgr.GetClient(),
		APIReader: mgr.GetAPIReader(),
		Scheme:    mgr.GetScheme(),
		Recorder:  h.recorder,
		Clock:     h.clock,
	}
	return h
}

// createCronJob creates a CronJob whose last run was at lastRun (zero: no run
// yet) and returns it as stored. Defaults fill in what the test leaves out.
func (h *harness) createCronJob(name, schedule string, lastRun time.Time, mutate ...func(*batchv1.CronJob)) *batchv1.CronJob {
	cj := &batchv1.CronJob{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: h.ns},
		Spec: batchv1.CronJobSpec{
			Schedule: schedule,
			TimeZone: ptr.To("Etc/UTC"),
			JobTemplate: kbatchv1.JobTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}, Annotations: map[string]string{"team": "lab"}},
				Spec: kbatchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyNever,
					Containers:    []corev1.Container{{Name: "hello", Image: "busybox", Command: []string{"date"}}},
				}}},
			},
		},
	}
	for _, m := range mutate {
		m(cj)
	}
	Expect(k8sClient.Create(ctx, cj)).To(Succeed(),
		say.Both("the spec's own setup: creating the CronJob",
			"测试用例自己的准备步骤：创建 CronJob"))
	if !lastRun.IsZero() {
		cj.Status.LastScheduleTime = &metav1.Time{Time: lastRun}
		Expect(k8sClient.Status().Update(ctx, cj)).To(Succeed(),
			say.Both("the spec's own setup: writing the CronJob's status.lastScheduleTime",
				"测试用例自己的准备步骤：写入 CronJob 的 status.lastScheduleTime"))
	}
	return h.get(cj)
}

// get reads the CronJob from the API server.
func (h *harness) get(cj *batchv1.CronJob) *batchv1.CronJob {
	var fresh batchv1.CronJob
	Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(cj), &fresh)).To(Succeed(),
		say.Both("reading the CronJob back from the API server",
			"从 API 服务器读回 CronJob"))
	return &fresh
}

// reconcileAt moves the clock to now and reconciles once, after waiting until
// the cache holds what the API server holds. The wait makes each test a fixed
// sequence of states; the lag tests of stage 15 (the stale cache) take it away on purpose.
func (h *harness) reconcileAt(now time.Time, cj *batchv1.CronJob) (ctrl.Result, error) {
	h.clock.SetTime(now)
	h.waitForCache(cj)
	return h.r.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKeyFromObject(cj)})
}

func (h *harness) mustReconcileAt(now time.Time, cj *batchv1.CronJob) ctrl.Result {
	GinkgoHelper()
	res, err := h.reconcileAt(now, cj)
	Expect(err).NotTo(HaveOccurred(),
		say.Both("Reconcile returned an error where the spec expects none (the error follows)",
			"测试用例预期 Reconcile 不出错，它却返回了错误（错误见下文）"))
	return res
}

func (h *harness) waitForCache(cj *batchv1.CronJob) {
	GinkgoHelper()
	eventually(func(g Gomega) {
		var direct, cached batchv1.CronJob
		g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(cj), &direct)).To(Succeed(),
			say.Both("reading the CronJob from the API server",
				"从 API 服务器读取 CronJob"))
		g.Expect(mgr.GetClient().Get(ctx, client.ObjectKeyFromObject(cj), &cached)).To(Succeed(),
			say.Both("reading the CronJob from the manager's cache",
				"从管理器的缓存读取 CronJob"))
		g.Expect(cached.ResourceVersion).To(Equal(direct.ResourceVersion),
			say.Both("the cached CronJob's resourceVersion, against the API server's",
				"缓存中 CronJob 的 resourceVersion，与 API 服务器上的相比"))
		// The cache holds only the Jobs with our label (CacheOptions).
		var directJobs, cachedJobs kbatchv1.JobList
		g.Expect(k8sClient.List(ctx, &directJobs, client.InNamespace(h.ns), client.HasLabels{batchv1.CronJobLabel})).To(Succeed(),
			say.Both("listing the labelled Jobs from the API server",
				"从 API 服务器列举带标签的 Job"))
		g.Expect(mgr.GetClient().List(ctx, &cachedJobs, client.InNamespace(h.ns))).To(Succeed(),
			say.Both("listing the Jobs from the manager's cache",
				"从管理器的缓存列举 Job"))
		g.Expect(versions(cachedJobs.Items)).To(Equal(versions(directJobs.Items)),
			say.Both("the cached Jobs' resourceVersions, against the API server's",
				"缓存中各 Job 的 resourceVersion，与 API 服务器上的相比"))
	}).Should(Succeed(),
		say.Both("the manager's cache did not catch up with the API server (the CronJob and its labelled Jobs) in time",
			"管理器的缓存没有及时跟上 API 服务器（CronJob 和带标签的 Job）"))
}

func versions(jobs []kbatchv1.Job) []string {
	var v []string
	for _, j := range jobs {
		v = append(v, j.Name+"@"+j.ResourceVersion)
	}
	slices.Sort(v)
	return v
}

// jobs lists the Jobs in the test's namespace from the API server, by name.
func (h *harness) jobs() []kbatchv1.Job {
	var list kbatchv1.JobList
	Expect(k8sClient.List(ctx, &list, client.InNamespace(h.ns))).To(Succeed(),
		say.Both("listing the namespace's Jobs from the API server",
			"从 API 服务器列举名字空间里的 Job"))
	slices.SortFunc(list.Items, func(a, b kbatchv1.Job) int { return strings.Compare(a.Name, b.Name) })
	return list.Items
}

func jobNames(jobs []kbatchv1.Job) []string {
	names := []string{}
	for _, j := range jobs {
		names = append(names, j.Name)
	}
	return names
}

// activeNames are the names of the Jobs that status.active lists: a failure
// shows these, not a dump of object references.
func activeNames(cj *batchv1.CronJob) []string {
	names := []string{}
	for _, ref := range cj.Status.Active {
		names = append(names, ref.Name)
	}
	return names
}

// createJob makes a Job as if an earlier reconcile (or someone else) had.
func (h *harness) createJob(name string, owner *batchv1.CronJob) *kbatchv1.Job {
	job := &kbatchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: h.ns},
		Spec: kbatchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyNever,
			Containers:    []corev1.Container{{Name: "c", Image: "busybox"}},
		}}},
	}
	if owner != nil {
		Expect(ctrl.SetControllerReference(owner, job, k8sClient.Scheme())).To(Succeed(),
			say.Both("the spec's own setup: giving the Job its controller reference",
				"测试用例自己的准备步骤：给 Job 设置控制者引用"))
		job.Labels = map[string]string{batchv1.CronJobLabel: owner.Name}
	}
	Expect(k8sClient.Create(ctx, job)).To(Succeed(),
		say.Both("the spec's own setup: creating the Job",
			"测试用例自己的准备步骤：创建 Job"))
	return job
}

// finish does what the Job controller would: mark the Job Complete or Failed,
// with the conditions and times that the API server's validation requires.
func (h *harness) finish(job *kbatchv1.Job, how kbatchv1.JobConditionType, start, end time.Time) {
	GinkgoHelper()
	Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(job), job)).To(Succeed(),
		say.Both("the spec's own setup: reading the Job before it finishes it",
			"测试用例自己的准备步骤：在让 Job 结束之前先读取它"))
	cond := func(t kbatchv1.JobConditionType) kbatchv1.JobCondition {
		return kbatchv1.JobCondition{Type: t, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(end)}
	}
	job.Status.StartTime = &metav1.Time{Time: start}
	if how == kbatchv1.JobComplete {
		job.Status.Succeeded = 1
		job.Status.CompletionTime = &metav1.Time{Time: end}
		job.Status.Conditions = []kbatchv1.JobCondition{cond(kbatchv1.JobSuccessCriteriaMet), cond(kbatchv1.JobComplete)}
	} else {
		job.Status.Failed = 1
		job.Status.Conditions = []kbatchv1.JobCondition{cond(kbatchv1.JobFailureTarget), cond(kbatchv1.JobFailed)}
	}
	Expect(k8sClient.Status().Update(ctx, job)).To(Succeed(),
		say.Both("the spec's own setup: writing the Job's finished status",
			"测试用例自己的准备步骤：写入 Job 已结束的状态"))
}

// events returns the Events recorded since the last call, as
// "Type Reason message".
func (h *harness) events() []string {
	var out []string
	for {
		select {
		case e := <-h.recorder.Events:
			out = append(out, e)
		default:
			return out
		}
	}
}

func condition(cj *batchv1.CronJob, t string) metav1.Condition {
	for _, c := range cj.Status.Conditions {
		if c.Type == t {
			return c
		}
	}
	return metav1.Condition{}
}

// beAt matches a *metav1.Time that is set to want. A time the Reconciler
// never set fails with the field's name (give it as the description), not
// with a nil pointer panic in the spec.
func beAt(want time.Time) OmegaMatcher {
	return And(Not(BeNil()), HaveField("Time", BeTemporally("==", want)))
}

// haveStatusReason matches a condition's status and reason.
func haveStatusReason(status metav1.ConditionStatus, reason string) OmegaMatcher {
	return And(HaveField("Status", status), HaveField("Reason", reason))
}

func reconcileRequest(ns, name string) ctrl.Request {
	return ctrl.Request{NamespacedName: client.ObjectKey{Namespace: ns, Name: name}}
}

// hideJobsFromList wraps a client so that listing Jobs finds none, as a
// cache would that has not yet received the watch events for them.
func hideJobsFromList(c client.Client) client.Client { return jobsHidden{c} }

type jobsHidden struct{ client.Client }

func (c jobsHidden) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	if _, ok := list.(*kbatchv1.JobList); ok {
		return nil
	}
	return c.Client.List(ctx, list, opts...)
}

// serveStaleCronJob wraps a client so that reading the CronJob returns an old
// copy of it, as a cache would that has not yet seen our last status write.
func serveStaleCronJob(c client.Client, stale *batchv1.CronJob) client.Client {
	return staleCronJob{Client: c, stale: stale}
}

type staleCronJob struct {
	client.Client
	stale *batchv1.CronJob
}

func (c staleCronJob) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if cj, ok := obj.(*batchv1.CronJob); ok && key == client.ObjectKeyFromObject(c.stale) {
		c.stale.DeepCopyInto(cj)
		return nil
	}
	return c.Client.Get(ctx, key, obj, opts...)
}

// serveGoneJob makes List return, besides what the cache has, a Job that the
// API server no longer has: a cache that has not yet seen its deletion.
func serveGoneJob(c client.Client, gone *kbatchv1.Job) client.Client {
	return goneJob{Client: c, gone: gone}
}

type goneJob struct {
	client.Client
	gone *kbatchv1.Job
}

func (c goneJob) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	if err := c.Client.List(ctx, list, opts...); err != nil {
		return err
	}
	if jobs, ok := list.(*kbatchv1.JobList); ok {
		jobs.Items = append(jobs.Items, *c.gone.DeepCopy())
	}
	return nil
}

// refuseDeletes wraps a client so that the API server refuses every delete,
// as it would a controller whose Role lacks the verb.
func refuseDeletes(c client.Client) client.Client { return deletesRefused{c} }

type deletesRefused struct{ client.Client }

func (c deletesRefused) Delete(_ context.Context, obj client.Object, _ ...client.DeleteOption) error {
	return apierrors.NewForbidden(kbatchv1.Resource("jobs"), obj.GetName(), errors.New("the test refuses every delete"))
}

// failWrites wraps a client so that the API server refuses every create, or
// every patch, with err (a nil error lets that verb through); creates
// counts the creates sent.
type failWrites struct {
	client.Client
	create, patch error
	creates       *int
}

func (c failWrites) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	if c.creates != nil {
		*c.creates++
	}
	if c.create != nil {
		return c.create
	}
	return c.Client.Create(ctx, obj, opts...)
}

func (c failWrites) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
	if c.patch != nil {
		return c.patch
	}
	return c.Client.Patch(ctx, obj, patch, opts...)
}

// failGets is an API reader that cannot read objects of like's kind (any
// kind when like is nil), and counts the Gets that it lets through.
type failGets struct {
	client.Reader
	err    error
	like   client.Object
	passed *int
}

func (c failGets) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if c.err != nil && (c.like == nil || reflect.TypeOf(obj) == reflect.TypeOf(c.like)) {
		return c.err
	}
	if c.passed != nil {
		*c.passed++
	}
	return c.Reader.Get(ctx, key, obj, opts...)
}

// failReads wraps a client so that its Gets of get's kind, and its Lists of
// list's kind, fail with err.
type failReads struct {
	client.Client
	err  error
	get  client.Object
	list client.ObjectList
}

func (c failReads) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if c.get != nil && reflect.TypeOf(obj) == reflect.TypeOf(c.get) {
		return c.err
	}
	return c.Client.Get(ctx, key, obj, opts...)
}

func (c failReads) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	if c.list != nil && reflect.TypeOf(list) == reflect.TypeOf(c.list) {
		return c.err
	}
	return c.Client.List(ctx, list, opts...)
}

// failStatusWrites wraps a client so that every write of a status fails
// with err.
type failStatusWrites struct {
	client.Client
	err error
}

func (c failStatusWrites) Status() client.SubResourceWriter {
	return failingStatusWriter{c.Client.Status(), c.err}
}

type failingStatusWriter struct {
	client.SubResourceWriter
	err error
}

func (w failingStatusWriter) Patch(context.Context, client.Object, client.Patch, ...client.SubResourcePatchOption) error {
	return w.err
}

func (w failingStatusWriter) Update(context.Context, client.Object, ...client.SubResourceUpdateOption) error {
	return w.err
}
