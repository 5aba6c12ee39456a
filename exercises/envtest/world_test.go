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

package envtestlab

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	kbatchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	batchv1 "cronlab.dev/cronlab/api/v1"
	"cronlab.dev/cronlab/internal/controller"
	"cronlab.dev/cronlab/test/say"
)

// world is what one spec works in: its own namespace (so specs never see
// each other's objects), a fake clock, and a Reconciler that reads the
// manager's cache. Specs call Reconcile themselves, as the workqueue would,
// and move the clock instead of waiting for a schedule.
type world struct {
	ns       string
	clock    *clocktesting.FakeClock
	recorder *events.FakeRecorder
	r        *controller.CronJobReconciler
}

// monday10am is where the fake clock starts. The CronJobs' creation time is
// real time, so specs say when the previous run was through
// status.lastScheduleTime instead.
var monday10am = time.Date(2030, time.January, 7, 10, 0, 0, 0, time.UTC)

// newWorld makes a world whose Reconciler has the bug m (nil: no bug).
func newWorld(m *mutant) *world {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "lab07-"}}
	Expect(k8sClient.Create(ctx, ns)).To(Succeed(),
		say.Both("the world's setup: creating its namespace",
			"测试环境的准备步骤：创建它的名字空间"))
	w := &world{ns: ns.Name, clock: clocktesting.NewFakeClock(monday10am), recorder: events.NewFakeRecorder(100)}
	var c client.Client = mgr.GetClient()
	var clk clock.PassiveClock = w.clock
	if m != nil {
		c = interceptor.NewClient(withWatch{c}, m.funcs)
		if m.clockAhead != 0 {
			clk = aheadClock{w.clock, m.clockAhead}
		}
	}
	w.r = &controller.CronJobReconciler{
		Client:    c,
		APIReader: mgr.GetAPIReader(),
		Scheme:    scheme,
		Recorder:  w.recorder,
		Clock:     clk,
	}
	return w
}

// cronJob returns a CronJob in the world's namespace that is ready to
// create, with a Job template the API server accepts. Change what the spec
// needs before creating it.
func (w *world) cronJob(name, schedule string) *batchv1.CronJob {
	return &batchv1.CronJob{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: w.ns},
		Spec: batchv1.CronJobSpec{
			Schedule: schedule,
			TimeZone: ptr.To("Etc/UTC"),
			JobTemplate: kbatchv1.JobTemplateSpec{
				Spec: kbatchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyNever,
					Containers:    []corev1.Container{{Name: "hello", Image: "busybox", Command: []string{"date"}}},
				}}},
			},
		},
	}
}

// reconcileAt sets the clock to now and calls Reconcile once for cj, after
// waiting until the manager's cache holds what the API server holds. The
// wait makes a spec a fixed sequence of states instead of a race with the
// cache (discussion question 6).
func (w *world) reconcileAt(now time.Time, cj *batchv1.CronJob) (ctrl.Result, error) {
	GinkgoHelper()
	w.clock.SetTime(now)
	Eventually(func(g Gomega) {
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
		var directJobs, cachedJobs kbatchv1.JobList
		g.Expect(k8sClient.List(ctx, &directJobs, client.InNamespace(w.ns))).To(Succeed(),
			say.Both("listing the Jobs from the API server",
				"从 API 服务器列举 Job"))
		g.Expect(mgr.GetClient().List(ctx, &cachedJobs, client.InNamespace(w.ns))).To(Succeed(),
			say.Both("listing the Jobs from the manager's cache",
				"从管理器的缓存列举 Job"))
		g.Expect(len(cachedJobs.Items)).To(Equal(len(directJobs.Items)),
			say.Both("the number of cached Jobs, against the API server's",
				"缓存中 Job 的个数，与 API 服务器上的相比"))
	}).WithTimeout(10*time.Second).WithPolling(10*time.Millisecond).Should(Succeed(),
		say.Both("w.reconcileAt: the manager's cache did not catch up with the API server in time",
			"w.reconcileAt：管理器的缓存没有及时跟上 API 服务器"))
	return w.r.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKeyFromObject(cj)})
}

// withWatch lets the interceptor wrap the manager's client, which has no
// Watch: the Reconciler never watches, informers do.
type withWatch struct{ client.Client }

func (withWatch) Watch(context.Context, client.ObjectList, ...client.ListOption) (watch.Interface, error) {
	panic("the Reconciler does not watch")
}

// aheadClock is a clock that runs fast: the bug of a controller that starts
// runs early.
type aheadClock struct {
	clock.PassiveClock
	by time.Duration
}

func (c aheadClock) Now() time.Time                  { return c.PassiveClock.Now().Add(c.by) }
func (c aheadClock) Since(t time.Time) time.Duration { return c.Now().Sub(t) }
