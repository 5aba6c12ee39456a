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

package handwritten

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	kbatchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/informers"
	kubefake "k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	batchv1 "cronlab.dev/cronlab/api/v1"
	"cronlab.dev/cronlab/internal/runs"
	"cronlab.dev/cronlab/test/say"
)

// These tests hold the parts of the hand-written controller that the stage
// gives rather than asks for (sync, New, Run): what controller-runtime does
// for the reference, done here by hand, must work as well as the stage's
// loop. The clock is fake; the clients are client-go's fakes.

var (
	syncNow = time.Date(2026, 11, 22, 10, 2, 0, 0, time.UTC)
	tenAM   = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
)

// report is a CronJob every five minutes, made at 09:58: at 10:02 the run of
// 10:00 is due.
func report() *batchv1.CronJob {
	return &batchv1.CronJob{
		TypeMeta: metav1.TypeMeta{APIVersion: batchv1.GroupVersion.String(), Kind: "CronJob"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "report", UID: "u1",
			CreationTimestamp: metav1.NewTime(tenAM.Add(-2 * time.Minute))},
		Spec: batchv1.CronJobSpec{Schedule: "*/5 * * * *", TimeZone: ptr.To("Etc/UTC")},
	}
}

func unstructuredOf(t *testing.T, cj *batchv1.CronJob) *unstructured.Unstructured {
	t.Helper()
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(cj)
	if err != nil {
		t.Fatal(err)
	}
	return &unstructured.Unstructured{Object: u}
}

// jobOf is the Job of cj's run at t, with a UID, finished or not.
func jobOf(cj *batchv1.CronJob, t time.Time, uid types.UID, finished bool) *kbatchv1.Job {
	job := runs.NewJob(cj, t)
	job.UID = uid
	if finished {
		job.Status.Conditions = []kbatchv1.JobCondition{{Type: kbatchv1.JobComplete, Status: corev1.ConditionTrue}}
	}
	return job
}

// fakes are the clients of one test: the CronJob on the dynamic client's
// server, the Jobs on the clientset's.
func fakes(t *testing.T, onServer []*batchv1.CronJob, jobs []*kbatchv1.Job) (*kubefake.Clientset, *dynamicfake.FakeDynamicClient) {
	t.Helper()
	// An empty scheme: the fake stores the CronJobs as the unstructured
	// objects the dynamic informer lists, as the API server serves them.
	scheme := runtime.NewScheme()
	var objects []runtime.Object
	for _, cj := range onServer {
		objects = append(objects, unstructuredOf(t, cj))
	}
	var kubeObjects []runtime.Object
	for _, j := range jobs {
		kubeObjects = append(kubeObjects, j)
	}
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(scheme,
		map[schema.GroupVersionResource]string{cronJobs: "CronJobList"}, objects...)
	// As the API server, and unlike the fake's tracker, store no update of a
	// status that changes nothing: no new resourceVersion, no watch event.
	// Without this, every sync's write would send the CronJob round again,
	// and a test could not tell whether a Job's event brought it back.
	dyn.PrependReactor("update", "cronjobs", func(a k8stesting.Action) (bool, runtime.Object, error) {
		update, ok := a.(k8stesting.UpdateAction)
		if !ok || a.GetSubresource() != "status" {
			return false, nil, nil
		}
		now := update.GetObject().(*unstructured.Unstructured)
		was, err := dyn.Tracker().Get(cronJobs, now.GetNamespace(), now.GetName())
		if err != nil {
			return false, nil, nil
		}
		if equality.Semantic.DeepEqual(was.(*unstructured.Unstructured).Object["status"], now.Object["status"]) {
			return true, was, nil
		}
		return false, nil, nil
	})
	return kubefake.NewClientset(kubeObjects...), dyn
}

// stored is the CronJob as the dynamic client's server has it now.
func stored(t *testing.T, dyn *dynamicfake.FakeDynamicClient, name string) *batchv1.CronJob {
	t.Helper()
	u, err := dyn.Resource(cronJobs).Namespace("team").Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var cj batchv1.CronJob
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &cj); err != nil {
		t.Fatal(err)
	}
	return &cj
}

func activeNames(cj *batchv1.CronJob) []string {
	var names []string
	for _, ref := range cj.Status.Active {
		names = append(names, ref.Name)
	}
	return names
}

func createdJobs(kube *kubefake.Clientset) []string {
	var names []string
	for _, a := range kube.Actions() {
		if create, ok := a.(k8stesting.CreateAction); ok && a.GetResource().Resource == "jobs" {
			names = append(names, create.GetObject().(*kbatchv1.Job).Name)
		}
	}
	return names
}

func statusWrites(dyn *dynamicfake.FakeDynamicClient) int {
	n := 0
	for _, a := range dyn.Actions() {
		if a.GetVerb() == "update" && a.GetSubresource() == "status" {
			n++
		}
	}
	return n
}

// TestSync is sync's decisions, each from what the informers' caches hold:
// a due run is started once and recorded; the Jobs this CronJob controls and
// that have not finished are its active ones; a suspended CronJob, a run
// past its deadline, a bad schedule and a CronJob that is gone start
// nothing; a failed create or status write is an error, for the queue to
// retry.
func TestSync(t *testing.T) {
	tenAMJob := runs.NewJob(report(), tenAM).Name
	withLast := func(cj *batchv1.CronJob) *batchv1.CronJob {
		cj.Status.LastScheduleTime = &metav1.Time{Time: tenAM}
		return cj
	}
	other := report()
	other.Name, other.UID = "other", "u2"

	for _, tc := range []struct {
		name        string
		cronJob     *batchv1.CronJob // nil: gone from the cache
		onServer    []*kbatchv1.Job  // Jobs the API server has
		inCache     []*kbatchv1.Job  // Jobs the informer has
		failCreate  bool
		failGet     bool // the Job of the run exists, and cannot be read back
		wantErrText string
		notOnServer bool // the CronJob is in the cache only: the status write fails

		wantErr     bool
		wantCreated []string
		wantActive  []string
		wantLast    *time.Time
		wantWrites  int
		wantRequeue time.Duration
	}{
		{name: "the due run of 10:00 is started and recorded, and the next looked for at 10:05",
			cronJob: report(), wantCreated: []string{tenAMJob}, wantActive: []string{tenAMJob},
			wantLast: &tenAM, wantWrites: 1, wantRequeue: 3*time.Minute + 100*time.Millisecond},
		{name: "a suspended CronJob starts nothing, and keeps its status up to date",
			cronJob:    func() *batchv1.CronJob { cj := report(); cj.Spec.Suspend = ptr.To(true); return cj }(),
			wantWrites: 1, wantRequeue: 3*time.Minute + 100*time.Millisecond},
		{name: "a run two minutes late, past a deadline of one minute, is not started",
			cronJob: func() *batchv1.CronJob {
				cj := report()
				cj.Spec.StartingDeadlineSeconds = ptr.To[int64](60)
				return cj
			}(),
			wantWrites: 1, wantRequeue: 3*time.Minute + 100*time.Millisecond},
		{name: "its running Job is active; its finished Job and another CronJob's Job are not",
			cronJob: withLast(report()),
			inCache: []*kbatchv1.Job{
				jobOf(report(), tenAM, "j1", false),
				jobOf(report(), tenAM.Add(-5*time.Minute), "j0", true),
				jobOf(other, tenAM, "j2", false),
			},
			wantActive: []string{tenAMJob}, wantLast: &tenAM, wantWrites: 1, wantRequeue: 3*time.Minute + 100*time.Millisecond},
		{name: "the Job of the due run that an earlier sync created is taken, and listed once",
			cronJob:     report(),
			onServer:    []*kbatchv1.Job{jobOf(report(), tenAM, "j1", false)},
			inCache:     []*kbatchv1.Job{jobOf(report(), tenAM, "j1", false)},
			wantCreated: []string{tenAMJob}, wantActive: []string{tenAMJob}, wantLast: &tenAM,
			wantWrites: 1, wantRequeue: 3*time.Minute + 100*time.Millisecond},
		{name: "a create the API server refuses is an error, and the status is not written",
			cronJob: report(), failCreate: true, wantErr: true, wantCreated: []string{tenAMJob}},
		{name: "a Job of the run that exists and cannot be read back is an error, and the status is not written",
			cronJob: report(), onServer: []*kbatchv1.Job{jobOf(report(), tenAM, "j1", false)}, failGet: true,
			wantErr: true, wantErrText: "the API server is away", wantCreated: []string{tenAMJob}},
		{name: "a status write that fails is an error",
			cronJob: report(), notOnServer: true, wantErr: true,
			wantCreated: []string{tenAMJob}, wantWrites: 1},
		{name: "a schedule that cannot be parsed is not retried",
			cronJob: func() *batchv1.CronJob { cj := report(); cj.Spec.Schedule = "every day"; return cj }()},
		{name: "a CronJob gone from the cache is done with: the garbage collector takes its Jobs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var onServer []*batchv1.CronJob
			if tc.cronJob != nil && !tc.notOnServer {
				onServer = append(onServer, tc.cronJob)
			}
			kube, dyn := fakes(t, onServer, tc.onServer)
			if tc.failCreate {
				kube.PrependReactor("create", "jobs", func(k8stesting.Action) (bool, runtime.Object, error) {
					return true, nil, errors.New("admission webhook denied the request")
				})
			}
			if tc.failGet {
				kube.PrependReactor("get", "jobs", func(k8stesting.Action) (bool, runtime.Object, error) {
					return true, nil, errors.New("the API server is away")
				})
			}
			c, err := New(kube, dyn, clocktesting.NewFakePassiveClock(syncNow))
			if err != nil {
				t.Fatal(err)
			}
			defer c.queue.ShutDown()
			if tc.cronJob != nil {
				if err := c.cronJobs.GetIndexer().Add(unstructuredOf(t, tc.cronJob)); err != nil {
					t.Fatal(err)
				}
			}
			for _, j := range tc.inCache {
				if err := c.jobs.GetIndexer().Add(j); err != nil {
					t.Fatal(err)
				}
			}

			requeue, err := c.sync(context.Background(), "team/report")
			if (err != nil) != tc.wantErr {
				t.Fatal(say.Both("sync: error %v, want one: %v", "sync 的错误：%v；应有错误：%v", err, tc.wantErr))
			}
			if tc.wantErrText != "" && !strings.Contains(err.Error(), tc.wantErrText) {
				t.Error(say.Both("sync's error %q does not pass on the API server's %q", "sync 的错误 %q 没有转达 API 服务器的 %q", err, tc.wantErrText))
			}
			if got := createdJobs(kube); !slices.Equal(got, tc.wantCreated) {
				t.Error(say.Both("sync created the Jobs %q, want %q", "sync 创建的 Job：%q，应为 %q", got, tc.wantCreated))
			}
			if got := statusWrites(dyn); got != tc.wantWrites {
				t.Error(say.Both("sync wrote the status %d times, want %d", "sync 写了 %d 次状态，应为 %d 次", got, tc.wantWrites))
			}
			if requeue != tc.wantRequeue {
				t.Error(say.Both("sync asked to look again in %v, want %v", "sync 要求 %v 之后再看，应为 %v", requeue, tc.wantRequeue))
			}
			if tc.wantWrites == 0 || tc.wantErr {
				return
			}
			cj := stored(t, dyn, "report")
			if got := activeNames(cj); !slices.Equal(got, tc.wantActive) {
				t.Error(say.Both("status.active names %q, want %q", "status.active 列出的是 %q，应为 %q", got, tc.wantActive))
			}
			switch last := cj.Status.LastScheduleTime; {
			case tc.wantLast == nil && last != nil:
				t.Error(say.Both("status.lastScheduleTime is %v, want none", "status.lastScheduleTime 为 %v，应为空", last.Time))
			case tc.wantLast != nil && (last == nil || !last.Time.Equal(*tc.wantLast)):
				t.Error(say.Both("status.lastScheduleTime is %v, want %v", "status.lastScheduleTime 为 %v，应为 %v", last, *tc.wantLast))
			}
		})
	}
}

// TestRunStartsADueRunAndFollowsItsJob is New and Run together, as
// controller-runtime's builder and manager would be: the CronJob's informer
// enqueues it, a worker starts its due run, the Job's informer enqueues the
// CronJob again when its Job finishes, and Run returns when its context ends,
// shutting the queue down. Waiting here is for the workers' goroutines, not
// for the schedule: the clock is fake and stands still.
func TestRunStartsADueRunAndFollowsItsJob(t *testing.T) {
	kube, dyn := fakes(t, []*batchv1.CronJob{report()}, nil)
	c, err := New(kube, dyn, clocktesting.NewFakePassiveClock(syncNow))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	returned := make(chan error, 1)
	go func() { returned <- c.Run(ctx, 1) }()

	waitFor := func(what string, done func() bool) {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); !done(); {
			select {
			case err := <-returned:
				t.Fatal(say.Both("Run returned %v before %s", "Run 在%[2]s之前就返回了 %[1]v", err, what))
			case <-time.After(20 * time.Millisecond):
			}
			if time.Now().After(deadline) {
				t.Fatal(say.Both("after 20 s, still waiting for %s", "20 秒之后仍在等待：%s", what))
			}
		}
	}
	tenAMJob := runs.NewJob(report(), tenAM).Name
	waitFor("the run of 10:00 to be started and listed as active", func() bool {
		return slices.Equal(activeNames(stored(t, dyn, "report")), []string{tenAMJob})
	})

	job, err := kube.BatchV1().Jobs("team").Get(ctx, tenAMJob, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	job.Status.Conditions = []kbatchv1.JobCondition{{Type: kbatchv1.JobComplete, Status: corev1.ConditionTrue}}
	if _, err := kube.BatchV1().Jobs("team").UpdateStatus(ctx, job, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor("the finished Job to leave status.active", func() bool {
		return len(stored(t, dyn, "report").Status.Active) == 0
	})

	cancel()
	select {
	case err := <-returned:
		if err != nil {
			t.Error(say.Both("Run returned %v when its context ended, want nil", "context 结束时 Run 返回了 %v，应返回 nil", err))
		}
	case <-time.After(20 * time.Second):
		t.Fatal(say.Both("Run did not return 20 s after its context ended", "context 结束 20 秒后 Run 仍未返回"))
	}
	if !c.queue.ShuttingDown() {
		t.Error(say.Both("Run returned and left its queue running: its workers would never stop", "Run 返回了，却没有关闭它的队列：它的 worker 永远不会停下"))
	}
}

// TestRunStopsWhenTheCachesCannotSync: a context that ends before the
// informers' caches are filled is an error of Run, not a start.
func TestRunStopsWhenTheCachesCannotSync(t *testing.T) {
	kube, dyn := fakes(t, nil, nil)
	c, err := New(kube, dyn, clocktesting.NewFakePassiveClock(syncNow))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := c.Run(ctx, 1); err == nil {
		t.Error(say.Both("Run with a context that had already ended returned nil, want an error that the caches did not sync", "context 已经结束，Run 却返回了 nil；应返回缓存未能同步的错误"))
	}
}

// TestSyncSaysWhatItCannotRead: an object in the cache that does not fit
// v1's CronJob (a field of another type, written through another version),
// and a Job informer without the index by controller (New registers it; a
// hand-written controller that forgets to is the mistake), are errors of
// sync, not a CronJob without Jobs.
func TestSyncSaysWhatItCannotRead(t *testing.T) {
	t.Run("a cached object that is not a v1 CronJob", func(t *testing.T) {
		kube, dyn := fakes(t, nil, nil)
		c, err := New(kube, dyn, clocktesting.NewFakePassiveClock(syncNow))
		if err != nil {
			t.Fatal(err)
		}
		defer c.queue.ShutDown()
		bad := unstructuredOf(t, report())
		if err := unstructured.SetNestedField(bad.Object, int64(5), "spec", "schedule"); err != nil {
			t.Fatal(err)
		}
		if err := c.cronJobs.GetIndexer().Add(bad); err != nil {
			t.Fatal(err)
		}
		if _, err := c.sync(context.Background(), "team/report"); err == nil {
			t.Error(say.Both("sync of a cached CronJob whose spec.schedule is a number returned no error",
				"缓存里的 CronJob 的 spec.schedule 是个数字，sync 却没有返回错误"))
		}
	})
	t.Run("a Job informer without the index by controller", func(t *testing.T) {
		kube, dyn := fakes(t, []*batchv1.CronJob{report()}, nil)
		c, err := New(kube, dyn, clocktesting.NewFakePassiveClock(syncNow))
		if err != nil {
			t.Fatal(err)
		}
		defer c.queue.ShutDown()
		c.jobs = informers.NewSharedInformerFactory(kube, 0).Batch().V1().Jobs().Informer() // no AddIndexers
		if err := c.cronJobs.GetIndexer().Add(unstructuredOf(t, report())); err != nil {
			t.Fatal(err)
		}
		if _, err := c.sync(context.Background(), "team/report"); err == nil {
			t.Error(say.Both("sync with a Job informer that has no index by controller returned no error: it would see no Jobs at all",
				"Job 的 informer 没有按控制者建的索引，sync 却没有返回错误：它会一个 Job 也看不到"))
		}
		if got := createdJobs(kube); len(got) != 0 {
			t.Error(say.Both("sync created the Jobs %q without knowing which Jobs the CronJob has", "sync 在不知道这个 CronJob 有哪些 Job 的情况下创建了 Job %q", got))
		}
	})
}

// TestEnqueue is For(&CronJob{}) by hand: an event of a CronJob, or the
// tombstone of one deleted while the watch was down, enqueues its key; an
// object without a name is reported, and enqueues nothing.
func TestEnqueue(t *testing.T) {
	for _, tc := range []struct {
		name     string
		obj      any
		want     []string
		reported bool
	}{
		{"a CronJob", unstructuredOf(t, report()), []string{"team/report"}, false},
		{"the tombstone of a CronJob", cache.DeletedFinalStateUnknown{Key: "team/report", Obj: unstructuredOf(t, report())}, []string{"team/report"}, false},
		{"something that is not an object", "team/report", nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &Controller{queue: workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]())}
			defer c.queue.ShutDown()
			var reported []error
			handlers := utilruntime.ErrorHandlers
			utilruntime.ErrorHandlers = append(slices.Clone(handlers), func(_ context.Context, err error, _ string, _ ...any) {
				reported = append(reported, err)
			})
			defer func() { utilruntime.ErrorHandlers = handlers }()

			c.enqueue(tc.obj)
			var got []string
			for c.queue.Len() > 0 {
				key, _ := c.queue.Get()
				got = append(got, key)
				c.queue.Done(key)
			}
			if !slices.Equal(got, tc.want) {
				t.Error(say.Both("enqueued %q, want %q", "入队的是 %q，应为 %q", got, tc.want))
			}
			if (len(reported) > 0) != tc.reported {
				t.Error(say.Both("errors reported through utilruntime.HandleError: %v; want one: %v",
					"通过 utilruntime.HandleError 报告的错误：%v；应报告一个：%v", reported, tc.reported))
			}
		})
	}
}

// TestRunWorkerTakesKeysUntilTheQueueShutsDown: a worker goes on taking
// keys, not one key per start (wait.UntilWithContext starts it again only
// after a second); a queue shut down hands out what it still holds, then
// stops the worker.
func TestRunWorkerTakesKeysUntilTheQueueShutsDown(t *testing.T) {
	kube, dyn := fakes(t, nil, nil)
	c, err := New(kube, dyn, clocktesting.NewFakePassiveClock(syncNow))
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"team/a", "team/b", "team/c"} { // CronJobs that are gone: each sync drops its key
		c.queue.Add(key)
	}
	c.queue.ShutDown()
	c.runWorker(context.Background())
	if n := c.queue.Len(); n != 0 {
		t.Error(say.Both("the worker returned with %d keys still in the queue: it must take keys until the queue shuts down",
			"worker 返回时队列里还有 %d 个键：它必须一直取键，直到队列关闭", n))
	}
}
