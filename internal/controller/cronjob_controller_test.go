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
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	kbatchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	batchv1 "cronlab.dev/cronlab/api/v1"
	"cronlab.dev/cronlab/test/say"
)

// minuteName is the Job name upstream gives the run at t: minutes since 1970.
func minuteName(cronJob string, t time.Time) string {
	return fmt.Sprintf("%s-%d", cronJob, t.Unix()/60)
}

func at(hh, mm, ss int) time.Time {
	return monday10am.Add(time.Duration(hh-10)*time.Hour + time.Duration(mm)*time.Minute + time.Duration(ss)*time.Second)
}

// comeBackAtTheRun explains a wrong RequeueAfter: step 7 of Reconcile
// (stage 04) asks to come back when the next run is due.
var comeBackAtTheRun = say.Both("step 7 returns RequeueAfter: runs.RequeueDelay(now, next), the time until the next run "+
	"plus 100ms, so that the clock reads at least the run's time when the reconcile comes back",
	"第 7 步返回 RequeueAfter：runs.RequeueDelay(now, next)，即距下一次运行的时间再加 100ms，"+
		"这样再次调和时，时钟至少已走到这次运行的时间")

var _ = Describe("CronJob Reconciler", func() {
	var h *harness
	BeforeEach(func() { h = newHarness() })

	Describe("starting runs", Label("lab-scheduling"), func() {
		It("reports a create that the API server refused: an Event, Degraded and the error", func() {
			cj := h.createCronJob("refused", "*/5 * * * *", at(10, 0, 0))
			h.r.Client = failWrites{Client: h.r.Client, create: apierrors.NewServiceUnavailable("the API server is restarting")}
			_, err := h.reconcileAt(at(10, 5, 0), cj)
			Expect(err).To(MatchError(ContainSubstring("creating the Job for the run at 2030-01-07T10:05:00Z")),
				say.Both("Reconcile returns the create's error, so that controller-runtime retries it with back-off",
					"Reconcile 返回创建时的错误，这样 controller-runtime 会以退避方式重试"))
			Expect(jobNames(h.jobs())).To(BeEmpty(),
				say.Both("a refused create leaves no Job on the API server",
					"被拒绝的创建不会在 API 服务器上留下 Job"))
			Expect(h.events()).To(ConsistOf(HavePrefix("Warning FailedCreate Error creating job: ")),
				say.Both("a refused create is recorded as one Warning FailedCreate Event",
					"被拒绝的创建记录为一个 Warning FailedCreate 事件"))
			Expect(condition(h.get(cj), batchv1.ConditionDegraded)).To(haveStatusReason(metav1.ConditionTrue, batchv1.ReasonFailedCreate),
				say.Both("Degraded on the API server: True, with the reason FailedCreate",
					"API 服务器上的 Degraded：True，原因为 FailedCreate"))
		})

		It("spells the next run in the CronJob's time zone, or says that there is none", func() {
			run := at(10, 5, 0)
			Expect(nextRunMessage(run, time.UTC)).To(Equal("next run at 2030-01-07T10:05:00Z"),
				say.Both("nextRunMessage in UTC: the next run in RFC 3339",
					"UTC 下的 nextRunMessage：下一次运行的时间，RFC 3339 格式"))
			Expect(nextRunMessage(run, mustLoad("Asia/Shanghai"))).To(Equal("next run at 2030-01-07T18:05:00+08:00"),
				say.Both("nextRunMessage in Asia/Shanghai: the next run in RFC 3339, in that zone",
					"Asia/Shanghai 下的 nextRunMessage：下一次运行的时间，RFC 3339 格式，用那个时区"))
			Expect(nextRunMessage(time.Time{}, mustLoad("Asia/Shanghai"))).To(Equal("the schedule has no further runs"),
				say.Both("a zero next time: the schedule's next match is further than the parser looks ahead (29 February across 2100)",
					"下次运行时间为零：时间表的下一次匹配超出了解析器向前查找的范围（2 月 29 日，而且要跨过不是闰年的 2100 年）"))
		})

		It("starts the due run although the history cleanup failed, and returns that failure", func() {
			cj := h.createCronJob("pruning", "*/5 * * * *", at(10, 0, 0), func(cj *batchv1.CronJob) {
				cj.Spec.FailedJobsHistoryLimit = ptr.To[int32](0)
			})
			h.finish(h.createJob("pruning-failed", cj), kbatchv1.JobFailed, at(9, 0, 0), at(9, 30, 0))
			h.waitForCache(cj)
			h.r.Client = refuseDeletes(h.r.Client) // step 4 cannot delete the failed Job beyond the limit
			_, err := h.reconcileAt(at(10, 5, 0), cj)
			Expect(jobNames(h.jobs())).To(ContainElement(minuteName("pruning", at(10, 5, 0))),
				say.Both("a due run matters more than old Jobs: step 5 starts it although step 4 failed",
					"到期的运行比旧的 Job 更要紧：第 4 步失败了，第 5 步照样启动它"))
			Expect(err).To(MatchError(ContainSubstring("deleting Job pruning-failed")),
				say.Both("Reconcile returns step 4's error once the status is written, so that the cleanup is retried",
					"状态写入之后，Reconcile 返回第 4 步的错误，这样清理会被重试"))
			Expect(condition(h.get(cj), batchv1.ConditionDegraded)).To(haveStatusReason(metav1.ConditionTrue, batchv1.ReasonFailedDelete),
				say.Both("Degraded on the API server: True, with the reason FailedDelete",
					"API 服务器上的 Degraded：True，原因为 FailedDelete"))
		})

		It("says in Ready when the next run is, while nothing is due", func() {
			cj := h.createCronJob("waiting", "*/5 * * * *", at(10, 0, 0))
			h.mustReconcileAt(at(10, 1, 0), cj)
			Expect(condition(h.get(cj), batchv1.ConditionReady)).To(HaveField("Message", "next run at 2030-01-07T10:05:00Z"),
				say.Both("status.conditions Ready on the API server: with no run due, noteDue still writes when the next one is",
					"API 服务器上的 status.conditions Ready：没有到期的运行时，noteDue 仍要写出下一次运行在什么时候"))
		})

		It("does not start a run again whose Job is gone once it ran", func() {
			cj := h.createCronJob("collected", "*/5 * * * *", at(10, 5, 0)) // the 10:05 run started; its Job has gone since (its TTL)
			h.mustReconcileAt(at(10, 6, 0), cj)
			Expect(jobNames(h.jobs())).To(BeEmpty(),
				say.Both("status.lastScheduleTime says the 10:05 run started: a Job that is gone is not a reason to run it twice",
					"status.lastScheduleTime 表明 10:05 的运行已经启动：Job 不见了，不是把它再运行一次的理由"))
		})

		It("names the next run in Ready after a run whose Job it finds only by its name", func() {
			cj := h.createCronJob("found", "*/5 * * * *", at(10, 0, 0))
			h.mustReconcileAt(at(10, 1, 0), cj)
			// The 10:05 run's Job, as a reconcile leaves it that created it and
			// stopped before it wrote the status.
			h.createJob(minuteName("found", at(10, 5, 0)), cj)
			var creates int
			h.r.Client = failWrites{Client: h.r.Client, creates: &creates}
			h.mustReconcileAt(at(10, 6, 0), cj)
			Expect(creates).To(BeZero(), say.Both("the cache lists the 10:05 run's Job: runStarted knows it by its name, so no Create is sent",
				"缓存里列出了 10:05 那次运行的 Job：runStarted 凭名字认出它，所以不发送 Create"))
			got := h.get(cj)
			Expect(jobNames(h.jobs())).To(Equal([]string{minuteName("found", at(10, 5, 0))}),
				say.Both("the Jobs on the API server: the 10:05 run's Job, and no other",
					"API 服务器上的 Job：10:05 那次运行的 Job，没有别的"))
			Expect(got.Status.LastScheduleTime).To(beAt(at(10, 5, 0)), say.Both("status.lastScheduleTime on the API server: the scheduled time of the last run started",
				"API 服务器上的 status.lastScheduleTime：最近一次启动的运行的计划时间"))
			Expect(condition(got, batchv1.ConditionReady)).To(HaveField("Message", "next run at 2030-01-07T10:10:00Z"),
				say.Both("the 10:05 run has its Job: Ready must name the run after it (noteDue), not the one that has started",
					"10:05 的运行已经有了 Job：Ready 必须写出它之后的那次运行（noteDue），而不是已经启动的这次"))
		})

		It("creates the Job of a due run: owned, named and annotated after its scheduled time", func() {
			cj := h.createCronJob("report", "*/5 * * * *", at(10, 0, 0), func(cj *batchv1.CronJob) {
				cj.Spec.TimeZone = ptr.To("Asia/Shanghai")
			})

			By("doing nothing before the slot, and coming back at it")
			res := h.mustReconcileAt(at(10, 4, 59), cj)
			Expect(jobNames(h.jobs())).To(BeEmpty(),
				say.Both("no Job a second before the first run is due",
					"第一次运行到期前一秒，没有 Job"))
			Expect(res.RequeueAfter).To(Equal(1100*time.Millisecond), comeBackAtTheRun)

			By("starting the 10:05 run at 10:05:02")
			count, sum := skewSamples()
			res = h.mustReconcileAt(at(10, 5, 2), cj)
			newCount, newSum := skewSamples()
			Expect(newCount-count).To(BeEquivalentTo(1), say.Both("one Job created: one observation of cronlab_cronjob_controller_job_creation_skew_duration_seconds",
				"创建了一个 Job，"+
					"就有一次 cronlab_cronjob_controller_job_creation_skew_duration_seconds 的观测"))
			Expect(newSum-sum).To(BeNumerically("~", 2.0, 0.001), say.Both("the Job of the 10:05 run, created at 10:05:02: a skew of 2 s (now minus the run)",
				"10:05 那次运行的 Job 在 10:05:02 创建：偏差为 2 秒（当前时间减去计划运行时间）"))
			jobs := h.jobs()
			Expect(jobNames(jobs)).To(Equal([]string{minuteName("report", at(10, 5, 0))}),
				say.Both("the Jobs on the API server: the one of the 10:05 run, named by runs.JobName",
					"API 服务器上的 Job：10:05 那次运行的 Job，名字由 runs.JobName 给出"))
			job := jobs[0]
			Expect(metav1.IsControlledBy(&job, cj)).To(BeTrue(),
				say.Both("the Job is controlled by the CronJob (a controller reference)",
					"Job 由 CronJob 控制（有控制者引用）"))
			Expect(job.Labels).To(HaveKeyWithValue("app", "report"),
				say.Both("the Job's labels: those of the CronJob's jobTemplate",
					"Job 的标签：CronJob 的 jobTemplate 里的那些"))
			Expect(job.Annotations).To(HaveKeyWithValue("team", "lab"),
				say.Both("the Job's annotations: those of the CronJob's jobTemplate",
					"Job 的注解：CronJob 的 jobTemplate 里的那些"))
			Expect(job.Annotations).To(HaveKeyWithValue(batchv1.ScheduledTimeAnnotation, "2030-01-07T18:05:00+08:00"),
				say.Both("the Job's scheduled-time annotation: the run, in RFC 3339, in the CronJob's time zone",
					"Job 的计划时间注解：这次运行的时间，RFC 3339 格式，用 CronJob 的时区"))
			Expect(job.Spec.Template.Spec.Containers[0].Image).To(Equal("busybox"),
				say.Both("the Job's container image: the jobTemplate's",
					"Job 的容器镜像：jobTemplate 里的那个"))
			Expect(res.RequeueAfter).To(Equal(4*time.Minute+58*time.Second+100*time.Millisecond), comeBackAtTheRun)

			got := h.get(cj)
			Expect(got.Status.LastScheduleTime).To(beAt(at(10, 5, 0)), say.Both("status.lastScheduleTime on the API server: the scheduled time of the last run started",
				"API 服务器上的 status.lastScheduleTime：最近一次启动的运行的计划时间"))
			Expect(got.Status.Active).To(HaveLen(1),
				say.Both("status.active on the API server: the one Job of the run",
					"API 服务器上的 status.active：这次运行的那一个 Job"))
			Expect(got.Status.Active[0].Name).To(Equal(job.Name),
				say.Both("status.active names the Job that was created",
					"status.active 点名的是创建出来的那个 Job"))
			Expect(got.Status.Active[0].UID).To(Equal(job.UID),
				say.Both("status.active holds the created Job's UID",
					"status.active 里是创建出来的那个 Job 的 UID"))
			Expect(got.Status.ObservedGeneration).To(Equal(got.Generation),
				say.Both("status.observedGeneration on the API server: the CronJob's generation",
					"API 服务器上的 status.observedGeneration：CronJob 的 generation"))
			Expect(condition(got, batchv1.ConditionReady)).To(haveStatusReason(metav1.ConditionTrue, batchv1.ReasonScheduling),
				say.Both("Ready on the API server: True, with the reason Scheduling",
					"API 服务器上的 Ready：True，原因为 Scheduling"))
			Expect(condition(got, batchv1.ConditionReady).Message).To(Equal("next run at 2030-01-07T18:10:00+08:00"),
				say.Both("Ready's message names the next run, in the CronJob's time zone",
					"Ready 的消息点出下一次运行，用 CronJob 的时区"))
			Expect(condition(got, batchv1.ConditionDegraded)).To(haveStatusReason(metav1.ConditionFalse, batchv1.ReasonReconciled),
				say.Both("Degraded on the API server: False, with the reason Reconciled",
					"API 服务器上的 Degraded：False，原因为 Reconciled"))
			Expect(h.events()).To(ConsistOf("Normal SuccessfulCreate Created job "+job.Name),
				say.Both("one Normal SuccessfulCreate Event for the created Job",
					"为创建出的 Job 记录一个 Normal SuccessfulCreate 事件"))
		})

		It("does not start the same run twice", func() {
			cj := h.createCronJob("twice", "*/5 * * * *", at(10, 0, 0))
			h.mustReconcileAt(at(10, 5, 1), cj)
			before := h.get(cj)
			h.events()

			res := h.mustReconcileAt(at(10, 5, 30), cj)
			Expect(jobNames(h.jobs())).To(HaveLen(1),
				say.Both("a second reconcile in the same slot starts no second Job",
					"同一个时间格里的第二次调和不会启动第二个 Job"))
			Expect(h.get(cj).ResourceVersion).To(Equal(before.ResourceVersion), say.Both("an idle reconcile writes nothing",
				"空闲的调和什么也不写"))
			Expect(h.events()).To(BeEmpty(),
				say.Both("an idle reconcile records no Event",
					"空闲的调和不记录事件"))
			Expect(res.RequeueAfter).To(Equal(4*time.Minute+30*time.Second+100*time.Millisecond), comeBackAtTheRun)
		})

		It("counts the first run from the CronJob's creation time", func() {
			cj := h.createCronJob("fresh", "* * * * *", time.Time{})
			created := cj.CreationTimestamp.Time
			firstRun := created.Truncate(time.Minute).Add(time.Minute)

			h.mustReconcileAt(firstRun.Add(-time.Second), cj)
			Expect(jobNames(h.jobs())).To(BeEmpty(),
				say.Both("no Job a second before the first run after the CronJob's creation",
					"CronJob 创建后第一次运行之前一秒，没有 Job"))
			h.mustReconcileAt(firstRun, cj)
			Expect(jobNames(h.jobs())).To(Equal([]string{minuteName("fresh", firstRun)}),
				say.Both("the first run after the CronJob's creation starts its Job",
					"CronJob 创建后的第一次运行启动了它的 Job"))
		})

		It("gives sub-minute @every runs names that do not collide, and keeps them on their grid", func() {
			cj := h.createCronJob("fast", "@every 10s", at(10, 0, 0))
			res := h.mustReconcileAt(at(10, 0, 13), cj)
			Expect(res.RequeueAfter).To(Equal(7*time.Second+100*time.Millisecond), comeBackAtTheRun)
			h.mustReconcileAt(at(10, 0, 20), cj)
			h.mustReconcileAt(at(10, 0, 30), cj)
			Expect(jobNames(h.jobs())).To(Equal([]string{
				fmt.Sprintf("fast-%d", at(10, 0, 10).Unix()),
				fmt.Sprintf("fast-%d", at(10, 0, 20).Unix()),
				fmt.Sprintf("fast-%d", at(10, 0, 30).Unix()),
			}),
				say.Both("the Jobs of the @every 10s runs: one per run, each named by its second",
					"@every 10s 各次运行的 Job：每次一个，各以它的秒数命名"))
		})

		It("starts only the most recent missed run, and warns but still starts after more than 100", func() {
			cj := h.createCronJob("outage", "* * * * *", at(8, 0, 0))
			h.mustReconcileAt(at(9, 41, 10), cj) // 101 runs missed: 08:01 ... 09:41
			Expect(jobNames(h.jobs())).To(Equal([]string{minuteName("outage", at(9, 41, 0))}),
				say.Both("after an outage, only the most recent missed run (09:41) starts",
					"停机之后，只启动最近一次错过的运行（09:41）"))
			// One warning, and the run starts all the same.
			Expect(h.events()).To(ConsistOf(
				HavePrefix("Warning TooManyMissedTimes too many missed start times (more than 100)"),
				"Normal SuccessfulCreate Created job "+minuteName("outage", at(9, 41, 0)),
			),
				say.Both("more than 100 missed runs: one TooManyMissedTimes warning, and the run starts",
					"错过超过 100 次运行：一个 TooManyMissedTimes 警告，运行照样启动"))
		})

		It("does not warn about exactly 100 missed runs", func() {
			cj := h.createCronJob("hundred", "* * * * *", at(8, 0, 0))
			h.mustReconcileAt(at(9, 40, 10), cj)
			Expect(jobNames(h.jobs())).To(HaveLen(1),
				say.Both("exactly 100 missed runs: the most recent starts",
					"正好错过 100 次运行：最近的那次启动"))
			Expect(h.events()).NotTo(ContainElement(ContainSubstring("TooManyMissedTimes")),
				say.Both("100 runs were missed (8:01 to 9:40), which is not more than 100: no TooManyMissedTimes warning (schedule.TooMany)",
					"错过了 100 次运行（8:01 到 9:40），没有超过 100 次：不发 TooManyMissedTimes 警告（schedule.TooMany）"))
		})

		It("skips a run that is later than the starting deadline and says so", func() {
			cj := h.createCronJob("late", "*/5 * * * *", at(10, 0, 0), func(cj *batchv1.CronJob) {
				cj.Spec.StartingDeadlineSeconds = ptr.To[int64](60)
			})
			res := h.mustReconcileAt(at(10, 6, 30), cj)
			Expect(jobNames(h.jobs())).To(BeEmpty(),
				say.Both("a run later than startingDeadlineSeconds allows does not start",
					"晚于 startingDeadlineSeconds 所允许的运行不会启动"))
			Expect(h.events()).To(ConsistOf("Warning MissSchedule Missed scheduled time to start a job: Mon, 07 Jan 2030 10:05:00 +0000"),
				say.Both("the missed run is recorded as one Warning MissSchedule Event",
					"错过的运行记录为一个 Warning MissSchedule 事件"))
			Expect(h.get(cj).Status.LastScheduleTime).To(beAt(at(10, 0, 0)), say.Both("status.lastScheduleTime on the API server: the scheduled time of the last run started",
				"API 服务器上的 status.lastScheduleTime：最近一次启动的运行的计划时间"))
			Expect(res.RequeueAfter).To(Equal(3*time.Minute+30*time.Second+100*time.Millisecond), comeBackAtTheRun)

			By("starting the next run within the deadline")
			h.mustReconcileAt(at(10, 10, 59), cj)
			Expect(jobNames(h.jobs())).To(Equal([]string{minuteName("late", at(10, 10, 0))}),
				say.Both("the next run within the deadline starts",
					"截止时间之内的下一次运行启动了"))
		})

		It("records a missed run once, not on every reconcile, and says so in Ready", func() {
			cj := h.createCronJob("missed", "*/5 * * * *", at(10, 0, 0), func(cj *batchv1.CronJob) {
				cj.Spec.StartingDeadlineSeconds = ptr.To[int64](60)
			})
			h.mustReconcileAt(at(10, 6, 30), cj)
			h.mustReconcileAt(at(10, 7, 0), cj) // the status write of the first one causes this one
			h.mustReconcileAt(at(10, 8, 0), cj)
			Expect(h.events()).To(ConsistOf("Warning MissSchedule Missed scheduled time to start a job: Mon, 07 Jan 2030 10:05:00 +0000"),
				say.Both("three reconciles, one missed run, one Event: record MissSchedule only when noteDue says the news is new",
					"三次调和、一次错过的运行、一个事件：只有 noteDue 说这是新消息时才记录 MissSchedule"))
			Expect(condition(h.get(cj), batchv1.ConditionReady).Message).To(Equal(
				"the run at 2030-01-07T10:05:00Z was missed: it is later than startingDeadlineSeconds allows; next run at 2030-01-07T10:10:00Z"),
				say.Both("Ready's message says that the run was missed, and when the next one is",
					"Ready 的消息说明这次运行被错过了，以及下一次在什么时候"))

			By("recording the next missed run again")
			h.mustReconcileAt(at(10, 11, 30), cj)
			Expect(h.events()).To(ConsistOf("Warning MissSchedule Missed scheduled time to start a job: Mon, 07 Jan 2030 10:10:00 +0000"),
				say.Both("the next missed run is news: MissSchedule is recorded for it",
					"下一次错过的运行是新消息：为它记录 MissSchedule"))
		})

		It("warns once about more than 100 missed runs while the run waits", func() {
			cj := h.createCronJob("waiting", "* * * * *", at(8, 0, 0), func(cj *batchv1.CronJob) {
				cj.Spec.ConcurrencyPolicy = batchv1.ForbidConcurrent
			})
			h.createJob("waiting-by-hand", cj)
			h.mustReconcileAt(at(9, 41, 10), cj) // adopts the Job by hand, which then blocks the run
			h.mustReconcileAt(at(9, 41, 20), cj)
			h.mustReconcileAt(at(9, 41, 30), cj)
			Expect(jobNames(h.jobs())).To(HaveLen(1),
				say.Both("under Forbid, the Job made by hand runs, so the due run waits: no Job is created",
					"在 Forbid 之下，手工创建的 Job 还在运行，所以到期的运行要等：不创建 Job"))
			Expect(h.events()).To(ConsistOf(
				HavePrefix("Warning UnexpectedJob"),
				HavePrefix("Warning TooManyMissedTimes too many missed start times (more than 100)"),
				HavePrefix("Normal JobAlreadyActive"),
			),
				say.Both("the Events: the Job made by hand is unexpected, more than 100 runs were missed, and the due run waits for the running Job",
					"事件：手工创建的 Job 是意外的，错过了超过 100 次运行，到期的运行在等正在运行的 Job"))
		})
	})

	Describe("Jobs that exist already", func() {
		It("adopts a Job of its own that an earlier attempt created but did not record", Label("lab-scheduling"), func() {
			// As if the manager crashed between creating the Job and writing
			// the status: the Job exists, the status does not know it.
			cj := h.createCronJob("crashed", "*/5 * * * *", at(10, 0, 0))
			existing := h.createJob(minuteName("crashed", at(10, 5, 0)), cj)
			h.mustReconcileAt(at(10, 5, 1), cj)

			got := h.get(cj)
			Expect(jobNames(h.jobs())).To(HaveLen(1), say.Both("the Jobs on the API server: the one the earlier attempt created, and no second",
				"API 服务器上的 Job：之前那次尝试创建的那一个，没有第二个"))
			Expect(got.Status.Active).To(ConsistOf(HaveField("UID", existing.UID)), say.Both("status.active on the API server: the Job that exists, adopted",
				"API 服务器上的 status.active：已经存在的那个 Job，被接管了"))
			Expect(got.Status.LastScheduleTime).To(beAt(at(10, 5, 0)), say.Both("status.lastScheduleTime on the API server: the scheduled time of the last run started",
				"API 服务器上的 status.lastScheduleTime：最近一次启动的运行的计划时间"))
			Expect(condition(got, batchv1.ConditionDegraded).Status).To(Equal(metav1.ConditionFalse), say.Both("Degraded stays False: adopting a Job of its own is no failure",
				"Degraded 保持 False：接管自己的 Job 不算失败"))
			Expect(h.events()).To(ConsistOf("Warning UnexpectedJob Saw a job that the controller did not create or forgot: "+existing.Name),
				say.Both("upstream's warning that the status had lost a Job, and no SuccessfulCreate",
					"上游会发出的警告：状态丢失了一个 Job；并且没有 SuccessfulCreate"))
		})

		It("adopts its own Job that the cache has not seen yet, when Create says AlreadyExists", Label("lab-scheduling"), func() {
			cj := h.createCronJob("lagging", "*/5 * * * *", at(10, 0, 0))
			existing := h.createJob(minuteName("lagging", at(10, 5, 0)), cj)
			h.waitForCache(cj)
			h.r.Client = hideJobsFromList(mgr.GetClient()) // a cache that lags behind the API server
			h.mustReconcileAt(at(10, 5, 1), cj)

			got := h.get(cj)
			Expect(got.Status.Active).To(ConsistOf(HaveField("UID", existing.UID)), say.Both("status.active on the API server: the Job that Create said exists, adopted",
				"API 服务器上的 status.active：Create 说已经存在的那个 Job，被接管了"))
			Expect(got.Status.LastScheduleTime).To(beAt(at(10, 5, 0)), say.Both("status.lastScheduleTime on the API server: the scheduled time of the last run started",
				"API 服务器上的 status.lastScheduleTime：最近一次启动的运行的计划时间"))
			Expect(condition(got, batchv1.ConditionDegraded).Status).To(Equal(metav1.ConditionFalse), say.Both("Degraded stays False: AlreadyExists for a Job of its own is no failure",
				"Degraded 保持 False：自己的 Job 得到 AlreadyExists 不算失败"))
			Expect(h.events()).To(BeEmpty(), say.Both("adopting is not an error, and nothing new was created",
				"接管不是错误，也没有创建新的东西"))
		})

		It("labels an adopted Job that lacks the label, so that the cache holds it from then on", Label("lab-scheduling"), func() {
			cj := h.createCronJob("unlabelled", "*/5 * * * *", at(10, 0, 0))
			existing := h.createJob(minuteName("unlabelled", at(10, 5, 0)), cj)
			patch := client.MergeFrom(existing.DeepCopy())
			delete(existing.Labels, batchv1.CronJobLabel) // as if made before the label existed
			Expect(k8sClient.Patch(ctx, existing, patch)).To(Succeed(), say.Both("the spec's own setup: taking the label off the Job",
				"测试用例自己的准备步骤：去掉这个 Job 的标签"))
			h.mustReconcileAt(at(10, 5, 1), cj)

			var got kbatchv1.Job
			Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(existing), &got)).To(Succeed(), say.Both("reading the adopted Job from the API server",
				"从 API 服务器读取被接管的 Job"))
			Expect(got.Labels).To(HaveKeyWithValue(batchv1.CronJobLabel, "unlabelled"), say.Both("the adopted Job has the label now, with the CronJob's name",
				"被接管的 Job 现在带上了标签，值是 CronJob 的名字"))
			Expect(h.get(cj).Status.Active).To(ConsistOf(HaveField("UID", existing.UID)), say.Both("status.active on the API server: the adopted Job",
				"API 服务器上的 status.active：被接管的 Job"))
			eventually(func() error {
				return mgr.GetClient().Get(ctx, client.ObjectKeyFromObject(existing), &kbatchv1.Job{})
			}).Should(Succeed(), say.Both("the cache holds the Job once it has the label",
				"Job 带上标签之后，缓存里就有它"))
		})

		It("does not see Jobs without the label: the cache holds only cronlab's Jobs", func() {
			cj := h.createCronJob("selected", "@hourly", at(10, 0, 0))
			stranger := h.createJob("selected-by-hand", nil)
			ours := h.createJob("selected-ours", cj)
			eventually(func() error {
				return mgr.GetClient().Get(ctx, client.ObjectKeyFromObject(ours), &kbatchv1.Job{})
			}).Should(Succeed())
			err := mgr.GetClient().Get(ctx, client.ObjectKeyFromObject(stranger), &kbatchv1.Job{})
			Expect(apierrors.IsNotFound(err)).To(BeTrue(), say.Both("a Job without the label is not in the cache: %v",
				"不带标签的 Job 不在缓存里：%v", err))
		})

		It("leaves alone a Job of the same name that something else controls", Label("lab-scheduling"), func() {
			cj := h.createCronJob("taken", "*/5 * * * *", at(10, 0, 0))
			h.createJob(minuteName("taken", at(10, 5, 0)), nil)
			_, err := h.reconcileAt(at(10, 5, 1), cj)
			Expect(err).NotTo(HaveOccurred(),
				say.Both("a Job of that name that something else controls is no error to retry: Reconcile returns none",
					"同名的 Job 由别的东西控制，这不是需要重试的错误：Reconcile 不返回错误"))
			Expect(h.events()).To(ConsistOf(HavePrefix("Warning JobNotOwned")), say.Both("the first reconcile that finds the Job of a stranger says so",
				"第一次发现别人的 Job 的那次调和要把这件事说出来"))
			h.mustReconcileAt(at(10, 5, 30), cj) // the status write of the first one causes this one

			got := h.get(cj)
			Expect(got.Status.Active).To(BeEmpty(),
				say.Both("status.active stays empty: the stranger's Job is not ours",
					"status.active 保持为空：别人的 Job 不是我们的"))
			Expect(got.Status.LastScheduleTime).To(beAt(at(10, 0, 0)), say.Both("status.lastScheduleTime on the API server: the scheduled time of the last run started",
				"API 服务器上的 status.lastScheduleTime：最近一次启动的运行的计划时间"))
			Expect(condition(got, batchv1.ConditionDegraded).Status).To(Equal(metav1.ConditionFalse),
				say.Both("Degraded stays False: nothing failed, a run could not start",
					"Degraded 保持 False：没有什么失败，只是有一次运行无法启动"))
			Expect(condition(got, batchv1.ConditionReady).Message).To(HavePrefix(
				"the run at 2030-01-07T10:05:00Z cannot start: Job "+minuteName("taken", at(10, 5, 0))+" exists and belongs to someone else"),
				say.Both("Ready's message says that the run cannot start, and whose Job is in the way",
					"Ready 的消息说明这次运行无法启动，以及挡路的是谁的 Job"))
			Expect(h.events()).To(BeEmpty(), say.Both("two reconciles, one Event: record JobNotOwned only when noteDue says the news is new",
				"两次调和、一个事件：只有 noteDue 说这是新消息时才记录 JobNotOwned"))
		})

		It("counts a running Job it controls but did not record as active, with a warning", Label("lab-scheduling"), func() {
			cj := h.createCronJob("stray", "@hourly", at(10, 0, 0))
			stray := h.createJob("stray-by-hand", cj)
			h.mustReconcileAt(at(10, 1, 0), cj)
			Expect(h.get(cj).Status.Active).To(ConsistOf(HaveField("UID", stray.UID)), say.Both("status.active on the API server: the running Job it controls, though it did not record it",
				"API 服务器上的 status.active：它控制的、正在运行的 Job，虽然它没有记录过"))
			Expect(h.events()).To(ConsistOf("Warning UnexpectedJob Saw a job that the controller did not create or forgot: stray-by-hand"), say.Both("the Events: upstream's warning that the status did not know the Job",
				"事件：上游会发出的警告，说状态不知道这个 Job"))
		})
	})

	Describe("status from the Jobs", func() {
		It("drops finished Jobs from active and keeps the newest successful completion", Label("lab-scheduling"), func() {
			cj := h.createCronJob("status", "*/5 * * * *", at(10, 0, 0))
			h.mustReconcileAt(at(10, 5, 0), cj)
			h.mustReconcileAt(at(10, 10, 0), cj)
			jobs := h.jobs()
			Expect(h.get(cj).Status.Active).To(HaveLen(2), say.Both("status.active on the API server: the two runs started, both running",
				"API 服务器上的 status.active：启动的两次运行，都在运行"))
			h.events()

			h.finish(&jobs[1], kbatchv1.JobComplete, at(10, 10, 1), at(10, 10, 30))
			h.finish(&jobs[0], kbatchv1.JobComplete, at(10, 5, 1), at(10, 11, 0))
			h.mustReconcileAt(at(10, 12, 0), cj)

			got := h.get(cj)
			Expect(got.Status.Active).To(BeEmpty(), say.Both("status.active on the API server: empty, both Jobs finished",
				"API 服务器上的 status.active：为空，两个 Job 都结束了"))
			Expect(got.Status.LastSuccessfulTime).To(beAt(at(10, 11, 0)), say.Both("status.lastSuccessfulTime on the API server: the completion of the newest successful Job",
				"API 服务器上的 status.lastSuccessfulTime：最新的成功 Job 的完成时间"))
			Expect(h.events()).To(ConsistOf(
				"Normal SawCompletedJob Saw completed job: "+jobs[0].Name+", condition: Complete",
				"Normal SawCompletedJob Saw completed job: "+jobs[1].Name+", condition: Complete",
			), say.Both("the Events: one SawCompletedJob per finished Job",
				"事件：每个结束的 Job 一个 SawCompletedJob"))
		})

		It("never runs a slot again after its Job was deleted", Label("lab-scheduling"), func() {
			cj := h.createCronJob("deleted", "*/5 * * * *", at(10, 0, 0))
			h.mustReconcileAt(at(10, 5, 0), cj)
			job := h.jobs()[0]
			h.finish(&job, kbatchv1.JobComplete, at(10, 5, 1), at(10, 5, 20))
			Expect(k8sClient.Delete(ctx, &job, client.PropagationPolicy(metav1.DeletePropagationBackground))).To(Succeed(), say.Both("the spec's own setup: deleting the finished Job",
				"测试用例自己的准备步骤：删除已结束的 Job"))

			h.mustReconcileAt(at(10, 6, 0), cj)
			Expect(jobNames(h.jobs())).To(BeEmpty(), say.Both("the Jobs on the API server: none, the 10:05 run does not start again",
				"API 服务器上的 Job：一个也没有，10:05 的运行不会再启动"))
			Expect(h.get(cj).Status.LastScheduleTime).To(beAt(at(10, 5, 0)), say.Both("status.lastScheduleTime on the API server: the scheduled time of the last run started",
				"API 服务器上的 status.lastScheduleTime：最近一次启动的运行的计划时间"))
		})

		It("forgets an active Job that no longer exists", Label("lab-scheduling"), func() {
			cj := h.createCronJob("vanished", "@hourly", at(10, 0, 0))
			h.mustReconcileAt(at(11, 0, 0), cj)
			job := h.jobs()[0]
			Expect(k8sClient.Delete(ctx, &job, client.PropagationPolicy(metav1.DeletePropagationBackground))).To(Succeed(), say.Both("the spec's own setup: deleting the running Job",
				"测试用例自己的准备步骤：删除正在运行的 Job"))
			h.events()

			h.mustReconcileAt(at(11, 1, 0), cj)
			Expect(h.get(cj).Status.Active).To(BeEmpty(), say.Both("status.active on the API server: the Job that is gone is forgotten",
				"API 服务器上的 status.active：已经不在的 Job 被忘掉了"))
			Expect(h.events()).To(ConsistOf("Normal MissingJob Active job went missing: "+job.Name), say.Both("the Events: MissingJob for the Job that went missing",
				"事件：为不见了的 Job 记录 MissingJob"))
		})
	})

	Describe("a cache that lags behind (see stage 15, the stale cache)", Label("lab-stale-cache"), func() {
		It("does not replace the Job it just created when the cached CronJob predates its own status write", func() {
			cj := h.createCronJob("ulag", "*/5 * * * *", at(10, 0, 0), func(cj *batchv1.CronJob) {
				cj.Spec.ConcurrencyPolicy = batchv1.ReplaceConcurrent
			})
			stale := h.get(cj) // the CronJob as it was before the run
			h.mustReconcileAt(at(10, 5, 0), cj)
			job := h.jobs()[0]
			h.events()

			// The Job has reached the cache, our status write has not: the
			// Reconciler sees a running Job of its own and a status that says
			// the 10:05 run has not started.
			h.waitForCache(cj)
			h.r.Client = serveStaleCronJob(mgr.GetClient(), stale)
			_, err := h.r.Reconcile(ctx, reconcileRequest(h.ns, "ulag"))
			Expect(err).NotTo(HaveOccurred(),
				say.Both("a reconcile from a copy of the CronJob older than its status write returns no error",
					"从比状态写入更旧的 CronJob 副本出发的调和不返回错误"))

			Expect(h.jobs()).To(ConsistOf(HaveField("UID", job.UID)), say.Both("the run's own Job is neither deleted nor created again",
				"这次运行自己的 Job 既没有被删除，也没有被再创建一次"))
			got := h.get(cj)
			Expect(got.Status.Active).To(ConsistOf(HaveField("UID", job.UID)),
				say.Both("status.active on the API server: the run's own Job, still",
					"API 服务器上的 status.active：仍然是这次运行自己的 Job"))
			Expect(got.Status.LastScheduleTime).To(beAt(at(10, 5, 0)), say.Both("status.lastScheduleTime on the API server: the scheduled time of the last run started",
				"API 服务器上的 status.lastScheduleTime：最近一次启动的运行的计划时间"))
			Expect(h.events()).To(BeEmpty(), say.Both("no UnexpectedJob: the API server's copy of the CronJob lists the Job",
				"没有 UnexpectedJob：API 服务器上的 CronJob 副本已经列出了这个 Job"))
		})

		// Right after a run with Replace, three events are on their way to
		// the cache: the new Job's, the replaced Job's, and our own status
		// write's. Whatever their order, the reconciles they trigger must
		// find nothing to do: no Event, no second status write.
		Describe("after Replace, while the cache catches up", func() {
			var cj, stale *batchv1.CronJob
			var replaced kbatchv1.Job
			var written string
			BeforeEach(func() {
				cj = h.createCronJob("replaced", "*/5 * * * *", at(10, 0, 0), func(cj *batchv1.CronJob) {
					cj.Spec.ConcurrencyPolicy = batchv1.ReplaceConcurrent
				})
				h.mustReconcileAt(at(10, 5, 0), cj)
				replaced = h.jobs()[0]
				stale = h.get(cj) // status.active: the 10:05 Job
				h.mustReconcileAt(at(10, 10, 0), cj)
				Expect(h.jobs()).To(ConsistOf(Not(HaveField("UID", replaced.UID))), say.Both("the 10:10 Job replaced the 10:05 one",
					"10:10 的 Job 替换了 10:05 的那个"))
				h.events()
				h.waitForCache(cj)
				written = h.get(cj).ResourceVersion
			})
			findsNothingToDo := func(c client.Client) {
				GinkgoHelper()
				h.r.Client = c
				_, err := h.r.Reconcile(ctx, reconcileRequest(h.ns, "replaced"))
				Expect(err).NotTo(HaveOccurred(), say.Both("a cache that has not caught up yet is no error",
					"缓存还没追上并不是错误"))
				Expect(h.events()).To(BeEmpty(), say.Both("no MissingJob, no UnexpectedJob, no second create",
					"没有 MissingJob，没有 UnexpectedJob，也没有第二次创建"))
				Expect(jobNames(h.jobs())).To(HaveLen(1), say.Both("the Jobs on the API server: the new one alone, no second create",
					"API 服务器上的 Job：只有新的那个，没有第二次创建"))
				Expect(h.get(cj).ResourceVersion).To(Equal(written), say.Both("the API server's copy already says it all: nothing to write",
					"API 服务器上的副本已经说明了一切：没有要写的"))
			}

			It("has seen the new Job and the replaced one's deletion, not the status write", func() {
				findsNothingToDo(serveStaleCronJob(mgr.GetClient(), stale))
			})
			It("has seen only the replaced Job's deletion", func() {
				findsNothingToDo(hideJobsFromList(serveStaleCronJob(mgr.GetClient(), stale)))
			})
			It("has seen the new Job, not the replaced one's deletion nor the status write", func() {
				findsNothingToDo(serveGoneJob(serveStaleCronJob(mgr.GetClient(), stale), &replaced))
			})
			It("has seen the new Job and the status write, not the replaced one's deletion", func() {
				findsNothingToDo(serveGoneJob(mgr.GetClient(), &replaced))
			})
		})

		It("drops an active entry whose name now belongs to a different Job", func() {
			cj := h.createCronJob("namesake", "@hourly", at(10, 0, 0))
			newer := h.createJob("namesake-job", cj)
			cj = h.get(cj)
			cj.Status.Active = []corev1.ObjectReference{{Kind: "Job", Namespace: h.ns, Name: "namesake-job", UID: "00000000-0000-0000-0000-000000000000"}}
			Expect(k8sClient.Status().Update(ctx, cj)).To(Succeed(), say.Both(
				"the spec's own setup: writing a status.active whose entry has the name of a Job and another UID",
				"测试用例自己的准备步骤：写入一个 status.active，其中的条目用某个 Job 的名字和另一个 UID"))

			h.mustReconcileAt(at(10, 30, 0), cj)
			Expect(h.get(cj).Status.Active).To(ConsistOf(HaveField("UID", newer.UID)), say.Both(
				"status.active after the reconcile: the Job of that name now, not the entry of another UID (jobGone compares UIDs)",
				"调和之后的 status.active：现在叫这个名字的 Job，而不是那个 UID 不同的条目（jobGone 比较 UID）"))
			Expect(h.events()).To(ContainElement("Normal MissingJob Active job went missing: namesake-job"), say.Both(
				"the entry whose Job is gone is reported with MissingJob",
				"Job 已经不在的那个条目用 MissingJob 报告"))
		})
	})

	Describe("history limits", func() {
		It("deletes the oldest finished Jobs beyond each limit, in the background, once the status records them", Label("lab-scheduling"), func() {
			cj := h.createCronJob("history", "@hourly", at(10, 0, 0), func(cj *batchv1.CronJob) {
				cj.Spec.SuccessfulJobsHistoryLimit = ptr.To[int32](2)
				cj.Spec.FailedJobsHistoryLimit = ptr.To[int32](1)
			})
			for i, how := range []kbatchv1.JobConditionType{kbatchv1.JobComplete, kbatchv1.JobFailed, kbatchv1.JobComplete, kbatchv1.JobFailed, kbatchv1.JobComplete, kbatchv1.JobComplete} {
				job := h.createJob(fmt.Sprintf("history-%d", i), cj)
				h.finish(job, how, at(9, i, 0), at(9, i, 30))
			}
			h.createJob("history-running", cj)
			h.events()

			// The stored status records no success yet: the first reconcile
			// deletes only the failed Job beyond its limit (no status holds
			// a failure), and writes lastSuccessfulTime.
			h.mustReconcileAt(at(10, 30, 0), cj)
			Expect(jobNames(h.jobs())).To(Equal([]string{"history-0", "history-2", "history-3", "history-4", "history-5", "history-running"}),
				say.Both("the successes stay until the status on the API server records them",
					"成功的 Job 要留到 API 服务器上的状态记录了它们之后"))
			Expect(h.get(cj).Status.LastSuccessfulTime).To(beAt(at(9, 5, 30)), say.Both("status.lastSuccessfulTime on the API server: the completion of the newest successful Job",
				"API 服务器上的 status.lastSuccessfulTime：最新的成功 Job 的完成时间"))
			// The next reconcile, which that status write brings, deletes them.
			// Background propagation deletes the Job at once and leaves its pods
			// to the garbage collector; foreground or orphan would keep the Job
			// with a finalizer, since envtest runs no garbage collector.
			h.mustReconcileAt(at(10, 30, 1), cj)
			Expect(jobNames(h.jobs())).To(Equal([]string{"history-3", "history-4", "history-5", "history-running"}), say.Both("the Jobs on the API server: the newest two successes, the newest failure and the running Job; the rest are deleted",
				"API 服务器上的 Job：最新的两个成功的 Job、最新的一个失败的 Job 和正在运行的 Job；其余的都被删除了"))
			Expect(h.events()).To(ConsistOf(
				"Normal SuccessfulDelete Deleted job history-0",
				"Normal SuccessfulDelete Deleted job history-1",
				"Normal SuccessfulDelete Deleted job history-2",
				"Warning UnexpectedJob Saw a job that the controller did not create or forgot: history-running",
			), say.Both("the Events: a SuccessfulDelete per Job deleted, and UnexpectedJob for the running Job that the status did not list",
				"事件：每删除一个 Job 一个 SuccessfulDelete，以及为状态没有列出的正在运行的 Job 记录的 UnexpectedJob"))
		})

		It("still prunes when creating the Job fails, and reports the failure", Label("lab-scheduling"), func() {
			cj := h.createCronJob("broken", "@hourly", at(10, 0, 0), func(cj *batchv1.CronJob) {
				cj.Spec.SuccessfulJobsHistoryLimit = ptr.To[int32](0)
				cj.Spec.JobTemplate.Spec.Template.Spec.Containers[0].Image = "" // the API server refuses such a Job
			})
			old := h.createJob("broken-old", cj)
			h.finish(old, kbatchv1.JobComplete, at(9, 0, 0), at(9, 0, 10))
			cj = h.get(cj)
			cj.Status.LastSuccessfulTime = &metav1.Time{Time: at(9, 0, 10)} // the success is recorded: the Job may go
			Expect(k8sClient.Status().Update(ctx, cj)).To(Succeed(), say.Both("the spec's own setup: writing the recorded success to the status",
				"测试用例自己的准备步骤：把已记录的成功写进状态"))

			_, err := h.reconcileAt(at(11, 0, 0), cj)
			Expect(err).To(MatchError(ContainSubstring("creating the Job for the run at 2030-01-07T11:00:00Z")), say.Both("Reconcile returns the error of the create that failed",
				"Reconcile 返回失败的那次创建的错误"))
			Expect(jobNames(h.jobs())).To(BeEmpty(), say.Both("the Jobs on the API server: none; the old success is pruned and the new Job was refused",
				"API 服务器上的 Job：一个也没有；旧的成功 Job 被清理了，新的 Job 被拒绝了"))

			got := h.get(cj)
			degraded := condition(got, batchv1.ConditionDegraded)
			Expect(degraded.Status).To(Equal(metav1.ConditionTrue), say.Both("Degraded is True: creating the Job failed",
				"Degraded 为 True：创建 Job 失败了"))
			Expect(degraded.Reason).To(Equal(batchv1.ReasonFailedCreate), say.Both("Degraded's reason: FailedCreate",
				"Degraded 的原因：FailedCreate"))
			Expect(degraded.Message).To(ContainSubstring("spec.template.spec.containers[0].image: Required value"), say.Both("Degraded's message: what the API server refused",
				"Degraded 的消息：API 服务器拒绝的内容"))
			Expect(got.Status.LastScheduleTime).To(beAt(at(10, 0, 0)), say.Both("status.lastScheduleTime on the API server: the scheduled time of the last run started",
				"API 服务器上的 status.lastScheduleTime：最近一次启动的运行的计划时间"))
			Expect(h.events()).To(ContainElements(
				"Normal SuccessfulDelete Deleted job broken-old",
				HavePrefix("Warning FailedCreate Error creating job:"),
			), say.Both("the Events: the old Job's SuccessfulDelete, and FailedCreate",
				"事件：旧 Job 的 SuccessfulDelete，以及 FailedCreate"))
		})

		// No stage's label: olderFirst is given, not written, in every stage.
		// The specs above see only Jobs with a start time; these are the others.
		It("deletes the Job that started first first, one that never started (its Pod never ran) last, and goes by name when the starts are the same", func() {
			started := func(minute int) *metav1.Time {
				return &metav1.Time{Time: at(10, minute, 0)}
			}
			job := func(name string, start *metav1.Time) *kbatchv1.Job {
				return &kbatchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: kbatchv1.JobStatus{StartTime: start}}
			}
			for _, tc := range []struct {
				name string
				a, b *kbatchv1.Job
				want int // the sign of olderFirst(a, b)
			}{
				{"the earlier start first", job("b", started(1)), job("a", started(2)), -1},
				{"the later start after", job("a", started(2)), job("b", started(1)), 1},
				{"the same start: by name", job("a", started(1)), job("b", started(1)), -1},
				{"the same start, names the other way", job("b", started(1)), job("a", started(1)), 1},
				{"one never started: after one that did", job("a", nil), job("b", started(1)), 1},
				{"one that started: before one that never did", job("b", started(1)), job("a", nil), -1},
				{"neither started: by name", job("a", nil), job("b", nil), -1},
				{"neither started, names the other way", job("b", nil), job("a", nil), 1},
				{"the same Job", job("a", started(1)), job("a", started(1)), 0},
			} {
				got := olderFirst(tc.a, tc.b)
				Expect((got > 0) == (tc.want > 0) && (got < 0) == (tc.want < 0)).To(BeTrue(),
					say.Both("%s: olderFirst(%s, %s) = %d, want a result of sign %d", "%s：olderFirst(%s, %s) = %d，结果的符号应为 %d",
						tc.name, tc.a.Name, tc.b.Name, got, tc.want))
			}
		})
	})

	Describe("concurrency policies", Label("lab-scheduling"), func() {
		running := func(policy batchv1.ConcurrencyPolicy) *batchv1.CronJob {
			cj := h.createCronJob("policy", "*/5 * * * *", at(10, 0, 0), func(cj *batchv1.CronJob) {
				cj.Spec.ConcurrencyPolicy = policy
			})
			h.mustReconcileAt(at(10, 5, 0), cj)
			Expect(jobNames(h.jobs())).To(HaveLen(1), say.Both("the 10:05 run starts: no Job runs yet, so every policy lets it",
				"10:05 的运行启动了：还没有 Job 在运行，所以每种并发性规则都允许它"))
			h.events()
			return cj
		}

		It("Allow starts the next run while the previous one runs", func() {
			cj := running(batchv1.AllowConcurrent)
			h.mustReconcileAt(at(10, 10, 0), cj)
			Expect(jobNames(h.jobs())).To(Equal([]string{minuteName("policy", at(10, 5, 0)), minuteName("policy", at(10, 10, 0))}),
				say.Both("Allow: both runs have their Job, the running one and the new one",
					"Allow：两次运行都有自己的 Job，运行中的那个和新的那个"))
			Expect(h.get(cj).Status.Active).To(HaveLen(2),
				say.Both("Allow: status.active lists both Jobs",
					"Allow：status.active 列出两个 Job"))
		})

		It("Forbid skips the run while the previous one runs, and starts it once that finished", func() {
			cj := running(batchv1.ForbidConcurrent)
			h.mustReconcileAt(at(10, 10, 0), cj)
			h.mustReconcileAt(at(10, 10, 30), cj)
			Expect(jobNames(h.jobs())).To(HaveLen(1), say.Both("the 10:10 run waits under Forbid while the Job of 10:05 runs",
				"在 Forbid 之下，10:05 的 Job 还在运行，10:10 的运行就要等"))
			Expect(h.events()).To(ConsistOf("Normal JobAlreadyActive Not starting job because prior execution is running and concurrency policy is Forbid"),
				say.Both("two reconciles while the run waits, one Event: record JobAlreadyActive only when noteDue says the news is new",
					"运行在等待期间调和两次、只有一个事件：只有 noteDue 说这是新消息时才记录 JobAlreadyActive"))
			Expect(condition(h.get(cj), batchv1.ConditionReady).Message).To(HavePrefix("the run at 2030-01-07T10:10:00Z waits: a Job still runs"),
				say.Both("Ready's message says why the due run waits",
					"Ready 的消息说明到期的运行为什么在等"))

			first := h.jobs()[0]
			h.finish(&first, kbatchv1.JobComplete, at(10, 5, 1), at(10, 11, 0))
			h.mustReconcileAt(at(10, 11, 1), cj)
			Expect(jobNames(h.jobs())).To(Equal([]string{minuteName("policy", at(10, 5, 0)), minuteName("policy", at(10, 10, 0))}),
				say.Both("Forbid: once the running Job finished, the waiting run starts",
					"Forbid：运行中的 Job 结束之后，等待的运行启动"))
		})

		It("Replace deletes every running Job, however many", func() {
			cj := running(batchv1.AllowConcurrent)
			h.mustReconcileAt(at(10, 10, 0), cj)
			got := h.get(cj)
			got.Spec.ConcurrencyPolicy = batchv1.ReplaceConcurrent
			Expect(k8sClient.Update(ctx, got)).To(Succeed(),
				say.Both("the spec's own setup: switching the CronJob to Replace",
					"测试用例自己的准备步骤：把 CronJob 改为 Replace"))

			h.mustReconcileAt(at(10, 15, 0), cj)
			Expect(jobNames(h.jobs())).To(Equal([]string{minuteName("policy", at(10, 15, 0))}),
				say.Both("Replace: the running Jobs are deleted and the new run's Job is the only one",
					"Replace：运行中的 Job 被删除，新运行的 Job 是唯一的一个"))
			Expect(h.get(cj).Status.Active).To(HaveLen(1),
				say.Both("Replace: status.active lists only the new run's Job",
					"Replace：status.active 只列出新运行的 Job"))
		})

		It("Replace that cannot delete the running Job starts nothing and says FailedDelete", func() {
			cj := running(batchv1.ReplaceConcurrent)
			h.r.Client = refuseDeletes(h.r.Client)
			_, err := h.reconcileAt(at(10, 10, 0), cj)
			Expect(err).To(MatchError(ContainSubstring("deleting Job "+minuteName("policy", at(10, 5, 0)))),
				say.Both("Replace could not delete the running Job: Reconcile returns that error",
					"Replace 删不掉运行中的 Job：Reconcile 返回这个错误"))
			Expect(jobNames(h.jobs())).To(Equal([]string{minuteName("policy", at(10, 5, 0))}),
				say.Both("Replace could not delete: the running Job stays and no new Job starts",
					"Replace 删不掉：运行中的 Job 留下，不启动新的 Job"))
			degraded := condition(h.get(cj), batchv1.ConditionDegraded)
			Expect(degraded).To(haveStatusReason(metav1.ConditionTrue, batchv1.ReasonFailedDelete), say.Both("what failed is the delete, not a create",
				"失败的是删除，而不是创建"))
			Expect(h.events()).To(ConsistOf(HavePrefix("Warning FailedDelete Error deleting job "+minuteName("policy", at(10, 5, 0)))),
				say.Both("the refused delete is recorded as a Warning FailedDelete Event",
					"被拒绝的删除记录为一个 Warning FailedDelete 事件"))
			Expect(condition(h.get(cj), batchv1.ConditionReady)).To(HaveField("Message", "next run at 2030-01-07T10:15:00Z"),
				say.Both("Ready is brought up to date on this path too (noteDue): the one before said 10:10",
					"这条路径上也要把 Ready 更新到最新（noteDue）：之前那条写的是 10:10"))
		})

		It("Replace deletes the running Job and starts the new run", func() {
			cj := running(batchv1.ReplaceConcurrent)
			h.mustReconcileAt(at(10, 10, 0), cj)
			Expect(jobNames(h.jobs())).To(Equal([]string{minuteName("policy", at(10, 10, 0))}),
				say.Both("Replace: the running Job is deleted and the new run's Job is the only one",
					"Replace：运行中的 Job 被删除，新运行的 Job 是唯一的一个"))
			got := h.get(cj)
			Expect(activeNames(got)).To(ConsistOf(minuteName("policy", at(10, 10, 0))),
				say.Both("Replace: status.active lists only the new run's Job",
					"Replace：status.active 只列出新运行的 Job"))
			Expect(h.events()).To(ConsistOf(
				"Normal SuccessfulDelete Deleted job "+minuteName("policy", at(10, 5, 0)),
				"Normal SuccessfulCreate Created job "+minuteName("policy", at(10, 10, 0)),
			),
				say.Both("Replace records the deletion of the running Job and the creation of the new one",
					"Replace 记录了运行中 Job 的删除和新 Job 的创建"))
		})
	})

	Describe("when the CronJob cannot run", Label("lab-scheduling"), func() {
		It("starts nothing while suspended and says so in Ready", func() {
			cj := h.createCronJob("paused", "*/5 * * * *", at(10, 0, 0), func(cj *batchv1.CronJob) {
				cj.Spec.Suspend = ptr.To(true)
			})
			res := h.mustReconcileAt(at(10, 7, 0), cj)
			Expect(jobNames(h.jobs())).To(BeEmpty(),
				say.Both("a suspended CronJob starts no Job",
					"挂起的 CronJob 不启动 Job"))
			Expect(res.RequeueAfter).To(BeZero(), say.Both("resuming is an update, which triggers a reconcile",
				"恢复（取消挂起）是一次更新，会触发一次调和"))
			Expect(condition(h.get(cj), batchv1.ConditionReady)).To(haveStatusReason(metav1.ConditionTrue, batchv1.ReasonSuspended),
				say.Both("Ready on the API server: True, with the reason Suspended",
					"API 服务器上的 Ready：True，原因为 Suspended"))

			By("starting the most recent missed run when resumed")
			got := h.get(cj)
			got.Spec.Suspend = ptr.To(false)
			Expect(k8sClient.Update(ctx, got)).To(Succeed(),
				say.Both("the spec's own setup: resuming the CronJob",
					"测试用例自己的准备步骤：恢复（取消挂起）这个 CronJob"))
			h.mustReconcileAt(at(10, 7, 1), cj)
			Expect(jobNames(h.jobs())).To(Equal([]string{minuteName("paused", at(10, 5, 0))}),
				say.Both("resumed, it starts the most recent missed run",
					"恢复之后，它启动最近一次错过的运行"))
		})

		It("reports an unknown time zone with an Event and a condition, and creates no Job", func() {
			cj := h.createCronJob("nowhere", "*/5 * * * *", at(10, 0, 0), func(cj *batchv1.CronJob) {
				cj.Spec.TimeZone = ptr.To("Mars/Olympus_Mons")
			})
			res, err := h.reconcileAt(at(10, 5, 0), cj)
			Expect(err).NotTo(HaveOccurred(), say.Both("retrying cannot fix the spec",
				"重试修不好规约"))
			Expect(res.RequeueAfter).To(BeZero(),
				say.Both("an unknown time zone needs a fix of the spec, not a timer: no RequeueAfter",
					"未知的时区要靠修改规约，而不是靠定时器：没有 RequeueAfter"))
			Expect(jobNames(h.jobs())).To(BeEmpty(),
				say.Both("an unknown time zone starts no Job",
					"未知的时区不启动 Job"))
			ready := condition(h.get(cj), batchv1.ConditionReady)
			Expect(ready).To(haveStatusReason(metav1.ConditionFalse, batchv1.ReasonUnknownTimeZone),
				say.Both("Ready on the API server: False, with the reason UnknownTimeZone",
					"API 服务器上的 Ready：False，原因为 UnknownTimeZone"))
			Expect(ready.Message).To(HavePrefix(`timeZone "Mars/Olympus_Mons": unknown time zone; use an IANA name`),
				say.Both("Ready's message names the time zone and says how to fix it",
					"Ready 的消息点出这个时区，并说明怎么修"))
			Expect(h.events()).To(ConsistOf(HavePrefix(`Warning UnknownTimeZone timeZone "Mars/Olympus_Mons": unknown time zone`)),
				say.Both("an unknown time zone is recorded as a Warning UnknownTimeZone Event",
					"未知的时区记录为一个 Warning UnknownTimeZone 事件"))
		})

		It("reports a schedule that never fires", func() {
			cj := h.createCronJob("never", "0 0 30 2 *", at(10, 0, 0))
			h.mustReconcileAt(at(10, 5, 0), cj)
			ready := condition(h.get(cj), batchv1.ConditionReady)
			Expect(ready).To(haveStatusReason(metav1.ConditionFalse, batchv1.ReasonInvalidSchedule),
				say.Both("Ready on the API server: False, with the reason InvalidSchedule",
					"API 服务器上的 Ready：False，原因为 InvalidSchedule"))
			Expect(ready.Message).To(Equal(`schedule "0 0 30 2 *": never fires: February has no day 30`),
				say.Both("Ready's message says why the schedule never fires",
					"Ready 的消息说明这个时间表为什么永远不会触发"))
		})

		It("records the warning once per problem and generation, not on every reconcile", func() {
			cj := h.createCronJob("typo", "0 0 30 2 *", at(10, 0, 0))
			h.mustReconcileAt(at(10, 5, 0), cj)
			h.mustReconcileAt(at(10, 6, 0), cj)
			febThirtieth := `Warning InvalidSchedule schedule "0 0 30 2 *": never fires: February has no day 30`
			Expect(h.events()).To(ConsistOf(febThirtieth),
				say.Both("two reconciles, one Event: report it with reportUnschedulable, which records the Event only when the Ready condition does not say this problem yet",
					"两次调和、一个事件：用 reportUnschedulable 报告，它只在 Ready 状况还没有说出这个问题时才记录事件"))

			By("recording it again when a new generation still has it")
			got := h.get(cj)
			got.Spec.JobTemplate.Spec.Template.Spec.Containers[0].Image = "busybox:1.37"
			Expect(k8sClient.Update(ctx, got)).To(Succeed(),
				say.Both("the spec's own setup: changing the CronJob's spec, a new generation",
					"测试用例自己的准备步骤：修改 CronJob 的规约，产生新的 generation"))
			h.mustReconcileAt(at(10, 7, 0), cj)
			h.mustReconcileAt(at(10, 8, 0), cj)
			Expect(h.events()).To(ConsistOf(febThirtieth),
				say.Both("a new generation that still has the problem records it once more",
					"仍然有这个问题的新 generation 会再记录一次"))

			By("recording a new problem at once")
			got = h.get(cj)
			got.Spec.TimeZone = ptr.To("Mars/Olympus_Mons")
			Expect(k8sClient.Update(ctx, got)).To(Succeed(),
				say.Both("the spec's own setup: giving the CronJob an unknown time zone",
					"测试用例自己的准备步骤：给 CronJob 一个未知的时区"))
			h.mustReconcileAt(at(10, 9, 0), cj)
			Expect(h.events()).To(ConsistOf(HavePrefix(`Warning UnknownTimeZone timeZone "Mars/Olympus_Mons"`)),
				say.Both("a new problem is recorded at once",
					"新的问题会立刻被记录"))
		})

		It("starts no run, and reports no error, in a namespace that is being deleted", func() {
			cj := h.createCronJob("last", "*/5 * * * *", at(10, 0, 0))
			ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: h.ns}}
			Expect(k8sClient.Delete(ctx, ns)).To(Succeed(),
				say.Both("the spec's own setup: deleting the namespace",
					"测试用例自己的准备步骤：删除名字空间")) // envtest has no namespace controller: it stays Terminating, with the CronJob
			res, err := h.reconcileAt(at(10, 5, 0), cj)
			Expect(err).NotTo(HaveOccurred(),
				say.Both("the API server refuses the Job with the cause NamespaceTerminating: the CronJob goes away with its namespace, so retrying is of no use",
					"API 服务器以 NamespaceTerminating 为原因拒绝了这个 Job：CronJob 会随它的名字空间一起被删掉，重试没有用"))
			Expect(res.RequeueAfter).To(BeZero(),
				say.Both("a namespace being deleted needs no timer: no RequeueAfter",
					"正在被删除的名字空间不需要定时器：没有 RequeueAfter"))
			Expect(jobNames(h.jobs())).To(BeEmpty(),
				say.Both("no Job in a namespace that is being deleted",
					"正在被删除的名字空间里没有 Job"))
			Expect(h.events()).NotTo(ContainElement(ContainSubstring("FailedCreate")),
				say.Both("a create refused with the cause NamespaceTerminating is no failure: no FailedCreate Event",
					"以 NamespaceTerminating 为原因被拒绝的创建不算失败：不记录 FailedCreate 事件"))
		})

		It("starts no run of a CronJob that is being deleted", func() {
			cj := h.createCronJob("leaving", "*/5 * * * *", at(10, 0, 0), func(cj *batchv1.CronJob) {
				cj.Finalizers = []string{"cronlab.dev/test-holds-it"} // so that it stays, being deleted
			})
			Expect(k8sClient.Delete(ctx, cj)).To(Succeed(),
				say.Both("the spec's own setup: deleting the CronJob that a finalizer holds",
					"测试用例自己的准备步骤：删除被 Finalizer 拦住的 CronJob"))
			DeferCleanup(func() {
				got := h.get(cj)
				got.Finalizers = nil
				Expect(k8sClient.Update(ctx, got)).To(Succeed(),
					say.Both("the spec's own cleanup: removing the finalizer",
						"测试用例自己的清理步骤：去掉 Finalizer"))
			})
			res := h.mustReconcileAt(at(10, 5, 0), cj)
			Expect(jobNames(h.jobs())).To(BeEmpty(),
				say.Both("the 10:05 run is due, but the CronJob has a deletionTimestamp: its Jobs are about to be collected with it, so start none",
					"10:05 的运行到期了，但 CronJob 带有 deletionTimestamp：它的 Job 即将随它一起被垃圾收集，所以一个也不要启动"))
			Expect(res.RequeueAfter).To(BeZero(), say.Both("a CronJob being deleted has no next run to come back for",
				"正在被删除的 CronJob 没有下一次运行，不必为它再回来"))
		})
	})

	It("keeps Jobs of a deleted and re-created CronJob of the same name apart", Label("lab-scheduling"), func() {
		old := h.createCronJob("reborn", "@hourly", at(10, 0, 0))
		h.mustReconcileAt(at(11, 0, 0), old)
		// No garbage collector in envtest: the first CronJob's Job stays.
		Expect(k8sClient.Delete(ctx, old)).To(Succeed(), say.Both("the spec's own setup: deleting the first CronJob",
			"测试用例自己的准备步骤：删除第一个 CronJob"))
		eventually(func() bool {
			return apierrors.IsNotFound(k8sClient.Get(ctx, client.ObjectKeyFromObject(old), &batchv1.CronJob{}))
		}).Should(BeTrue(), say.Both("the spec's own setup: the first CronJob is gone from the API server",
			"测试用例自己的准备步骤：第一个 CronJob 已从 API 服务器上消失"))

		reborn := h.createCronJob("reborn", "@hourly", at(11, 0, 0))
		h.mustReconcileAt(at(11, 30, 0), reborn)
		Expect(h.get(reborn).Status.Active).To(BeEmpty(), say.Both("the old Job belongs to the old CronJob's UID",
			"旧的 Job 属于旧 CronJob 的 UID"))
	})
})
