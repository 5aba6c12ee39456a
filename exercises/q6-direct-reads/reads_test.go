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

// Package directreads checks discussion question 6: what do tests gain by
// reading from the API server instead of a cache? A manager's cache is
// made to lag on purpose (test/lag holds back its watch events), so the
// stale read is shown every time, not when the scheduler happens to be slow.
package directreads

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	kbatchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	batchv1 "cronlab.dev/cronlab/api/v1"
	"cronlab.dev/cronlab/internal/trace"
	"cronlab.dev/cronlab/test/lag"
	"cronlab.dev/cronlab/test/say"
	"cronlab.dev/cronlab/test/tracing"
	"cronlab.dev/cronlab/test/utils"
)

// world: a direct client, and a manager whose cache lags when told to.
// The reads and writes of the test through both are recorded in its trace
// (test/tracing), which bin/lab check points to when the test fails.
type world struct {
	direct client.Client
	cached client.Client // the manager's client: reads come from its cache
	lag    *lag.Watches
	ns     string
	// waitCached and waitDirect read without recording: caughtUp polls
	// them, and each poll would be a line of the trace.
	waitCached, waitDirect client.Client
}

func newWorld(t *testing.T) *world {
	t.Helper()
	cfg := utils.StartAPIServer(t, filepath.Join("..", ".."))
	scheme := utils.Scheme(t)
	var err error
	w := &world{lag: lag.NewWatches()}
	if w.direct, err = client.New(cfg, client.Options{Scheme: scheme}); err != nil {
		t.Fatal(err)
	}
	mgr, err := ctrl.NewManager(w.lag.Config(cfg), ctrl.Options{Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() {
		w.lag.Resume("cronjobs", "jobs") // let a held watch finish, so the manager can stop
		cancel()
	})
	go func() { _ = mgr.Start(ctx) }()
	// Ask for the informers now, and wait until they have listed.
	for _, obj := range []client.Object{&batchv1.CronJob{}, &kbatchv1.Job{}} {
		if _, err := mgr.GetCache().GetInformer(ctx, obj); err != nil {
			t.Fatal(say.Both("starting the cache (is test/lag written? see exercises/q6-direct-reads/README.md): %v",
				"启动缓存出错（test/lag 写好了吗？见 exercises/q6-direct-reads/README.zh-CN.md）：%v", err))
		}
	}
	syncCtx, syncCancel := context.WithTimeout(ctx, 30*time.Second)
	defer syncCancel()
	if !mgr.GetCache().WaitForCacheSync(syncCtx) {
		t.Fatal(say.Both("the cache did not sync within 30s: do the watches of test/lag pass their events on? (exercises/q6-direct-reads/README.md)",
			"缓存在 30 秒内没有完成同步："+
				"test/lag 的 watch 有没有把事件传下去？（exercises/q6-direct-reads/README.zh-CN.md）"))
	}
	w.cached = mgr.GetClient()
	w.waitCached, w.waitDirect = w.cached, w.direct

	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "q6-"}}
	must(t, w.direct.Create(context.Background(), ns))
	w.ns = ns.Name

	rec, path, err := tracing.Start(ctx, tracing.Spec{Root: filepath.Join("..", ".."), Name: t.Name(),
		Config: cfg, Scheme: scheme, Cache: mgr.GetCache(), Namespace: w.ns})
	must(t, err)
	t.Cleanup(func() {
		must(t, tracing.Stop(context.Background(), rec))
		if pointer := tracing.Pointer(path); pointer != "" && t.Failed() {
			t.Log(pointer)
		}
	})
	w.direct, w.cached = rec.Client(w.direct, trace.FromAPI), rec.Client(w.cached, trace.FromCache)
	return w
}

// caughtUp waits until the cache holds obj at the resourceVersion the API
// server holds, and fails after 30s.
func (w *world) caughtUp(t *testing.T, obj client.Object) {
	t.Helper()
	ctx := context.Background()
	key := client.ObjectKeyFromObject(obj)
	deadline := time.Now().Add(30 * time.Second)
	for {
		server := obj.DeepCopyObject().(client.Object)
		cached := obj.DeepCopyObject().(client.Object)
		must(t, w.waitDirect.Get(ctx, key, server))
		if err := w.waitCached.Get(ctx, key, cached); err == nil && cached.GetResourceVersion() == server.GetResourceVersion() {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal(say.Both("the cache did not catch up with %s within 30s",
				"缓存在 30 秒内没有跟上 %s", key))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// The tests of this package share one API server (utils.StartAPIServer),
// each in namespaces of its own; it stops after the last test.
func TestMain(m *testing.M) { os.Exit(utils.RunTests(m)) }

func TestACachedReadRightAfterAWriteIsStaleWhileTheWatchLags(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	cj := cronJob(w.ns, "nightly")
	must(t, w.direct.Create(ctx, cj))
	w.caughtUp(t, cj)

	w.lag.Pause("cronjobs")
	suspended := cj.DeepCopy()
	suspended.Spec.Suspend = ptr.To(true)
	must(t, w.direct.Update(ctx, suspended))
	added := cronJob(w.ns, "added")
	must(t, w.direct.Create(ctx, added))

	// The assertions a test would write right after its writes:
	var viaCache, viaServer batchv1.CronJob
	must(t, w.cached.Get(ctx, client.ObjectKeyFromObject(cj), &viaCache))
	must(t, w.direct.Get(ctx, client.ObjectKeyFromObject(cj), &viaServer))
	if ptr.Deref(viaCache.Spec.Suspend, false) {
		t.Error(say.Both("the cached read saw suspend: true although the watch is held back: the cache is not lagging",
			"watch 被扣住了，从缓存读到的却是 suspend: true：缓存没有滞后"))
	}
	if !ptr.Deref(viaServer.Spec.Suspend, false) {
		t.Error(say.Both("the direct read must see the update: the API server answers from its current state",
			"直接读取必须看到这次更新：API 服务器按它的当前状态作答"))
	}
	if err := w.cached.Get(ctx, client.ObjectKeyFromObject(added), &batchv1.CronJob{}); !apierrors.IsNotFound(err) {
		t.Error(say.Both("the cached read of a CronJob created during the lag must be NotFound; got %v",
			"从缓存读取滞后期间创建的 CronJob，结果必须是 NotFound；实际得到 %v", err))
	}
	must(t, w.direct.Get(ctx, client.ObjectKeyFromObject(added), &batchv1.CronJob{}))

	// When the events arrive, the cache catches up, in order.
	w.lag.Resume("cronjobs")
	w.caughtUp(t, suspended)
	w.caughtUp(t, added)
	must(t, w.cached.Get(ctx, client.ObjectKeyFromObject(cj), &viaCache))
	if !ptr.Deref(viaCache.Spec.Suspend, false) {
		t.Error(say.Both("after the lag, the cache must hold the update",
			"滞后结束后，缓存必须包含这次更新"))
	}
}

func TestADirectReadAfterAWriteIsAlwaysCurrent(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	// Even with every watch held back: reads of the API server do not go
	// through any watch.
	w.lag.Pause("cronjobs", "jobs")
	cj := cronJob(w.ns, "counter")
	must(t, w.direct.Create(ctx, cj))
	stale := 0
	for i := range 50 {
		cj.Spec.StartingDeadlineSeconds = ptr.To(int64(i))
		must(t, w.direct.Update(ctx, cj))
		var direct, cached batchv1.CronJob
		must(t, w.direct.Get(ctx, client.ObjectKeyFromObject(cj), &direct))
		if got := ptr.Deref(direct.Spec.StartingDeadlineSeconds, -1); got != int64(i) {
			t.Fatal(say.Both("write %d: the direct read returned %d",
				"第 %d 次写入：直接读取返回了 %d", i, got))
		}
		if err := w.cached.Get(ctx, client.ObjectKeyFromObject(cj), &cached); err != nil || ptr.Deref(cached.Spec.StartingDeadlineSeconds, -1) != int64(i) {
			stale++
		}
	}
	if stale != 50 {
		t.Error(say.Both("with the watch held back, all 50 cached reads must be stale; %d were",
			"watch 被扣住时，从缓存的 50 次读取必须全部是陈旧的；实际是 %d 次", stale))
	}
	t.Logf("50 writes: 50 direct reads current, %d cached reads stale", stale)
}

func cronJob(ns, name string) *batchv1.CronJob {
	return &batchv1.CronJob{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: batchv1.CronJobSpec{
			Schedule: "@daily",
			JobTemplate: kbatchv1.JobTemplateSpec{Spec: kbatchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever,
				Containers:    []corev1.Container{{Name: "c", Image: "busybox"}},
			}}}},
		},
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(fmt.Sprint(err))
	}
}

// TestOnlyWatchesLag: the lag holds back watch events and nothing else. A
// List of a paused resource through the same lagging configuration answers
// at once (the 10 seconds are only there to fail instead of hanging).
func TestOnlyWatchesLag(t *testing.T) {
	cfg := utils.StartAPIServer(t, filepath.Join("..", ".."))
	lagging := lag.NewWatches()
	lagging.Pause("cronjobs", "jobs")
	defer lagging.Resume("cronjobs", "jobs")
	c, err := client.New(lagging.Config(cfg), client.Options{Scheme: utils.Scheme(t)})
	must(t, err)
	listed := make(chan error, 1)
	go func() { listed <- c.List(context.Background(), &kbatchv1.JobList{}) }()
	select {
	case err := <-listed:
		must(t, err)
	case <-time.After(5 * time.Second):
		lagging.Resume("cronjobs", "jobs") // so that the held List ends
		t.Fatal(say.Both("a List of Jobs through the lagging config was held back while Jobs are paused: only watches may lag; every other request must pass at once",
			"暂停 Job 期间，经由滞后配置发出的 Job List 请求被扣住了：只有 watch 可以滞后，其他请求都必须立即通过"))
	}
}
