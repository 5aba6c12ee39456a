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

// The tests of lab stages 04 and 05 look at one step of the Reconciler at a
// time, so that a stage can be checked while later stages are still stubs
// (`bin/lab check 04`). The tests in cronjob_controller_test.go
// drive the whole Reconcile, as stage 06 does.

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	. "github.com/onsi/gomega/gstruct"

	kbatchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	ctrl "sigs.k8s.io/controller-runtime"

	batchv1 "cronlab.dev/cronlab/api/v1"
	"cronlab.dev/cronlab/internal/runs"
)

// laterStageTODO matches the error of a stub of a stage after `stage`. Such
// an error is fine while checking `stage`: that part is not written yet.
func laterStageTODO(err error, stage int) bool {
	m := regexp.MustCompile(`TODO\(lab (\d+)\)`).FindStringSubmatch(fmt.Sprint(err))
	if m == nil {
		return false
	}
	var n int
	fmt.Sscan(m[1], &n)
	return n > stage
}

// cachedJobs lists the Jobs of the namespace from the cache, once it holds
// what the API server holds.
func (h *harness) cachedJobs(cj *batchv1.CronJob) []kbatchv1.Job {
	GinkgoHelper()
	h.waitForCache(cj)
	var list kbatchv1.JobList
	Expect(mgr.GetClient().List(ctx, &list, client.InNamespace(h.ns))).To(Succeed())
	return list.Items
}

var _ = Describe("Stage 04: the reconcile loop", Label("lab-04"), func() {
	var h *harness
	BeforeEach(func() { h = newHarness() })

	It("lists the Jobs that the CronJob controls, and only those, through the field index", func() {
		mine := h.createCronJob("mine", "@hourly", at(10, 0, 0))
		other := h.createCronJob("other", "@hourly", at(10, 0, 0))
		h.createJob("mine-a", mine)
		h.createJob("mine-b", mine)
		h.createJob("others", other)
		h.createJob("nobodys", nil)
		// Owned by the CronJob, but not controlled: another controller's Job
		// that only points at it (for example for garbage collection).
		notControlled := h.createJob("owned-not-controlled", nil)
		Expect(controllerutil.SetOwnerReference(mine, notControlled, k8sClient.Scheme())).To(Succeed())
		Expect(controllerutil.SetControllerReference(other, notControlled, k8sClient.Scheme())).To(Succeed())
		notControlled.Labels = map[string]string{batchv1.CronJobLabel: mine.Name} // so that the cache holds it
		Expect(k8sClient.Update(ctx, notControlled)).To(Succeed())
		h.waitForCache(mine)

		jobs, err := h.r.listChildJobs(ctx, mine)
		Expect(err).NotTo(HaveOccurred())
		Expect(jobNames(jobs)).To(ConsistOf("mine-a", "mine-b"),
			"the Jobs whose controller reference (metav1.GetControllerOf) points at the CronJob, and no other")
	})

	It("does not list the Jobs of an earlier CronJob of the same name", func() {
		earlier := h.createCronJob("again", "@hourly", at(10, 0, 0))
		h.createJob("again-earlier", earlier)
		Expect(k8sClient.Delete(ctx, earlier)).To(Succeed())
		// No garbage collector runs here, so the Job stays, as it does for a
		// while in a real cluster.
		renewed := h.createCronJob("again", "@hourly", at(10, 0, 0))
		h.waitForCache(renewed)

		jobs, err := h.r.listChildJobs(ctx, renewed)
		Expect(err).NotTo(HaveOccurred())
		Expect(jobNames(jobs)).To(BeEmpty(),
			"a Job of the deleted CronJob of the same name was listed: index the controller's UID, not its name")
	})

	It("moves finished Jobs out of active and keeps the newest successful completion", func() {
		cj := h.createCronJob("observe", "@hourly", at(10, 0, 0))
		older, newer, still := h.createJob("older", cj), h.createJob("newer", cj), h.createJob("still", cj)
		cj.Status.Active = []corev1.ObjectReference{runs.JobReference(older), runs.JobReference(newer), runs.JobReference(still)}
		h.finish(older, kbatchv1.JobComplete, at(9, 0, 0), at(9, 5, 0))
		h.finish(newer, kbatchv1.JobComplete, at(9, 10, 0), at(9, 20, 0))

		Expect(h.r.observeJobs(ctx, cj, h.cachedJobs(cj))).To(Succeed())
		Expect(activeNames(cj)).To(ConsistOf("still"),
			"status.active after observeJobs: the finished Jobs older and newer leave it (removeActive), the running one stays")
		Expect(cj.Status.LastSuccessfulTime).To(beAt(at(9, 20, 0)), "status.lastSuccessfulTime")
		Expect(h.events()).To(ConsistOf(
			"Normal SawCompletedJob Saw completed job: older, condition: Complete",
			"Normal SawCompletedJob Saw completed job: newer, condition: Complete",
		))
	})

	It("counts a running Job it controls as active, and forgets an active Job that is gone", func() {
		cj := h.createCronJob("active", "@hourly", at(10, 0, 0))
		h.createJob("running", cj)
		cj.Status.Active = []corev1.ObjectReference{{Kind: "Job", Namespace: h.ns, Name: "gone", UID: "00000000-0000-0000-0000-000000000001"}}

		Expect(h.r.observeJobs(ctx, cj, h.cachedJobs(cj))).To(Succeed())
		Expect(activeNames(cj)).To(ConsistOf("running"))
		Expect(h.events()).To(ConsistOf(
			"Warning UnexpectedJob Saw a job that the controller did not create or forgot: running",
			"Normal MissingJob Active job went missing: gone",
		))
	})

	It("keeps an active Job that the cache does not list yet, while the API server has it", func() {
		cj := h.createCronJob("lagging", "@hourly", at(10, 0, 0))
		job := h.createJob("just-created", cj)
		cj.Status.Active = []corev1.ObjectReference{runs.JobReference(job)}

		// The cache has not seen the new Job yet: observeJobs gets no Jobs.
		Expect(h.r.observeJobs(ctx, cj, nil)).To(Succeed())
		Expect(cj.Status.Active).To(ConsistOf(HaveField("Name", "just-created")),
			"an active Job that the API server still has stays active: ask r.jobGone before removing it")
		Expect(h.events()).To(BeEmpty())
	})

	It("asks the API server only about the Jobs in status.active that the cache does not list", func() {
		cj := h.createCronJob("asks", "@hourly", at(10, 0, 0))
		running, done := h.createJob("asks-running", cj), h.createJob("asks-done", cj)
		h.finish(done, kbatchv1.JobComplete, at(9, 0, 0), at(9, 30, 0))
		cj.Status.Active = []corev1.ObjectReference{runs.JobReference(running), runs.JobReference(done)}
		var reads int
		r := *h.r
		r.APIReader = failGets{Reader: r.APIReader, passed: &reads}
		Expect(r.observeJobs(ctx, cj, h.cachedJobs(cj))).To(Succeed())
		Expect(activeNames(cj)).To(ConsistOf("asks-running"), "status.active after observeJobs: the finished Job leaves it, the running one stays")
		Expect(reads).To(BeZero(),
			"observeJobs read from the API server although the cache lists every Job of status.active: only a Job "+
				"the cache lacks needs r.jobGone (a read for every Job on every reconcile is load that grows with the cluster)")
	})

	It("leaves a finished Job that status.active does not list alone", func() {
		cj := h.createCronJob("unlisted", "@hourly", at(10, 0, 0))
		h.finish(h.createJob("unlisted-failed", cj), kbatchv1.JobFailed, at(9, 0, 0), at(9, 30, 0))
		Expect(h.r.observeJobs(ctx, cj, h.cachedJobs(cj))).To(Succeed())
		Expect(cj.Status.Active).To(BeEmpty(), "a finished Job is not running: it does not join status.active")
		Expect(h.events()).To(BeEmpty(),
			"a finished Job that status.active does not list was seen before: neither UnexpectedJob nor SawCompletedJob, on every reconcile")
	})

	It("moves lastSuccessfulTime forward, never back", func() {
		cj := h.createCronJob("forward", "@hourly", at(10, 0, 0))
		cj.Status.LastSuccessfulTime = &metav1.Time{Time: at(9, 10, 0)}
		older := h.createJob("forward-older", cj)
		h.finish(older, kbatchv1.JobComplete, at(9, 0, 0), at(9, 5, 0))
		Expect(h.r.observeJobs(ctx, cj, h.cachedJobs(cj))).To(Succeed())
		Expect(cj.Status.LastSuccessfulTime).To(beAt(at(9, 10, 0)), "a Job that completed before status.lastSuccessfulTime does not move it back")
		h.finish(h.createJob("forward-newer", cj), kbatchv1.JobComplete, at(9, 15, 0), at(9, 20, 0))
		Expect(h.r.observeJobs(ctx, cj, h.cachedJobs(cj))).To(Succeed())
		Expect(cj.Status.LastSuccessfulTime).To(beAt(at(9, 20, 0)),
			"a Job that completed after status.lastSuccessfulTime moves it forward (compare with the time it holds, not only when it is unset)")
	})

	It("writes what it observed to the status, once per reconcile, with observedGeneration", func() {
		cj := h.createCronJob("status", "@hourly", at(10, 0, 0), func(cj *batchv1.CronJob) { cj.Spec.Suspend = ptr.To(true) })
		job := h.createJob("finished", cj)
		h.finish(job, kbatchv1.JobComplete, at(9, 0, 0), at(9, 30, 0))

		_, err := h.reconcileAt(at(10, 1, 0), cj)
		Expect(err == nil || laterStageTODO(err, 4)).To(BeTrue(), "unexpected error: %v", err)
		got := h.get(cj)
		Expect(got.Status.LastSuccessfulTime).To(beAt(at(9, 30, 0)),
			"status.lastSuccessfulTime on the API server: step 6 writes the status with r.Status().Patch, "+
				"also when step 4 or 5 returned an error (status is a subresource: r.Patch and r.Update of the "+
				"CronJob leave it as it was)")
		Expect(got.Status.ObservedGeneration).To(Equal(got.Generation), "status.observedGeneration on the API server")
	})

	It("returns the error of a read it cannot do, and writes no status", func() {
		unavailable := apierrors.NewServiceUnavailable("the API server is restarting")
		for _, tc := range []struct {
			name, what string
			// running: a running Job of the CronJob, in the cache but not in
			// status.active; vanished: status.active lists a Job the cache lacks.
			running, vanished bool
			change            func(r *CronJobReconciler)
		}{
			{"get", "the CronJob cannot be read", false, false, func(r *CronJobReconciler) {
				r.Client = failReads{Client: r.Client, err: unavailable, get: &batchv1.CronJob{}}
			}},
			{"list", "its Jobs cannot be listed", false, false, func(r *CronJobReconciler) {
				r.Client = failReads{Client: r.Client, err: unavailable, list: &kbatchv1.JobList{}}
			}},
			{"refresh", "the cached copy is stale (a running Job it does not list) and the API server cannot be read", true, false, func(r *CronJobReconciler) {
				r.APIReader = failGets{Reader: r.APIReader, err: unavailable, like: &batchv1.CronJob{}}
			}},
			{"adopt", "a running Job it does not list cannot be looked up on the API server", true, false, func(r *CronJobReconciler) {
				r.APIReader = failGets{Reader: r.APIReader, err: unavailable, like: &kbatchv1.Job{}}
			}},
			{"vanished", "a Job it lists that the cache lacks cannot be looked up on the API server", false, true, func(r *CronJobReconciler) {
				r.APIReader = failGets{Reader: r.APIReader, err: unavailable, like: &kbatchv1.Job{}}
			}},
		} {
			cj := h.createCronJob("unread-"+tc.name, "@hourly", at(10, 0, 0), func(cj *batchv1.CronJob) { cj.Spec.Suspend = ptr.To(true) })
			if tc.running {
				h.createJob("unread-"+tc.name+"-running", cj)
			}
			if tc.vanished {
				cj.Status.Active = []corev1.ObjectReference{{Kind: "Job", Namespace: h.ns, Name: "vanished", UID: "00000000-0000-0000-0000-0000000000bb"}}
				Expect(k8sClient.Status().Update(ctx, cj)).To(Succeed())
			}
			h.waitForCache(cj)
			r := *h.r
			tc.change(&r)
			h.clock.SetTime(at(10, 1, 0))
			_, err := r.Reconcile(ctx, reconcileRequest(h.ns, cj.Name))
			Expect(err).To(MatchError(unavailable), "%s: Reconcile must return that error, so that the request is retried", tc.what)
			Expect(h.get(cj).Status.ObservedGeneration).To(BeZero(),
				"%s: Reconcile wrote the status after a read failed; it must stop and return the error instead", tc.what)
		}
	})

	It("reads the CronJob from the API server when the cache's copy is older than its own status write", func() {
		cj := h.createCronJob("stale", "@hourly", at(10, 0, 0), func(cj *batchv1.CronJob) { cj.Spec.Suspend = ptr.To(true) })
		stale := cj.DeepCopy() // status.active empty: the cache has not seen our last status write
		job := h.createJob("stale-running", cj)
		cj.Status.Active = []corev1.ObjectReference{runs.JobReference(job)}
		Expect(k8sClient.Status().Update(ctx, cj)).To(Succeed())
		h.waitForCache(cj)
		r := *h.r
		r.Client = serveStaleCronJob(r.Client, stale)
		h.clock.SetTime(at(10, 1, 0))
		_, err := r.Reconcile(ctx, reconcileRequest(h.ns, cj.Name))
		Expect(err == nil || laterStageTODO(err, 4)).To(BeTrue(), "unexpected error: %v", err)
		Expect(h.events()).NotTo(ContainElement(ContainSubstring("UnexpectedJob")),
			"the cached CronJob does not list the running Job its status write recorded: step 2 must read it "+
				"from the API server (refreshIfStale) before observeJobs takes the Job for one it never started")
		Expect(h.get(cj).Status.Active).To(ConsistOf(HaveField("UID", job.UID)))
	})

	It("returns the error of a status write that failed, and none for a CronJob deleted meanwhile", func() {
		for _, tc := range []struct {
			name    string
			err     error
			wantErr bool
		}{
			{"refused", apierrors.NewServiceUnavailable("the API server is restarting"), true},
			{"deleted", apierrors.NewNotFound(batchv1.GroupVersion.WithResource("cronjobs").GroupResource(), "deleted"), false},
		} {
			cj := h.createCronJob("write-"+tc.name, "@hourly", at(10, 0, 0), func(cj *batchv1.CronJob) { cj.Spec.Suspend = ptr.To(true) })
			h.finish(h.createJob("write-"+tc.name+"-done", cj), kbatchv1.JobComplete, at(9, 0, 0), at(9, 30, 0))
			h.waitForCache(cj)
			r := *h.r
			r.Client = failStatusWrites{r.Client, tc.err}
			h.clock.SetTime(at(10, 1, 0))
			_, err := r.Reconcile(ctx, reconcileRequest(h.ns, cj.Name))
			if tc.wantErr {
				Expect(err).To(MatchError(tc.err), "the status write failed: Reconcile must return its error, so that the request is retried")
			} else {
				Expect(err).NotTo(HaveOccurred(),
					"the status write found the CronJob gone (NotFound): it was deleted during the reconcile, and there is nothing left to do")
			}
		}
	})

	It("reports a step that failed in the Degraded condition, and returns its error", func() {
		cj := h.createCronJob("degraded", "@hourly", at(10, 0, 0), func(cj *batchv1.CronJob) {
			cj.Spec.Suspend = ptr.To(true)
			cj.Spec.FailedJobsHistoryLimit = ptr.To[int32](0)
		})
		h.finish(h.createJob("degraded-failed", cj), kbatchv1.JobFailed, at(9, 0, 0), at(9, 30, 0))
		h.waitForCache(cj)
		r := *h.r
		r.Client = refuseDeletes(r.Client) // step 4 cannot delete the failed Job beyond the limit
		h.clock.SetTime(at(10, 1, 0))
		_, err := r.Reconcile(ctx, reconcileRequest(h.ns, cj.Name))
		Expect(err).To(HaveOccurred(), "a step failed: Reconcile returns its error")
		Expect(condition(h.get(cj), batchv1.ConditionDegraded).Status).To(Equal(metav1.ConditionTrue),
			"status.conditions Degraded on the API server: step 6 records a failed step there (setDegraded) before it writes the status")
	})

	It("does nothing, and no error, for a CronJob that is gone", func() {
		res, err := h.r.Reconcile(ctx, reconcileRequest(h.ns, "gone"))
		Expect(err).NotTo(HaveOccurred())
		Expect(res.RequeueAfter).To(BeZero())
	})
})

var _ = Describe("Stage 05: secondary resources", Label("lab-05"), func() {
	var h *harness
	BeforeEach(func() { h = newHarness() })

	It("names Jobs after their scheduled time: minutes, or seconds between minutes", func() {
		cj := &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Name: "report"}}
		Expect(runs.JobName(cj, at(10, 5, 0))).To(Equal(fmt.Sprintf("report-%d", at(10, 5, 0).Unix()/60)))
		Expect(runs.JobName(cj, at(10, 5, 10))).To(Equal(fmt.Sprintf("report-%d", at(10, 5, 10).Unix())))
	})

	It("builds the Job from the template, annotated with its run and controlled by the CronJob", func() {
		cj := h.createCronJob("build", "*/5 * * * *", at(10, 0, 0), func(cj *batchv1.CronJob) {
			cj.Spec.TimeZone = ptr.To("Asia/Shanghai")
		})
		run := at(10, 5, 0).In(mustLoad("Asia/Shanghai"))
		job := runs.NewJob(cj, run)
		Expect(job.Name).To(Equal(minuteName("build", run)))
		Expect(job.Namespace).To(Equal(h.ns))
		Expect(job.Labels).To(HaveKeyWithValue("app", "build"))
		Expect(job.Labels).To(HaveKeyWithValue(batchv1.CronJobLabel, "build"), "the manager caches only Jobs with this label")
		Expect(job.Annotations).To(HaveKeyWithValue("team", "lab"))
		Expect(job.Annotations).To(HaveKeyWithValue(batchv1.ScheduledTimeAnnotation, "2030-01-07T18:05:00+08:00"))
		Expect(job.Spec.Template.Spec.Containers).To(HaveLen(1))
		owner := metav1.GetControllerOf(job)
		Expect(owner).NotTo(BeNil(), "the Job needs a controller reference (metav1.NewControllerRef)")
		Expect(*owner).To(MatchFields(IgnoreExtras, Fields{
			"APIVersion": Equal("batch.cronlab.dev/v1"), "Kind": Equal("CronJob"), "Name": Equal("build"), "UID": Equal(cj.UID),
		}))
		Expect(ptr.Deref(owner.BlockOwnerDeletion, false)).To(BeTrue())
		Expect(runs.ControlledBy(job, cj)).To(BeTrue())
	})

	It("creates the Job and records it in active and lastScheduleTime", func() {
		cj := h.createCronJob("create", "*/5 * * * *", at(10, 0, 0))
		created, err := h.r.createJob(ctx, cj, at(10, 5, 0))
		Expect(err).NotTo(HaveOccurred())
		Expect(created).To(BeTrue())
		Expect(jobNames(h.jobs())).To(Equal([]string{minuteName("create", at(10, 5, 0))}))
		Expect(activeNames(cj)).To(ConsistOf(minuteName("create", at(10, 5, 0))))
		Expect(cj.Status.LastScheduleTime).To(beAt(at(10, 5, 0)), "status.lastScheduleTime")
	})

	It("adopts a Job of its own that exists already, and leaves a stranger's alone", func() {
		cj := h.createCronJob("adopt", "*/5 * * * *", at(10, 0, 0))
		mine := h.createJob(minuteName("adopt", at(10, 5, 0)), cj)
		created, err := h.r.createJob(ctx, cj, at(10, 5, 0))
		Expect(err).NotTo(HaveOccurred(), "an existing Job of ours is not an error")
		Expect(created).To(BeFalse())
		Expect(cj.Status.Active).To(ConsistOf(HaveField("UID", mine.UID)))

		h.createJob(minuteName("adopt", at(10, 10, 0)), nil)
		created, err = h.r.createJob(ctx, cj, at(10, 10, 0))
		Expect(err).To(MatchError(jobNotOwned{job: minuteName("adopt", at(10, 10, 0))}),
			"a stranger's Job is left alone, and the answer is jobNotOwned{job: <its name>}, which startDueRun reports")
		Expect(created).To(BeFalse())
		Expect(cj.Status.Active).To(HaveLen(1))
		Expect(cj.Status.LastScheduleTime).To(beAt(at(10, 5, 0)), "status.lastScheduleTime")
	})

	It("labels an adopted Job that lacks the label, so that the cache holds it from then on", func() {
		cj := h.createCronJob("unlabelled", "*/5 * * * *", at(10, 0, 0))
		mine := h.createJob(minuteName("unlabelled", at(10, 5, 0)), cj)
		patch := client.MergeFrom(mine.DeepCopy())
		delete(mine.Labels, batchv1.CronJobLabel) // as if created before the label existed
		Expect(k8sClient.Patch(ctx, mine, patch)).To(Succeed())

		_, err := h.r.createJob(ctx, cj, at(10, 5, 0))
		Expect(err).NotTo(HaveOccurred())
		var got kbatchv1.Job
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(mine), &got)).To(Succeed())
		Expect(got.Labels).To(HaveKeyWithValue(batchv1.CronJobLabel, "unlabelled"))
	})

	It("returns the error of a create it cannot finish, and records no run", func() {
		unavailable := apierrors.NewServiceUnavailable("the API server is restarting")
		for _, tc := range []struct {
			name, what string
			exists     bool // a Job of ours of the run's name, without the label
			change     func(r *CronJobReconciler)
		}{
			{"refused", "the create is refused", false, func(r *CronJobReconciler) { r.Client = failWrites{Client: r.Client, create: unavailable} }},
			{"unread", "the Job exists and the API server cannot be asked for it", true, func(r *CronJobReconciler) { r.APIReader = failGets{Reader: r.APIReader, err: unavailable} }},
			{"unlabelled", "the Job exists and its label cannot be added", true, func(r *CronJobReconciler) { r.Client = failWrites{Client: r.Client, patch: unavailable} }},
		} {
			cj := h.createCronJob("fails-"+tc.name, "*/5 * * * *", at(10, 0, 0))
			if tc.exists {
				job := h.createJob(minuteName(cj.Name, at(10, 5, 0)), cj)
				patch := client.MergeFrom(job.DeepCopy())
				delete(job.Labels, batchv1.CronJobLabel)
				Expect(k8sClient.Patch(ctx, job, patch)).To(Succeed())
			}
			r := *h.r
			tc.change(&r)
			created, err := r.createJob(ctx, cj, at(10, 5, 0))
			Expect(err).To(MatchError(unavailable), "%s: createJob must return that error, so that the reconcile is retried", tc.what)
			Expect(created).To(BeFalse(), tc.what)
			Expect(cj.Status.Active).To(BeEmpty(), "%s: no Job is running for the run, so status.active stays empty", tc.what)
			Expect(cj.Status.LastScheduleTime).To(beAt(at(10, 0, 0)), "%s: the run has not started, so status.lastScheduleTime stays where it was", tc.what)
		}
	})

	It("adopts a Job that status.active lists already without listing it twice", func() {
		cj := h.createCronJob("listed", "*/5 * * * *", at(10, 0, 0))
		mine := h.createJob(minuteName("listed", at(10, 5, 0)), cj)
		cj.Status.Active = []corev1.ObjectReference{runs.JobReference(mine)}
		_, err := h.r.createJob(ctx, cj, at(10, 5, 0))
		Expect(err).NotTo(HaveOccurred())
		Expect(cj.Status.Active).To(ConsistOf(HaveField("UID", mine.UID)),
			"the adopted Job was in status.active already: one reference to a Job, not two")
	})

	It("deletes nothing when the Job of that name is not the one it meant, and forgets the one it meant", func() {
		cj := h.createCronJob("replaced", "*/5 * * * *", at(10, 0, 0))
		newer := h.createJob("replaced-1", cj)
		older := runs.JobReference(newer)
		older.UID = "00000000-0000-0000-0000-0000000000aa" // the Job that had the name before
		cj.Status.Active = []corev1.ObjectReference{older}
		Expect(h.r.deleteJob(ctx, cj, h.ns, "replaced-1", older.UID)).To(Succeed(),
			"the UID precondition failed (Conflict): the Job we meant is gone, which is what deleting it wanted")
		Expect(jobNames(h.jobs())).To(ContainElement("replaced-1"), "the Job that took the name is not ours to delete")
		Expect(cj.Status.Active).To(BeEmpty(), "the Job we meant is gone: status.active forgets it")
		Expect(h.events()).NotTo(ContainElement(ContainSubstring("FailedDelete")))
	})

	It("deletes the oldest finished Jobs beyond the limits, with background propagation", func() {
		cj := h.createCronJob("prune", "@hourly", at(10, 0, 0), func(cj *batchv1.CronJob) {
			cj.Spec.SuccessfulJobsHistoryLimit = ptr.To[int32](1)
			cj.Spec.FailedJobsHistoryLimit = ptr.To[int32](0)
		})
		for i, how := range []kbatchv1.JobConditionType{kbatchv1.JobComplete, kbatchv1.JobComplete, kbatchv1.JobFailed} {
			job := h.createJob(fmt.Sprintf("prune-%d", i), cj)
			h.finish(job, how, at(9, i, 0), at(9, i, 30))
		}
		Expect(h.r.pruneHistory(ctx, cj, h.cachedJobs(cj))).To(Succeed())
		// Without a garbage collector in envtest, only background
		// propagation removes the Job at once.
		Expect(jobNames(h.jobs())).To(Equal([]string{"prune-1"}))
	})

	// finished makes Jobs of cj named prefix-0, prefix-1 ..., the first the
	// oldest, each finished as hows says.
	finished := func(cj *batchv1.CronJob, prefix string, hows ...kbatchv1.JobConditionType) {
		for i, how := range hows {
			job := h.createJob(fmt.Sprintf("%s-%d", prefix, i), cj)
			h.finish(job, how, at(9, i, 0), at(9, i, 30))
		}
	}

	It("keeps every Job within its limit, and every Job of a group without a limit", func() {
		cj := h.createCronJob("keep", "@hourly", at(10, 0, 0), func(cj *batchv1.CronJob) {
			cj.Spec.SuccessfulJobsHistoryLimit = ptr.To[int32](3)
		})
		finished(cj, "keep", kbatchv1.JobComplete, kbatchv1.JobFailed, kbatchv1.JobFailed)
		cj.Spec.FailedJobsHistoryLimit = nil // the API server defaults it; a v2 object converted may lack it
		Expect(h.r.pruneHistory(ctx, cj, h.cachedJobs(cj))).To(Succeed())
		Expect(jobNames(h.jobs())).To(Equal([]string{"keep-0", "keep-1", "keep-2"}),
			"one successful Job under a limit of 3, and failed Jobs without a limit: nothing is deleted")
	})

	It("deletes the oldest first, in whatever order the cache lists the Jobs", func() {
		cj := h.createCronJob("order", "@hourly", at(10, 0, 0), func(cj *batchv1.CronJob) {
			cj.Spec.SuccessfulJobsHistoryLimit = ptr.To[int32](1)
		})
		finished(cj, "order", kbatchv1.JobComplete, kbatchv1.JobComplete, kbatchv1.JobComplete)
		jobs := h.cachedJobs(cj)
		slices.SortFunc(jobs, func(a, b kbatchv1.Job) int { return strings.Compare(b.Name, a.Name) }) // the newest first
		Expect(h.r.pruneHistory(ctx, cj, jobs)).To(Succeed())
		Expect(jobNames(h.jobs())).To(Equal([]string{"order-2"}),
			"the newest successful Job stays: sort each group oldest first (olderFirst) before deleting the ones beyond the limit")
	})

	It("does not count a Job that is already being deleted", func() {
		cj := h.createCronJob("leaving", "@hourly", at(10, 0, 0), func(cj *batchv1.CronJob) {
			cj.Spec.SuccessfulJobsHistoryLimit = ptr.To[int32](1)
		})
		finished(cj, "leaving", kbatchv1.JobComplete, kbatchv1.JobComplete, kbatchv1.JobComplete)
		jobs := h.cachedJobs(cj)
		i := slices.IndexFunc(jobs, func(j kbatchv1.Job) bool { return j.Name == "leaving-0" })
		jobs[i].DeletionTimestamp = &metav1.Time{Time: at(9, 59, 0)} // as the cache shows a Job that a finalizer holds
		Expect(h.r.pruneHistory(ctx, cj, jobs)).To(Succeed())
		Expect(jobNames(h.jobs())).To(Equal([]string{"leaving-0", "leaving-2"}),
			"leaving-0 is on its way out already: it is neither deleted again nor counted, so of the other two only the older goes")
	})

	It("keeps going after a failed delete, and returns the first error", func() {
		cj := h.createCronJob("refused", "@hourly", at(10, 0, 0), func(cj *batchv1.CronJob) {
			cj.Spec.FailedJobsHistoryLimit = ptr.To[int32](0)
		})
		finished(cj, "refused", kbatchv1.JobFailed, kbatchv1.JobFailed)
		r := *h.r
		r.Client = refuseDeletes(r.Client)
		err := r.pruneHistory(ctx, cj, h.cachedJobs(cj))
		Expect(err).To(MatchError(ContainSubstring("refused-0")),
			"both deletes are refused: pruneHistory returns the first one's error (the oldest Job's), so that the reconcile is retried")
		Expect(h.events()).To(ConsistOf(
			ContainSubstring("Warning FailedDelete Error deleting job refused-0"),
			ContainSubstring("Warning FailedDelete Error deleting job refused-1"),
		), "after the first refusal it goes on to the next Job, and deleteJob records FailedDelete for each")
	})

	It("deletes a running Job, forgets it in status.active and records SuccessfulDelete", func() {
		cj := h.createCronJob("running", "@hourly", at(10, 0, 0))
		job := h.createJob("running-1", cj)
		cj.Status.Active = []corev1.ObjectReference{runs.JobReference(job)}
		Expect(h.r.deleteJob(ctx, cj, h.ns, job.Name, job.UID)).To(Succeed())
		Expect(jobNames(h.jobs())).To(BeEmpty(), "background propagation removes the Job at once (envtest has no garbage collector for its pods)")
		Expect(cj.Status.Active).To(BeEmpty(), "a deleted Job no longer runs: removeActive takes it out of status.active")
		Expect(h.events()).To(ConsistOf(ContainSubstring("Normal SuccessfulDelete Deleted job running-1")))
	})

	// newManager is a manager of this spec's namespace, not started.
	newManager := func() ctrl.Manager {
		m, err := ctrl.NewManager(cfg, ctrl.Options{
			Metrics: metricsserver.Options{BindAddress: "0"}, Scheme: mgr.GetScheme(),
			Cache:      cache.Options{DefaultNamespaces: map[string]cache.Config{h.ns: {}}}, // this spec's CronJobs only
			Controller: config.Controller{SkipNameValidation: ptr.To(true)},                 // the manager spec registers one too
		})
		Expect(err).NotTo(HaveOccurred())
		return m
	}

	It("stops at the field index's error, before it builds the controller", func() {
		m := newManager()
		Expect(IndexJobsByOwner(ctx, m.GetFieldIndexer())).To(Succeed()) // so that SetupWithManager's own registration conflicts
		err := (&CronJobReconciler{Client: m.GetClient(), APIReader: m.GetAPIReader(), Scheme: m.GetScheme(), Recorder: h.recorder}).SetupWithManager(m)
		Expect(err).To(MatchError(ContainSubstring("indexer conflict")),
			"SetupWithManager went on although the field index could not be registered: return IndexJobsByOwner's error, "+
				"for a controller whose listChildJobs has no index would fail at every reconcile")
	})

	It("registers the controller, its Job watch and the field index with a manager", func() {
		m := newManager()
		asked := make(chan string, 100)
		r := &CronJobReconciler{Client: cronJobGets{m.GetClient(), asked}, APIReader: m.GetAPIReader(), Scheme: m.GetScheme(), Recorder: h.recorder}
		Expect(r.SetupWithManager(m)).To(Succeed())
		// The field index is registered by now, so registering it again fails
		// (client-go: "indexer conflict").
		Expect(IndexJobsByOwner(ctx, m.GetFieldIndexer())).NotTo(Succeed(),
			"SetupWithManager must register IndexJobsByOwner's field index with the manager: listChildJobs lists by it")

		runCtx, stop := context.WithCancel(ctx)
		DeferCleanup(stop)
		go func() {
			defer GinkgoRecover()
			Expect(m.Start(runCtx)).To(Succeed())
		}()
		// A Job whose controller is a CronJob that does not exist: only
		// Owns() turns its events into a request for that CronJob, and
		// Reconcile's first step, which reads it, is all that happens.
		job := h.createJob("orphan", nil)
		job.OwnerReferences = []metav1.OwnerReference{{
			APIVersion: batchv1.GroupVersion.String(), Kind: "CronJob", Name: "ghost", UID: "00000000-0000-0000-0000-00000000beef",
			Controller: ptr.To(true),
		}}
		Expect(k8sClient.Update(ctx, job)).To(Succeed())
		Eventually(asked).WithTimeout(10*time.Second).Should(Receive(Equal(h.ns+"/ghost")),
			"no reconcile of the CronJob that controls a Job: WatchWithOwns must watch Jobs with Owns(&kbatchv1.Job{}), "+
				"and SetupWithManager must build the controller with it")
	})
})

// cronJobGets passes every call to the client it wraps and tells, on asked,
// which CronJobs Reconcile read: one read per reconcile, in step 1.
type cronJobGets struct {
	client.Client
	asked chan<- string
}

func (c cronJobGets) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if _, ok := obj.(*batchv1.CronJob); ok {
		select {
		case c.asked <- key.String():
		default: // the spec has heard enough
		}
	}
	return c.Client.Get(ctx, key, obj, opts...)
}

func mustLoad(name string) *time.Location {
	loc, err := time.LoadLocation(name)
	Expect(err).NotTo(HaveOccurred())
	return loc
}
