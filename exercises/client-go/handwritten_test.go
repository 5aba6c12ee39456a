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

// Package clientgo checks the comparison stage: the CronJob controller
// written by hand with client-go (internal/handwritten) starts a due run,
// learns through its Job informer that the run finished, and gives every
// run of an "@every 10s" schedule a Job of its own.
package clientgo

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	kbatchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	batchv1 "cronlab.dev/cronlab/api/v1"
	"cronlab.dev/cronlab/internal/handwritten"
	"cronlab.dev/cronlab/internal/runs"
	"cronlab.dev/cronlab/test/say"
	"cronlab.dev/cronlab/test/utils"
)

var hint = say.Both("is the work loop written (processNextWorkItem and enqueueOwner in internal/handwritten; see exercises/client-go/README.md)?",
	"工作循环写好了吗（internal/handwritten 中的 processNextWorkItem 和 enqueueOwner；见 exercises/client-go/README.zh-CN.md）？")

// The tests of this package share one API server (utils.StartAPIServer),
// each in namespaces of its own; it stops after the last test.
func TestMain(m *testing.M) { os.Exit(utils.RunTests(m)) }

func TestTheHandWrittenControllerStartsARunAndSeesItFinish(t *testing.T) {
	tenAM := time.Date(2030, time.January, 7, 10, 0, 0, 0, time.UTC)
	h := newHarness(t, tenAM.Add(30*time.Second))
	cj := h.createCronJob("hourly", "0 * * * *", tenAM.Add(-time.Hour))
	h.run()

	// The informers' initial list → the queue → a worker → sync → a Job.
	var job kbatchv1.Job
	key := client.ObjectKey{Namespace: h.ns, Name: "hourly-31566840"}
	within(t, 5*time.Second, say.Both("the 10:00 Job was not created; %s", "10:00 的 Job 没有创建出来；%s", hint), func() bool {
		return h.direct.Get(h.ctx, key, &job) == nil
	})
	if !metav1.IsControlledBy(&job, cj) {
		t.Error(say.Both("the Job must be controlled by the CronJob; owners: %v",
			"Job 必须由 CronJob 控制；它的属主：%v", job.OwnerReferences))
	}
	within(t, 5*time.Second, say.Both("status.active does not list the Job", "status.active 中没有这个 Job"), func() bool {
		must(t, h.direct.Get(h.ctx, client.ObjectKeyFromObject(cj), cj))
		return len(cj.Status.Active) == 1 && cj.Status.Active[0].UID == job.UID &&
			cj.Status.LastScheduleTime.Time.Equal(tenAM)
	})

	// The Job finishes: its update event reaches the CronJob only through
	// the owner mapping (enqueueOwner).
	end := metav1.NewTime(tenAM.Add(time.Minute))
	job.Status.StartTime, job.Status.CompletionTime, job.Status.Succeeded = &end, &end, 1
	job.Status.Conditions = []kbatchv1.JobCondition{
		{Type: kbatchv1.JobSuccessCriteriaMet, Status: corev1.ConditionTrue, LastTransitionTime: end},
		{Type: kbatchv1.JobComplete, Status: corev1.ConditionTrue, LastTransitionTime: end},
	}
	must(t, h.direct.Status().Update(h.ctx, &job))
	within(t, 5*time.Second, say.Both("the finished Job is still in status.active: does a Job's event enqueue its CronJob? %s",
		"已结束的 Job 仍在 status.active 中：Job 的事件会把它的 CronJob 加入工作队列吗？%s", hint), func() bool {
		must(t, h.direct.Get(h.ctx, client.ObjectKeyFromObject(cj), cj))
		return len(cj.Status.Active) == 0
	})
	if names := h.jobNames(); len(names) != 1 {
		t.Error(say.Both("Jobs %v, want one: the 10:00 run must start once",
			"Job 为 %v，应为一个：10:00 的运行只能启动一次", names))
	}
}

// Runs of "@every 10s" are ten seconds apart, so several fall within one
// minute: each needs a Job of its own name (runs.JobName), or the second
// run's create finds the first run's Job and takes it for its own.
func TestTheHandWrittenControllerStartsEveryRunOfAnEvery10sSchedule(t *testing.T) {
	tenAM := time.Date(2030, time.January, 7, 10, 0, 0, 0, time.UTC)
	h := newHarness(t, tenAM.Add(25*time.Second))
	cj := h.createCronJob("every", "@every 10s", tenAM)
	h.run()

	first := runs.JobName(cj, tenAM.Add(20*time.Second))
	within(t, 5*time.Second, say.Both("the Job of the 10:00:20 run was not created; %s", "10:00:20 那次运行的 Job 没有创建出来；%s", hint), func() bool {
		return len(h.jobNames()) > 0
	})
	if names := h.jobNames(); !slices.Equal(names, []string{first}) {
		t.Fatal(say.Both("Jobs %v, want [%s]: a run between whole minutes is named with its seconds since 1970 (runs.JobName)",
			"Job 为 %v，应为 [%s]：不在整分钟的运行，以它距 1970 年的秒数命名（runs.JobName）", names, first))
	}

	within(t, 5*time.Second, say.Both("status.lastScheduleTime is not 10:00:20 after its Job was created",
		"Job 已经创建，status.lastScheduleTime 却不是 10:00:20"), func() bool {
		must(t, h.direct.Get(h.ctx, client.ObjectKeyFromObject(cj), cj))
		return cj.Status.LastScheduleTime.Time.Equal(tenAM.Add(20 * time.Second))
	})

	// Ten seconds later by the controller's clock; any change to the
	// CronJob makes the controller look at it now. The controller writes
	// the CronJob too (its status, after each event), so the change is
	// retried when it conflicts with such a write.
	h.clock.SetTime(tenAM.Add(35 * time.Second))
	must(t, retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := h.direct.Get(h.ctx, client.ObjectKeyFromObject(cj), cj); err != nil {
			return err
		}
		metav1.SetMetaDataAnnotation(&cj.ObjectMeta, "cronlab.dev/poke", "1")
		return h.direct.Update(h.ctx, cj)
	}))

	second := runs.JobName(cj, tenAM.Add(30*time.Second))
	within(t, 5*time.Second, say.Both("the 10:00:30 run has no Job of its own (Jobs: %v): the runs of one minute need names of their own",
		"10:00:30 的运行没有自己的 Job（现有 Job：%v）：同一分钟内的各次运行需要各自的名字", h.jobNames()), func() bool {
		must(t, h.direct.Get(h.ctx, client.ObjectKeyFromObject(cj), cj))
		return cj.Status.LastScheduleTime.Time.Equal(tenAM.Add(30 * time.Second))
	})
	if names := h.jobNames(); !slices.Equal(names, []string{first, second}) {
		t.Error(say.Both("Jobs %v, want %v: one Job for each run",
			"Job 为 %v，应为 %v：每次运行一个 Job", names, []string{first, second}))
	}
}

// harness is an API server, a namespace, and a hand-written controller
// whose clock the test sets.
type harness struct {
	t      *testing.T
	ctx    context.Context
	direct client.Client
	ns     string
	clock  *clocktesting.FakeClock
	ctl    *handwritten.Controller
}

func newHarness(t *testing.T, now time.Time) *harness {
	cfg := utils.StartAPIServer(t, filepath.Join("..", ".."))
	direct, err := client.New(cfg, client.Options{Scheme: utils.Scheme(t)})
	must(t, err)
	h := &harness{t: t, ctx: context.Background(), direct: direct, clock: clocktesting.NewFakeClock(now)}
	h.ctl, err = handwritten.New(kubernetes.NewForConfigOrDie(cfg), dynamic.NewForConfigOrDie(cfg), h.clock)
	must(t, err)
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "client-go-"}}
	must(t, direct.Create(h.ctx, ns))
	h.ns = ns.Name
	return h
}

// createCronJob creates a CronJob whose last run was at last.
func (h *harness) createCronJob(name, schedule string, last time.Time) *batchv1.CronJob {
	cj := &batchv1.CronJob{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: h.ns},
		Spec: batchv1.CronJobSpec{
			Schedule: schedule,
			TimeZone: ptr.To("Etc/UTC"),
			JobTemplate: kbatchv1.JobTemplateSpec{Spec: kbatchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever,
				Containers:    []corev1.Container{{Name: "c", Image: "busybox"}},
			}}}},
		},
	}
	must(h.t, h.direct.Create(h.ctx, cj))
	cj.Status.LastScheduleTime = &metav1.Time{Time: last}
	must(h.t, h.direct.Status().Update(h.ctx, cj))
	return cj
}

// run starts the controller until the test ends. Tests start it after
// creating their CronJob, so that its first look at the CronJob is that
// state, not a race with the writes.
func (h *harness) run() {
	runCtx, cancel := context.WithCancel(h.ctx)
	done := make(chan error, 1)
	go func() { done <- h.ctl.Run(runCtx, 2) }()
	h.t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			h.t.Error(err)
		}
	})
}

// jobNames lists the names of the namespace's Jobs, sorted.
func (h *harness) jobNames() []string {
	var jobs kbatchv1.JobList
	must(h.t, h.direct.List(h.ctx, &jobs, client.InNamespace(h.ns)))
	var names []string
	for _, job := range jobs.Items {
		names = append(names, job.Name)
	}
	slices.Sort(names)
	return names
}

func within(t *testing.T, d time.Duration, failure string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(d); !ok(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal(say.Both("after %v: %s",
				"%v 后：%s", d, failure))
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
