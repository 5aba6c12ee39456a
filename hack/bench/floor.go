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

package main

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/go-logr/logr"
	kbatchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	batchclient "k8s.io/client-go/kubernetes/typed/batch/v1"
	eventsv1client "k8s.io/client-go/kubernetes/typed/events/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	batchv1 "cronlab.dev/cronlab/api/v1"
	"cronlab.dev/cronlab/internal/controller"
	"cronlab.dev/cronlab/internal/eventsink"
)

// floorInFlight is how many requests the floor keeps in flight: enough to
// keep the API server busy on any machine this bench runs on.
const floorInFlight = 32

// runFloor is the "floor" of the bench. It is not a controller: at the top
// of every minute from first on, until ctx ends, it does for n imaginary CronJobs the
// least that any controller must do for concurrencyPolicy Replace: delete
// the Job of the minute before and create the new one, with
// floorInFlight requests in flight and no client-side limit. It reads
// nothing, writes no status and records no Event. Its skew is the best
// that a CronJob controller could reach on this cluster under this load.
func runFloor(ctx context.Context, kube kubernetes.Interface, ns string, n int, first time.Time) {
	jobs := kube.BatchV1().Jobs(ns)
	everyMinute(ctx, n, first, func(i int, minute time.Time) {
		replaceJob(ctx, jobs, ns, i, minute, nil, false)
	})
}

// everyMinute calls run for each of n CronJobs at the top of every minute
// from first on, until ctx ends, floorInFlight at a time.
func everyMinute(ctx context.Context, n int, first time.Time, run func(i int, minute time.Time)) {
	for minute := first; ; minute = minute.Add(time.Minute) {
		if sleepUntil(ctx, minute) != nil {
			return
		}
		work := make(chan int)
		var wg sync.WaitGroup
		for range floorInFlight {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range work {
					run(i, minute)
				}
			}()
		}
		for i := range n {
			work <- i
		}
		close(work)
		wg.Wait()
	}
}

// replaceJob deletes the i-th Job of the minute before and creates that of
// this minute, controlled by owner when there is one, labeled with its
// CronJob's name as cronlab labels its Jobs when labeled, and returns it
// (nil when it was not created). Errors are only printed: a run whose Job
// is not created shows in the figures as a run that did not start.
func replaceJob(ctx context.Context, jobs batchclient.JobInterface, ns string, i int, minute time.Time, owner *metav1.OwnerReference, labeled bool) *kbatchv1.Job {
	name := func(t time.Time) string { return fmt.Sprintf("cj-%05d-%d", i, t.Unix()/60) }
	background := metav1.DeletePropagationBackground
	err := jobs.Delete(ctx, name(minute.Add(-time.Minute)), metav1.DeleteOptions{PropagationPolicy: &background})
	if err != nil && !apierrors.IsNotFound(err) && ctx.Err() == nil {
		progress("floor: %v", err)
	}
	job := &kbatchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: name(minute), Namespace: ns,
			Annotations: map[string]string{batchv1.ScheduledTimeAnnotation: minute.Format(time.RFC3339)}},
		Spec: suspendedJob(),
	}
	if owner != nil {
		job.OwnerReferences = []metav1.OwnerReference{*owner}
	}
	if labeled {
		job.Labels = map[string]string{batchv1.CronJobLabel: fmt.Sprintf("cj-%05d", i)}
	}
	created, err := jobs.Create(ctx, job, metav1.CreateOptions{})
	if err != nil {
		if ctx.Err() == nil {
			progress("floor: %v", err)
		}
		return nil
	}
	return created
}

// runCRFloor is the "CR floor": the floor, plus what any controller of a
// custom resource must also do for each run. Its Job has a controller
// reference to the CronJob (garbage collection, Owns), and the CronJob's
// status records the run: one merge patch of lastScheduleTime and active.
// That is three writes per run, as cronlab makes. It reads nothing in the
// measured minutes (the CronJobs' UIDs are listed once, before the first)
// and records no Event. Below it, a CronJob controller of a custom resource
// cannot go on this cluster under this load.
//
// With a recorder, it is the "Events floor" (evfloor): the same, and the
// two Events that cronlab and upstream record for each run of Replace,
// SuccessfulDelete and SuccessfulCreate, through the recorder that
// controller-runtime gives a controller. The issue that asked for the CR
// floor also asked that cronlab keep its Events; this floor shows what
// keeping them costs.
//
// With cronlab's recorder (oneWriterRecorder), it is the "Events floor,
// one writer" (evsinkfloor): the same Events, written one at a time as
// cronlab's manager writes them, so that cronlab / evsinkfloor is what
// cronlab's design costs beyond its writes and its Events.
//
// With labeled Jobs and a cache beside it (startCache), it is the "watch
// floor" (watchfloor): the CR floor in a process that also keeps the
// informer cache a cronlab manager keeps. Every controller of
// controller-runtime watches what it owns: the cache receives each change
// of the Jobs and CronJobs, decodes it and stores it, on the same two
// cores as the API server, which has one more watcher to send to. This
// floor says what that costs, with no reconcile and no read from the
// cache, so that cronlab / watchfloor is what the rest of cronlab's design
// costs.
func runCRFloor(ctx context.Context, kube kubernetes.Interface, c client.Client, ns string, n int, first time.Time, extra crFloorExtras) {
	var list batchv1.CronJobList
	if err := c.List(ctx, &list, client.InNamespace(ns)); err != nil {
		progress("crfloor: listing the CronJobs: %v", err)
		return
	}
	// The Events are about the CronJob as cronlab has it when it records
	// them: at the resourceVersion of its last status write. The Event
	// recorder takes two Events with the same object, reason and related
	// object for a series, and counts the second instead of writing it;
	// cronlab's differ in the resourceVersion (SuccessfulCreate) or in the
	// Job they name as related (SuccessfulDelete), so each is written.
	uids, versions := make([]types.UID, n), make([]string, n)
	for _, cj := range list.Items {
		var i int
		if _, err := fmt.Sscanf(cj.Name, "cj-%05d", &i); err == nil && i < n {
			uids[i], versions[i] = cj.UID, cj.ResourceVersion
		}
	}
	jobs := kube.BatchV1().Jobs(ns)
	everyMinute(ctx, n, first, func(i int, minute time.Time) {
		owner := fmt.Sprintf("cj-%05d", i)
		job := replaceJob(ctx, jobs, ns, i, minute, &metav1.OwnerReference{
			APIVersion: batchv1.GroupVersion.String(), Kind: "CronJob", Name: owner, UID: uids[i],
			Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}, extra.labeled)
		if job == nil {
			return
		}
		if recorder := extra.recorder; recorder != nil {
			cronJob := &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Name: owner, Namespace: ns, UID: uids[i], ResourceVersion: versions[i]}}
			replaced := &kbatchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("cj-%05d-%d", i, minute.Add(-time.Minute).Unix()/60)}}
			recorder.Eventf(cronJob, replaced, corev1.EventTypeNormal, "SuccessfulDelete", "Delete", "Deleted job %s", replaced.Name)
			recorder.Eventf(cronJob, nil, corev1.EventTypeNormal, "SuccessfulCreate", "Create", "Created job %s", job.Name)
		}
		if rv := recordRun(ctx, c, ns, owner, minute, job); rv != "" {
			versions[i] = rv // each i is in one goroutine a minute, and the minutes one after the other
		}
	})
}

// crFloorExtras are what the Events floor and the watch floor add to the
// CR floor.
type crFloorExtras struct {
	recorder events.EventRecorder // the Events floor's
	labeled  bool                 // the watch floor's Jobs carry CronJobLabel, which its cache selects
}

// startCache starts the informer cache of a cronlab manager
// (controller.CacheOptions: the Jobs labeled as cronlab's and every
// CronJob, managed fields stripped, in every namespace) and waits until it
// has listed them. It stops when ctx ends.
func startCache(ctx context.Context, cfg *rest.Config, scheme *runtime.Scheme) error {
	opts := controller.CacheOptions()
	opts.Scheme = scheme
	informers, err := cache.New(cfg, opts)
	if err != nil {
		return err
	}
	for _, obj := range []client.Object{&kbatchv1.Job{}, &batchv1.CronJob{}} {
		if _, err := informers.GetInformer(ctx, obj); err != nil {
			return fmt.Errorf("watchfloor: the cache of %T: %w", obj, err)
		}
	}
	go func() {
		if err := informers.Start(ctx); err != nil {
			progress("watchfloor: the cache stopped: %v", err)
		}
	}()
	if !informers.WaitForCacheSync(ctx) {
		return errors.New("watchfloor: the cache did not sync")
	}
	return nil
}

// eventRecorder is a recorder as controller-runtime's manager makes one:
// an events.k8s.io broadcaster writing through cfg, JSON included. stop
// flushes nothing: Events still in flight when the window ends are lost,
// as a manager's are when it stops.
func eventRecorder(ctx context.Context, cfg *rest.Config, scheme *runtime.Scheme) (events.EventRecorder, func(), error) {
	cl, err := eventsv1client.NewForConfig(cfg)
	if err != nil {
		return nil, nil, err
	}
	broadcaster := events.NewBroadcaster(&events.EventSinkImpl{Interface: cl})
	if err := broadcaster.StartRecordingToSinkWithContext(ctx); err != nil {
		return nil, nil, err
	}
	return broadcaster.NewRecorder(scheme, "evfloor"), broadcaster.Shutdown, nil
}

// oneWriterRecorder is the recorder of cronlab's manager with its default
// flags (cmd/main.go): internal/eventsink, one Event written at a time, as
// soon as it is recorded. stop gives the Events still waiting a few
// seconds to be written, as a manager's stop does; the window is over by
// then.
func oneWriterRecorder(cfg *rest.Config, scheme *runtime.Scheme) (events.EventRecorder, func(), error) {
	httpClient, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, nil, err
	}
	// The same recorder as cronlab's, with its bound on the Events waiting;
	// at the N this floor runs at, none is ever dropped.
	return eventsink.NewRecorder(cfg, httpClient, scheme, logr.Discard(), "evsinkfloor", 1, 0)
}

// recordRun writes the CronJob's status for the run: a merge patch of the
// status subresource, with no resourceVersion, as cronlab's. It returns the
// CronJob's resourceVersion after the patch ("" when it failed).
func recordRun(ctx context.Context, c client.Client, ns, name string, minute time.Time, job *kbatchv1.Job) string {
	patch := fmt.Sprintf(`{"status":{"lastScheduleTime":%q,"active":[{"apiVersion":"batch/v1","kind":"Job","namespace":%q,"name":%q,"uid":%q}]}}`,
		minute.UTC().Format(time.RFC3339), ns, job.Name, job.UID)
	cj := &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}}
	if err := c.Status().Patch(ctx, cj, client.RawPatch(types.MergePatchType, []byte(patch))); err != nil {
		if ctx.Err() == nil {
			progress("crfloor: %v", err)
		}
		return ""
	}
	return cj.ResourceVersion
}
