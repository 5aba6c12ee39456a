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

package runs

import (
	"testing"
	"time"

	kbatchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	batchv1 "cronlab.dev/cronlab/api/v1"
	"cronlab.dev/cronlab/internal/schedule"
	"cronlab.dev/cronlab/test/say"
)

// tenAM is a Monday, 2030-01-07 10:00 UTC.
var tenAM = time.Date(2030, time.January, 7, 10, 0, 0, 0, time.UTC)

func TestJobName(t *testing.T) {
	cj := &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Name: "report"}}
	tests := []struct {
		name string
		run  time.Time
		want string
	}{
		{"a run on a whole minute is numbered in minutes", tenAM, "report-31566840"},
		{"a run between minutes (@every 10s) in seconds", tenAM.Add(10 * time.Second), "report-1894010410"},
		{"the next run of @every 10s gets a name of its own", tenAM.Add(20 * time.Second), "report-1894010420"},
		{"the time zone does not change the name", tenAM.In(time.FixedZone("UTC+2", 2*3600)), "report-31566840"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := JobName(cj, tc.run); got != tc.want {
				t.Error(say.Both("JobName(%s) = %q, want %q",
					"JobName(%s) = %q，应为 %q", tc.run, got, tc.want))
			}
		})
	}
}

func TestControllerOf(t *testing.T) {
	cronJob := &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Name: "report", UID: "u1"}}
	ref := func(apiVersion, kind string, uid types.UID, controller bool) metav1.OwnerReference {
		return metav1.OwnerReference{APIVersion: apiVersion, Kind: kind, Name: "report", UID: uid, Controller: ptr.To(controller)}
	}
	tests := []struct {
		name  string
		owner metav1.OwnerReference
		want  bool // ControllerOf finds a CronJob of ours; ControlledBy(cronJob) is want with the UID u1
	}{
		{"our CronJob, v1", ref("batch.cronlab.dev/v1", "CronJob", "u1", true), true},
		{"our CronJob, v2: the group decides, any version", ref("batch.cronlab.dev/v2", "CronJob", "u1", true), true},
		{"upstream's CronJob: the same Kind, another group", ref("batch/v1", "CronJob", "u1", true), false},
		{"a group that only begins like ours", ref("batch.cronlab.dev.example/v1", "CronJob", "u1", true), false},
		{"an owner that is not the controller", ref("batch.cronlab.dev/v1", "CronJob", "u1", false), false},
		{"another Kind of ours", ref("batch.cronlab.dev/v1", "CronTab", "u1", true), false},
		{"an APIVersion that does not parse", ref("batch.cronlab.dev/v1/extra", "CronJob", "u1", true), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			job := &kbatchv1.Job{ObjectMeta: metav1.ObjectMeta{OwnerReferences: []metav1.OwnerReference{tc.owner}}}
			if got := ControllerOf(job) != nil; got != tc.want {
				t.Error(say.Both("ControllerOf(a Job owned by %s %s) found one: %v, want %v",
					"对属主为 %s %s 的 Job 调用 ControllerOf，是否找到：%v，应为 %v", tc.owner.APIVersion, tc.owner.Kind, got, tc.want))
			}
			if got := ControlledBy(job, cronJob); got != tc.want {
				t.Error(say.Both("ControlledBy = %v, want %v",
					"ControlledBy = %v，应为 %v", got, tc.want))
			}
		})
	}
	t.Run("a CronJob of the same name and another UID controls none of them", func(t *testing.T) {
		job := &kbatchv1.Job{ObjectMeta: metav1.ObjectMeta{OwnerReferences: []metav1.OwnerReference{ref("batch.cronlab.dev/v1", "CronJob", "u0", true)}}}
		if ControlledBy(job, cronJob) {
			t.Error(say.Both("ControlledBy compared the name, not the UID",
				"ControlledBy 比较的是名字，而不是 UID"))
		}
	})
}

func TestJobFinished(t *testing.T) {
	condition := func(typ kbatchv1.JobConditionType, status corev1.ConditionStatus) kbatchv1.JobCondition {
		return kbatchv1.JobCondition{Type: typ, Status: status}
	}
	tests := []struct {
		name       string
		conditions []kbatchv1.JobCondition
		finished   bool
		how        kbatchv1.JobConditionType
	}{
		{"no condition: running", nil, false, ""},
		{"complete", []kbatchv1.JobCondition{condition(kbatchv1.JobSuccessCriteriaMet, corev1.ConditionTrue), condition(kbatchv1.JobComplete, corev1.ConditionTrue)}, true, kbatchv1.JobComplete},
		{"failed", []kbatchv1.JobCondition{condition(kbatchv1.JobFailureTarget, corev1.ConditionTrue), condition(kbatchv1.JobFailed, corev1.ConditionTrue)}, true, kbatchv1.JobFailed},
		{"success criteria met, not complete yet: still running", []kbatchv1.JobCondition{condition(kbatchv1.JobSuccessCriteriaMet, corev1.ConditionTrue)}, false, ""},
		{"a condition that is not True does not count", []kbatchv1.JobCondition{condition(kbatchv1.JobComplete, corev1.ConditionFalse)}, false, ""},
		// Unknown is not False either: only True says that the Job has ended.
		{"a condition whose status is Unknown does not count", []kbatchv1.JobCondition{condition(kbatchv1.JobFailed, corev1.ConditionUnknown)}, false, ""},
		{"suspended: not finished", []kbatchv1.JobCondition{condition(kbatchv1.JobSuspended, corev1.ConditionTrue)}, false, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			job := &kbatchv1.Job{Status: kbatchv1.JobStatus{Conditions: tc.conditions}}
			finished, how := JobFinished(job)
			if finished != tc.finished || how != tc.how {
				t.Error(say.Both("JobFinished = %v, %q; want %v, %q",
					"JobFinished = %v, %q；应为 %v, %q", finished, how, tc.finished, tc.how))
			}
		})
	}
}

func TestDue(t *testing.T) {
	tests := []struct {
		name     string
		schedule string
		created  time.Time
		last     *time.Time
		deadline *int64
		now      time.Time
		wantRun  time.Time
		tooLate  bool
		wantNext time.Time
	}{
		{
			name: "counts from the creation until a run has started", schedule: "*/5 * * * *",
			created: tenAM.Add(-7 * time.Minute), now: tenAM.Add(30 * time.Second),
			wantRun: tenAM, wantNext: tenAM.Add(5 * time.Minute),
		},
		{
			name: "then from status.lastScheduleTime", schedule: "*/5 * * * *",
			created: tenAM.Add(-time.Hour), last: ptr.To(tenAM), now: tenAM.Add(4 * time.Minute),
			wantNext: tenAM.Add(5 * time.Minute),
		},
		{
			name: "the most recent missed run is the one due", schedule: "*/5 * * * *",
			created: tenAM.Add(-time.Hour), last: ptr.To(tenAM.Add(-30 * time.Minute)), now: tenAM.Add(time.Minute),
			wantRun: tenAM, wantNext: tenAM.Add(5 * time.Minute),
		},
		{
			name: "startingDeadlineSeconds: a run later than the deadline is too late", schedule: "*/5 * * * *",
			created: tenAM.Add(-time.Hour), last: ptr.To(tenAM.Add(-5 * time.Minute)), deadline: ptr.To[int64](30), now: tenAM.Add(time.Minute),
			wantRun: tenAM, tooLate: true, wantNext: tenAM.Add(5 * time.Minute),
		},
		{
			name: "@every 10s: runs between whole minutes", schedule: "@every 10s",
			created: tenAM.Add(-time.Hour), last: ptr.To(tenAM), now: tenAM.Add(25 * time.Second),
			wantRun: tenAM.Add(20 * time.Second), wantNext: tenAM.Add(30 * time.Second),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sched, err := schedule.Parse(tc.schedule, "Etc/UTC")
			if err != nil {
				t.Fatal(err)
			}
			cj := &batchv1.CronJob{
				ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.NewTime(tc.created)},
				Spec:       batchv1.CronJobSpec{Schedule: tc.schedule, StartingDeadlineSeconds: tc.deadline},
			}
			if tc.last != nil {
				cj.Status.LastScheduleTime = &metav1.Time{Time: *tc.last}
			}
			due := Due(cj, sched, tc.now)
			if !due.Run.Equal(tc.wantRun) || due.TooLate != tc.tooLate || !due.Next.Equal(tc.wantNext) {
				t.Error(say.Both("Due = run %s (too late: %v), next %s; want run %s (too late: %v), next %s",
					"Due = 运行 %s（太迟：%v），下一次 %s；应为运行 %s（太迟：%v），下一次 %s", due.Run, due.TooLate, due.Next, tc.wantRun, tc.tooLate, tc.wantNext))
			}
		})
	}
}

func TestRequeueDelay(t *testing.T) {
	if got, want := RequeueDelay(tenAM, tenAM.Add(5*time.Minute)), 5*time.Minute+100*time.Millisecond; got != want {
		t.Error(say.Both("RequeueDelay = %v, want %v: the controller must look again just after the run is due",
			"RequeueDelay = %v，应为 %v：控制器必须在运行到期后紧接着再看一次", got, want))
	}
}

// TestNewJob: the Job of a run is the template's, named after the run,
// controlled by the CronJob, labelled with its name whatever the template
// says, and annotated with the run's time in the CronJob's time zone.
func TestNewJob(t *testing.T) {
	cronJob := &batchv1.CronJob{
		ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "report", UID: "u1"},
		Spec: batchv1.CronJobSpec{JobTemplate: kbatchv1.JobTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{
				Labels:      map[string]string{"app": "report", batchv1.CronJobLabel: "someone-else"},
				Annotations: map[string]string{"owner": "team-a"},
			},
			Spec: kbatchv1.JobSpec{BackoffLimit: ptr.To[int32](2)},
		}},
	}
	run := tenAM.In(time.FixedZone("CST", 8*3600))
	job := NewJob(cronJob, run)

	if job.Name != JobName(cronJob, run) || job.Namespace != "team" {
		t.Error(say.Both("the Job is %s/%s, want team/%s",
			"Job 是 %s/%s，应为 team/%s", job.Namespace, job.Name, JobName(cronJob, run)))
	}
	switch {
	case len(job.OwnerReferences) == 0:
		t.Error(say.Both("the Job has no owner reference: NewJob makes the CronJob its controller with metav1.NewControllerRef",
			"Job 没有属主引用：NewJob 要用 metav1.NewControllerRef 把 CronJob 设为它的控制者"))
	case metav1.GetControllerOf(job) == nil:
		t.Error(say.Both("the Job's owner references %+v are not a controller reference (Controller: true): make one with metav1.NewControllerRef",
			"Job 的属主引用 %+v 都不是控制者引用（Controller: true）：要用 metav1.NewControllerRef 生成一个", job.OwnerReferences))
	case !ControlledBy(job, cronJob):
		t.Error(say.Both("the Job's controller reference %+v does not name the CronJob (its kind, API group and UID)",
			"Job 的控制者引用 %+v 指向的不是这个 CronJob（看它的类别、API 组和 UID）", *metav1.GetControllerOf(job)))
	}
	if job.Labels["app"] != "report" || job.Labels[batchv1.CronJobLabel] != "report" {
		t.Error(say.Both("labels %v: want the template's, and %s=report over the template's own",
			"标签 %v：应为模板的标签，再加上 %s=report，覆盖模板自己的同名标签", job.Labels, batchv1.CronJobLabel))
	}
	if got := job.Annotations[batchv1.ScheduledTimeAnnotation]; got != "2030-01-07T18:00:00+08:00" || job.Annotations["owner"] != "team-a" {
		t.Error(say.Both("annotations %v: want the template's, and %s at the run in the CronJob's zone",
			"注解 %v：应为模板的注解，再加上 %s，值为按 CronJob 的时区写出的运行时间", job.Annotations, batchv1.ScheduledTimeAnnotation))
	}
	if job.Spec.BackoffLimit == nil || *job.Spec.BackoffLimit != 2 {
		t.Error(say.Both("the Job's spec is not the template's: backoffLimit %v",
			"Job 的 spec 与模板的不同：backoffLimit 为 %v", job.Spec.BackoffLimit))
	}
	// A copy: changing the Job leaves the CronJob's template alone.
	*job.Spec.BackoffLimit = 5
	job.Labels["app"] = "changed"
	if *cronJob.Spec.JobTemplate.Spec.BackoffLimit != 2 || cronJob.Spec.JobTemplate.Labels["app"] != "report" {
		t.Error(say.Both("NewJob shares the template's maps or pointers: changing the Job changed the CronJob",
			"NewJob 与模板共用了 map 或指针：改动 Job 也改动了 CronJob"))
	}
}

// TestJobReference: status.active names a Job by these fields, and
// `kubectl describe` shows them.
func TestJobReference(t *testing.T) {
	job := &kbatchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "report-1", UID: "j1", ResourceVersion: "42"}}
	want := corev1.ObjectReference{APIVersion: "batch/v1", Kind: "Job", Namespace: "team", Name: "report-1", UID: "j1", ResourceVersion: "42"}
	if got := JobReference(job); got != want {
		t.Error(say.Both("JobReference = %+v, want %+v",
			"JobReference = %+v，应为 %+v", got, want))
	}
}

// Recorded says whether a finished Job's end is in the stored status
// already, so that history cleanup may delete it (docs/reliability.md,
// "A crash between two writes").
func TestRecorded(t *testing.T) {
	at := func(min int) *metav1.Time { return &metav1.Time{Time: tenAM.Add(time.Duration(min) * time.Minute)} }
	job := func(uid string, how kbatchv1.JobConditionType, done *metav1.Time) *kbatchv1.Job {
		j := &kbatchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: uid, UID: types.UID(uid)}}
		if how != "" {
			j.Status.Conditions = []kbatchv1.JobCondition{{Type: how, Status: corev1.ConditionTrue}}
		}
		j.Status.CompletionTime = done
		return j
	}
	active := func(j *kbatchv1.Job) []corev1.ObjectReference { return []corev1.ObjectReference{JobReference(j)} }
	done := job("done", kbatchv1.JobComplete, at(1))
	failed := job("failed", kbatchv1.JobFailed, nil)
	tests := []struct {
		name   string
		status batchv1.CronJobStatus
		job    *kbatchv1.Job
		want   bool
	}{
		{"a success that lastSuccessfulTime holds", batchv1.CronJobStatus{LastSuccessfulTime: at(1)}, done, true},
		{"an older success than lastSuccessfulTime", batchv1.CronJobStatus{LastSuccessfulTime: at(5)}, done, true},
		{"a success later than lastSuccessfulTime", batchv1.CronJobStatus{LastSuccessfulTime: at(0)}, done, false},
		{"a success and no lastSuccessfulTime yet", batchv1.CronJobStatus{}, done, false},
		{"a success that lastSuccessfulTime holds, still listed as active", batchv1.CronJobStatus{LastSuccessfulTime: at(1), Active: active(done)}, done, false},
		{"a failure no longer listed as active", batchv1.CronJobStatus{Active: active(job("other", "", nil))}, failed, true},
		{"a failure still listed as active", batchv1.CronJobStatus{Active: active(failed)}, failed, false},
		{"a success without a completion time: nothing to record", batchv1.CronJobStatus{}, job("untimed", kbatchv1.JobComplete, nil), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Recorded(tc.status, tc.job); got != tc.want {
				t.Error(say.Both("Recorded = %v, want %v", "Recorded = %v，应为 %v", got, tc.want))
			}
		})
	}
}

func TestActiveHas(t *testing.T) {
	j := &kbatchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "listed", UID: "listed-uid"}}
	cj := &batchv1.CronJob{Status: batchv1.CronJobStatus{Active: []corev1.ObjectReference{JobReference(j)}}}
	if !ActiveHas(cj, "listed-uid") {
		t.Error(say.Both("ActiveHas of the listed Job's UID = false, want true", "对已列出的 Job 的 UID，ActiveHas = false，应为 true"))
	}
	if ActiveHas(cj, "another-uid") {
		t.Error(say.Both("ActiveHas of another UID = true, want false", "对另一个 UID，ActiveHas = true，应为 false"))
	}
}
