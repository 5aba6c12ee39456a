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

package controller

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	kbatchv1 "k8s.io/api/batch/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	batchv1 "cronlab.dev/cronlab/api/v1"
	"cronlab.dev/cronlab/internal/ownwrites"
	"cronlab.dev/cronlab/test/say"
)

// The manager's Reconciler remembers its own writes (internal/ownwrites),
// and the specs of "after Replace, while the cache catches up" change:
// instead of asking the API server what the cache lacks, a reconcile that
// sees part of its own run waits for the rest, which comes with its event.
var _ = Describe("A Reconciler that remembers its own writes", Label("lab-stale-cache"), func() {
	var h *harness
	var cj, stale *batchv1.CronJob
	var replaced kbatchv1.Job
	var written string
	var reads int

	BeforeEach(func() {
		h = newHarness()
		memory := ownwrites.New(h.clock)
		h.r.OwnWrites = memory
		h.r.Client = memory.Client(mgr.GetClient())
		h.r.APIReader = failGets{Reader: mgr.GetAPIReader(), passed: &reads}

		cj = h.createCronJob("remembers", "*/5 * * * *", at(10, 0, 0), func(cj *batchv1.CronJob) {
			cj.Spec.ConcurrencyPolicy = batchv1.ReplaceConcurrent
		})
		h.mustReconcileAt(at(10, 5, 0), cj)
		replaced = h.jobs()[0]
		stale = h.get(cj) // status.active: the 10:05 Job
		h.mustReconcileAt(at(10, 10, 0), cj)
		h.events()
		h.waitForCache(cj)
		written = h.get(cj).ResourceVersion
		reads = 0
	})

	// waits reconciles through a cache that shows part of the run of 10:10.
	waits := func(view client.Client) {
		GinkgoHelper()
		h.r.Client = view
		res, err := h.r.Reconcile(ctx, reconcileRequest(h.ns, "remembers"))
		Expect(err).NotTo(HaveOccurred(), say.Both("waiting for its own writes is no error", "等待自己的写入并不是错误"))
		Expect(res.RequeueAfter).To(Equal(ownwrites.Timeout), say.Both(
			"a reconcile that waits for its own writes comes back when it stops waiting, in case their event is lost",
			"等待自己写入的调和在等待结束时重新入队，以防这些写入的事件丢失"))
		Expect(reads).To(BeZero(), say.Both("it asks the API server nothing: the missing event is on its way",
			"它什么都不问 API 服务器：缺的那个事件正在路上"))
		Expect(h.events()).To(BeEmpty(), say.Both("it records no Event: nothing is missing or unexpected, only late",
			"它不记录事件：没有什么丢失或意外，只是晚到"))
		Expect(h.get(cj).ResourceVersion).To(Equal(written), say.Both("it writes nothing", "它什么都不写"))
		Expect(jobNames(h.jobs())).To(HaveLen(1), say.Both("it creates no second Job", "它不创建第二个 Job"))
	}

	It("waits when the cache has the new Job and the replaced one's deletion, not the status write", func() {
		waits(serveStaleCronJob(mgr.GetClient(), stale))
	})
	It("waits when the cache has only the replaced Job's deletion", func() {
		waits(hideJobsFromList(serveStaleCronJob(mgr.GetClient(), stale)))
	})
	It("waits when the cache has the new Job, not the replaced one's deletion nor the status write", func() {
		waits(serveGoneJob(serveStaleCronJob(mgr.GetClient(), stale), &replaced))
	})
	It("waits when the cache has the new Job and the status write, not the replaced one's deletion", func() {
		waits(serveGoneJob(mgr.GetClient(), &replaced))
	})
	It("waits when the cache has the status write and the replaced Job's deletion, not the new Job", func() {
		waits(hideJobsFromList(mgr.GetClient()))
	})
	It("waits when the cache has only the status write", func() {
		waits(serveGoneJob(hideJobsFromList(mgr.GetClient()), &replaced))
	})
	It("waits when the cache has none of the three writes", func() {
		waits(serveGoneJob(hideJobsFromList(serveStaleCronJob(mgr.GetClient(), stale)), &replaced))
	})

	It("goes on, without reading the API server, once the cache shows the whole run", func() {
		h.r.Client = mgr.GetClient()
		res, err := h.r.Reconcile(ctx, reconcileRequest(h.ns, "remembers"))
		Expect(err).NotTo(HaveOccurred(), say.Both("unexpected error", "意外的错误"))
		Expect(res.RequeueAfter).To(BeNumerically(">", 4*time.Minute), say.Both("it comes back at the next run",
			"它在下一次运行时回来"))
		Expect(reads).To(BeZero(), say.Both("a cache that shows the whole run needs no read from the API server",
			"缓存显示了整个运行，就不需要从 API 服务器读取"))
	})

	It("asks the API server, as it would remembering nothing, once the write has been waited for long enough", func() {
		h.clock.Step(ownwrites.Timeout)
		h.r.Client = serveStaleCronJob(mgr.GetClient(), stale)
		res, err := h.r.Reconcile(ctx, reconcileRequest(h.ns, "remembers"))
		Expect(err).NotTo(HaveOccurred(), say.Both("unexpected error", "意外的错误"))
		Expect(res.RequeueAfter).To(BeNumerically(">", 4*time.Minute), say.Both("it comes back at the next run",
			"它在下一次运行时回来"))
		Expect(reads).NotTo(BeZero(), say.Both("refreshIfStale reads the CronJob that the cache has too old",
			"refreshIfStale 读取缓存里过旧的那个 CronJob"))
		Expect(h.events()).To(BeEmpty(), say.Both("no Event: the API server's copy of the CronJob explains every Job",
			"没有事件：API 服务器上的 CronJob 副本能说明每个 Job"))
		Expect(h.get(cj).ResourceVersion).To(Equal(written), say.Both("nothing to write: the API server's copy says it all",
			"没有要写的：API 服务器上的副本已经说明了一切"))
	})
})
