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

package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	kbatchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	batchv1 "cronlab.dev/cronlab/api/v1"
	"cronlab.dev/cronlab/internal/controller"
	"cronlab.dev/cronlab/internal/trace"
	"cronlab.dev/cronlab/test/say"
	"cronlab.dev/cronlab/test/utils"
)

func TestMain(m *testing.M) { os.Exit(utils.RunTests(m)) }

// --trace (make run TRACE=file): the manager as make run starts it, scoped
// to a namespace, with a CronJob whose 10:00 run is due. The trace holds
// the three lanes, and shows the controller's reconcile asked for by the
// CronJob reaching the cache, and its create of the Job answered by the
// API server.
func TestTheTraceOfMakeRun(t *testing.T) {
	cfg := utils.StartAPIServer(t, filepath.Join(".."))
	direct, err := client.New(cfg, client.Options{Scheme: scheme})
	must(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "trace-"}}
	must(t, direct.Create(ctx, ns))

	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"},
		Cache: cacheOptions(ns.Name)})
	must(t, err)
	path := filepath.Join(t.TempDir(), "run.jsonl")
	ten := time.Date(2030, time.January, 7, 10, 0, 30, 0, time.UTC)
	r := &controller.CronJobReconciler{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Scheme: scheme,
		Recorder: mgr.GetEventRecorder("cronjob-controller"), Clock: clocktesting.NewFakeClock(ten)}
	rec, err := traced(ctx, mgr, r, path, ns.Name)
	must(t, err)
	// The lesson's SetupWithManager, as main calls it: the recorder stands
	// around the controller it builds (controller.Around).
	must(t, r.SetupWithManager(mgr))
	cj := &batchv1.CronJob{
		ObjectMeta: metav1.ObjectMeta{Name: "hourly", Namespace: ns.Name},
		Spec: batchv1.CronJobSpec{Schedule: "0 * * * *", JobTemplate: kbatchv1.JobTemplateSpec{Spec: kbatchv1.JobSpec{
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever,
				Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}}}},
	}
	must(t, direct.Create(ctx, cj))
	cj.Status.LastScheduleTime = &metav1.Time{Time: ten.Add(-time.Hour)}
	must(t, direct.Status().Update(ctx, cj))
	// The manager starts after the status is written: started before, its
	// first reconcile may write the status first and this Update conflict.
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		_ = mgr.Start(ctx)
	}()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var jobs kbatchv1.JobList
		must(t, direct.List(ctx, &jobs, client.InNamespace(ns.Name)))
		if len(jobs.Items) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal(say.Both("the traced manager did not start the 10:00 run within 30s",
				"记录追踪的管理器在 30 秒内没有启动 10:00 的运行"))
		}
		time.Sleep(20 * time.Millisecond)
	}
	rec.Sync(ctx)
	cancel()
	<-stopped
	must(t, rec.Close())

	events, err := trace.Load(path)
	must(t, err)
	a := trace.Analyze(events)
	lanes := map[string]int{}
	for _, e := range a.Events {
		lanes[e.Lane]++
	}
	for _, lane := range []string{trace.LaneAPI, trace.LaneCache, trace.LaneReconcile} {
		if lanes[lane] == 0 {
			t.Error(say.Both("the trace has no event in the %s lane: %v",
				"追踪记录的 %s 泳道里没有任何事件：%v", lane, lanes))
		}
	}
	created := false
	for _, r := range a.Reconciles {
		for _, w := range r.Writes {
			e := a.Events[w]
			if e.Verb == "create" && e.Object.Kind == "Job" && e.Error == "" {
				created = true
				if a.Events[r.Start].ReconcileID == "" || len(r.Causes) == 0 {
					t.Error(say.Both("the reconcile that created the Job has no reconcileID or no cache event that asked for it",
						"创建 Job 的那次调和没有 reconcileID，或者没有请求它的缓存事件"))
				}
			}
		}
	}
	if !created {
		t.Error(say.Both("the trace shows no reconcile that created the Job",
			"追踪记录里没有创建 Job 的调和"))
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
