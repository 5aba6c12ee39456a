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
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	kbatchv1 "k8s.io/api/batch/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/client-go/kubernetes/scheme"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"cronlab.dev/cronlab/test/say"
)

// The other tests call Reconcile by hand. This one runs the controller the
// way cmd/main.go does, to show the wiring of SetupWithManager: a new CronJob
// is reconciled because of For(), and a finished Job wakes its CronJob up
// because of Owns(). The clock is still fake, one hour ahead, so a run is due
// as soon as the CronJob exists; nothing waits for a schedule.
var _ = Describe("CronJob controller in a manager", func() {
	It("creates a Job for a due run, and updates the status when the Job finishes", Label("lab-scheduling"), func() {
		h := newHarness()
		runCtx, stop := context.WithCancel(ctx)
		DeferCleanup(stop)

		cacheOpts := CacheOptions()
		cacheOpts.DefaultNamespaces = map[string]cache.Config{h.ns: {}}
		wired, err := ctrl.NewManager(cfg, ctrl.Options{
			Scheme:     scheme.Scheme,
			Metrics:    metricsserver.Options{BindAddress: "0"},
			Cache:      cacheOpts,
			Controller: config.Controller{SkipNameValidation: ptr.To(true)},
		})
		Expect(err).NotTo(HaveOccurred(), say.Both("the spec's own setup: a manager for this namespace",
			"测试用例自己的准备步骤：为这个名字空间建一个管理器"))
		fakeClock := clocktesting.NewFakeClock(time.Now().Add(time.Hour))
		Expect((&CronJobReconciler{
			Client:    wired.GetClient(),
			APIReader: wired.GetAPIReader(),
			Scheme:    wired.GetScheme(),
			Recorder:  wired.GetEventRecorder("cronjob-controller"),
			Clock:     fakeClock,
		}).SetupWithManager(wired)).To(Succeed(), say.Both("SetupWithManager registers the controller with the manager",
			"SetupWithManager 把控制器注册到管理器上"))
		go func() {
			defer GinkgoRecover()
			Expect(wired.Start(runCtx)).To(Succeed(), say.Both("the manager runs until the spec ends",
				"管理器一直运行到测试用例结束"))
		}()
		createdBefore, _ := skewSamples()

		By("creating a CronJob whose first run is due on the fake clock")
		cj := h.createCronJob("wired", "@hourly", time.Time{})
		var job kbatchv1.Job
		eventually(func(g Gomega) {
			jobs := h.jobs()
			g.Expect(jobs).To(HaveLen(1), say.Both("the Jobs of the namespace: one",
				"这个名字空间里的 Job：一个"))
			job = jobs[0]
		}).Should(Succeed(), say.Both("the CronJob's first run: one Job, created by the controller in the manager",
			"CronJob 的第一次运行：一个 Job，由管理器里的控制器创建"))
		eventually(func() []string { return eventReasons(h.ns) }).Should(ContainElement("SuccessfulCreate"), say.Both("the Events: SuccessfulCreate",
			"事件：SuccessfulCreate"))
		createdAfter, _ := skewSamples()
		Expect(createdAfter).To(BeNumerically(">", createdBefore), say.Both("the skew histogram counts the new Job",
			"偏差直方图计入了新的 Job"))
		eventually(func() int { return len(h.get(cj).Status.Active) }).Should(Equal(1), say.Both("status.active on the API server: the new Job",
			"API 服务器上的 status.active：新的 Job"))

		By("finishing the Job, which Owns() turns into a reconcile of the CronJob")
		h.finish(&job, kbatchv1.JobComplete, fakeClock.Now(), fakeClock.Now().Add(time.Second))
		eventually(func(g Gomega) {
			got := h.get(cj)
			g.Expect(got.Status.Active).To(BeEmpty(), say.Both("status.active on the API server: empty, the Job finished",
				"API 服务器上的 status.active：为空，Job 已结束"))
			g.Expect(got.Status.LastSuccessfulTime).NotTo(BeNil(), say.Both("status.lastSuccessfulTime on the API server: set from the Job's completion",
				"API 服务器上的 status.lastSuccessfulTime：根据 Job 的完成来设置"))
		}).Should(Succeed(), say.Both("the status once the Job finished: written by a reconcile that Owns() asked for",
			"Job 结束之后的状态：由 Owns() 引起的一次调和写入"))
	})
})

// skewSamples reads the job-creation skew histogram from the registry that
// the manager serves on /metrics: how many observations, and their sum in
// seconds.
func skewSamples() (uint64, float64) {
	families, err := metrics.Registry.Gather()
	Expect(err).NotTo(HaveOccurred(),
		say.Both("gathering the metrics that the manager serves on /metrics",
			"收集管理器在 /metrics 上提供的指标"))
	for _, f := range families {
		if f.GetName() == "cronlab_cronjob_controller_job_creation_skew_duration_seconds" {
			h := f.GetMetric()[0].GetHistogram()
			return h.GetSampleCount(), h.GetSampleSum()
		}
	}
	return 0, 0
}

func eventReasons(ns string) []string {
	var list eventsv1.EventList
	Expect(k8sClient.List(ctx, &list, client.InNamespace(ns))).To(Succeed(),
		say.Both("listing the namespace's Events from the API server",
			"从 API 服务器列举名字空间里的事件"))
	var reasons []string
	for _, e := range list.Items {
		reasons = append(reasons, e.Reason)
	}
	return reasons
}
