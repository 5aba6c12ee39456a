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

package v1

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	kbatchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	batchv1 "cronlab.dev/cronlab/api/v1"
	batchv2 "cronlab.dev/cronlab/api/v2"
	"cronlab.dev/cronlab/internal/controller"
)

// The API server stores CronJobs as v1 and asks the manager's conversion
// webhook (api/v2/cronjob_conversion.go, served at /convert) for v2 whenever
// a client wants it. These specs go through a real API server both ways.
var _ = Describe("The conversion webhook", func() {
	v2CronJob := func(ns, name string) *batchv2.CronJob {
		return &batchv2.CronJob{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
			Spec: batchv2.CronJobSpec{
				Schedule: batchv2.Schedule{
					Cron:     &batchv2.CronTable{Minute: "*/5", Hour: "9-17"},
					TimeZone: ptr.To("Asia/Shanghai"),
				},
				History: batchv2.JobHistory{FailedJobs: ptr.To[int32](4)},
				JobTemplate: kbatchv1.JobTemplateSpec{Spec: kbatchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyNever,
					Containers:    []corev1.Container{{Name: "hello", Image: "busybox"}},
				}}}},
			},
		}
	}

	It("stores a CronJob written as v2 as v1, and gives it back as v2 unchanged", func() {
		ns := newNamespace(withWebhooks)
		created := v2CronJob(ns, "structured")
		Expect(withWebhooks.client.Create(ctx, created)).To(Succeed())

		By("reading it as v1: one schedule string, the limits and the time zone where v1 has them")
		var asV1 batchv1.CronJob
		Expect(withWebhooks.client.Get(ctx, client.ObjectKeyFromObject(created), &asV1)).To(Succeed())
		Expect(asV1.Spec.Schedule).To(Equal("*/5 9-17 * * *"), "the fields v2 left out are *")
		Expect(asV1.Spec.TimeZone).To(HaveValue(Equal("Asia/Shanghai")))
		Expect(asV1.Spec.FailedJobsHistoryLimit).To(HaveValue(BeEquivalentTo(4)))
		Expect(asV1.Spec.SuccessfulJobsHistoryLimit).To(HaveValue(BeEquivalentTo(3)), "v2's default")

		By("reading it as v2 again")
		var asV2 batchv2.CronJob
		Expect(withWebhooks.client.Get(ctx, client.ObjectKeyFromObject(created), &asV2)).To(Succeed())
		Expect(asV2.Spec).To(Equal(created.Spec), "the spec as the API server returned it on create, defaults and all")
		Expect(asV2.Annotations).NotTo(HaveKey(batchv2.V1ScheduleAnnotation), "v1's canonical spelling needs no annotation")
	})

	It("keeps a v1 schedule's spelling through a write in v2", func() {
		ns := newNamespace(withWebhooks)
		cj := validCronJob(ns, "spaced")
		cj.Spec.Schedule = "0  9 * * 1-5" // two spaces: v2 has nowhere to keep them
		Expect(withWebhooks.client.Create(ctx, cj)).To(Succeed())

		var asV2 batchv2.CronJob
		Expect(withWebhooks.client.Get(ctx, client.ObjectKeyFromObject(cj), &asV2)).To(Succeed())
		Expect(asV2.Spec.Schedule.Cron).To(HaveValue(Equal(batchv2.CronTable{Minute: "0", Hour: "9", DayOfMonth: "*", Month: "*", DayOfWeek: "1-5"})))
		Expect(asV2.Annotations).To(HaveKeyWithValue(batchv2.V1ScheduleAnnotation, "0  9 * * 1-5"))

		By("suspending it through v2, which writes the whole object back")
		asV2.Spec.Suspend = ptr.To(true)
		Expect(withWebhooks.client.Update(ctx, &asV2)).To(Succeed())

		var asV1 batchv1.CronJob
		Expect(withWebhooks.client.Get(ctx, client.ObjectKeyFromObject(cj), &asV1)).To(Succeed())
		Expect(asV1.Spec.Suspend).To(HaveValue(BeTrue()))
		Expect(asV1.Spec.Schedule).To(Equal("0  9 * * 1-5"), "the v1 spelling survived the v2 write")
		Expect(asV1.Annotations).NotTo(HaveKey(batchv2.V1ScheduleAnnotation), "the converter's annotation stays out of v1")
	})

	It("converts the status too, which the controller writes in v1", func() {
		ns := newNamespace(withWebhooks)
		cj := validCronJob(ns, "observed")
		Expect(withWebhooks.client.Create(ctx, cj)).To(Succeed())
		scheduled := metav1.Date(2030, 1, 7, 10, 5, 0, 0, metav1.Now().Location())
		cj.Status.LastScheduleTime = &scheduled
		meta.SetStatusCondition(&cj.Status.Conditions, metav1.Condition{
			Type: batchv1.ConditionReady, Status: metav1.ConditionTrue, Reason: batchv1.ReasonScheduling, Message: "next run at 10:10",
		})
		Expect(withWebhooks.client.Status().Update(ctx, cj)).To(Succeed())

		var asV2 batchv2.CronJob
		Expect(withWebhooks.client.Get(ctx, client.ObjectKeyFromObject(cj), &asV2)).To(Succeed())
		Expect(asV2.Status.LastScheduleTime.Equal(&scheduled)).To(BeTrue())
		Expect(meta.IsStatusConditionTrue(asV2.Status.Conditions, batchv1.ConditionReady)).To(BeTrue())
	})

	It("lists CronJobs written in either version in either version", func() {
		ns := newNamespace(withWebhooks)
		Expect(withWebhooks.client.Create(ctx, validCronJob(ns, "old"))).To(Succeed())
		Expect(withWebhooks.client.Create(ctx, v2CronJob(ns, "new"))).To(Succeed())

		var v1List batchv1.CronJobList
		Expect(withWebhooks.client.List(ctx, &v1List, client.InNamespace(ns))).To(Succeed())
		Expect(v1List.Items).To(HaveLen(2))
		var v2List batchv2.CronJobList
		Expect(withWebhooks.client.List(ctx, &v2List, client.InNamespace(ns))).To(Succeed())
		Expect(v2List.Items).To(HaveLen(2))
		for _, cj := range v2List.Items {
			Expect(cj.Spec.Schedule.Cron).NotTo(BeNil(), "%s has a cron table in v2", cj.Name)
		}
	})

	It("lets the controller, which knows only v1, start the runs of a CronJob written as v2", func() {
		ns := newNamespace(withWebhooks)
		written := v2CronJob(ns, "reconciled")
		Expect(withWebhooks.client.Create(ctx, written)).To(Succeed())
		var stored batchv1.CronJob
		Expect(withWebhooks.client.Get(ctx, client.ObjectKeyFromObject(written), &stored)).To(Succeed())

		run := time.Date(2030, 1, 7, 9, 5, 0, 0, time.UTC) // 17:05 in Asia/Shanghai
		r := &controller.CronJobReconciler{
			Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Scheme: mgr.GetScheme(),
			Recorder: events.NewFakeRecorder(10), Clock: clocktesting.NewFakeClock(run.Add(time.Second)),
		}
		// The creation time is real time, years before the fake clock's
		// 2030: counted from it, far more than 100 runs would be missed.
		// Say the last run was at 09:00.
		stored.Status.LastScheduleTime = &metav1.Time{Time: run.Add(-5 * time.Minute)}
		Expect(withWebhooks.client.Status().Update(ctx, &stored)).To(Succeed())
		Eventually(func(g Gomega) {
			var cached batchv1.CronJob
			g.Expect(mgr.GetClient().Get(ctx, client.ObjectKeyFromObject(&stored), &cached)).To(Succeed())
			g.Expect(cached.Status.LastScheduleTime).NotTo(BeNil())
		}).Should(Succeed())

		_, err := r.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKeyFromObject(&stored)})
		Expect(err).NotTo(HaveOccurred())
		var jobs kbatchv1.JobList
		Expect(withWebhooks.client.List(ctx, &jobs, client.InNamespace(ns))).To(Succeed())
		Expect(jobs.Items).To(HaveLen(1))
		Expect(jobs.Items[0].Annotations).To(HaveKeyWithValue(batchv1.ScheduledTimeAnnotation, "2030-01-07T17:05:00+08:00"))

		var asV2 batchv2.CronJob
		Expect(withWebhooks.client.Get(ctx, client.ObjectKeyFromObject(written), &asV2)).To(Succeed())
		Expect(asV2.Status.Active).To(HaveLen(1), "the status the controller wrote in v1, read as v2")
		Expect(asV2.Status.Active[0].Name).To(Equal(jobs.Items[0].Name))
	})

	It("reports a mistake in a v2 schedule at its field, with v1's message for it", func() {
		ns := newNamespace(withWebhooks)
		cj := v2CronJob(ns, "late")
		cj.Spec.Schedule.Cron.Hour = "25"
		err := withWebhooks.client.Create(ctx, cj)
		Expect(err).To(MatchError(ContainSubstring("spec.schedule.cron.hour: Invalid value: \"25\": the hour must be a comma-separated list of numbers 0-23")))

		cj = v2CronJob(ns, "both")
		cj.Spec.Schedule.Every = ptr.To("10s")
		Expect(withWebhooks.client.Create(ctx, cj)).To(MatchError(ContainSubstring("set exactly one of cron, every and period")))
	})

	It("lets the v1 webhooks judge a v2 CronJob, converted for them, in v1's terms", func() {
		// The webhook configurations name v1 only; their matchPolicy
		// (Equivalent, the default) has the API server convert a v2 request
		// to v1 and send them that. What they say names v1's fields.
		ns := newNamespace(withWebhooks)
		cj := v2CronJob(ns, "february")
		cj.Spec.Schedule.Cron = &batchv2.CronTable{Minute: "0", Hour: "0", DayOfMonth: "30", Month: "2"}
		Expect(withWebhooks.client.Create(ctx, cj)).To(MatchError(ContainSubstring(
			`spec.schedule: Invalid value: "0 0 30 2 *": never fires: February has no day 30`)))
	})

	It("is not needed without webhooks: v2 is not served, v1 works as before", func() {
		ns := newNamespace(withoutWebhooks)
		err := withoutWebhooks.client.Create(ctx, v2CronJob(ns, "nowhere"))
		Expect(meta.IsNoMatchError(err)).To(BeTrue(), "creating a v2 CronJob without the conversion webhook: %v", err)
		Expect(withoutWebhooks.client.Create(ctx, validCronJob(ns, "as-before"))).To(Succeed())
	})
})
