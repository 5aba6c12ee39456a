//go:build unix

package main

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	kbatchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	batchv1 "cronlab.dev/cronlab/api/v1"
)

// createCronJobs makes the CronJobs of a fault: o.n on "*/1 * * * *" (a
// tenth Forbid and a tenth Allow, with pods that finish in a few seconds;
// the rest Replace with suspended Jobs, which make no pods, as hack/bench's)
// and o.every on "@every 10s" (Replace, suspended). upstream: batch/v1
// CronJobs, on "*/1" only (upstream has no @every).
func createCronJobs(ctx context.Context, c client.Client, ns string, o options, upstream bool) ([]cronJob, error) {
	var out []cronJob
	var mu sync.Mutex
	total := o.n + o.every
	if upstream {
		total = o.n
	}
	err := parallel(total, func(i int) error {
		schedule, policy, suspend := "*/1 * * * *", batchv1.ReplaceConcurrent, true
		switch {
		case i >= o.n:
			schedule = "@every 10s"
		case i%10 == 1:
			policy, suspend = batchv1.ForbidConcurrent, false
		case i%10 == 2:
			policy, suspend = batchv1.AllowConcurrent, false
		}
		meta := metav1.ObjectMeta{Name: fmt.Sprintf("cj-%04d", i), Namespace: ns}
		template := kbatchv1.JobTemplateSpec{Spec: kbatchv1.JobSpec{
			Suspend: ptr.To(suspend),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{"pod-complete.stage.kwok.x-k8s.io/delay": "3s"}},
				Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever,
					Containers: []corev1.Container{{Name: "c", Image: "busybox"}}},
			},
		}}
		var obj client.Object
		if upstream {
			obj = &kbatchv1.CronJob{ObjectMeta: meta, Spec: kbatchv1.CronJobSpec{Schedule: schedule,
				ConcurrencyPolicy: kbatchv1.ConcurrencyPolicy(policy), JobTemplate: template}}
		} else {
			obj = &batchv1.CronJob{ObjectMeta: meta, Spec: batchv1.CronJobSpec{Schedule: schedule,
				ConcurrencyPolicy: policy, JobTemplate: template}}
		}
		if err := c.Create(ctx, obj); err != nil {
			return err
		}
		mu.Lock()
		out = append(out, cronJob{Key: ns + "/" + meta.Name, UID: obj.GetUID(), Schedule: schedule,
			Forbid: policy == batchv1.ForbidConcurrent, Created: obj.GetCreationTimestamp().Time})
		mu.Unlock()
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out, err
}

// createForeignJobs makes Jobs that are not cronlab's to touch: half with
// no owner, half with an owner reference to one of the CronJobs that is not
// a controller reference (so neither adoptable nor the CronJob's history).
// They are suspended: nothing else changes them either.
func createForeignJobs(ctx context.Context, c client.Client, ns string, n int, cjs []cronJob, upstream bool) ([]types.UID, error) {
	uids := make([]types.UID, n)
	err := parallel(n, func(i int) error {
		job := &kbatchv1.Job{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("foreign-%03d", i), Namespace: ns, Labels: map[string]string{"app": "foreign"}},
			Spec: kbatchv1.JobSpec{Suspend: ptr.To(true), Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}},
		}
		if i%2 == 1 && len(cjs) > 0 {
			// The owner must exist as named, or the garbage collector
			// deletes the Job: upstream's CronJobs are batch/v1.
			owner := cjs[i%len(cjs)]
			apiVersion := batchv1.GroupVersion.String()
			if upstream {
				apiVersion = kbatchv1.SchemeGroupVersion.String()
			}
			job.OwnerReferences = []metav1.OwnerReference{{APIVersion: apiVersion, Kind: "CronJob",
				Name: strings.TrimPrefix(owner.Key, ns+"/"), UID: owner.UID}}
		}
		if err := c.Create(ctx, job); err != nil {
			return err
		}
		uids[i] = job.UID
		return nil
	})
	return uids, err
}

// parallel runs do(0..n-1), 16 at a time, and returns the first error.
func parallel(n int, do func(i int) error) error {
	sem := make(chan struct{}, 16)
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if err := do(i); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// waitConverged waits until every CronJob's status says what its Jobs say
// (status.active lists exactly the running Jobs, lastScheduleTime is the
// latest run), and returns when it first did, or zero if not before end.
func waitConverged(ctx context.Context, c client.Client, ns string, upstream bool, cjs []cronJob, end time.Time) time.Time {
	for time.Now().Before(end) {
		if ok, _ := statusAgrees(ctx, c, ns, upstream); ok {
			return time.Now()
		}
		time.Sleep(time.Second)
	}
	return time.Time{}
}

func statusAgrees(ctx context.Context, c client.Client, ns string, upstream bool) (bool, error) {
	var jobs kbatchv1.JobList
	if err := c.List(ctx, &jobs, client.InNamespace(ns)); err != nil {
		return false, err
	}
	running := map[types.UID]map[types.UID]bool{}
	latest := map[types.UID]time.Time{}
	annotation := batchv1.ScheduledTimeAnnotation
	if upstream {
		annotation = upstreamAnnotation
	}
	for _, j := range jobs.Items {
		ref := metav1.GetControllerOf(&j)
		if ref == nil {
			continue
		}
		if running[ref.UID] == nil {
			running[ref.UID] = map[types.UID]bool{}
		}
		if !finished(&j) {
			running[ref.UID][j.UID] = true
		}
		if t, err := time.Parse(time.RFC3339, j.Annotations[annotation]); err == nil && t.After(latest[ref.UID]) {
			latest[ref.UID] = t
		}
	}
	type status struct {
		uid    types.UID
		active []corev1.ObjectReference
		last   *metav1.Time
	}
	var all []status
	if upstream {
		var list kbatchv1.CronJobList
		if err := c.List(ctx, &list, client.InNamespace(ns)); err != nil {
			return false, err
		}
		for _, cj := range list.Items {
			all = append(all, status{cj.UID, cj.Status.Active, cj.Status.LastScheduleTime})
		}
	} else {
		var list batchv1.CronJobList
		if err := c.List(ctx, &list, client.InNamespace(ns)); err != nil {
			return false, err
		}
		for _, cj := range list.Items {
			all = append(all, status{cj.UID, cj.Status.Active, cj.Status.LastScheduleTime})
		}
	}
	for _, st := range all {
		if len(st.active) != len(running[st.uid]) {
			return false, nil
		}
		for _, ref := range st.active {
			if !running[st.uid][ref.UID] {
				return false, nil
			}
		}
		if t := latest[st.uid]; !t.IsZero() && (st.last == nil || !st.last.Time.Equal(t)) {
			return false, nil
		}
	}
	return true, nil
}

func finished(j *kbatchv1.Job) bool {
	for _, c := range j.Status.Conditions {
		if (c.Type == kbatchv1.JobComplete || c.Type == kbatchv1.JobFailed) && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}
