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
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/leaderelection/resourcelock"

	"cronlab.dev/cronlab/internal/leader"
	"cronlab.dev/cronlab/test/say"
)

// What `make chaos` found with its `freeze` fault (docs/reliability.md): a
// manager frozen past its Lease resumed and, for ten seconds, created and
// deleted Jobs beside the manager that had taken over. cmd/main.go now puts a
// fence (internal/leader) in front of the Reconciler's writes. These specs
// use a real Lease on the API server and the fake clock of the harness: the
// freeze is the clock moving on while nothing renews the Lease.
var _ = Describe("A manager that may have lost its Lease", func() {
	var (
		h     *harness
		fence *leader.Fence
		lock  resourcelock.Interface
		held  resourcelock.LeaderElectionRecord
	)
	BeforeEach(func() {
		h = newHarness()
		fence = &leader.Fence{Within: leader.RenewDeadline, Clock: h.clock}
		inner, err := leader.NewLeaseLock(cfg, h.ns, "cronlab-test")
		Expect(err).NotTo(HaveOccurred())
		lock = fence.Lock(inner)
		h.r.Client = fence.Client(mgr.GetClient())

		By("acquiring the Lease at 10:00")
		held = resourcelock.LeaderElectionRecord{
			HolderIdentity:       lock.Identity(),
			LeaseDurationSeconds: int(leader.LeaseDuration.Seconds()),
			AcquireTime:          metav1.NewTime(h.clock.Now()),
			RenewTime:            metav1.NewTime(h.clock.Now()),
		}
		Expect(lock.Create(ctx, held)).To(Succeed())
	})

	It("starts no Job after a freeze until it has renewed its Lease", func() {
		cj := h.createCronJob("frozen", "*/5 * * * *", at(10, 0, 0))

		By("resuming at 10:05:02, with the run of 10:05 due, after no renewal since 10:00")
		_, err := h.reconcileAt(at(10, 5, 2), cj)
		Expect(err).To(MatchError(leader.ErrNotLeading))
		Expect(h.jobs()).To(BeEmpty(), say.Both("a manager that has not renewed its Lease for RenewDeadline must not create Jobs",
			"一个管理器在 RenewDeadline 时间内没有续约它的租约，就不能再创建 Job"))
		Expect(h.get(cj).Status.LastScheduleTime).To(beAt(at(10, 0, 0)), say.Both("nor write the status",
			"也不能写状态"))

		By("renewing the Lease: no other manager took it, so the run starts now")
		held.RenewTime = metav1.NewTime(h.clock.Now())
		Expect(lock.Update(ctx, held)).To(Succeed())
		h.mustReconcileAt(at(10, 5, 3), cj)
		Expect(jobNames(h.jobs())).To(Equal([]string{minuteName("frozen", at(10, 5, 0))}))
	})

	It("stays fenced when another manager took the Lease during the freeze", func() {
		cj := h.createCronJob("replaced", "*/5 * * * *", at(10, 0, 0))

		By("another manager taking the Lease while this one is frozen")
		other, err := leader.NewLeaseLock(cfg, h.ns, "cronlab-test")
		Expect(err).NotTo(HaveOccurred())
		_, _, err = other.Get(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(other.Update(ctx, resourcelock.LeaderElectionRecord{
			HolderIdentity:       other.Identity(),
			LeaseDurationSeconds: int(leader.LeaseDuration.Seconds()),
			AcquireTime:          metav1.NewTime(at(10, 0, 20)),
			RenewTime:            metav1.NewTime(at(10, 0, 20)),
		})).To(Succeed())

		By("resuming at 10:05:02 and failing to renew")
		h.clock.SetTime(at(10, 5, 2))
		held.RenewTime = metav1.NewTime(h.clock.Now())
		Expect(lock.Update(ctx, held)).NotTo(Succeed(), say.Both("the Lease has moved on: its resourceVersion is not ours",
			"租约已被他人更新：它的 resourceVersion 已不是我们持有的那个"))
		_, err = h.reconcileAt(at(10, 5, 2), cj)
		Expect(err).To(MatchError(leader.ErrNotLeading))
		Expect(h.jobs()).To(BeEmpty(), say.Both("the run of 10:05 is the new leader's to start",
			"10:05 的运行应由新的领导者来启动"))
	})
})
