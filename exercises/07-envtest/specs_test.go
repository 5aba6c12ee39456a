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
	Expect(k8sClient.Create(ctx, cj)).To(Succeed())
	cj.Status.LastScheduleTime = &metav1.Time{Time: lastRun}
	Expect(k8sClient.Status().Update(ctx, cj)).To(Succeed())
}

// jobsIn lists the Jobs of the world's namespace from the API server.
func jobsIn(w *world) []kbatchv1.Job {
	GinkgoHelper()
	var list kbatchv1.JobList
	Expect(k8sClient.List(ctx, &list, client.InNamespace(w.ns))).To(Succeed())
	return list.Items
}

func aDueRunStartsOneJobItControls(w *world) {
	cj := w.cronJob("hourly", "0 * * * *")
	createWithLastRun(cj, monday10am.Add(-time.Hour))

	_, err := w.reconcileAt(monday10am, cj)
	Expect(err).NotTo(HaveOccurred())

	jobs := jobsIn(w)
	Expect(jobs).To(HaveLen(1))
	Expect(metav1.IsControlledBy(&jobs[0], cj)).To(BeTrue(),
		say.Both("the Job must name the CronJob as its controller, or Owns() never maps its events back",
			"Job 必须把 CronJob 记为它的控制者，否则 Owns() 永远不会把它的事件映射回来"))
}

func theRunIsRecordedInTheStatus(w *world) {
	cj := w.cronJob("hourly", "0 * * * *")
	createWithLastRun(cj, monday10am.Add(-time.Hour))

	_, err := w.reconcileAt(monday10am, cj)
	Expect(err).NotTo(HaveOccurred())

	// Read back through the direct client: the status the API server holds.
	var got batchv1.CronJob
	Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(cj), &got)).To(Succeed())
	Expect(got.Status.LastScheduleTime).NotTo(BeNil())
	Expect(got.Status.LastScheduleTime.Time).To(BeTemporally("==", monday10am))
	Expect(got.Status.Active).To(HaveLen(1))
}

func aSuspendedCronJobStartsNothing(w *world) {
	cj := w.cronJob("paused", "0 * * * *")
	cj.Spec.Suspend = ptr.To(true)
	createWithLastRun(cj, monday10am.Add(-time.Hour))

	_, err := w.reconcileAt(monday10am, cj)
	Expect(err).NotTo(HaveOccurred())
	Expect(jobsIn(w)).To(BeEmpty())
}

func nothingStartsEarly(w *world) {
	cj := w.cronJob("hourly", "0 * * * *")
	createWithLastRun(cj, monday10am.Add(-time.Hour))

	res, err := w.reconcileAt(monday10am.Add(-30*time.Second), cj)
	Expect(err).NotTo(HaveOccurred())
	Expect(jobsIn(w)).To(BeEmpty())
	// Not an error and not a poll: the Reconciler asks to be called again
	// when the next run is due (plus a small margin, so that the timer
	// never fires a moment too early).
	Expect(res.RequeueAfter).To(BeNumerically(">=", 30*time.Second))
	Expect(res.RequeueAfter).To(BeNumerically("<", 31*time.Second))
}

// lab:end
