//go:build e2e

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

package e2e

import (
	"fmt"
	"slices"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	kbatchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	batchv1 "cronlab.dev/cronlab/api/v1"
)

// podLifetime makes kwok keep the Job's pod running for d before it
// completes. kwok's pod stages read these annotations; a real kubelet
// ignores them (there, the container decides how long it runs).
func podLifetime(d time.Duration) func(*batchv1.CronJob) {
	return func(cj *batchv1.CronJob) {
		tmpl := &cj.Spec.JobTemplate.Spec.Template
		if tmpl.Annotations == nil {
			tmpl.Annotations = map[string]string{}
		}
		// The jitter is an upper bound in kwok, so setting it to the delay
		// makes the lifetime exact.
		tmpl.Annotations["pod-complete.stage.kwok.x-k8s.io/delay"] = d.String()
		tmpl.Annotations["pod-complete.stage.kwok.x-k8s.io/jitter-delay"] = d.String()
	}
}

// failingPods makes kwok fail the Job's containers, for failed Jobs.
func failingPods(cj *batchv1.CronJob) {
	cj.Spec.JobTemplate.Spec.Template.Labels["pod-container-running-failed.stage.kwok.x-k8s.io"] = "true"
	cj.Spec.JobTemplate.Spec.BackoffLimit = ptr.To[int32](0)
}

type world struct{ ns string }

func newWorld() *world {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "cronlab-e2e-"}}
	Expect(k8sClient.Create(ctx, ns)).To(Succeed())
	DeferCleanup(func() { _ = k8sClient.Delete(ctx, ns) })
	return &world{ns: ns.Name}
}

func (w *world) cronJob(name, schedule string, mutate ...func(*batchv1.CronJob)) *batchv1.CronJob {
	cj := &batchv1.CronJob{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: w.ns},
		Spec: batchv1.CronJobSpec{
			Schedule:                   schedule,
			SuccessfulJobsHistoryLimit: ptr.To[int32](10),
			FailedJobsHistoryLimit:     ptr.To[int32](10),
			JobTemplate: kbatchv1.JobTemplateSpec{Spec: kbatchv1.JobSpec{Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"cronjob": name}},
				Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyNever,
					Containers:    []corev1.Container{{Name: "c", Image: "busybox", Command: []string{"date"}}},
				},
			}}},
		},
	}
	podLifetime(time.Second)(cj)
	for _, m := range mutate {
		m(cj)
	}
	Expect(k8sClient.Create(ctx, cj)).To(Succeed())
	return cj
}

func (w *world) get(cj *batchv1.CronJob) *batchv1.CronJob {
	GinkgoHelper()
	var fresh batchv1.CronJob
	Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(cj), &fresh)).To(Succeed())
	return &fresh
}

// jobs lists the Jobs of a CronJob, oldest scheduled time first.
func (w *world) jobs(cj *batchv1.CronJob) []kbatchv1.Job {
	GinkgoHelper()
	var list kbatchv1.JobList
	Expect(k8sClient.List(ctx, &list, client.InNamespace(w.ns))).To(Succeed())
	var mine []kbatchv1.Job
	for _, j := range list.Items {
		if owner := metav1.GetControllerOf(&j); owner != nil && owner.UID == cj.UID {
			mine = append(mine, j)
		}
	}
	slices.SortFunc(mine, func(a, b kbatchv1.Job) int { return scheduledAt(&a).Compare(scheduledAt(&b)) })
	return mine
}

func scheduledAt(job *kbatchv1.Job) time.Time {
	t, err := time.Parse(time.RFC3339, job.Annotations[batchv1.ScheduledTimeAnnotation])
	Expect(err).NotTo(HaveOccurred(), "job %s has no scheduled-time annotation", job.Name)
	return t
}

func (w *world) pods(cj *batchv1.CronJob) []corev1.Pod {
	GinkgoHelper()
	var list corev1.PodList
	Expect(k8sClient.List(ctx, &list, client.InNamespace(w.ns), client.MatchingLabels{"cronjob": cj.Name})).To(Succeed())
	return list.Items
}

func (w *world) eventReasons(cj *batchv1.CronJob) []string {
	GinkgoHelper()
	var list eventsv1.EventList
	Expect(k8sClient.List(ctx, &list, client.InNamespace(w.ns))).To(Succeed())
	var reasons []string
	for _, e := range list.Items {
		if e.Regarding.UID == cj.UID {
			reasons = append(reasons, e.Reason)
		}
	}
	return reasons
}

// eventuallyRecorded waits for Events with these reasons. The recorder
// hands Events to a background goroutine that writes them after Reconcile
// has moved on, so an Event can reach the API server after the change it
// reports: a test that saw the change must still wait for the Event.
func (w *world) eventuallyRecorded(cj *batchv1.CronJob, reasons ...string) {
	GinkgoHelper()
	Eventually(func() []string { return w.eventReasons(cj) }).
		WithTimeout(10 * time.Second).WithPolling(250 * time.Millisecond).
		Should(ContainElements(reasons))
}

func finished(job kbatchv1.Job) (bool, kbatchv1.JobConditionType) {
	for _, c := range job.Status.Conditions {
		if (c.Type == kbatchv1.JobComplete || c.Type == kbatchv1.JobFailed) && c.Status == corev1.ConditionTrue {
			return true, c.Type
		}
	}
	return false, ""
}

func names(jobs []kbatchv1.Job) []string {
	var n []string
	for _, j := range jobs {
		n = append(n, j.Name)
	}
	return n
}

// onGrid checks that the Jobs' scheduled times are one every step, with no
// run missing and none twice.
func onGrid(jobs []kbatchv1.Job, step time.Duration) error {
	for i := 1; i < len(jobs); i++ {
		if gap := scheduledAt(&jobs[i]).Sub(scheduledAt(&jobs[i-1])); gap != step {
			return fmt.Errorf("runs %s and %s are %v apart, want %v", jobs[i-1].Name, jobs[i].Name, gap, step)
		}
	}
	return nil
}

var _ = Describe("cronlab on a cluster", Ordered, func() {
	It("runs the schedule through to completed Jobs and records it in the status", func() {
		w := newWorld()
		cj := w.cronJob("hello", "@every 5s")

		By("waiting for a Job that the Job controller marks Complete")
		Eventually(func(g Gomega) {
			jobs := w.jobs(cj)
			g.Expect(jobs).NotTo(BeEmpty())
			done, how := finished(jobs[0])
			g.Expect(done).To(BeTrue())
			g.Expect(how).To(Equal(kbatchv1.JobComplete))
		}).WithTimeout(40 * time.Second).WithPolling(time.Second).Should(Succeed())

		By("seeing lastSuccessfulTime set and the finished Job gone from active")
		Eventually(func(g Gomega) {
			got := w.get(cj)
			g.Expect(got.Status.LastSuccessfulTime).NotTo(BeNil())
			first := w.jobs(cj)[0]
			g.Expect(got.Status.Active).NotTo(ContainElement(HaveField("UID", first.UID)))
		}).WithTimeout(20 * time.Second).WithPolling(time.Second).Should(Succeed())
		w.eventuallyRecorded(cj, "SuccessfulCreate", "SawCompletedJob")
	})

	It("deletes Jobs beyond the history limits, and the garbage collector deletes their pods", func() {
		w := newWorld()
		cj := w.cronJob("history", "@every 3s", func(cj *batchv1.CronJob) {
			cj.Spec.SuccessfulJobsHistoryLimit = ptr.To[int32](1)
		})
		var firstJob kbatchv1.Job
		Eventually(func(g Gomega) {
			jobs := w.jobs(cj)
			g.Expect(jobs).NotTo(BeEmpty())
			firstJob = jobs[0]
		}).WithTimeout(20 * time.Second).Should(Succeed())

		By("waiting until the first Job has been pruned")
		Eventually(func() error {
			return k8sClient.Get(ctx, client.ObjectKeyFromObject(&firstJob), &kbatchv1.Job{})
		}).WithTimeout(60 * time.Second).WithPolling(time.Second).Should(Satisfy(apierrors.IsNotFound))
		w.eventuallyRecorded(cj, "SuccessfulDelete")

		By("waiting for its pod to be garbage collected")
		Eventually(func() []string {
			var left []string
			for _, p := range w.pods(cj) {
				if p.Labels["job-name"] == firstJob.Name {
					left = append(left, p.Name)
				}
			}
			return left
		}).WithTimeout(60 * time.Second).WithPolling(time.Second).Should(BeEmpty())

		By("never keeping more than one completed Job for long")
		Eventually(func() int {
			n := 0
			for _, j := range w.jobs(cj) {
				if done, how := finished(j); done && how == kbatchv1.JobComplete {
					n++
				}
			}
			return n
		}).WithTimeout(20 * time.Second).Should(BeNumerically("<=", 1))
	})

	It("keeps failed Jobs by their own limit", func() {
		w := newWorld()
		cj := w.cronJob("failing", "@every 3s", failingPods, func(cj *batchv1.CronJob) {
			cj.Spec.FailedJobsHistoryLimit = ptr.To[int32](1)
		})
		Eventually(func(g Gomega) {
			g.Expect(w.eventReasons(cj)).To(ContainElement("SuccessfulDelete"))
			failed := 0
			for _, j := range w.jobs(cj) {
				if done, how := finished(j); done && how == kbatchv1.JobFailed {
					failed++
				}
			}
			g.Expect(failed).To(Equal(1))
		}).WithTimeout(90 * time.Second).WithPolling(time.Second).Should(Succeed())
		Expect(w.get(cj).Status.LastSuccessfulTime).To(BeNil())
	})

	It("Forbid skips runs while a long Job runs", func() {
		w := newWorld()
		cj := w.cronJob("forbid", "@every 4s", podLifetime(30*time.Second), func(cj *batchv1.CronJob) {
			cj.Spec.ConcurrencyPolicy = batchv1.ForbidConcurrent
		})
		Eventually(func() []kbatchv1.Job { return w.jobs(cj) }).WithTimeout(20 * time.Second).ShouldNot(BeEmpty())
		Eventually(func() []string { return w.eventReasons(cj) }).WithTimeout(20 * time.Second).Should(ContainElement("JobAlreadyActive"))
		Consistently(func() int { return len(w.jobs(cj)) }).WithTimeout(12 * time.Second).WithPolling(time.Second).Should(Equal(1))
	})

	It("Replace deletes the running Job and starts the new run", func() {
		w := newWorld()
		cj := w.cronJob("replace", "@every 6s", podLifetime(5*time.Minute), func(cj *batchv1.CronJob) {
			cj.Spec.ConcurrencyPolicy = batchv1.ReplaceConcurrent
		})
		var first kbatchv1.Job
		Eventually(func(g Gomega) {
			jobs := w.jobs(cj)
			g.Expect(jobs).NotTo(BeEmpty())
			first = jobs[0]
		}).WithTimeout(20 * time.Second).Should(Succeed())
		Eventually(func(g Gomega) {
			jobs := w.jobs(cj)
			g.Expect(names(jobs)).NotTo(ContainElement(first.Name))
			g.Expect(jobs).To(HaveLen(1))
		}).WithTimeout(30 * time.Second).WithPolling(500 * time.Millisecond).Should(Succeed())
		Expect(w.get(cj).Status.Active).To(HaveLen(1))
	})

	It("starts nothing while suspended and starts again when resumed", func() {
		w := newWorld()
		cj := w.cronJob("suspend", "@every 3s", func(cj *batchv1.CronJob) { cj.Spec.Suspend = ptr.To(true) })
		Consistently(func() []kbatchv1.Job { return w.jobs(cj) }).WithTimeout(8 * time.Second).WithPolling(time.Second).Should(BeEmpty())

		got := w.get(cj)
		got.Spec.Suspend = ptr.To(false)
		Expect(k8sClient.Update(ctx, got)).To(Succeed())
		Eventually(func() []kbatchv1.Job { return w.jobs(cj) }).WithTimeout(10 * time.Second).ShouldNot(BeEmpty())
	})

	It("deleting a CronJob removes its Jobs and their pods", func() {
		w := newWorld()
		cj := w.cronJob("doomed", "@every 3s", podLifetime(time.Minute))
		Eventually(func() []corev1.Pod { return w.pods(cj) }).WithTimeout(30 * time.Second).ShouldNot(BeEmpty())

		Expect(k8sClient.Delete(ctx, cj)).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(w.jobs(cj)).To(BeEmpty())
			g.Expect(w.pods(cj)).To(BeEmpty())
		}).WithTimeout(60 * time.Second).WithPolling(time.Second).Should(Succeed())
	})

	It("after a restart between runs, creates no duplicate and misses no run within the deadline", func() {
		w := newWorld()
		cj := w.cronJob("restart", "@every 10s", func(cj *batchv1.CronJob) {
			cj.Spec.StartingDeadlineSeconds = ptr.To[int64](30)
		})

		By("stopping the manager right after a run started")
		Eventually(func() []kbatchv1.Job { return w.jobs(cj) }).WithTimeout(20 * time.Second).WithPolling(200 * time.Millisecond).ShouldNot(BeEmpty())
		theManager.stop()
		before := w.jobs(cj)
		missed := scheduledAt(&before[len(before)-1]).Add(10 * time.Second)

		By("staying down past the next run: an outage of 13 seconds")
		time.Sleep(13 * time.Second) // the outage itself; nothing here waits for a schedule
		Expect(w.jobs(cj)).To(HaveLen(len(before)), "nobody creates Jobs while the manager is down")

		By("restarting: the missed run starts at once, late but within the deadline")
		restartedAt := time.Now()
		theManager = startManager("restarted")
		Eventually(func(g Gomega) {
			jobs := w.jobs(cj)
			g.Expect(len(jobs)).To(BeNumerically(">", len(before)))
			late := jobs[len(before)]
			g.Expect(scheduledAt(&late)).To(BeTemporally("==", missed))
			g.Expect(late.CreationTimestamp.Time).To(BeTemporally(">=", restartedAt.Truncate(time.Second)))
		}).WithTimeout(10 * time.Second).WithPolling(500 * time.Millisecond).Should(Succeed())

		By("going on with the schedule: one Job per run, none missing, none twice")
		Eventually(func(g Gomega) {
			jobs := w.jobs(cj)
			g.Expect(len(jobs)).To(BeNumerically(">=", len(before)+2))
			g.Expect(onGrid(jobs, 10*time.Second)).To(Succeed())
		}).WithTimeout(30 * time.Second).WithPolling(time.Second).Should(Succeed())
	})

	It("with two managers and leader election, creates every run exactly once", func() {
		w := newWorld()
		theManager.stop()
		flags := []string{"--leader-elect", "--leader-election-namespace=" + w.ns}
		a := startManager("leader-a", flags...)
		b := startManager("leader-b", flags...)
		DeferCleanup(func() {
			a.stop()
			b.stop()
			theManager = startManager("main-again")
		})

		cj := w.cronJob("elected", "@every 3s")
		Eventually(func(g Gomega) {
			jobs := w.jobs(cj)
			g.Expect(len(jobs)).To(BeNumerically(">=", 6))
			g.Expect(onGrid(jobs, 3*time.Second)).To(Succeed())
		}).WithTimeout(90 * time.Second).WithPolling(time.Second).Should(Succeed())
	})
})
