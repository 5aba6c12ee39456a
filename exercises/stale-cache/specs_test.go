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

package stalecache

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	batchv1 "cronlab.dev/cronlab/api/v1"
	"cronlab.dev/cronlab/test/say"
)

// The specs of the bonus stage. Each It calls one function you write;
// mutants_test.go runs them again against Reconcilers that do not tolerate
// a stale cache, and expects each of those to fail at least one of them.
var _ = Describe("The Reconciler under a stale cache", func() {
	var w *world
	BeforeEach(func() { w = newWorld(nil, "") })
	AfterEach(func() { w.madeItsLag() })

	It("c-lag: adopts the Job its cache has not seen, and converges", func() { cLag(w) })
	It("u-lag: writes status over a stale copy without a conflict or a lost update, and converges", func() { uLag(w) })
	It("d-lag: takes NotFound on deleting a Job its cache still has as done, and converges", func() { dLag(w) })
})

// lab:begin stale-cache-specs

// get reads cj from the API server.
func get(cj *batchv1.CronJob) *batchv1.CronJob {
	GinkgoHelper()
	var got batchv1.CronJob
	Expect(k8sClient.Get(context.Background(), client.ObjectKeyFromObject(cj), &got)).To(Succeed(),
		say.Both("reading the CronJob back from the API server",
			"从 API 服务器读回 CronJob"))
	return &got
}

// notDegraded: a lag is not a failure, and must not be reported as one.
func notDegraded(cj *batchv1.CronJob) {
	GinkgoHelper()
	if c := meta.FindStatusCondition(cj.Status.Conditions, batchv1.ConditionDegraded); c != nil {
		Expect(c.Status).To(Equal(metav1.ConditionFalse), say.Both("Degraded: %s",
			"状况 Degraded：%s", c.Message))
	}
}

// c-lag: the API server has the Job, the cache does not. The reconcile
// that plans to create it gets AlreadyExists.
func cLag(w *world) {
	cj := w.cronJob("c-lag")
	w.settle(cj)

	w.lag.Pause("jobs", "cronjobs")
	Expect(w.reconcileAt(tenAM, cj)).To(Succeed(),
		say.Both("c-lag, first reconcile: it creates the run's Job and returns no error",
			"c-lag，第一次调和：它创建这次运行的 Job，并且不返回错误"))
	// The cache shows neither the Job nor the status that records the run:
	// the second reconcile plans the same create.
	Expect(w.reconcileAt(tenAM, cj)).To(Succeed(), say.Both("AlreadyExists for our own Job is not an error",
		"对我们自己的 Job 得到 AlreadyExists 不是错误"))
	Expect(w.writeErrors()).To(ContainElement(Satisfy(apierrors.IsAlreadyExists)),
		say.Both("c-lag: the second reconcile's Create answered AlreadyExists (the lag happened: the cache had not seen the Job)",
			"c-lag：第二次调和的 Create 得到了 AlreadyExists（滞后确实发生了：缓存还没看到那个 Job）"))
	Expect(w.jobs()).To(HaveLen(1),
		say.Both("c-lag: one Job on the API server, the one the first reconcile created",
			"c-lag：API 服务器上只有一个 Job，就是第一次调和创建的那个"))

	w.lag.Resume("jobs", "cronjobs")
	w.settle(cj)
	Expect(w.reconcileAt(tenAM.Add(time.Minute), cj)).To(Succeed(),
		say.Both("c-lag, after the cache caught up: the reconcile returns no error",
			"c-lag，缓存追上之后：调和不返回错误"))
	got := get(cj)
	Expect(got.Status.Active).To(HaveLen(1),
		say.Both("c-lag converged: status.active lists the one Job",
			"c-lag 已收敛：status.active 列出那一个 Job"))
	notDegraded(got)
}

// u-lag: both have the CronJob, the cache an older version of it. A write
// made from the stale copy with its resourceVersion conflicts; the
// Reconciler's merge patch of the status carries no resourceVersion, and
// touches only the status.
func uLag(w *world) {
	ctx := context.Background()
	cj := w.cronJob("u-lag")
	w.settle(cj)

	w.lag.Pause("cronjobs")
	fresh := get(cj)
	fresh.Spec.Suspend = ptr.To(true)
	Expect(k8sClient.Update(ctx, fresh)).To(Succeed(), say.Both("someone suspends the CronJob",
		"有人挂起了 CronJob"))

	var stale batchv1.CronJob
	Expect(w.cache.Get(ctx, client.ObjectKeyFromObject(cj), &stale)).To(Succeed(),
		say.Both("u-lag: reading the CronJob from the lagging cache",
			"u-lag：从滞后的缓存读取 CronJob"))
	Expect(ptr.Deref(stale.Spec.Suspend, false)).To(BeFalse(), say.Both("the cache lags",
		"缓存滞后"))
	Expect(k8sClient.Status().Update(ctx, stale.DeepCopy())).To(Satisfy(apierrors.IsConflict),
		say.Both("an Update from the stale copy conflicts",
			"基于陈旧副本的 Update 发生冲突"))

	Expect(w.reconcileAt(tenAM, cj)).To(Succeed(),
		say.Both("u-lag: the reconcile over the stale copy returns no error",
			"u-lag：基于陈旧副本的调和不返回错误"))
	Expect(w.writeErrors()).To(BeEmpty(),
		say.Both("u-lag: the status write over the stale copy met no error (a merge patch of the status carries no resourceVersion)",
			"u-lag：基于陈旧副本写入状态时没有遇到错误（状态的合并补丁不带 resourceVersion）"))
	got := get(cj)
	Expect(ptr.Deref(got.Spec.Suspend, false)).To(BeTrue(), say.Both("the status write must not undo the suspension",
		"写入状态不得撤销挂起"))
	Expect(got.Status.LastScheduleTime.Time).To(BeTemporally("==", tenAM),
		say.Both("u-lag: status.lastScheduleTime on the API server: the 10:00 run, written over the stale copy",
			"u-lag：API 服务器上的 status.lastScheduleTime：10:00 的运行，是基于陈旧副本写入的"))

	w.lag.Resume("cronjobs")
	w.settle(cj)
	Expect(w.reconcileAt(tenAM.Add(time.Hour), cj)).To(Succeed(),
		say.Both("u-lag, after the cache caught up: the reconcile returns no error",
			"u-lag，缓存追上之后：调和不返回错误"))
	Expect(w.jobs()).To(HaveLen(1), say.Both("suspended: the 11:00 run does not start",
		"已挂起：11:00 的运行不会启动"))
	got = get(cj)
	Expect(meta.FindStatusCondition(got.Status.Conditions, batchv1.ConditionReady)).To(HaveField("Reason", "Suspended"),
		say.Both("u-lag converged: Ready says Suspended",
			"u-lag 已收敛：Ready 的原因为 Suspended"))
	notDegraded(got)
}

// d-lag: the cache has a Job the API server no longer has. Deleting it
// (here: history cleanup) gets NotFound.
func dLag(w *world) {
	ctx := context.Background()
	cj := w.cronJob("d-lag", func(cj *batchv1.CronJob) { cj.Spec.SuccessfulJobsHistoryLimit = ptr.To[int32](0) })
	old := w.completedJob(cj, "d-lag-old")
	w.settle(cj)

	w.lag.Pause("jobs")
	Expect(k8sClient.Delete(ctx, old, client.PropagationPolicy(metav1.DeletePropagationBackground))).To(Succeed(),
		say.Both("someone else deletes the Job",
			"别人删除了这个 Job"))
	Expect(w.reconcileAt(tenAM.Add(-30*time.Minute), cj)).To(Succeed(), say.Both("a Job that is already gone is deleted",
		"删除一个已经不存在的 Job"))
	Expect(w.writeErrors()).To(ContainElement(Satisfy(apierrors.IsNotFound)),
		say.Both("d-lag: the reconcile's Delete answered NotFound (the lag happened: the cache still had the Job)",
			"d-lag：调和的 Delete 得到了 NotFound（滞后确实发生了：缓存里还有那个 Job）"))

	w.lag.Resume("jobs")
	w.settle(cj)
	Expect(w.reconcileAt(tenAM.Add(-29*time.Minute), cj)).To(Succeed(),
		say.Both("d-lag, after the cache caught up: the reconcile returns no error",
			"d-lag，缓存追上之后：调和不返回错误"))
	Expect(w.jobs()).To(BeEmpty(),
		say.Both("d-lag converged: no Job is left",
			"d-lag 已收敛：没有剩下任何 Job"))
	notDegraded(get(cj))
}

// lab:end
