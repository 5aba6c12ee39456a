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
// and learns through its Job informer that the run finished.
package clientgo

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	kbatchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	batchv1 "cronlab.dev/cronlab/api/v1"
	"cronlab.dev/cronlab/internal/handwritten"
	"cronlab.dev/cronlab/test/utils"
)

const hint = "is the work loop written (processNextWorkItem and enqueueOwner in internal/handwritten; see exercises/16-client-go/README.md)?"

func TestTheHandWrittenControllerStartsARunAndSeesItFinish(t *testing.T) {
	cfg := utils.StartAPIServer(t, filepath.Join("..", ".."))
	direct, err := client.New(cfg, client.Options{Scheme: utils.Scheme(t)})
	must(t, err)
	kube := kubernetes.NewForConfigOrDie(cfg)
	dyn := dynamic.NewForConfigOrDie(cfg)

	tenAM := time.Date(2030, time.January, 7, 10, 0, 0, 0, time.UTC)
	ctl, err := handwritten.New(kube, dyn, clocktesting.NewFakeClock(tenAM.Add(30*time.Second)))
	must(t, err)
	ctx := context.Background()

	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "client-go-"}}
	must(t, direct.Create(ctx, ns))
	cj := &batchv1.CronJob{
		ObjectMeta: metav1.ObjectMeta{Name: "hourly", Namespace: ns.Name},
		Spec: batchv1.CronJobSpec{
			Schedule: "0 * * * *",
			TimeZone: ptr.To("Etc/UTC"),
			JobTemplate: kbatchv1.JobTemplateSpec{Spec: kbatchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever,
				Containers:    []corev1.Container{{Name: "c", Image: "busybox"}},
			}}}},
		},
	}
	must(t, direct.Create(ctx, cj))
	cj.Status.LastScheduleTime = &metav1.Time{Time: tenAM.Add(-time.Hour)}
	must(t, direct.Status().Update(ctx, cj))

	// Start the controller only now, so that its first look at the CronJob
	// is this state, not a race with the two writes above.
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- ctl.Run(runCtx, 2) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})

	// The informers' initial list → the queue → a worker → sync → a Job.
	var job kbatchv1.Job
	key := client.ObjectKey{Namespace: ns.Name, Name: "hourly-31566840"}
	within(t, 10*time.Second, "the 10:00 Job was not created; "+hint, func() bool {
		return direct.Get(ctx, key, &job) == nil
	})
	if !metav1.IsControlledBy(&job, cj) {
		t.Errorf("the Job must be controlled by the CronJob; owners: %v", job.OwnerReferences)
	}
	within(t, 10*time.Second, "status.active does not list the Job", func() bool {
		must(t, direct.Get(ctx, client.ObjectKeyFromObject(cj), cj))
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
	must(t, direct.Status().Update(ctx, &job))
	within(t, 10*time.Second, "the finished Job is still in status.active: does a Job's event enqueue its CronJob? "+hint, func() bool {
		must(t, direct.Get(ctx, client.ObjectKeyFromObject(cj), cj))
		return len(cj.Status.Active) == 0
	})

	var jobs kbatchv1.JobList
	must(t, direct.List(ctx, &jobs, client.InNamespace(ns.Name)))
	if len(jobs.Items) != 1 {
		t.Errorf("%d Jobs, want 1: the 10:00 run must start once", len(jobs.Items))
	}
}

func within(t *testing.T, d time.Duration, failure string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(d); !ok(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("after %v: %s", d, failure)
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
