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
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	kbatchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	batchv1 "cronlab.dev/cronlab/api/v1"
	"cronlab.dev/cronlab/test/say"
)

// The specs of this stage. Ginkgo's tree (Describe, BeforeEach, It) is
// given; each It calls one function that you write below. mutants_test.go
// runs the same functions against Reconcilers with a bug each, and expects
// at least one of them to fail: a spec that cannot fail proves nothing.
var _ = Describe("A CronJob reconciled against a real API server", func() {
	var w *world
	BeforeEach(func() { w = newWorld(nil) })

	It("starts a run that is due as one Job that it controls", func() { aDueRunStartsOneJobItControls(w) })
	It("records the run in its status", func() { theRunIsRecordedInTheStatus(w) })
	It("starts nothing while it is suspended", func() { aSuspendedCronJobStartsNothing(w) })
	It("starts nothing before the run is due, and asks to come back then", func() { nothingStartsEarly(w) })
})

// lab:begin envtest-specs

// createWithLastRun creates cj through the API server and records that its
// previous run was at lastRun. Status is a subresource: a Create ignores
// it, so it takes a second write.
func createWithLastRun(cj *batchv1.CronJob, lastRun time.Time) {
	GinkgoHelper()
	Expect(k8sClient.Create(ctx, cj)).To(Succeed(),
		say.Both("creating the CronJob on the API server",
			"在 API 服务器上创建 CronJob"))
	cj.Status.LastScheduleTime = &metav1.Time{Time: lastRun}
	Expect(k8sClient.Status().Update(ctx, cj)).To(Succeed(),
		say.Both("writing the CronJob's status.lastScheduleTime (a second write: status is a subresource)",
			"写入 CronJob 的 status.lastScheduleTime（第二次写入：status 是子资源）"))
}

// jobsIn lists the Jobs of the world's namespace from the API server.
func jobsIn(w *world) []kbatchv1.Job {
	GinkgoHelper()
	var list kbatchv1.JobList
	Expect(k8sClient.List(ctx, &list, client.InNamespace(w.ns))).To(Succeed(),
		say.Both("listing the namespace's Jobs from the API server",
			"从 API 服务器列举名字空间里的 Job"))
	return list.Items
}

func aDueRunStartsOneJobItControls(w *world) {
	cj := w.cronJob("hourly", "0 * * * *")
	createWithLastRun(cj, monday10am.Add(-time.Hour))

	_, err := w.reconcileAt(monday10am, cj)
	Expect(err).NotTo(HaveOccurred(),
		say.Both("a due run: Reconcile returns no error",
			"一次到期的运行：Reconcile 不返回错误"))

	jobs := jobsIn(w)
	Expect(jobs).To(HaveLen(1),
		say.Both("a due run starts exactly one Job",
			"一次到期的运行正好启动一个 Job"))
	Expect(metav1.IsControlledBy(&jobs[0], cj)).To(BeTrue(),
		say.Both("the Job must name the CronJob as its controller, or Owns() never maps its events back",
			"Job 必须把 CronJob 记为它的控制者，否则 Owns() 永远不会把它的事件映射回来"))
}

func theRunIsRecordedInTheStatus(w *world) {
	cj := w.cronJob("hourly", "0 * * * *")
	createWithLastRun(cj, monday10am.Add(-time.Hour))

	_, err := w.reconcileAt(monday10am, cj)
	Expect(err).NotTo(HaveOccurred(),
		say.Both("a due run: Reconcile returns no error",
			"一次到期的运行：Reconcile 不返回错误"))

	// Read back through the direct client: the status the API server holds.
	var got batchv1.CronJob
	Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(cj), &got)).To(Succeed(),
		say.Both("reading the CronJob back from the API server",
			"从 API 服务器读回 CronJob"))
	Expect(got.Status.LastScheduleTime).NotTo(BeNil(),
		say.Both("status.lastScheduleTime on the API server is set after a run",
			"运行之后，API 服务器上的 status.lastScheduleTime 已被设置"))
	Expect(got.Status.LastScheduleTime.Time).To(BeTemporally("==", monday10am),
		say.Both("status.lastScheduleTime on the API server: the run that started",
			"API 服务器上的 status.lastScheduleTime：启动的那次运行"))
	Expect(got.Status.Active).To(HaveLen(1),
		say.Both("status.active on the API server: the run's one Job",
			"API 服务器上的 status.active：这次运行的那一个 Job"))
}

func aSuspendedCronJobStartsNothing(w *world) {
	cj := w.cronJob("paused", "0 * * * *")
	cj.Spec.Suspend = ptr.To(true)
	createWithLastRun(cj, monday10am.Add(-time.Hour))

	_, err := w.reconcileAt(monday10am, cj)
	Expect(err).NotTo(HaveOccurred(),
		say.Both("a suspended CronJob: Reconcile returns no error",
			"挂起的 CronJob：Reconcile 不返回错误"))
	Expect(jobsIn(w)).To(BeEmpty(),
		say.Both("a suspended CronJob starts no Job",
			"挂起的 CronJob 不启动 Job"))
}

func nothingStartsEarly(w *world) {
	cj := w.cronJob("hourly", "0 * * * *")
	createWithLastRun(cj, monday10am.Add(-time.Hour))

	res, err := w.reconcileAt(monday10am.Add(-30*time.Second), cj)
	Expect(err).NotTo(HaveOccurred(),
		say.Both("before the run is due: Reconcile returns no error",
			"运行到期之前：Reconcile 不返回错误"))
	Expect(jobsIn(w)).To(BeEmpty(),
		say.Both("before the run is due, no Job starts",
			"运行到期之前，不启动 Job"))
	// Not an error and not a poll: the Reconciler asks to be called again
	// when the next run is due (plus a small margin, so that the timer
	// never fires a moment too early).
	Expect(res.RequeueAfter).To(BeNumerically(">=", 30*time.Second),
		say.Both("RequeueAfter: at least until the run is due (30 s), not earlier",
			"RequeueAfter：至少要到运行到期的时候（30 秒），不能更早"))
	Expect(res.RequeueAfter).To(BeNumerically("<", 31*time.Second),
		say.Both("RequeueAfter: when the run is due plus a small margin, less than 31 s",
			"RequeueAfter：运行到期的时间再加一点余量，少于 31 秒"))
}

// lab:end
