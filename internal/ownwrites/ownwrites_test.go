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

package ownwrites

import (
	"context"
	"testing"
	"time"

	kbatchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	batchv1 "cronlab.dev/cronlab/api/v1"
	"cronlab.dev/cronlab/test/say"
)

// cronJobAt is the CronJob "cj" as a cache holding resourceVersion rv has it.
func cronJobAt(rv string) *batchv1.CronJob {
	return &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Name: "cj", Namespace: "ns", UID: "cj-uid", ResourceVersion: rv}}
}

// jobOf is a Job that cj controls.
func jobOf(cj *batchv1.CronJob, uid types.UID) kbatchv1.Job {
	return kbatchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: string(uid), Namespace: "ns", UID: uid,
		OwnerReferences: []metav1.OwnerReference{{APIVersion: batchv1.GroupVersion.String(), Kind: "CronJob",
			Name: cj.Name, UID: cj.UID, Controller: ptr.To(true)}}}}
}

func jobs(cj *batchv1.CronJob, uids ...types.UID) []kbatchv1.Job {
	var list []kbatchv1.Job
	for _, uid := range uids {
		list = append(list, jobOf(cj, uid))
	}
	return list
}

// A run with Replace writes three times: it deletes the old Job, creates
// the new one and patches the status (to resourceVersion 20 here). Each
// reconcile asked for by one of those writes sees the cache somewhere on
// the way, and waits until it shows all three.
func TestWaitingForTheCacheToShowOurWrites(t *testing.T) {
	start := time.Date(2030, time.January, 7, 10, 0, 0, 0, time.UTC)
	run := func(m *Memory) {
		cj := cronJobAt("20")
		created := jobOf(cj, "new")
		m.deletedJob("old")
		m.createdJob(&created)
		m.wroteStatus(cj)
	}
	for _, tc := range []struct {
		name    string
		do      func(m *Memory, c *clocktesting.FakeClock)
		cronJob *batchv1.CronJob
		jobs    []types.UID
		want    bool
	}{{
		name:    "nothing written: nothing to wait for",
		do:      func(*Memory, *clocktesting.FakeClock) {},
		cronJob: cronJobAt("5"), jobs: []types.UID{"old"},
		want: false,
	}, {
		name:    "the cache shows the whole run",
		cronJob: cronJobAt("20"), jobs: []types.UID{"new"},
		want: false,
	}, {
		name:    "a later version of the CronJob counts: someone edited it after our write",
		cronJob: cronJobAt("21"), jobs: []types.UID{"new"},
		want: false,
	}, {
		name:    "the status write is not in the cache yet",
		cronJob: cronJobAt("19"), jobs: []types.UID{"new"},
		want: true,
	}, {
		name:    "the new Job is not in the cache yet",
		cronJob: cronJobAt("20"), jobs: nil,
		want: true,
	}, {
		name:    "the deleted Job is still in the cache",
		cronJob: cronJobAt("20"), jobs: []types.UID{"old", "new"},
		want: true,
	}, {
		name:    "only the deletion has reached the cache",
		cronJob: cronJobAt("19"), jobs: nil,
		want: true,
	}, {
		name: "resourceVersions compare as numbers, not as text",
		do: func(m *Memory, _ *clocktesting.FakeClock) {
			m.wroteStatus(cronJobAt("9"))
		},
		cronJob: cronJobAt("10"), jobs: nil,
		want: false,
	}, {
		name: "a resourceVersion that is no number is not waited for",
		do: func(m *Memory, _ *clocktesting.FakeClock) {
			m.wroteStatus(cronJobAt("20"))
		},
		cronJob: cronJobAt("x"), jobs: nil,
		want: false,
	}, {
		name: "a CronJob deleted and created again under the same name owes nothing: another UID",
		do:   func(m *Memory, _ *clocktesting.FakeClock) { run(m) },
		cronJob: func() *batchv1.CronJob {
			cj := cronJobAt("3")
			cj.UID = "cj-uid-2"
			return cj
		}(),
		jobs: nil,
		want: false,
	}, {
		name: "within the timeout the wait holds",
		do: func(m *Memory, c *clocktesting.FakeClock) {
			run(m)
			c.Step(Timeout - time.Second)
		},
		cronJob: cronJobAt("19"), jobs: []types.UID{"old"},
		want: true,
	}, {
		name: "after the timeout, an event was lost: go on and ask the API server",
		do: func(m *Memory, c *clocktesting.FakeClock) {
			run(m)
			c.Step(Timeout)
		},
		cronJob: cronJobAt("19"), jobs: []types.UID{"old"},
		want: false,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			c := clocktesting.NewFakeClock(start)
			m := New(c)
			if tc.do == nil {
				run(m)
			} else {
				tc.do(m, c)
			}
			retryIn, waiting := m.Waiting(tc.cronJob, jobs(tc.cronJob, tc.jobs...))
			if waiting != tc.want {
				t.Fatal(say.Both("Waiting = %v, want %v", "Waiting = %v，应为 %v", waiting, tc.want))
			}
			if waiting && (retryIn <= 0 || retryIn > Timeout) {
				t.Error(say.Both("a wait says to look again in %v, want between 0 and %v",
					"等待时说 %v 后再看，应在 0 到 %v 之间", retryIn, Timeout))
			}
		})
	}
}

// The time to look again is when the oldest write waited for stops being
// waited for: if its event is lost, that reconcile goes on without it.
func TestLookAgainWhenTheOldestWriteExpires(t *testing.T) {
	c := clocktesting.NewFakeClock(time.Date(2030, time.January, 7, 10, 0, 0, 0, time.UTC))
	m := New(c)
	cj := cronJobAt("20")
	created := jobOf(cj, "new")
	m.createdJob(&created)
	c.Step(10 * time.Second)
	m.wroteStatus(cj)
	retryIn, waiting := m.Waiting(cronJobAt("19"), nil)
	if !waiting || retryIn != Timeout-10*time.Second {
		t.Error(say.Both("Waiting = %v, %v; want true, %v", "Waiting = %v、%v；应为 true、%v", waiting, retryIn, Timeout-10*time.Second))
	}
}

// Once the cache has shown a write, it is forgotten: a manager that runs
// for months keeps nothing for CronJobs whose writes the cache has shown,
// nor for Jobs whose deletion it never sees listed again.
func TestWritesSeenOrExpiredAreForgotten(t *testing.T) {
	c := clocktesting.NewFakeClock(time.Date(2030, time.January, 7, 10, 0, 0, 0, time.UTC))
	m := New(c)
	cj := cronJobAt("20")
	created := jobOf(cj, "new")
	m.deletedJob("old")
	m.createdJob(&created)
	m.wroteStatus(cj)
	if _, waiting := m.Waiting(cj, jobs(cj, "new")); waiting {
		t.Fatal(say.Both("the cache shows the whole run, yet Waiting waits", "缓存已显示整次运行，Waiting 却仍在等待"))
	}
	if len(m.statusRV) != 0 || len(m.created) != 0 {
		t.Error(say.Both("after the cache showed them, still remembered: %d status writes, %d CronJobs with created Jobs",
			"缓存显示之后仍被记着：%d 次状态写入，%d 个有已创建 Job 的 CronJob", len(m.statusRV), len(m.created)))
	}
	// Writes for another CronJob that no reconcile looks at again (it was
	// deleted, say) go once they are no longer waited for.
	other := cronJobAt("30")
	other.UID = "other-uid"
	otherJob := jobOf(other, "other-job")
	m.createdJob(&otherJob)
	m.wroteStatus(other)
	c.Step(Timeout)
	m.Waiting(cronJobAt("1"), nil) // any reconcile sweeps
	if len(m.deleted) != 0 || len(m.statusRV) != 0 || len(m.created) != 0 {
		t.Error(say.Both("after the timeout, still remembered: %d deleted Jobs, %d status writes, %d CronJobs with created Jobs",
			"超时之后仍被记着：%d 个已删除的 Job，%d 次状态写入，%d 个有已创建 Job 的 CronJob", len(m.deleted), len(m.statusRV), len(m.created)))
	}
}

// A nil Memory is a Reconciler that remembers nothing, as after a restart.
func TestANilMemoryNeverWaits(t *testing.T) {
	var m *Memory
	if _, waiting := m.Waiting(cronJobAt("1"), nil); waiting {
		t.Error(say.Both("a nil Memory waits", "nil 的 Memory 在等待"))
	}
}

// The client remembers what the API server accepted, and nothing else: a
// create that failed, or a write of another kind, owes no event.
func TestTheClientRemembersTheWritesThatHappened(t *testing.T) {
	cj := cronJobAt("")
	apiServer := fakeAPIServer(t, cj)
	m := New(clocktesting.NewFakeClock(time.Date(2030, time.January, 7, 10, 0, 0, 0, time.UTC)))
	c := m.Client(apiServer)
	ctx := context.Background()

	// The fake API server gives no UIDs: the Jobs come with theirs.
	job := jobOf(cj, "created")
	if err := c.Create(ctx, &job); err != nil {
		t.Fatal(err)
	}
	again := jobOf(cj, "created")
	again.UID = "again" // a create that fails must not be remembered under any UID
	if err := c.Create(ctx, &again); err == nil {
		t.Fatal(say.Both("a second create of the same Job succeeded", "同一个 Job 第二次创建居然成功了"))
	}
	// Not a Job, though the CronJob controls it: no reconcile waits for it.
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm", Namespace: "ns", UID: "cm",
		OwnerReferences: job.OwnerReferences}}
	if err := c.Create(ctx, cm); err != nil {
		t.Fatal(err)
	}
	if _, ok := m.created[cj.UID]["created"]; !ok || len(m.created[cj.UID]) != 1 {
		got := len(m.created[cj.UID])
		t.Error(say.Both("%d Jobs remembered as created for the CronJob, want the one the API server made",
			"记为这个 CronJob 创建的 Job 有 %d 个，应当只有 API 服务器创建的那一个", got))
	}

	byPrecondition, byObject, byEmpty := jobOf(cj, "by-precondition"), jobOf(cj, "by-object"), jobOf(cj, "by-empty")
	for _, j := range []*kbatchv1.Job{&byPrecondition, &byObject, &byEmpty} {
		if err := apiServer.Create(ctx, j); err != nil {
			t.Fatal(err)
		}
	}
	uid := byPrecondition.UID
	if err := c.Delete(ctx, &kbatchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: byPrecondition.Name, Namespace: "ns"}},
		client.Preconditions{UID: &uid}); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(ctx, &byObject); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(ctx, &byEmpty, client.Preconditions{}); err != nil { // preconditions, but no UID among them
		t.Fatal(err)
	}
	if err := c.Delete(ctx, cm, client.Preconditions{UID: &cm.UID}); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(ctx, &kbatchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "never-was", Namespace: "ns", UID: "never-was"}}); err == nil {
		t.Fatal(say.Both("deleting a Job that does not exist succeeded", "删除一个不存在的 Job 居然成功了"))
	}
	for _, want := range []types.UID{byPrecondition.UID, byObject.UID, byEmpty.UID} {
		if _, ok := m.deleted[want]; !ok {
			t.Error(say.Both("the deletion of Job %s is not remembered", "没有记住 Job %s 的删除", want))
		}
	}
	if _, ok := m.deleted["never-was"]; ok {
		t.Error(say.Both("a delete that failed is remembered", "记住了一次失败的删除"))
	}
	if _, ok := m.deleted[cm.UID]; ok {
		t.Error(say.Both("the delete of a ConfigMap is remembered as a Job's", "ConfigMap 的删除被当成 Job 的删除记住了"))
	}

	gone := cronJobAt("")
	gone.UID, gone.Name = "gone-uid", "gone"
	if err := c.Status().Patch(ctx, gone, client.MergeFrom(gone.DeepCopy())); err == nil {
		t.Fatal(say.Both("a status patch of a CronJob that does not exist succeeded", "给不存在的 CronJob 打状态补丁居然成功了"))
	}
	if _, ok := m.statusRV[gone.UID]; ok {
		t.Error(say.Both("a status patch that failed is remembered", "记住了一次失败的状态补丁"))
	}

	// Status() and SubResource("status") are the same writer: the
	// Reconciler asks for the first, a client that wraps this one may ask
	// for the second.
	for i, status := range []client.SubResourceWriter{c.Status(), c.SubResource("status")} {
		before := cj.DeepCopy()
		cj.Status.LastScheduleTime = &metav1.Time{Time: time.Date(2030, time.January, 7, 10, i, 0, 0, time.UTC)}
		if err := status.Patch(ctx, cj, client.MergeFrom(before)); err != nil {
			t.Fatal(err)
		}
		if got := m.statusRV[cj.UID].resourceVersion; got == "" || got != cj.ResourceVersion {
			t.Error(say.Both("writer %d: remembered status write at resourceVersion %q, want the patch's answer %q",
				"第 %d 个写入器：记住的状态写入在 resourceVersion %q，应为补丁应答里的 %q", i, got, cj.ResourceVersion))
		}
	}
}

// A Job we deleted that a finalizer holds stays in the cache with a
// deletion timestamp: the cache has shown our delete, and there is nothing
// to wait for.
func TestADeletedJobHeldByAFinalizerIsNotWaitedFor(t *testing.T) {
	m := New(clocktesting.NewFakeClock(time.Date(2030, time.January, 7, 10, 0, 0, 0, time.UTC)))
	cj := cronJobAt("20")
	m.deletedJob("old")
	held := jobOf(cj, "old")
	held.DeletionTimestamp = &metav1.Time{Time: time.Date(2030, time.January, 7, 10, 0, 0, 0, time.UTC)}
	held.Finalizers = []string{"example.com/keep"}
	if _, waiting := m.Waiting(cj, []kbatchv1.Job{held}); waiting {
		t.Error(say.Both("Waiting waits for a deleted Job that the cache shows as being deleted",
			"缓存已显示 Job 正在被删除，Waiting 却还在等它"))
	}
}

// A nil Memory's client is the client it was given.
func TestANilMemoryLeavesTheClientAlone(t *testing.T) {
	var m *Memory
	c := fake.NewClientBuilder().Build()
	if got := m.Client(c); got != c {
		t.Error(say.Both("a nil Memory wrapped the client", "nil 的 Memory 包装了客户端"))
	}
}

// The manager passes no clock: the real one tells the time.
func TestNewWithoutAClockUsesTheRealOne(t *testing.T) {
	m := New(nil)
	m.wroteStatus(cronJobAt("20"))
	if _, waiting := m.Waiting(cronJobAt("19"), nil); !waiting {
		t.Error(say.Both("a status write made just now is not waited for", "刚刚做的状态写入没有被等待"))
	}
}

// A Job with no controller reference belongs to no CronJob: creating it
// through the client works, and no CronJob waits for it. Only the status
// subresource is remembered; the client's other subresources are its own.
func TestWhatTheClientLeavesAlone(t *testing.T) {
	m := New(clocktesting.NewFakeClock(time.Date(2030, time.January, 7, 10, 0, 0, 0, time.UTC)))
	c := m.Client(fakeAPIServer(t))
	orphan := &kbatchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "orphan", Namespace: "ns", UID: "orphan"}}
	if err := c.Create(context.Background(), orphan); err != nil {
		t.Fatal(err)
	}
	if len(m.created) != 0 {
		t.Error(say.Both("a Job of no CronJob is remembered as created", "不属于任何 CronJob 的 Job 被记为已创建"))
	}
	if _, remembers := c.SubResource("scale").(*rememberingStatus); remembers {
		t.Error(say.Both("the scale subresource's writes are remembered as status writes", "scale 子资源的写入被当作状态写入记住了"))
	}
}

// fakeAPIServer is a client that answers as an API server holding objs,
// with their status as a subresource.
func fakeAPIServer(t *testing.T, objs ...client.Object) client.Client {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := batchv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	return fake.NewClientBuilder().WithScheme(scheme).WithObjects(objs...).WithStatusSubresource(objs...).Build()
}
