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

// Package ownswatches checks discussion question 3: Owns(&Job{}) and
// Watches(&Job{}, EnqueueRequestForOwner(..., OnlyControllerOwner())) are
// the same wiring. Two controllers, one wired each way, run side by side in
// one manager; their work queues record every request the event handlers
// add, and one table of Job events must give the same requests to both.
package ownswatches

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	kbatchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	crcontroller "sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	batchv1 "cronlab.dev/cronlab/api/v1"
	"cronlab.dev/cronlab/internal/controller"
	"cronlab.dev/cronlab/test/say"
	"cronlab.dev/cronlab/test/utils"
)

// recordingQueue is a controller's work queue that also keeps every
// request added to it, in order. Reconciling is not the point here: what
// the event handlers ask for is.
type recordingQueue struct {
	workqueue.TypedRateLimitingInterface[reconcile.Request]
	mu    sync.Mutex
	added []string
}

func (q *recordingQueue) record(r reconcile.Request) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.added = append(q.added, r.Name)
}

func (q *recordingQueue) Add(r reconcile.Request) {
	q.record(r)
	q.TypedRateLimitingInterface.Add(r)
}

func (q *recordingQueue) AddRateLimited(r reconcile.Request) {
	q.record(r)
	q.TypedRateLimitingInterface.AddRateLimited(r)
}

func (q *recordingQueue) AddAfter(r reconcile.Request, d time.Duration) {
	q.record(r)
	q.TypedRateLimitingInterface.AddAfter(r, d)
}

func (q *recordingQueue) snapshot() []string {
	q.mu.Lock()
	defer q.mu.Unlock()
	return slices.Clone(q.added)
}

func TestOwnsAndWatchesEnqueueTheSameRequests(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c, mgr := startManager(t)

	probe := builder.ControllerManagedBy(mgr)
	if controller.WatchWithWatches(probe, mgr) == nil {
		t.Fatal(say.Both("WatchWithWatches returned no builder: write it in internal/controller/cronjob_controller.go "+
			"(see exercises/q3-owns-vs-watches/README.md)",
			"WatchWithWatches 没有返回 builder："+
				"请在 internal/controller/cronjob_controller.go 中实现它（见 exercises/q3-owns-vs-watches/README.zh-CN.md）"))
	}
	queues := map[string]*recordingQueue{}
	nothing := reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) { return reconcile.Result{}, nil })
	for name, wire := range map[string]func(*builder.Builder) *builder.Builder{
		"owns":    controller.WatchWithOwns,
		"watches": func(b *builder.Builder) *builder.Builder { return controller.WatchWithWatches(b, mgr) },
	} {
		q := &recordingQueue{}
		queues[name] = q
		opts := crcontroller.Options{NewQueue: func(_ string, rl workqueue.TypedRateLimiter[reconcile.Request]) workqueue.TypedRateLimitingInterface[reconcile.Request] {
			q.TypedRateLimitingInterface = workqueue.NewTypedRateLimitingQueueWithConfig(rl, workqueue.TypedRateLimitingQueueConfig[reconcile.Request]{Name: name})
			return q
		}}
		if err := wire(ctrl.NewControllerManagedBy(mgr)).Named(name).WithOptions(opts).Complete(nothing); err != nil {
			t.Fatal(err)
		}
	}
	go func() { _ = mgr.Start(ctx) }()

	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "q3-"}}
	must(t, c.Create(ctx, ns))
	owner := cronJob(ns.Name, "owner")
	must(t, c.Create(ctx, owner))
	// The sentinel marks the end of each step: its Job's events come
	// through the same Job informer, after those of the step.
	sentinel := cronJob(ns.Name, "sentinel")
	must(t, c.Create(ctx, sentinel))
	waitFor(t, queues, func(_ string, added []string) bool {
		return slices.Contains(added, "owner") && slices.Contains(added, "sentinel")
	}, say.Both("the CronJobs' own events (For)", "各个 CronJob 自身的事件（For）"))

	var sentinelJob *kbatchv1.Job
	step := 0
	// endStep changes the sentinel's Job and returns what each controller
	// was asked for since from (the sentinel's own requests left out).
	// The steps run in subtests: what fails in them fails the subtest (t),
	// never the parent test from inside one.
	endStep := func(t *testing.T, from map[string]int) map[string][]string {
		step++
		if sentinelJob == nil {
			sentinelJob = job(ns.Name, "sentinel-job", controlledBy(sentinel))
			must(t, c.Create(ctx, sentinelJob))
		} else {
			patch := client.MergeFrom(sentinelJob.DeepCopy())
			sentinelJob.Labels = map[string]string{"step": fmt.Sprint(step)}
			must(t, c.Patch(ctx, sentinelJob, patch))
		}
		got := map[string][]string{}
		waitFor(t, queues, func(name string, added []string) bool {
			return slices.Contains(added[from[name]:], "sentinel")
		}, say.Both("the end of step %d", "第 %d 步的结束", step))
		for name, q := range queues {
			for _, r := range q.snapshot()[from[name]:] {
				if r == "sentinel" {
					break
				}
				got[name] = append(got[name], r)
			}
		}
		return got
	}
	marks := func() map[string]int {
		m := map[string]int{}
		for name, q := range queues {
			m[name] = len(q.snapshot())
		}
		return m
	}
	var owned *kbatchv1.Job
	for _, tc := range []struct {
		event string
		do    func(t *testing.T)
		want  []string
	}{{
		event: "a Job that the CronJob controls is created",
		do: func(t *testing.T) {
			owned = job(ns.Name, "owned", controlledBy(owner))
			must(t, c.Create(ctx, owned))
		},
		want: []string{"owner"},
	}, {
		event: "that Job changes",
		do: func(t *testing.T) {
			patch := client.MergeFrom(owned.DeepCopy())
			owned.Labels = map[string]string{"changed": "yes"}
			must(t, c.Patch(ctx, owned, patch))
		},
		want: []string{"owner"},
	}, {
		event: "a Job that names the CronJob as an owner, but not as its controller, is created",
		do: func(t *testing.T) {
			ref := controlledBy(owner)
			ref.Controller = ptr.To(false)
			must(t, c.Create(ctx, job(ns.Name, "co-owned", ref)))
		},
		want: nil,
	}, {
		event: "a Job controlled by something else (a ConfigMap) is created",
		do: func(t *testing.T) {
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "other-owner", Namespace: ns.Name}}
			must(t, c.Create(ctx, cm))
			must(t, c.Create(ctx, job(ns.Name, "others", metav1.OwnerReference{
				APIVersion: "v1", Kind: "ConfigMap", Name: cm.Name, UID: cm.UID, Controller: ptr.To(true),
			})))
		},
		want: nil,
	}, {
		event: "a Job without owners is created",
		do:    func(t *testing.T) { must(t, c.Create(ctx, job(ns.Name, "orphan"))) },
		want:  nil,
	}, {
		event: "the controlled Job is deleted",
		do: func(t *testing.T) {
			must(t, c.Delete(ctx, owned, client.PropagationPolicy(metav1.DeletePropagationBackground)))
		},
		want: []string{"owner"},
	}} {
		t.Run(tc.event, func(t *testing.T) {
			from := marks()
			tc.do(t)
			got := endStep(t, from)
			if !slices.Equal(got["owns"], tc.want) {
				t.Error(say.Both("Owns: got requests %q, want %q",
					"Owns：得到的请求为 %q，应为 %q", got["owns"], tc.want))
			}
			if !slices.Equal(got["watches"], got["owns"]) {
				t.Error(say.Both("Watches gave %q where Owns gave %q: the wirings differ",
					"Watches 给出了 %q，而 Owns 给出了 %q：两种连接方式不一致", got["watches"], got["owns"]))
			}
		})
	}
}

// waitFor waits until the requests of every queue satisfy ok.
func waitFor(t *testing.T, queues map[string]*recordingQueue, ok func(name string, added []string) bool, what string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		var behind []string
		for name, q := range queues {
			if !ok(name, q.snapshot()) {
				behind = append(behind, name)
			}
		}
		if len(behind) == 0 {
			return
		}
		if time.Now().After(deadline) {
			slices.Sort(behind)
			t.Fatal(say.Both("the controllers did not see %s within 5s: %v did not (its wiring does not enqueue the CronJob that controls the changed Job)",
				"控制器在 5 秒内没有看到%s：%v 没有看到（它的连接方式没有把被改动的 Job 映射到控制它的 CronJob）", what, behind))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func startManager(t *testing.T) (client.Client, ctrl.Manager) {
	t.Helper()
	assets, err := utils.EnvtestAssets(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	env := utils.WithoutWatchCache(&envtest.Environment{
		CRDDirectoryPaths:     []string{filepath.Join("..", "..", "config", "crd", "bases")},
		ErrorIfCRDPathMissing: true,
		BinaryAssetsDirectory: assets,
	})
	cfg, err := utils.StartEnvtest(env)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	scheme := runtime.NewScheme()
	must(t, clientgoscheme.AddToScheme(scheme))
	must(t, batchv1.AddToScheme(scheme))
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}})
	if err != nil {
		t.Fatal(err)
	}
	return c, mgr
}

func cronJob(ns, name string) *batchv1.CronJob {
	return &batchv1.CronJob{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: batchv1.CronJobSpec{
			Schedule:    "0 0 1 1 *",
			JobTemplate: kbatchv1.JobTemplateSpec{Spec: kbatchv1.JobSpec{Template: podTemplate()}},
		},
	}
}

func job(ns, name string, owners ...metav1.OwnerReference) *kbatchv1.Job {
	return &kbatchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, OwnerReferences: owners},
		Spec:       kbatchv1.JobSpec{Template: podTemplate()},
	}
}

func podTemplate() corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{Spec: corev1.PodSpec{
		RestartPolicy: corev1.RestartPolicyNever,
		Containers:    []corev1.Container{{Name: "c", Image: "busybox"}},
	}}
}

func controlledBy(cj *batchv1.CronJob) metav1.OwnerReference {
	return *metav1.NewControllerRef(cj, batchv1.GroupVersion.WithKind("CronJob"))
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
