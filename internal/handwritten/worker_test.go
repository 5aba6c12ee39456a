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
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/util/workqueue"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	batchv1 "cronlab.dev/cronlab/api/v1"
	"cronlab.dev/cronlab/test/say"
)

// A recordingQueue is a real work queue that also notes what the worker
// told it, so that a test can see the retry and requeue paths of
// processNextWorkItem without waiting for a back-off or a timer.
type recordingQueue struct {
	workqueue.TypedRateLimitingInterface[string]
	rateLimited, forgotten []string
	after                  map[string]time.Duration
}

func (q *recordingQueue) AddRateLimited(key string) {
	q.rateLimited = append(q.rateLimited, key)
	q.TypedRateLimitingInterface.AddRateLimited(key)
}

func (q *recordingQueue) Forget(key string) {
	q.forgotten = append(q.forgotten, key)
	q.TypedRateLimitingInterface.Forget(key)
}

func (q *recordingQueue) AddAfter(key string, d time.Duration) {
	q.after[key] = d
	q.TypedRateLimitingInterface.AddAfter(key, d)
}

// TestProcessNextWorkItem is the loop of stage 16 on each path a key can
// take: a sync that fails is retried with back-off and its error reported;
// one that succeeds forgets the back-off and comes back when the next run
// is due; a key whose CronJob is gone is dropped; and a key is handed out
// again once the worker is done with it. No API server: fake clients, and
// the CronJob put straight into the informer's cache.
func TestProcessNextWorkItem(t *testing.T) {
	now := time.Date(2026, 11, 22, 10, 2, 0, 0, time.UTC)
	cronJob := func() *unstructured.Unstructured {
		cj := &batchv1.CronJob{
			TypeMeta: metav1.TypeMeta{APIVersion: batchv1.GroupVersion.String(), Kind: "CronJob"},
			ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "report", UID: "u1",
				CreationTimestamp: metav1.NewTime(now.Add(-2 * time.Minute))},
			Spec: batchv1.CronJobSpec{Schedule: "*/5 * * * *", TimeZone: ptr.To("Etc/UTC")},
		}
		u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(cj)
		if err != nil {
			t.Fatal(err)
		}
		return &unstructured.Unstructured{Object: u}
	}
	for _, tc := range []struct {
		name              string
		inCache, onServer bool // the CronJob
		wantRateLimited   bool
		wantAfter         time.Duration // 0: not requeued
		wantError         bool
	}{
		// The status update fails (the API server has no such CronJob).
		{name: "a sync that fails is retried with back-off and its error reported",
			inCache: true, wantRateLimited: true, wantError: true},
		// No run is due at 10:02; the next is at 10:05 (RequeueDelay adds 100ms).
		{name: "a sync that succeeds is forgotten and comes back when the next run is due",
			inCache: true, onServer: true, wantAfter: 3*time.Minute + 100*time.Millisecond},
		{name: "the key of a CronJob that is gone is dropped"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			scheme := runtime.NewScheme()
			if err := batchv1.AddToScheme(scheme); err != nil {
				t.Fatal(err)
			}
			var objects []runtime.Object
			if tc.onServer {
				objects = append(objects, cronJob())
			}
			dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(scheme,
				map[schema.GroupVersionResource]string{cronJobs: "CronJobList"}, objects...)
			c, err := New(kubefake.NewClientset(), dyn, clocktesting.NewFakePassiveClock(now))
			if err != nil {
				t.Fatal(err)
			}
			if tc.inCache {
				if err := c.cronJobs.GetIndexer().Add(cronJob()); err != nil {
					t.Fatal(err)
				}
			}
			q := &recordingQueue{TypedRateLimitingInterface: c.queue, after: map[string]time.Duration{}}
			c.queue = q
			defer q.ShutDown()

			var reported []string
			handlers := utilruntime.ErrorHandlers
			utilruntime.ErrorHandlers = append(slices.Clone(handlers), func(_ context.Context, err error, msg string, _ ...any) {
				reported = append(reported, msg)
			})
			defer func() { utilruntime.ErrorHandlers = handlers }()

			const key = "team/report"
			q.Add(key)
			if !c.processNextWorkItem(context.Background()) {
				t.Fatal(say.Both("processNextWorkItem returned false with the queue still running",
					"队列还在运行，processNextWorkItem 却返回了 false"))
			}
			if got := len(q.rateLimited) > 0; got != tc.wantRateLimited {
				t.Error(say.Both("AddRateLimited %q; want it called: %v",
					"调用 AddRateLimited 的键：%q；应调用它：%v", q.rateLimited, tc.wantRateLimited))
			}
			if got := q.NumRequeues(key); (got > 0) != tc.wantRateLimited {
				t.Error(say.Both("the key's back-off counts %d retries after the sync; want a retry: %v",
					"sync 之后，这个键的退避记了 %d 次重试；应有重试：%v", got, tc.wantRateLimited))
			}
			if forgot := slices.Contains(q.forgotten, key); forgot == tc.wantRateLimited {
				t.Error(say.Both("Forget(%q) called: %v; a successful sync forgets the key's back-off, a failed one keeps it",
					"Forget(%q) 是否被调用：%v；sync 成功就忘掉这个键的退避，失败则保留", key, forgot))
			}
			if got := q.after[key]; got != tc.wantAfter {
				t.Error(say.Both("AddAfter(%q, %v); want %v",
					"AddAfter(%q, %v)；应为 %v", key, got, tc.wantAfter))
			}
			if (len(reported) > 0) != tc.wantError {
				t.Error(say.Both("errors reported through utilruntime.HandleError: %q; want one: %v",
					"通过 utilruntime.HandleError 报告的错误：%q；应报告一个：%v", reported, tc.wantError))
			}
			if tc.wantAfter == 0 && !tc.wantRateLimited && q.Len() != 0 {
				t.Error(say.Both("%d keys wait in the queue; a dropped key must not come back",
					"队列里有 %d 个键在等待；丢弃的键不能再回来", q.Len()))
			}
			// Done was called: the key can be handed out again.
			q.Forget(key)
			q.Add(key)
			if q.Len() != 1 {
				t.Error(say.Both("after the worker, an added key is not handed out (queue length %d): was Done called?",
					"worker 处理完之后，再加入的键没有被交出（队列长度 %d）：调用 Done 了吗？", q.Len()))
			}
		})
	}
}

// TestProcessNextWorkItemStopsWhenTheQueueShutsDown: the worker's loop
// (runWorker) ends when processNextWorkItem says so.
func TestProcessNextWorkItemStopsWhenTheQueueShutsDown(t *testing.T) {
	c := &Controller{queue: workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]())}
	c.queue.ShutDown()
	if c.processNextWorkItem(context.Background()) {
		t.Error(say.Both("processNextWorkItem returned true from a queue that is shut down: its worker would never stop",
			"队列已关闭，processNextWorkItem 却返回了 true：它的 worker 永远不会停下"))
	}
}
