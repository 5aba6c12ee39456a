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
	"cronlab.dev/cronlab/internal/ownwrites"
	"cronlab.dev/cronlab/internal/runs"
	"cronlab.dev/cronlab/test/say"
)

// laterStageTODO matches the error of a stub of a stage other than `stage`
// (its slug, as in TODO(lab reconcile-loop)). Such an error is fine while
// checking `stage`: wherever its check runs (its own lab branch, or the
// starter of the next stage), the stages before it are written, so another
// stage's stub is a later stage's, not written yet. Slugs, not numbers: a
// stage inserted before this one changes no stub's name.
func laterStageTODO(err error, stage string) bool {
	m := regexp.MustCompile(`TODO\(lab ([a-z0-9-]+)\)`).FindStringSubmatch(fmt.Sprint(err))
	return m != nil && m[1] != stage
}

// cachedJobs lists the Jobs of the namespace from the cache, once it holds
// what the API server holds.
func (h *harness) cachedJobs(cj *batchv1.CronJob) []kbatchv1.Job {
	GinkgoHelper()
	h.waitForCache(cj)
	var list kbatchv1.JobList
	Expect(mgr.GetClient().List(ctx, &list, client.InNamespace(h.ns))).To(Succeed(),
		say.Both("the spec's own setup: listing the namespace's Jobs from the manager's cache",
			"测试用例自己的准备步骤：从管理器的缓存列举名字空间里的 Job"))
	return list.Items
}

var _ = Describe("Stage 04: the reconcile loop", Label("lab-reconcile-loop"), func() {
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
		Expect(controllerutil.SetOwnerReference(mine, notControlled, k8sClient.Scheme())).To(Succeed(),
			say.Both("the spec's own setup: making the CronJob an owner (not the controller) of a Job",
				"测试用例自己的准备步骤：让 CronJob 成为某个 Job 的属主（而不是控制者）"))
		Expect(controllerutil.SetControllerReference(other, notControlled, k8sClient.Scheme())).To(Succeed(),
			say.Both("the spec's own setup: making another CronJob that Job's controller",
				"测试用例自己的准备步骤：让另一个 CronJob 成为那个 Job 的控制者"))
		notControlled.Labels = map[string]string{batchv1.CronJobLabel: mine.Name} // so that the cache holds it
		Expect(k8sClient.Update(ctx, notControlled)).To(Succeed(),
			say.Both("the spec's own setup: writing that Job's references to the API server",
				"测试用例自己的准备步骤：把那个 Job 的引用写到 API 服务器"))
		h.waitForCache(mine)

		jobs, err := h.r.listChildJobs(ctx, mine)
		Expect(err).NotTo(HaveOccurred(),
			say.Both("listChildJobs returned an error: it lists from the cache with client.MatchingFields on the field index",
				"listChildJobs 返回了错误：它应当用 client.MatchingFields 按字段索引从缓存列举"))
		Expect(jobNames(jobs)).To(ConsistOf("mine-a", "mine-b"),
			say.Both("the Jobs whose controller reference (metav1.GetControllerOf) points at the CronJob, and no other",
				"控制者引用（metav1.GetControllerOf）指向这个 CronJob 的 Job，没有别的"))
	})

	It("does not list a Job of another namespace whose owner reference points at the CronJob", func() {
		mine := h.createCronJob("mine", "@hourly", at(10, 0, 0))
		elsewhere := newHarness() // a namespace of its own
		stray := elsewhere.createJob("stray", nil)
		// Owner references do not cross namespaces: the garbage collector
		// takes such a one for an owner that is absent, and
		// SetControllerReference refuses to write it. The API server stores
		// it all the same, so it is written by hand here.
		stray.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(mine, batchv1.GroupVersion.WithKind("CronJob"))}
		stray.Labels = map[string]string{batchv1.CronJobLabel: mine.Name} // so that the cache holds it
		Expect(k8sClient.Update(ctx, stray)).To(Succeed(),
			say.Both("the spec's own setup: writing that Job's owner reference to the API server",
				"测试用例自己的准备步骤：把那个 Job 的属主引用写到 API 服务器"))
		eventually(func(g Gomega) {
			var cached kbatchv1.Job
			g.Expect(mgr.GetClient().Get(ctx, client.ObjectKeyFromObject(stray), &cached)).To(Succeed(),
				say.Both("the spec's own setup: the cache holds the other namespace's Job", "测试用例自己的准备步骤：缓存里有另一个名字空间的 Job"))
			g.Expect(cached.OwnerReferences).NotTo(BeEmpty(),
				say.Both("the spec's own setup: the cached Job has its owner reference", "测试用例自己的准备步骤：缓存里的 Job 已有属主引用"))
		})

		jobs, err := h.r.listChildJobs(ctx, mine)
		Expect(err).NotTo(HaveOccurred(),
			say.Both("listChildJobs returned an error: it lists from the cache with client.MatchingFields on the field index",
				"listChildJobs 返回了错误：它应当用 client.MatchingFields 按字段索引从缓存列举"))
		Expect(jobNames(jobs)).To(BeEmpty(),
			say.Both("a Job of another namespace was listed: list in the CronJob's own namespace (client.InNamespace), as owner references do not cross namespaces",
				"列出了另一个名字空间的 Job：应当在 CronJob 自己的名字空间里列举（client.InNamespace），因为属主引用不能跨名字空间"))
	})

	It("does not list the Jobs of an earlier CronJob of the same name", func() {
		earlier := h.createCronJob("again", "@hourly", at(10, 0, 0))
		h.createJob("again-earlier", earlier)
		Expect(k8sClient.Delete(ctx, earlier)).To(Succeed(),
			say.Both("the spec's own setup: deleting the earlier CronJob",
				"测试用例自己的准备步骤：删除先前的 CronJob"))
		// No garbage collector runs here, so the Job stays, as it does for a
		// while in a real cluster.
		renewed := h.createCronJob("again", "@hourly", at(10, 0, 0))
		h.waitForCache(renewed)

		jobs, err := h.r.listChildJobs(ctx, renewed)
		Expect(err).NotTo(HaveOccurred(),
			say.Both("listChildJobs returned an error: it lists from the cache with client.MatchingFields on the field index",
				"listChildJobs 返回了错误：它应当用 client.MatchingFields 按字段索引从缓存列举"))
		Expect(jobNames(jobs)).To(BeEmpty(),
			say.Both("a Job of the deleted CronJob of the same name was listed: index the controller's UID, not its name",
				"列出了已删除的同名 CronJob 的 Job：索引控制者的 UID，而不是它的名字"))
	})

	It("moves finished Jobs out of active and keeps the newest successful completion", func() {
		cj := h.createCronJob("observe", "@hourly", at(10, 0, 0))
		older, newer, still := h.createJob("older", cj), h.createJob("newer", cj), h.createJob("still", cj)
		cj.Status.Active = []corev1.ObjectReference{runs.JobReference(older), runs.JobReference(newer), runs.JobReference(still)}
		h.finish(older, kbatchv1.JobComplete, at(9, 0, 0), at(9, 5, 0))
		h.finish(newer, kbatchv1.JobComplete, at(9, 10, 0), at(9, 20, 0))

		Expect(h.r.observeJobs(ctx, cj, h.cachedJobs(cj))).To(Succeed(),
			say.Both("observeJobs returned an error for Jobs that are all there to see",
				"所有 Job 都看得到，observeJobs 却返回了错误"))
		Expect(activeNames(cj)).To(ConsistOf("still"),
			say.Both("status.active after observeJobs: the finished Jobs older and newer leave it (removeActive), the running one stays",
				"observeJobs 之后的 status.active："+
					"已结束的 Job（较旧的和较新的）都离开它（removeActive），运行中的那个留下"))
		Expect(cj.Status.LastSuccessfulTime).To(beAt(at(9, 20, 0)),
			say.Both("status.lastSuccessfulTime after observeJobs is the completion of the newest successful Job (newer, 09:20)",
				"observeJobs 之后的 status.lastSuccessfulTime 是最新的成功 Job（newer，09:20）的完成时间"))
		Expect(h.events()).To(ConsistOf(
			"Normal SawCompletedJob Saw completed job: older, condition: Complete",
			"Normal SawCompletedJob Saw completed job: newer, condition: Complete",
		),
			say.Both("the Events of observeJobs: one SawCompletedJob for each Job that left status.active",
				"observeJobs 记录的事件：每个离开 status.active 的 Job 一个 SawCompletedJob"))
	})

	It("counts a running Job it controls as active, and forgets an active Job that is gone", func() {
		cj := h.createCronJob("active", "@hourly", at(10, 0, 0))
		h.createJob("running", cj)
		cj.Status.Active = []corev1.ObjectReference{{Kind: "Job", Namespace: h.ns, Name: "gone", UID: "00000000-0000-0000-0000-000000000001"}}

		Expect(h.r.observeJobs(ctx, cj, h.cachedJobs(cj))).To(Succeed(),
			say.Both("observeJobs returned an error for Jobs that are all there to see",
				"所有 Job 都看得到，observeJobs 却返回了错误"))
		Expect(activeNames(cj)).To(ConsistOf("running"),
			say.Both("status.active after observeJobs: the running Job it controls joins it, the Job that is gone leaves it",
				"observeJobs 之后的 status.active：它控制的运行中 Job 加入，已经不在的 Job 离开"))
		Expect(h.events()).To(ConsistOf(
			"Warning UnexpectedJob Saw a job that the controller did not create or forgot: running",
			"Normal MissingJob Active job went missing: gone",
		),
			say.Both("the Events of observeJobs: UnexpectedJob for the running Job status.active did not list, MissingJob for the one that is gone",
				"observeJobs 记录的事件：status.active 没有列出的运行中 Job 记 UnexpectedJob，已经不在的那个记 MissingJob"))
	})

	It("leaves a finished Job that status.active does not list alone", func() {
		cj := h.createCronJob("unlisted", "@hourly", at(10, 0, 0))
		h.finish(h.createJob("unlisted-failed", cj), kbatchv1.JobFailed, at(9, 0, 0), at(9, 30, 0))
		Expect(h.r.observeJobs(ctx, cj, h.cachedJobs(cj))).To(Succeed(),
			say.Both("observeJobs returned an error for a Job that the cache lists",
				"缓存列出了这个 Job，observeJobs 却返回了错误"))
		Expect(cj.Status.Active).To(BeEmpty(), say.Both("a finished Job is not running: it does not join status.active",
			"已结束的 Job 不在运行：它不加入 status.active"))
		Expect(h.events()).To(BeEmpty(),
			say.Both("a finished Job that status.active does not list was seen before: neither UnexpectedJob nor SawCompletedJob, on every reconcile",
				"status.active 没有列出的已结束 Job 是以前见过的："+
					"既不是 UnexpectedJob，也不是 SawCompletedJob，每次调和都一样"))
	})

	It("moves lastSuccessfulTime forward, never back", func() {
		cj := h.createCronJob("forward", "@hourly", at(10, 0, 0))
		cj.Status.LastSuccessfulTime = &metav1.Time{Time: at(9, 10, 0)}
		older := h.createJob("forward-older", cj)
		h.finish(older, kbatchv1.JobComplete, at(9, 0, 0), at(9, 5, 0))
		Expect(h.r.observeJobs(ctx, cj, h.cachedJobs(cj))).To(Succeed(),
			say.Both("observeJobs returned an error for a Job that the cache lists",
				"缓存列出了这个 Job，observeJobs 却返回了错误"))
		Expect(cj.Status.LastSuccessfulTime).To(beAt(at(9, 10, 0)), say.Both("a Job that completed before status.lastSuccessfulTime does not move it back",
			"在 status.lastSuccessfulTime 之前完成的 Job 不会让它倒退"))
		h.finish(h.createJob("forward-newer", cj), kbatchv1.JobComplete, at(9, 15, 0), at(9, 20, 0))
		Expect(h.r.observeJobs(ctx, cj, h.cachedJobs(cj))).To(Succeed(),
			say.Both("observeJobs returned an error for Jobs that the cache lists",
				"缓存列出了这些 Job，observeJobs 却返回了错误"))
		Expect(cj.Status.LastSuccessfulTime).To(beAt(at(9, 20, 0)),
			say.Both("a Job that completed after status.lastSuccessfulTime moves it forward (compare with the time it holds, not only when it is unset)",
				"在 status.lastSuccessfulTime 之后完成的 Job 会让它向前推进（要和它保存的时间比较，而不只是在它为空时才设置）"))
	})

	It("writes what it observed to the status, once per reconcile, with observedGeneration", func() {
		cj := h.createCronJob("status", "@hourly", at(10, 0, 0), func(cj *batchv1.CronJob) { cj.Spec.Suspend = ptr.To(true) })
		job := h.createJob("finished", cj)
		h.finish(job, kbatchv1.JobComplete, at(9, 0, 0), at(9, 30, 0))

		_, err := h.reconcileAt(at(10, 1, 0), cj)
		Expect(err == nil || laterStageTODO(err, "reconcile-loop")).To(BeTrue(), say.Both("unexpected error: %v",
			"意外的错误：%v", err))
		got := h.get(cj)
		// Three causes, three sentences: no status write at all (step 6), a
		// write without what step 3 observed, a write without the generation.
		written := got.Status.ObservedGeneration != 0 || got.Status.LastSuccessfulTime != nil
		Expect(written).To(BeTrue(),
			say.Both("the CronJob's status on the API server is as it was created: step 6 writes the status with r.Status().Patch, "+
				"also when step 4 or 5 returned an error (status is a subresource: r.Patch and r.Update of the "+
				"CronJob leave it as it was)",
				"API 服务器上 CronJob 的状态还是创建时的样子："+
					"第 6 步用 r.Status().Patch 写入状态，"+
					"第 4 步或第 5 步返回错误时也要写（status 是子资源："+
					"对 CronJob 的 r.Patch 和 r.Update 不会改动它）"))
		Expect(got.Status.LastSuccessfulTime).To(beAt(at(9, 30, 0)),
			say.Both("status.lastSuccessfulTime on the API server, in a status that step 6 did write: step 3 (observeJobs) sets it "+
				"from the Job that completed (JobFinished says whether and when)",
				"API 服务器上的 status.lastSuccessfulTime（第 6 步确实写了状态）："+
					"第 3 步（observeJobs）应当根据已完成的 Job 设置它（JobFinished 说明 Job 是否结束、何时结束）"))
		Expect(got.Status.ObservedGeneration).To(Equal(got.Generation), say.Both("status.observedGeneration on the API server",
			"API 服务器上的 status.observedGeneration"))
	})

	It("returns the error of a read it cannot do, and writes no status", func() {
		unavailable := apierrors.NewServiceUnavailable("the API server is restarting")
		for _, tc := range []struct {
			name, what string
			change     func(r *CronJobReconciler)
		}{
			{"get", say.Both("the CronJob cannot be read", "无法读取 CronJob"), func(r *CronJobReconciler) {
				r.Client = failReads{Client: r.Client, err: unavailable, get: &batchv1.CronJob{}}
			}},
			{"list", say.Both("its Jobs cannot be listed", "列举不了它的 Job"), func(r *CronJobReconciler) {
				r.Client = failReads{Client: r.Client, err: unavailable, list: &kbatchv1.JobList{}}
			}},
		} {
			cj := h.createCronJob("unread-"+tc.name, "@hourly", at(10, 0, 0), func(cj *batchv1.CronJob) { cj.Spec.Suspend = ptr.To(true) })
			h.waitForCache(cj)
			r := *h.r
			tc.change(&r)
			h.clock.SetTime(at(10, 1, 0))
			_, err := r.Reconcile(ctx, reconcileRequest(h.ns, cj.Name))
			Expect(err).To(MatchError(unavailable), say.Both("%s: Reconcile must return that error, so that the request is retried",
				"%s：Reconcile 必须返回这个错误，这样请求会被重试", tc.what))
			Expect(h.get(cj).Status.ObservedGeneration).To(BeZero(),
				say.Both("%s: Reconcile wrote the status after a read failed; it must stop and return the error instead",
					"%s：读取失败之后 Reconcile 还写了状态；它应当停下来，返回这个错误", tc.what))
		}
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
				Expect(err).To(MatchError(tc.err), say.Both("the status write failed: Reconcile must return its error, so that the request is retried",
					"状态写入失败了：Reconcile 必须返回它的错误，这样请求会被重试"))
			} else {
				Expect(err).NotTo(HaveOccurred(),
					say.Both("the status write found the CronJob gone (NotFound): it was deleted during the reconcile, and there is nothing left to do",
						"状态写入时发现 CronJob 不在了（NotFound）：它在调和期间被删除，没有什么可做的了"))
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
		Expect(err).To(HaveOccurred(), say.Both("a step failed: Reconcile returns its error",
			"某一步失败了：Reconcile 返回它的错误"))
		Expect(condition(h.get(cj), batchv1.ConditionDegraded).Status).To(Equal(metav1.ConditionTrue),
			say.Both("status.conditions Degraded on the API server: step 6 records a failed step there (setDegraded) before it writes the status",
				"API 服务器上的 status.conditions Degraded："+
					"第 6 步在写入状态之前把失败的那一步记在这里（setDegraded）"))
	})

	It("does nothing, and no error, for a CronJob that is gone", func() {
		res, err := h.r.Reconcile(ctx, reconcileRequest(h.ns, "gone"))
		Expect(err).NotTo(HaveOccurred(),
			say.Both("a CronJob that is gone (NotFound in step 1) is no error: client.IgnoreNotFound",
				"已经不在的 CronJob（第 1 步得到 NotFound）不是错误：用 client.IgnoreNotFound"))
		Expect(res.RequeueAfter).To(BeZero(),
			say.Both("a CronJob that is gone needs no reconcile later: an empty ctrl.Result",
				"已经不在的 CronJob 以后也不需要调和：返回空的 ctrl.Result"))
	})
})

var _ = Describe("Stage 05: secondary resources", Label("lab-secondary-resources"), func() {
	var h *harness
	BeforeEach(func() { h = newHarness() })

	It("names Jobs after their scheduled time: minutes, or seconds between minutes", func() {
		cj := &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Name: "report"}}
		Expect(runs.JobName(cj, at(10, 5, 0))).To(Equal(fmt.Sprintf("report-%d", at(10, 5, 0).Unix()/60)),
			say.Both("JobName of a run on the minute: the CronJob's name and the minutes since the Unix epoch",
				"整分钟运行的 JobName：CronJob 的名字加上自 Unix 纪元以来的分钟数"))
		Expect(runs.JobName(cj, at(10, 5, 10))).To(Equal(fmt.Sprintf("report-%d", at(10, 5, 10).Unix())),
			say.Both("JobName of a run between minutes (@every 10s): the CronJob's name and the seconds since the Unix epoch",
				"不在整分钟的运行（@every 10s）的 JobName：CronJob 的名字加上自 Unix 纪元以来的秒数"))
	})

	It("builds the Job from the template, annotated with its run and controlled by the CronJob", func() {
		cj := h.createCronJob("build", "*/5 * * * *", at(10, 0, 0), func(cj *batchv1.CronJob) {
			cj.Spec.TimeZone = ptr.To("Asia/Shanghai")
		})
		run := at(10, 5, 0).In(mustLoad("Asia/Shanghai"))
		job := runs.NewJob(cj, run)
		Expect(job.Name).To(Equal(minuteName("build", run)),
			say.Both("the name of the Job NewJob builds: runs.JobName of the CronJob and the run",
				"NewJob 构造的 Job 的名字：由 CronJob 和这次运行得出的 runs.JobName"))
		Expect(job.Namespace).To(Equal(h.ns),
			say.Both("the namespace of the Job NewJob builds: the CronJob's",
				"NewJob 构造的 Job 的名字空间：与 CronJob 的相同"))
		Expect(job.Labels).To(HaveKeyWithValue("app", "build"),
			say.Both("the Job's labels: those of the CronJob's jobTemplate",
				"Job 的标签：CronJob 的 jobTemplate 里的那些"))
		Expect(job.Labels).To(HaveKeyWithValue(batchv1.CronJobLabel, "build"), say.Both("the manager caches only Jobs with this label",
			"管理器只缓存带有这个标签的 Job"))
		Expect(job.Annotations).To(HaveKeyWithValue("team", "lab"),
			say.Both("the Job's annotations: those of the CronJob's jobTemplate",
				"Job 的注解：CronJob 的 jobTemplate 里的那些"))
		Expect(job.Annotations).To(HaveKeyWithValue(batchv1.ScheduledTimeAnnotation, "2030-01-07T18:05:00+08:00"),
			say.Both("the Job's scheduled-time annotation: the run, in RFC 3339, in the CronJob's time zone",
				"Job 的计划时间注解：这次运行的时间，RFC 3339 格式，用 CronJob 的时区"))
		Expect(job.Spec.Template.Spec.Containers).To(HaveLen(1),
			say.Both("the Job's pod template: the CronJob's jobTemplate, copied",
				"Job 的 Pod 模板：复制自 CronJob 的 jobTemplate"))
		// Two mistakes, two sentences: no owner reference at all, or one
		// that is not the controller's (hint 05.4 explains the second).
		Expect(job.OwnerReferences).NotTo(BeEmpty(), say.Both("the Job has no owner reference: NewJob makes the CronJob its controller with metav1.NewControllerRef",
			"Job 没有属主引用：NewJob 要用 metav1.NewControllerRef 把 CronJob 设为它的控制者"))
		owner := metav1.GetControllerOf(job)
		Expect(owner).NotTo(BeNil(), say.Both("the Job's owner reference is not a controller reference (Controller: true): make it with metav1.NewControllerRef",
			"Job 的属主引用不是控制者引用（Controller: true）：要用 metav1.NewControllerRef 生成它"))
		Expect(*owner).To(MatchFields(IgnoreExtras, Fields{
			"APIVersion": Equal("batch.cronlab.dev/v1"), "Kind": Equal("CronJob"), "Name": Equal("build"), "UID": Equal(cj.UID),
		}),
			say.Both("the Job's controller reference names this CronJob: its API version, kind, name and UID",
				"Job 的控制者引用指向这个 CronJob：它的 API 版本、类别、名字和 UID"))
		Expect(ptr.Deref(owner.BlockOwnerDeletion, false)).To(BeTrue(),
			say.Both("the controller reference has blockOwnerDeletion set (metav1.NewControllerRef sets it)",
				"控制者引用设置了 blockOwnerDeletion（metav1.NewControllerRef 会设置它）"))
		Expect(runs.ControlledBy(job, cj)).To(BeTrue(),
			say.Both("runs.ControlledBy(job, cronJob): the CronJob controls the Job NewJob built",
				"runs.ControlledBy(job, cronJob)：NewJob 构造的 Job 由这个 CronJob 控制"))
	})

	It("creates the Job and records it in active and lastScheduleTime", func() {
		cj := h.createCronJob("create", "*/5 * * * *", at(10, 0, 0))
		created, err := h.r.createJob(ctx, cj, at(10, 5, 0))
		Expect(err).NotTo(HaveOccurred(),
			say.Both("createJob returned an error for a Job that the API server could create",
				"API 服务器可以创建这个 Job，createJob 却返回了错误"))
		Expect(created).To(BeTrue(),
			say.Both("createJob reports that it created the Job (created is true)",
				"createJob 报告它创建了 Job（created 为 true）"))
		Expect(jobNames(h.jobs())).To(Equal([]string{minuteName("create", at(10, 5, 0))}),
			say.Both("the Jobs on the API server: the one createJob created, named by runs.JobName",
				"API 服务器上的 Job：createJob 创建的那一个，名字由 runs.JobName 给出"))
		Expect(activeNames(cj)).To(ConsistOf(minuteName("create", at(10, 5, 0))),
			say.Both("status.active after createJob: the Job it created",
				"createJob 之后的 status.active：它创建的那个 Job"))
		Expect(cj.Status.LastScheduleTime).To(beAt(at(10, 5, 0)), say.Both("status.lastScheduleTime after createJob: the scheduled time of the run it records",
			"createJob 之后的 status.lastScheduleTime：它记录的那次运行的计划时间"))
	})

	It("adopts a Job of its own that exists already, and leaves a stranger's alone", func() {
		cj := h.createCronJob("adopt", "*/5 * * * *", at(10, 0, 0))
		mine := h.createJob(minuteName("adopt", at(10, 5, 0)), cj)
		created, err := h.r.createJob(ctx, cj, at(10, 5, 0))
		Expect(err).NotTo(HaveOccurred(), say.Both("an existing Job of ours is not an error",
			"已经存在的、属于我们的 Job 不是错误"))
		Expect(created).To(BeFalse(),
			say.Both("an adopted Job was not created: created is false",
				"接管的 Job 不是新创建的：created 为 false"))
		Expect(cj.Status.Active).To(ConsistOf(HaveField("UID", mine.UID)),
			say.Both("status.active after adopting: the existing Job of ours",
				"接管之后的 status.active：那个已经存在的、属于我们的 Job"))

		h.createJob(minuteName("adopt", at(10, 10, 0)), nil)
		created, err = h.r.createJob(ctx, cj, at(10, 10, 0))
		Expect(err).To(MatchError(jobNotOwned{job: minuteName("adopt", at(10, 10, 0))}),
			say.Both("a stranger's Job is left alone, and the answer is jobNotOwned{job: <its name>}, which startDueRun reports",
				"别人的 Job 不去动，返回值为 jobNotOwned{job: <它的名字>}，由 startDueRun 报告"))
		Expect(created).To(BeFalse(),
			say.Both("a stranger's Job was not created by us: created is false",
				"别人的 Job 不是我们创建的：created 为 false"))
		Expect(cj.Status.Active).To(HaveLen(1),
			say.Both("status.active keeps only our own Job, not the stranger's",
				"status.active 只保留我们自己的 Job，不加入别人的"))
		Expect(cj.Status.LastScheduleTime).To(beAt(at(10, 5, 0)), say.Both("status.lastScheduleTime after createJob: the scheduled time of the run it records",
			"createJob 之后的 status.lastScheduleTime：它记录的那次运行的计划时间"))
	})

	It("labels an adopted Job that lacks the label, so that the cache holds it from then on", func() {
		cj := h.createCronJob("unlabelled", "*/5 * * * *", at(10, 0, 0))
		mine := h.createJob(minuteName("unlabelled", at(10, 5, 0)), cj)
		patch := client.MergeFrom(mine.DeepCopy())
		delete(mine.Labels, batchv1.CronJobLabel) // as if created before the label existed
		Expect(k8sClient.Patch(ctx, mine, patch)).To(Succeed(),
			say.Both("the spec's own setup: removing the label from the existing Job",
				"测试用例自己的准备步骤：从已经存在的 Job 上去掉标签"))

		_, err := h.r.createJob(ctx, cj, at(10, 5, 0))
		Expect(err).NotTo(HaveOccurred(),
			say.Both("createJob returned an error while adopting a Job of ours that lacks the label",
				"接管一个缺少标签的、属于我们的 Job 时，createJob 返回了错误"))
		var got kbatchv1.Job
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(mine), &got)).To(Succeed(),
			say.Both("the spec's own setup: reading the adopted Job back from the API server",
				"测试用例自己的准备步骤：从 API 服务器读回被接管的 Job"))
		Expect(got.Labels).To(HaveKeyWithValue(batchv1.CronJobLabel, "unlabelled"),
			say.Both("the adopted Job carries the cronjob label on the API server (labelAsOurs patches it), so that the cache holds it from then on",
				"API 服务器上被接管的 Job 带有 cronjob 标签（由 labelAsOurs 打补丁加上），此后缓存里就有它了"))
	})

	It("returns the error of a create it cannot finish, and records no run", func() {
		unavailable := apierrors.NewServiceUnavailable("the API server is restarting")
		for _, tc := range []struct {
			name, what string
			exists     bool // a Job of ours of the run's name, without the label
			change     func(r *CronJobReconciler)
		}{
			{"refused", say.Both("the create is refused", "创建被拒绝"), false, func(r *CronJobReconciler) { r.Client = failWrites{Client: r.Client, create: unavailable} }},
			{"unread", say.Both("the Job exists and the API server cannot be asked for it", "Job 已经存在，而无法向 API 服务器查询它"), true, func(r *CronJobReconciler) { r.APIReader = failGets{Reader: r.APIReader, err: unavailable} }},
			{"unlabelled", say.Both("the Job exists and its label cannot be added", "Job 已经存在，而它的标签加不上"), true, func(r *CronJobReconciler) { r.Client = failWrites{Client: r.Client, patch: unavailable} }},
		} {
			cj := h.createCronJob("fails-"+tc.name, "*/5 * * * *", at(10, 0, 0))
			if tc.exists {
				job := h.createJob(minuteName(cj.Name, at(10, 5, 0)), cj)
				patch := client.MergeFrom(job.DeepCopy())
				delete(job.Labels, batchv1.CronJobLabel)
				Expect(k8sClient.Patch(ctx, job, patch)).To(Succeed(),
					say.Both("the spec's own setup: removing the label from the existing Job",
						"测试用例自己的准备步骤：从已经存在的 Job 上去掉标签"))
			}
			r := *h.r
			tc.change(&r)
			created, err := r.createJob(ctx, cj, at(10, 5, 0))
			Expect(err).To(MatchError(unavailable), say.Both("%s: createJob must return that error, so that the reconcile is retried",
				"%s：createJob 必须返回这个错误，这样调和会被重试", tc.what))
			Expect(created).To(BeFalse(), tc.what)
			Expect(cj.Status.Active).To(BeEmpty(), say.Both("%s: no Job is running for the run, so status.active stays empty",
				"%s：这次运行没有 Job 在运行，所以 status.active 保持为空", tc.what))
			Expect(cj.Status.LastScheduleTime).To(beAt(at(10, 0, 0)), say.Both("%s: the run has not started, so status.lastScheduleTime stays where it was",
				"%s：这次运行没有启动，所以 status.lastScheduleTime 保持原样", tc.what))
		}
	})

	It("adopts a Job that status.active lists already without listing it twice", func() {
		cj := h.createCronJob("listed", "*/5 * * * *", at(10, 0, 0))
		mine := h.createJob(minuteName("listed", at(10, 5, 0)), cj)
		cj.Status.Active = []corev1.ObjectReference{runs.JobReference(mine)}
		_, err := h.r.createJob(ctx, cj, at(10, 5, 0))
		Expect(err).NotTo(HaveOccurred(),
			say.Both("createJob returned an error while adopting a Job of ours that status.active lists",
				"接管一个 status.active 已经列出的、属于我们的 Job 时，createJob 返回了错误"))
		Expect(cj.Status.Active).To(ConsistOf(HaveField("UID", mine.UID)),
			say.Both("the adopted Job was in status.active already: one reference to a Job, not two",
				"接管的 Job 已经在 status.active 里了：一个 Job 只有一条引用，不是两条"))
	})

	It("deletes nothing when the Job of that name is not the one it meant, and forgets the one it meant", func() {
		cj := h.createCronJob("replaced", "*/5 * * * *", at(10, 0, 0))
		newer := h.createJob("replaced-1", cj)
		older := runs.JobReference(newer)
		older.UID = "00000000-0000-0000-0000-0000000000aa" // the Job that had the name before
		cj.Status.Active = []corev1.ObjectReference{older}
		Expect(h.r.deleteJob(ctx, cj, h.ns, "replaced-1", older.UID)).To(Succeed(),
			say.Both("the UID precondition failed (Conflict): the Job we meant is gone, which is what deleting it wanted",
				"UID 前提条件不满足（Conflict）：我们要删的 Job 已经不在了，这正是删除它想要的结果"))
		Expect(jobNames(h.jobs())).To(ContainElement("replaced-1"), say.Both("the Job that took the name is not ours to delete",
			"占用了这个名字的 Job 不归我们删"))
		Expect(cj.Status.Active).To(BeEmpty(), say.Both("the Job we meant is gone: status.active forgets it",
			"我们要删的 Job 已经不在了：status.active 忘掉它"))
		Expect(h.events()).NotTo(ContainElement(ContainSubstring("FailedDelete")),
			say.Both("a Job that is gone is no failed delete: no FailedDelete Event",
				"已经不在的 Job 不算删除失败：不记录 FailedDelete 事件"))
	})

	// recordsAll is a stored status that records the end of every Job of
	// these specs (all finished before 9:59): history cleanup may delete any.
	recordsAll := batchv1.CronJobStatus{LastSuccessfulTime: &metav1.Time{Time: at(9, 59, 0)}}

	It("deletes the oldest finished Jobs beyond the limits, with background propagation", func() {
		cj := h.createCronJob("prune", "@hourly", at(10, 0, 0), func(cj *batchv1.CronJob) {
			cj.Spec.SuccessfulJobsHistoryLimit = ptr.To[int32](1)
			cj.Spec.FailedJobsHistoryLimit = ptr.To[int32](0)
		})
		for i, how := range []kbatchv1.JobConditionType{kbatchv1.JobComplete, kbatchv1.JobComplete, kbatchv1.JobFailed} {
			job := h.createJob(fmt.Sprintf("prune-%d", i), cj)
			h.finish(job, how, at(9, i, 0), at(9, i, 30))
		}
		Expect(h.r.pruneHistory(ctx, cj, recordsAll, h.cachedJobs(cj))).To(Succeed(),
			say.Both("pruneHistory returned an error although every delete could succeed",
				"每次删除都能成功，pruneHistory 却返回了错误"))
		// Without a garbage collector in envtest, only background
		// propagation removes the Job at once.
		Expect(jobNames(h.jobs())).To(Equal([]string{"prune-1"}),
			say.Both("the Jobs left on the API server: the newest successful one (limit 1), no failed one (limit 0)",
				"API 服务器上留下的 Job：最新的那个成功 Job（上限 1），没有失败的 Job（上限 0）"))
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
		Expect(h.r.pruneHistory(ctx, cj, recordsAll, h.cachedJobs(cj))).To(Succeed(),
			say.Both("pruneHistory returned an error although there is nothing to delete",
				"没有什么要删的，pruneHistory 却返回了错误"))
		Expect(jobNames(h.jobs())).To(Equal([]string{"keep-0", "keep-1", "keep-2"}),
			say.Both("one successful Job under a limit of 3, and failed Jobs without a limit: nothing is deleted",
				"成功的 Job 有一个、上限为 3，失败的 Job 没有上限：什么也不删"))
	})

	It("deletes the oldest first, in whatever order the cache lists the Jobs", func() {
		cj := h.createCronJob("order", "@hourly", at(10, 0, 0), func(cj *batchv1.CronJob) {
			cj.Spec.SuccessfulJobsHistoryLimit = ptr.To[int32](1)
		})
		finished(cj, "order", kbatchv1.JobComplete, kbatchv1.JobComplete, kbatchv1.JobComplete)
		jobs := h.cachedJobs(cj)
		slices.SortFunc(jobs, func(a, b kbatchv1.Job) int { return strings.Compare(b.Name, a.Name) }) // the newest first
		Expect(h.r.pruneHistory(ctx, cj, recordsAll, jobs)).To(Succeed(),
			say.Both("pruneHistory returned an error although every delete could succeed",
				"每次删除都能成功，pruneHistory 却返回了错误"))
		Expect(jobNames(h.jobs())).To(Equal([]string{"order-2"}),
			say.Both("the newest successful Job stays: sort each group oldest first (olderFirst) before deleting the ones beyond the limit",
				"最新的成功 Job 留下：每组先按从旧到新排序（olderFirst），再删除超出上限的那些"))
	})

	It("does not count a Job that is already being deleted", func() {
		cj := h.createCronJob("leaving", "@hourly", at(10, 0, 0), func(cj *batchv1.CronJob) {
			cj.Spec.SuccessfulJobsHistoryLimit = ptr.To[int32](1)
		})
		finished(cj, "leaving", kbatchv1.JobComplete, kbatchv1.JobComplete, kbatchv1.JobComplete)
		jobs := h.cachedJobs(cj)
		i := slices.IndexFunc(jobs, func(j kbatchv1.Job) bool { return j.Name == "leaving-0" })
		jobs[i].DeletionTimestamp = &metav1.Time{Time: at(9, 59, 0)} // as the cache shows a Job that a finalizer holds
		Expect(h.r.pruneHistory(ctx, cj, recordsAll, jobs)).To(Succeed(),
			say.Both("pruneHistory returned an error although every delete could succeed",
				"每次删除都能成功，pruneHistory 却返回了错误"))
		Expect(jobNames(h.jobs())).To(Equal([]string{"leaving-0", "leaving-2"}),
			say.Both("leaving-0 is on its way out already: it is neither deleted again nor counted, so of the other two only the older goes",
				"leaving-0 已经在被删除的路上了：既不再删它，也不把它计数，所以另外两个中只删较旧的那个"))
	})

	It("keeps a finished Job until the status on the API server records its end", func() {
		cj := h.createCronJob("unrecorded", "@hourly", at(10, 0, 0), func(cj *batchv1.CronJob) {
			cj.Spec.SuccessfulJobsHistoryLimit = ptr.To[int32](0)
			cj.Spec.FailedJobsHistoryLimit = ptr.To[int32](0)
		})
		finished(cj, "unrecorded", kbatchv1.JobComplete, kbatchv1.JobComplete, kbatchv1.JobFailed)
		jobs := h.cachedJobs(cj)
		failed := jobs[slices.IndexFunc(jobs, func(j kbatchv1.Job) bool { return j.Name == "unrecorded-2" })]
		// What the API server stores: the first success (9:00:30), not the
		// second (9:01:30), and the failed Job still active.
		stored := batchv1.CronJobStatus{LastSuccessfulTime: &metav1.Time{Time: at(9, 0, 30)},
			Active: []corev1.ObjectReference{runs.JobReference(&failed)}}
		Expect(h.r.pruneHistory(ctx, cj, stored, jobs)).To(Succeed(),
			say.Both("pruneHistory returned an error although every delete could succeed",
				"每次删除都能成功，pruneHistory 却返回了错误"))
		Expect(jobNames(h.jobs())).To(Equal([]string{"unrecorded-1", "unrecorded-2"}),
			say.Both("only the Job whose end the stored status records goes (runs.Recorded): the success that lastSuccessfulTime "+
				"does not hold yet, and the failed Job still in status.active, stay until step 6 has written them, for a "+
				"manager that stops in between would otherwise lose them for good",
				"只删除已存状态记录了其结束的 Job（runs.Recorded）：lastSuccessfulTime 还没有记下的那次成功，"+
					"以及仍在 status.active 中的失败 Job，都要留到第 6 步把它们写入之后，"+
					"否则管理器若在两次写入之间停止，它们就永远丢失了"))
	})

	It("keeps going after a failed delete, and returns the first error", func() {
		cj := h.createCronJob("refused", "@hourly", at(10, 0, 0), func(cj *batchv1.CronJob) {
			cj.Spec.FailedJobsHistoryLimit = ptr.To[int32](0)
		})
		finished(cj, "refused", kbatchv1.JobFailed, kbatchv1.JobFailed)
		r := *h.r
		r.Client = refuseDeletes(r.Client)
		err := r.pruneHistory(ctx, cj, recordsAll, h.cachedJobs(cj))
		Expect(err).To(MatchError(ContainSubstring("refused-0")),
			say.Both("both deletes are refused: pruneHistory returns the first one's error (the oldest Job's), so that the reconcile is retried",
				"两次删除都被拒绝：pruneHistory 返回第一个错误（最旧的那个 Job 的），这样调和会被重试"))
		Expect(h.events()).To(ConsistOf(
			ContainSubstring("Warning FailedDelete Error deleting job refused-0"),
			ContainSubstring("Warning FailedDelete Error deleting job refused-1"),
		), say.Both("after the first refusal it goes on to the next Job, and deleteJob records FailedDelete for each",
			"第一次被拒绝之后，它接着处理下一个 Job，并且 deleteJob 为每一个都记录 FailedDelete"))
	})

	It("deletes a running Job, forgets it in status.active and records SuccessfulDelete", func() {
		cj := h.createCronJob("running", "@hourly", at(10, 0, 0))
		job := h.createJob("running-1", cj)
		cj.Status.Active = []corev1.ObjectReference{runs.JobReference(job)}
		Expect(h.r.deleteJob(ctx, cj, h.ns, job.Name, job.UID)).To(Succeed(),
			say.Both("deleteJob returned an error for a Job that the API server could delete",
				"API 服务器可以删除这个 Job，deleteJob 却返回了错误"))
		Expect(jobNames(h.jobs())).To(BeEmpty(), say.Both("background propagation removes the Job at once (envtest has no garbage collector for its pods)",
			"后台（Background）传播策略会立刻移除 Job（envtest 没有为它的 Pod 做垃圾收集的组件）"))
		Expect(cj.Status.Active).To(BeEmpty(), say.Both("a deleted Job no longer runs: removeActive takes it out of status.active",
			"被删除的 Job 不再运行：removeActive 把它移出 status.active"))
		Expect(h.events()).To(ConsistOf(ContainSubstring("Normal SuccessfulDelete Deleted job running-1")),
			say.Both("deleteJob records a Normal SuccessfulDelete Event naming the Job",
				"deleteJob 记录一个点名这个 Job 的 Normal SuccessfulDelete 事件"))
	})

	// newManager is a manager of this spec's namespace, not started.
	newManager := func() ctrl.Manager {
		m, err := ctrl.NewManager(cfg, ctrl.Options{
			Metrics: metricsserver.Options{BindAddress: "0"}, Scheme: mgr.GetScheme(),
			Cache:      cache.Options{DefaultNamespaces: map[string]cache.Config{h.ns: {}}}, // this spec's CronJobs only
			Controller: config.Controller{SkipNameValidation: ptr.To(true)},                 // the manager spec registers one too
		})
		Expect(err).NotTo(HaveOccurred(),
			say.Both("the spec's own setup: a manager for this spec's namespace",
				"测试用例自己的准备步骤：为这个测试用例的名字空间建一个管理器"))
		return m
	}

	It("stops at the field index's error, before it builds the controller", func() {
		m := newManager()
		Expect(IndexJobsByOwner(ctx, m.GetFieldIndexer())).To(Succeed(),
			say.Both("the spec's own setup: registering the field index first, so that SetupWithManager's registration conflicts",
				"测试用例自己的准备步骤：先注册字段索引，让 SetupWithManager 的注册发生冲突")) // so that SetupWithManager's own registration conflicts
		err := (&CronJobReconciler{Client: m.GetClient(), APIReader: m.GetAPIReader(), Scheme: m.GetScheme(), Recorder: h.recorder}).SetupWithManager(m)
		Expect(err).To(MatchError(ContainSubstring("indexer conflict")),
			say.Both("SetupWithManager went on although the field index could not be registered: return IndexJobsByOwner's error, "+
				"for a controller whose listChildJobs has no index would fail at every reconcile",
				"字段索引无法注册，SetupWithManager 却继续了："+
					"要返回 IndexJobsByOwner 的错误，"+
					"因为 listChildJobs 没有索引的控制器每次调和都会失败"))
	})

	It("registers the controller, its Job watch and the field index with a manager", func() {
		m := newManager()
		asked := make(chan string, 100)
		r := &CronJobReconciler{Client: cronJobGets{m.GetClient(), asked}, APIReader: m.GetAPIReader(), Scheme: m.GetScheme(), Recorder: h.recorder}
		Expect(r.SetupWithManager(m)).To(Succeed(),
			say.Both("SetupWithManager returned an error on a fresh manager",
				"在一个新的管理器上，SetupWithManager 返回了错误"))
		// The field index is registered by now, so registering it again fails
		// (client-go: "indexer conflict").
		Expect(IndexJobsByOwner(ctx, m.GetFieldIndexer())).NotTo(Succeed(),
			say.Both("SetupWithManager must register IndexJobsByOwner's field index with the manager: listChildJobs lists by it",
				"SetupWithManager 必须向管理器注册 IndexJobsByOwner 的字段索引：listChildJobs 按它列举"))

		runCtx, stop := context.WithCancel(ctx)
		DeferCleanup(stop)
		go func() {
			defer GinkgoRecover()
			Expect(m.Start(runCtx)).To(Succeed(),
				say.Both("the manager with the controller SetupWithManager built stopped with an error",
					"用 SetupWithManager 构建了控制器的管理器出错停止了"))
		}()
		// A Job whose controller is a CronJob that does not exist: only
		// Owns() turns its events into a request for that CronJob, and
		// Reconcile's first step, which reads it, is all that happens.
		job := h.createJob("orphan", nil)
		job.OwnerReferences = []metav1.OwnerReference{{
			APIVersion: batchv1.GroupVersion.String(), Kind: "CronJob", Name: "ghost", UID: "00000000-0000-0000-0000-00000000beef",
			Controller: ptr.To(true),
		}}
		Expect(k8sClient.Update(ctx, job)).To(Succeed(),
			say.Both("the spec's own setup: giving the Job a controller reference to a CronJob that does not exist",
				"测试用例自己的准备步骤：给 Job 一个指向不存在的 CronJob 的控制者引用"))
		Eventually(asked).WithTimeout(10*time.Second).Should(Receive(Equal(h.ns+"/ghost")),
			say.Both("no reconcile of the CronJob that controls a Job: WatchWithOwns must watch Jobs with Owns(&kbatchv1.Job{}), "+
				"and SetupWithManager must build the controller with it",
				"控制某个 Job 的 CronJob 没有被调和："+
					"WatchWithOwns 必须用 Owns(&kbatchv1.Job{}) 监视 Job，"+
					"SetupWithManager 必须用它构建控制器"))
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
	Expect(err).NotTo(HaveOccurred(),
		say.Both("the spec's own setup: loading a time zone from the tz database",
			"测试用例自己的准备步骤：从时区数据库加载时区"))
	return loc
}

// The guards against a cache that lags (region catch-up, written in
// stage 15): the starters before it trust the cache, and these specs show
// where that trust fails.
var _ = Describe("Stage 15: the guards against a cache that lags", Label("lab-stale-cache"), func() {
	var h *harness
	BeforeEach(func() { h = newHarness() })

	It("keeps an active Job that the cache does not list yet, while the API server has it", func() {
		cj := h.createCronJob("lagging", "@hourly", at(10, 0, 0))
		job := h.createJob("just-created", cj)
		cj.Status.Active = []corev1.ObjectReference{runs.JobReference(job)}

		// The cache has not seen the new Job yet: observeJobs gets no Jobs.
		Expect(h.r.observeJobs(ctx, cj, nil)).To(Succeed(),
			say.Both("observeJobs returned an error while the cache lists no Job yet",
				"缓存还没有列出任何 Job，observeJobs 却返回了错误"))
		Expect(cj.Status.Active).To(ConsistOf(HaveField("Name", "just-created")),
			say.Both("an active Job that the API server still has stays active: ask r.jobGone before removing it",
				"API 服务器上还在的活跃 Job 仍然是活跃的：移除之前先问 r.jobGone"))
		Expect(h.events()).To(BeEmpty(),
			say.Both("an active Job that the API server still has is neither missing nor unexpected: no Event",
				"API 服务器上还在的活跃 Job 既不是丢失的，也不是意外的：不记录事件"))
	})

	It("adopts a running Job it does not list, with UnexpectedJob, only while the API server has it", func() {
		cj := h.createCronJob("adopt", "@hourly", at(10, 0, 0))
		h.createJob("adopt-running", cj)
		jobs := h.cachedJobs(cj)
		// The cache still lists a running Job that the API server deleted a
		// moment ago (d-lag), as Replace leaves behind.
		deleted := jobs[0].DeepCopy()
		deleted.Name, deleted.UID = "adopt-deleted", "00000000-0000-0000-0000-0000000000cc"
		jobs = append(jobs, *deleted)

		Expect(h.r.observeJobs(ctx, cj, jobs)).To(Succeed(),
			say.Both("observeJobs returned an error while the API server answers",
				"API 服务器能应答，observeJobs 却返回了错误"))
		Expect(activeNames(cj)).To(ConsistOf("adopt-running"),
			say.Both("status.active after observeJobs: the running Job the API server has joins it, the deleted one the cache still lists does not: adoptRunningJob asks jobGone first",
				"observeJobs 之后的 status.active：API 服务器上有的运行中 Job 加入，缓存里还列着的已删除 Job 不加入：adoptRunningJob 先问 jobGone"))
		Expect(h.events()).To(ConsistOf("Warning UnexpectedJob Saw a job that the controller did not create or forgot: adopt-running"),
			say.Both("one UnexpectedJob, for the Job that adoptRunningJob adopts, and none for the deleted one",
				"一个 UnexpectedJob，给 adoptRunningJob 接管的那个 Job；已删除的那个没有"))
	})

	It("asks the API server only about the Jobs in status.active that the cache does not list", func() {
		cj := h.createCronJob("asks", "@hourly", at(10, 0, 0))
		running, done := h.createJob("asks-running", cj), h.createJob("asks-done", cj)
		h.finish(done, kbatchv1.JobComplete, at(9, 0, 0), at(9, 30, 0))
		cj.Status.Active = []corev1.ObjectReference{runs.JobReference(running), runs.JobReference(done)}
		var reads int
		r := *h.r
		r.APIReader = failGets{Reader: r.APIReader, passed: &reads}
		Expect(r.observeJobs(ctx, cj, h.cachedJobs(cj))).To(Succeed(),
			say.Both("observeJobs returned an error for Jobs that the cache lists",
				"缓存列出了这些 Job，observeJobs 却返回了错误"))
		Expect(activeNames(cj)).To(ConsistOf("asks-running"), say.Both("status.active after observeJobs: the finished Job leaves it, the running one stays",
			"observeJobs 之后的 status.active：已结束的 Job 离开它，运行中的那个留下"))
		Expect(reads).To(BeZero(),
			say.Both("observeJobs read from the API server although the cache lists every Job of status.active: only a Job "+
				"the cache lacks needs r.jobGone (a read for every Job on every reconcile is load that grows with the cluster)",
				"缓存里列出了 status.active 中的每个 Job，"+
					"observeJobs 却去读了 API 服务器："+
					"只有缓存里没有的 Job 才需要 r.jobGone（每次调和为每个 Job 读一次，"+
					"负载会随集群增长）"))
	})

	It("reads the CronJob from the API server when the cache's copy is older than its own status write", func() {
		cj := h.createCronJob("stale", "@hourly", at(10, 0, 0), func(cj *batchv1.CronJob) { cj.Spec.Suspend = ptr.To(true) })
		stale := cj.DeepCopy() // status.active empty: the cache has not seen our last status write
		job := h.createJob("stale-running", cj)
		cj.Status.Active = []corev1.ObjectReference{runs.JobReference(job)}
		Expect(k8sClient.Status().Update(ctx, cj)).To(Succeed(),
			say.Both("the spec's own setup: writing the status that lists the running Job",
				"测试用例自己的准备步骤：写入列出运行中 Job 的状态"))
		h.waitForCache(cj)
		r := *h.r
		r.Client = serveStaleCronJob(r.Client, stale)
		h.clock.SetTime(at(10, 1, 0))
		_, err := r.Reconcile(ctx, reconcileRequest(h.ns, cj.Name))
		Expect(err == nil || laterStageTODO(err, "stale-cache")).To(BeTrue(), say.Both("unexpected error: %v",
			"意外的错误：%v", err))
		Expect(h.events()).NotTo(ContainElement(ContainSubstring("UnexpectedJob")),
			say.Both("the cached CronJob does not list the running Job its status write recorded: step 2 must read it "+
				"from the API server (catchUp calls refreshIfStale) before observeJobs takes the Job for one it never started",
				"缓存中的 CronJob 没有列出它的状态写入所记录的那个运行中的 Job："+
					"第 2 步必须先从 API 服务器读取它（refreshIfStale），"+
					"以免 observeJobs 把这个 Job 当成从未启动过的"))
		Expect(h.get(cj).Status.Active).To(ConsistOf(HaveField("UID", job.UID)),
			say.Both("status.active on the API server after the reconcile: the running Job, read from the API server's copy of the CronJob",
				"调和之后 API 服务器上的 status.active：运行中的那个 Job，按从 API 服务器读到的 CronJob 副本"))
	})

	It("waits, without a read or a write, for the cache to show its own last status write", func() {
		cj := h.createCronJob("own", "@hourly", at(10, 0, 0), func(cj *batchv1.CronJob) { cj.Spec.Suspend = ptr.To(true) })
		job := h.createJob("own-done", cj)
		cj.Status.Active = []corev1.ObjectReference{runs.JobReference(job)}
		Expect(k8sClient.Status().Update(ctx, cj)).To(Succeed(),
			say.Both("the spec's own setup: writing the status that lists the Job",
				"测试用例自己的准备步骤：写入列出这个 Job 的状态"))
		h.finish(job, kbatchv1.JobComplete, at(9, 0, 0), at(9, 30, 0))
		stale := h.get(cj) // lists the finished Job as active
		memory := ownwrites.New(h.clock)
		r := *h.r
		r.OwnWrites = memory
		r.Client = memory.Client(r.Client)
		h.clock.SetTime(at(10, 1, 0))
		h.waitForCache(cj)
		_, err := r.Reconcile(ctx, reconcileRequest(h.ns, cj.Name))
		Expect(err == nil || laterStageTODO(err, "stale-cache")).To(BeTrue(), say.Both("unexpected error: %v",
			"意外的错误：%v", err))
		Expect(h.events()).To(ConsistOf("Normal SawCompletedJob Saw completed job: own-done, condition: Complete"),
			say.Both("the first reconcile reports the finished Job once, with SawCompletedJob",
				"第一次调和用 SawCompletedJob 报告已结束的 Job，只报告一次"))
		Expect(h.get(cj).Status.Active).To(BeEmpty(),
			say.Both("status.active on the API server still lists the finished Job after the first reconcile: step 6 writes the status "+
				"with r.Status().Patch, also when step 4 or 5 returned an error",
				"第一次调和之后，API 服务器上的 status.active 仍列着已结束的 Job：第 6 步用 r.Status().Patch 写入状态，"+
					"第 4 步或第 5 步返回错误时也要写"))
		written := h.get(cj).ResourceVersion

		// The next reconcile comes before the cache has seen that status
		// write: its copy still lists the finished Job as active.
		var reads int
		r.Client = serveStaleCronJob(memory.Client(mgr.GetClient()), stale)
		r.APIReader = failGets{Reader: r.APIReader, passed: &reads}
		res, err := r.Reconcile(ctx, reconcileRequest(h.ns, cj.Name))
		waitInStep2 := say.Both("catchUp: when r.OwnWrites.Waiting(cronJob, jobs) says the cache does not show our own last writes yet, "+
			"return its retryIn, and step 2 returns ctrl.Result{RequeueAfter: retryIn}, nil: the event of that write is on its way, and brings the next reconcile",
			"catchUp：当 r.OwnWrites.Waiting(cronJob, jobs) 说缓存还没显示我们自己最近的写入时，"+
				"返回它的 retryIn，第 2 步再返回 ctrl.Result{RequeueAfter: retryIn}, nil：那次写入的事件正在路上，会带来下一次调和")
		Expect(res.RequeueAfter.String()).To(Equal(ownwrites.Timeout.String()), waitInStep2)
		Expect(h.events()).To(BeEmpty(), say.Both("the finished Job was reported a second time, from a copy of the CronJob older than our own write",
			"从比我们自己的写入更旧的 CronJob 副本出发，已结束的 Job 又被报告了一次"))
		Expect(reads).To(BeZero(), waitInStep2)
		Expect(err).NotTo(HaveOccurred(), waitInStep2)
		Expect(h.get(cj).ResourceVersion).To(Equal(written), say.Both("a reconcile that waits writes nothing",
			"等待的调和什么都不写"))
	})

	It("returns the error of a read from the API server it cannot do, and writes no status", func() {
		unavailable := apierrors.NewServiceUnavailable("the API server is restarting")
		for _, tc := range []struct {
			name, what string
			// running: a running Job of the CronJob, in the cache but not in
			// status.active; vanished: status.active lists a Job the cache lacks.
			running, vanished bool
			change            func(r *CronJobReconciler)
		}{
			{"refresh", say.Both("the cached copy is stale (a running Job it does not list) and the API server cannot be read",
				"缓存中的副本已经陈旧（没有列出一个运行中的 Job），而无法从 API 服务器读取"), true, false, func(r *CronJobReconciler) {
				r.APIReader = failGets{Reader: r.APIReader, err: unavailable, like: &batchv1.CronJob{}}
			}},
			{"adopt", say.Both("a running Job it does not list cannot be looked up on the API server",
				"无法向 API 服务器查询它没有列出的运行中 Job"), true, false, func(r *CronJobReconciler) {
				r.APIReader = failGets{Reader: r.APIReader, err: unavailable, like: &kbatchv1.Job{}}
			}},
			{"vanished", say.Both("a Job it lists that the cache lacks cannot be looked up on the API server",
				"无法向 API 服务器查询它列出而缓存里没有的 Job"), false, true, func(r *CronJobReconciler) {
				r.APIReader = failGets{Reader: r.APIReader, err: unavailable, like: &kbatchv1.Job{}}
			}},
		} {
			cj := h.createCronJob("unread-"+tc.name, "@hourly", at(10, 0, 0), func(cj *batchv1.CronJob) { cj.Spec.Suspend = ptr.To(true) })
			if tc.running {
				h.createJob("unread-"+tc.name+"-running", cj)
			}
			if tc.vanished {
				cj.Status.Active = []corev1.ObjectReference{{Kind: "Job", Namespace: h.ns, Name: "vanished", UID: "00000000-0000-0000-0000-0000000000bb"}}
				Expect(k8sClient.Status().Update(ctx, cj)).To(Succeed(),
					say.Both("the spec's own setup: writing a status.active that names a Job the cache lacks",
						"测试用例自己的准备步骤：写入一个列出缓存里没有的 Job 的 status.active"))
			}
			h.waitForCache(cj)
			r := *h.r
			tc.change(&r)
			h.clock.SetTime(at(10, 1, 0))
			_, err := r.Reconcile(ctx, reconcileRequest(h.ns, cj.Name))
			Expect(err).To(MatchError(unavailable), say.Both("%s: Reconcile must return that error, so that the request is retried",
				"%s：Reconcile 必须返回这个错误，这样请求会被重试", tc.what))
			Expect(h.get(cj).Status.ObservedGeneration).To(BeZero(),
				say.Both("%s: Reconcile wrote the status after a read failed; it must stop and return the error instead",
					"%s：读取失败之后 Reconcile 还写了状态；它应当停下来，返回这个错误", tc.what))
		}
	})
})
