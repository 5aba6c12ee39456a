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

// Package handwritten is the CronJob controller written by hand with
// client-go, the way sample-controller (k8s.io/sample-controller) and the
// controllers in kube-controller-manager are: shared informers, a
// rate-limited work queue, and workers. It is the comparison stage of the
// lab (exercises/client-go): everything here that is not sync() is what
// controller-runtime's builder, manager and Reconciler interface do for
// you.
//
// It makes the reference's decisions with the same functions (internal/runs
// and internal/schedule: which run is due, the Job's name, whether a Job has
// finished) and does a part of the reference's job: it starts due runs and
// keeps status.lastScheduleTime and status.active. No
// concurrency policy, history limits, conditions or Events: the point is the
// machinery around the logic, not the logic.
package handwritten

import (
	"context"
	"fmt"
	"time"

	kbatchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"

	batchv1 "cronlab.dev/cronlab/api/v1"
	"cronlab.dev/cronlab/internal/runs"
	"cronlab.dev/cronlab/internal/schedule"
)

// cronJobs is our resource. There is no generated clientset for it, so the
// dynamic client reads and writes it as unstructured objects, and we convert.
var cronJobs = batchv1.GroupVersion.WithResource("cronjobs")

// byController is the name of the Job informer's index from a controller
// owner's UID to its Jobs: controller-runtime's field index, by hand.
const byController = "byController"

// Controller starts the Jobs of CronJobs on schedule.
type Controller struct {
	kube    kubernetes.Interface
	dynamic dynamic.Interface
	clock   clock.PassiveClock

	jobFactory     informers.SharedInformerFactory
	cronJobFactory dynamicinformer.DynamicSharedInformerFactory
	jobs           cache.SharedIndexInformer
	cronJobs       cache.SharedIndexInformer

	// queue holds "namespace/name" keys of CronJobs to sync. A key is in it
	// at most once however many events named it: that is the coalescing of
	// discussion question 4.
	queue workqueue.TypedRateLimitingInterface[string]
}

// New wires the informers to the queue. Nothing runs until Run.
func New(kube kubernetes.Interface, dyn dynamic.Interface, c clock.PassiveClock) (*Controller, error) {
	ctl := &Controller{
		kube:           kube,
		dynamic:        dyn,
		clock:          c,
		jobFactory:     informers.NewSharedInformerFactory(kube, 0),
		cronJobFactory: dynamicinformer.NewDynamicSharedInformerFactory(dyn, 0),
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "handwritten-cronjob"}),
	}
	ctl.jobs = ctl.jobFactory.Batch().V1().Jobs().Informer()
	ctl.cronJobs = ctl.cronJobFactory.ForResource(cronJobs).Informer()

	if err := ctl.jobs.AddIndexers(cache.Indexers{byController: indexByController}); err != nil {
		return nil, err
	}
	// For(&CronJob{}): any event of a CronJob syncs it.
	if _, err := ctl.cronJobs.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    ctl.enqueue,
		UpdateFunc: func(_, obj any) { ctl.enqueue(obj) },
		DeleteFunc: ctl.enqueue,
	}); err != nil {
		return nil, err
	}
	// Owns(&Job{}): any event of a Job syncs the CronJob that controls it.
	if _, err := ctl.jobs.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    ctl.enqueueOwner,
		UpdateFunc: func(_, obj any) { ctl.enqueueOwner(obj) },
		DeleteFunc: ctl.enqueueOwner,
	}); err != nil {
		return nil, err
	}
	return ctl, nil
}

func indexByController(obj any) ([]string, error) {
	job, ok := obj.(*kbatchv1.Job)
	if !ok {
		return nil, nil
	}
	if ref := runs.ControllerOf(job); ref != nil {
		return []string{string(ref.UID)}, nil
	}
	return nil, nil
}

// enqueue adds the key of a CronJob. On delete, obj may be a tombstone
// (cache.DeletedFinalStateUnknown: the watch missed the delete and a
// re-list found the object gone); the key function handles both.
func (c *Controller) enqueue(obj any) {
	key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		utilruntime.HandleError(err)
		return
	}
	c.queue.Add(key)
}

// Run starts the informers, waits for their caches, runs the workers, and
// blocks until ctx is done. This is what the manager's Start does.
func (c *Controller) Run(ctx context.Context, workers int) error {
	defer utilruntime.HandleCrash()
	defer c.queue.ShutDown()

	c.jobFactory.Start(ctx.Done())
	c.cronJobFactory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), c.jobs.HasSynced, c.cronJobs.HasSynced) {
		return fmt.Errorf("the informers' caches did not sync")
	}
	for range workers {
		go wait.UntilWithContext(ctx, c.runWorker, time.Second)
	}
	<-ctx.Done()
	return nil
}

func (c *Controller) runWorker(ctx context.Context) {
	for c.processNextWorkItem(ctx) {
	}
}

// lab:begin handwritten-loop

// processNextWorkItem takes one key, syncs it, and tells the queue how it
// went. It returns false once the queue shuts down. This is the loop inside
// controller-runtime's controller (pkg/internal/controller).
func (c *Controller) processNextWorkItem(ctx context.Context) bool {
	key, shutdown := c.queue.Get()
	if shutdown {
		return false
	}
	// Done lets the queue hand out the key again: to this worker or another,
	// never to two at once.
	defer c.queue.Done(key)

	after, err := c.sync(ctx, key)
	if err != nil {
		// Retry with exponential backoff per key (5ms, 10ms, ... 1000s).
		utilruntime.HandleErrorWithContext(ctx, err, "syncing CronJob", "key", key)
		c.queue.AddRateLimited(key)
		return true
	}
	// Success resets the key's backoff. RequeueAfter, by hand.
	c.queue.Forget(key)
	if after > 0 {
		c.queue.AddAfter(key, after)
	}
	return true
}

// enqueueOwner adds the key of the CronJob that controls a Job: what
// handler.EnqueueRequestForOwner with OnlyControllerOwner does for Owns.
func (c *Controller) enqueueOwner(obj any) {
	if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tombstone.Obj
	}
	job, ok := obj.(*kbatchv1.Job)
	if !ok {
		return
	}
	ref := runs.ControllerOf(job)
	if ref == nil {
		return
	}
	c.queue.Add(job.Namespace + "/" + ref.Name)
}

// lab:end

// sync is the Reconcile of this controller: it gets a key, and reads
// everything else from the informers' caches.
func (c *Controller) sync(ctx context.Context, key string) (requeueAfter time.Duration, err error) {
	obj, exists, err := c.cronJobs.GetIndexer().GetByKey(key)
	if err != nil || !exists {
		return 0, err // deleted: the garbage collector removes its Jobs
	}
	var cj batchv1.CronJob
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.(*unstructured.Unstructured).Object, &cj); err != nil {
		return 0, err
	}
	owned, err := c.jobs.GetIndexer().ByIndex(byController, string(cj.UID))
	if err != nil {
		return 0, err
	}
	cj.Status.Active = nil
	for _, o := range owned {
		job := o.(*kbatchv1.Job)
		if finished, _ := runs.JobFinished(job); !finished {
			cj.Status.Active = append(cj.Status.Active, runs.JobReference(job))
		}
	}

	sched, err := schedule.Parse(cj.Spec.Schedule, ptr.Deref(cj.Spec.TimeZone, ""))
	if err != nil {
		// Retrying cannot fix a bad schedule: log it, do not requeue.
		klog.FromContext(ctx).Info("cannot schedule", "cronjob", key, "reason", err.Error())
		return 0, nil
	}
	now := c.clock.Now()
	due := runs.Due(&cj, sched, now)
	if !due.Run.IsZero() && !due.TooLate && !ptr.Deref(cj.Spec.Suspend, false) {
		job, err := c.createJob(ctx, &cj, due.Run.In(sched.Location()))
		if err != nil {
			return 0, err
		}
		cj.Status.LastScheduleTime = &metav1.Time{Time: due.Run}
		if !runs.ActiveHas(&cj, job.UID) {
			cj.Status.Active = append(cj.Status.Active, runs.JobReference(job))
		}
	}

	if err := c.updateStatus(ctx, &cj); err != nil {
		return 0, err
	}
	// Look again when the next run is due. A schedule that never fires again
	// has no next run (schedule.Parse refuses those; this only guards).
	var after time.Duration
	if !due.Next.IsZero() {
		after = runs.RequeueDelay(now, due.Next)
	}
	return after, nil
}

// updateStatus writes cj's status with an Update carrying the cached
// resourceVersion: if the cache is stale, the API server answers Conflict,
// and the key is retried with backoff. (The reference patches the status
// instead; see stage 15, the stale cache.)
func (c *Controller) updateStatus(ctx context.Context, cj *batchv1.CronJob) error {
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(cj)
	if err != nil {
		return fmt.Errorf("converting CronJob %s/%s to write its status: %w", cj.Namespace, cj.Name, err)
	}
	_, err = c.dynamic.Resource(cronJobs).Namespace(cj.Namespace).UpdateStatus(ctx, &unstructured.Unstructured{Object: u}, metav1.UpdateOptions{})
	return err
}

// createJob creates the Job of the run at t, built as the reference builds
// it (runs.NewJob); a Job of that name that this CronJob controls is taken
// as already created.
func (c *Controller) createJob(ctx context.Context, cj *batchv1.CronJob, t time.Time) (*kbatchv1.Job, error) {
	job := runs.NewJob(cj, t)
	created, err := c.kube.BatchV1().Jobs(cj.Namespace).Create(ctx, job, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		existing, getErr := c.kube.BatchV1().Jobs(cj.Namespace).Get(ctx, job.Name, metav1.GetOptions{})
		if getErr != nil {
			return nil, getErr
		}
		if !runs.ControlledBy(existing, cj) {
			return nil, fmt.Errorf("job %s exists and belongs to someone else", job.Name)
		}
		return existing, nil
	}
	return created, err
}
