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

// Package namespaced checks, on a real API server (envtest), the manager
// scoped to one namespace (docs/class.md, "A manager scoped to one
// namespace"): one attendee's manager on a cluster that a class shares
// reconciles that attendee's CronJobs, and nobody else's.
package namespaced

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/gomega"

	kbatchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	batchv1 "cronlab.dev/cronlab/api/v1"
	"cronlab.dev/cronlab/internal/controller"
	"cronlab.dev/cronlab/test/utils"
)

func TestMain(m *testing.M) { os.Exit(utils.RunTests(m)) }

func TestAManagerScopedToANamespaceActsOnlyThere(t *testing.T) {
	g := NewWithT(t)
	cfg := utils.StartAPIServer(t, filepath.Join("..", ".."))
	scheme := utils.Scheme(t)
	direct, err := client.New(cfg, client.Options{Scheme: scheme})
	g.Expect(err).NotTo(HaveOccurred())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	nsA, nsB := newNamespace(ctx, g, direct, "scoped-a-"), newNamespace(ctx, g, direct, "scoped-b-")

	// The manager of cmd/main.go with --namespace=<A>: the controller's
	// cache options, limited to A. The clock is an hour ahead, as in
	// internal/controller's manager test, so every run in the past hour
	// is due as soon as a CronJob exists: nothing waits for a schedule.
	cacheOpts := controller.CacheOptions()
	cacheOpts.DefaultNamespaces = map[string]cache.Config{nsA: {}}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:  scheme,
		Metrics: metricsserver.Options{BindAddress: "0"},
		Cache:   cacheOpts,
	})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect((&controller.CronJobReconciler{
		Client:    mgr.GetClient(),
		APIReader: mgr.GetAPIReader(),
		Scheme:    mgr.GetScheme(),
		Recorder:  mgr.GetEventRecorder("cronjob-controller"),
		Clock:     clocktesting.NewFakeClock(time.Now().Add(time.Hour)),
	}).SetupWithManager(mgr)).To(Succeed())
	stopped := make(chan error, 1)
	go func() { stopped <- mgr.Start(ctx) }()
	defer func() {
		cancel()
		g.Expect(<-stopped).To(Succeed())
	}()

	// B's CronJob first: by the time A's has its Job, a manager that
	// watched B would have had B's CronJob in its queue for longer.
	inB := createDueCronJob(ctx, g, direct, nsB)
	inA := createDueCronJob(ctx, g, direct, nsA)

	g.Eventually(func() []kbatchv1.Job { return jobs(ctx, g, direct, nsA) }).
		WithTimeout(10*time.Second).WithPolling(20*time.Millisecond).
		Should(HaveLen(1), "the scoped manager starts the due run in its own namespace")
	g.Eventually(func() []corev1.ObjectReference { return get(ctx, g, direct, inA).Status.Active }).
		WithTimeout(10*time.Second).WithPolling(20*time.Millisecond).
		Should(HaveLen(1), "and writes the CronJob's status there")

	// "Never" cannot be observed; a bounded wait is the honest form of it.
	// The same manager, with the same clock, made A's Job within
	// milliseconds of its CronJob; B's CronJob, older, gets 3 s more, many
	// times that. What makes "never" true is below: the manager has no
	// informer in B, so no event of B can reach its queue at all.
	g.Consistently(func(g Gomega) {
		g.Expect(jobs(ctx, g, direct, nsB)).To(BeEmpty(), "no Job is created in namespace B")
		now := get(ctx, g, direct, inB)
		g.Expect(now.ResourceVersion).To(Equal(inB.ResourceVersion), "B's CronJob is never written (status included)")
		g.Expect(now.Status).To(Equal(batchv1.CronJobStatus{}), "B's CronJob has no status")
		var events eventsv1.EventList
		g.Expect(direct.List(ctx, &events, client.InNamespace(nsB))).To(Succeed())
		g.Expect(events.Items).To(BeEmpty(), "no Event is recorded in namespace B")
	}).WithTimeout(3 * time.Second).WithPolling(100 * time.Millisecond).Should(Succeed())

	// The cache knows A only: a read of B fails, rather than finding
	// nothing, and a list across namespaces holds A's CronJob alone.
	err = mgr.GetClient().Get(ctx, client.ObjectKeyFromObject(inB), &batchv1.CronJob{})
	g.Expect(err).To(HaveOccurred(), "the scoped cache must refuse a read of namespace B")
	g.Expect(apierrors.IsNotFound(err)).To(BeFalse(), "B is not empty, it is out of the cache's reach: %v", err)
	var cached batchv1.CronJobList
	g.Expect(mgr.GetClient().List(ctx, &cached)).To(Succeed())
	g.Expect(cached.Items).To(HaveLen(1))
	g.Expect(cached.Items[0].Namespace).To(Equal(nsA))
}

func newNamespace(ctx context.Context, g Gomega, c client.Client, prefix string) string {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix}}
	g.Expect(c.Create(ctx, ns)).To(Succeed())
	return ns.Name
}

// createDueCronJob creates a CronJob that runs every ten minutes and has
// never run: with the clock an hour ahead, a run is due.
func createDueCronJob(ctx context.Context, g Gomega, c client.Client, ns string) *batchv1.CronJob {
	cj := &batchv1.CronJob{
		ObjectMeta: metav1.ObjectMeta{Name: "hello", Namespace: ns},
		Spec: batchv1.CronJobSpec{
			Schedule: "*/10 * * * *",
			TimeZone: ptr.To("Etc/UTC"),
			JobTemplate: kbatchv1.JobTemplateSpec{Spec: kbatchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever,
				Containers:    []corev1.Container{{Name: "hello", Image: "busybox", Command: []string{"date"}}},
			}}}},
		},
	}
	g.Expect(c.Create(ctx, cj)).To(Succeed())
	return get(ctx, g, c, cj)
}

func get(ctx context.Context, g Gomega, c client.Client, cj *batchv1.CronJob) *batchv1.CronJob {
	var fresh batchv1.CronJob
	g.Expect(c.Get(ctx, client.ObjectKeyFromObject(cj), &fresh)).To(Succeed())
	return &fresh
}

func jobs(ctx context.Context, g Gomega, c client.Client, ns string) []kbatchv1.Job {
	var list kbatchv1.JobList
	g.Expect(c.List(ctx, &list, client.InNamespace(ns))).To(Succeed())
	return list.Items
}
