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

// Package controller holds the CronJob Reconciler: stages 04 to 06 of the lab.
//
// Read this file first: Reconcile is written as the numbered steps of the
// lesson, and most steps are a small function in jobs.go or status.go. The
// decisions about time are made by internal/schedule, which knows nothing of
// Kubernetes; the behaviour follows the CronJob controller of
// kube-controller-manager (pkg/controller/cronjob in Kubernetes).
package controller

import (
	"context"
	"time"

	kbatchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	crcontroller "sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	batchv1 "cronlab.dev/cronlab/api/v1"
	"cronlab.dev/cronlab/internal/runs"
)

// CronJobReconciler starts the Jobs of CronJobs on schedule and keeps their
// status. One Reconciler serves every CronJob in the cluster; controller-runtime
// calls Reconcile with the name of one CronJob at a time.
type CronJobReconciler struct {
	// Client reads from the manager's cache (fast: the watches keep it) and
	// writes to the API server.
	client.Client
	// APIReader reads from the API server itself, past the cache: slower,
	// and used only where a stage asks for it and says why (createJob in
	// stage 05, and the functions of status.go that stage 15 writes).
	APIReader client.Reader
	Scheme    *runtime.Scheme
	// Recorder writes Events, which `kubectl describe cronjob` shows.
	Recorder events.EventRecorder
	// Clock tells the time. Tests set a fake clock and move it forward to
	// the next run instead of waiting; nil means the real clock.
	Clock clock.PassiveClock
	// Workers is how many CronJobs are reconciled at once; 0 means 1.
	// controller-runtime never gives the same CronJob to two workers.
	Workers int
	// Around, when set, stands around the controller that SetupWithManager
	// builds (complete): `make run TRACE=file` records the loop this way
	// (cmd/trace.go), with the lesson's wiring as it is.
	Around Around
	// Guards are what stage 15 adds (guards.go); the stages before it do
	// without them.
	Guards
}

// Around is what may stand around the controller: a predicate that sees
// each event before it becomes a request, and a Reconciler around this one.
// The trace's Recorder (internal/trace/record) is one.
type Around interface {
	Predicate() predicate.Predicate
	Reconciler(reconcile.Reconciler) reconcile.Reconciler
}

// The RBAC markers below become config/rbac/role.yaml (`make manifests`).
// They grant only what Reconcile does: read CronJobs, patch their status,
// create, read, label (patch) and delete Jobs, and create or patch Events.

// +kubebuilder:rbac:groups=batch.cronlab.dev,resources=cronjobs,verbs=get;list;watch
// +kubebuilder:rbac:groups=batch.cronlab.dev,resources=cronjobs/status,verbs=patch
// +kubebuilder:rbac:groups=batch,resources=jobs,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// lab:begin reconcile

// Reconcile brings one CronJob a step closer to what its spec asks for.
//
// It is level-based: it does not ask what changed (discussion question 4),
// it looks at the CronJob and its Jobs as they are now and works out what to
// do. Run twice in a row, with nothing changed in between, the second run
// writes nothing, and records no Event about a run or a problem that the
// first reported: the Ready condition remembers what was said (noteDue,
// reportUnschedulable). Only a failure is reported again: a create or delete
// that the API server refused is retried, and each try that fails says so.
func (r *CronJobReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	log := logf.FromContext(ctx)
	now := r.now()

	// 1. Load the CronJob. It may be gone already: its Jobs then go with it
	// through their owner references, and there is nothing left to do.
	var cronJob batchv1.CronJob
	if err := r.Get(ctx, req.NamespacedName, &cronJob); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}

	// 2. List the Jobs it controls, then call catchUp (stage 15 writes it
	// and asks why it is there): a retryIn above zero ends this reconcile,
	// to come back that much later. Every decision below starts from the
	// status, and before is the status the API server has.
	jobs, err := r.listChildJobs(ctx, &cronJob)
	if err != nil {
		return ctrl.Result{}, err
	}
	retryIn, err := r.catchUp(ctx, &cronJob, jobs)
	if err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if retryIn > 0 {
		return ctrl.Result{RequeueAfter: retryIn}, nil
	}
	before := cronJob.DeepCopy()

	// 3. Update the status from what the Jobs say: which still run, and
	// when the last one succeeded.
	if err := r.observeJobs(ctx, &cronJob, jobs); err != nil {
		return ctrl.Result{}, err
	}

	// 4. Delete finished Jobs beyond the history limits, those whose end
	// the stored status (before's) records already: what step 3 observed
	// is written only in step 6. A failure here does not stop the next
	// steps: a due run matters more than old Jobs.
	pruneErr := r.pruneHistory(ctx, &cronJob, before.Status, jobs)

	// 5. Start the run that is due, if any, and learn when to look again.
	next, runErr := r.startDueRun(ctx, &cronJob, jobs, now)

	// 6. Record the outcome and write the status, once, only if it changed.
	r.setDegraded(&cronJob, now, pruneErr, runErr)
	cronJob.Status.ObservedGeneration = cronJob.Generation
	if !equality.Semantic.DeepEqual(before.Status, cronJob.Status) {
		if err := r.Status().Patch(ctx, &cronJob, client.MergeFrom(before)); err != nil {
			if apierrors.IsNotFound(err) {
				return ctrl.Result{}, nil
			}
			return ctrl.Result{}, err
		}
	}
	if runErr != nil {
		return ctrl.Result{}, runErr
	}
	if pruneErr != nil {
		return ctrl.Result{}, pruneErr
	}

	// 7. Come back when the next run is due. No polling: if nothing happens
	// to the CronJob or its Jobs, this and the cache's periodic resync
	// (SyncPeriod, every 10 hours by default) are the only reasons to run
	// again.
	if next.IsZero() {
		return ctrl.Result{}, nil
	}
	log.V(1).Info("waiting for the next run", "next", next)
	return ctrl.Result{RequeueAfter: runs.RequeueDelay(now, next)}, nil
}

// lab:end

func (r *CronJobReconciler) now() time.Time {
	if r.Clock == nil {
		return time.Now()
	}
	return r.Clock.Now()
}

// lab:begin setup

// SetupWithManager tells the manager what this controller watches, and
// registers the field index that listChildJobs lists by: the cache builds
// its indexes when it starts, so this must run before the manager does.
func (r *CronJobReconciler) SetupWithManager(mgr ctrl.Manager) error {
	if err := IndexJobsByOwner(context.Background(), mgr.GetFieldIndexer()); err != nil {
		return err
	}
	return r.complete(WatchWithOwns(ctrl.NewControllerManagedBy(mgr)))
}

// WatchWithOwns is the controller's wiring.
//
// For(&CronJob{}) asks for a reconcile of a CronJob whenever it changes.
// Owns(&Job{}) asks for a reconcile of the CronJob that controls a Job
// whenever that Job changes: this is how Reconcile learns that a Job it
// created has finished (discussion questions 3 and 5).
func WatchWithOwns(b *builder.Builder) *builder.Builder {
	return b.For(&batchv1.CronJob{}).Owns(&kbatchv1.Job{})
}

// lab:end

// complete names the controller, gives it its workers, and completes it
// with r, or with what r.Around puts around r: the plumbing that every
// wiring of this controller shares, apart from the lesson's For and Owns.
func (r *CronJobReconciler) complete(b *builder.Builder) error {
	b = b.Named("cronjob").WithOptions(crcontroller.Options{MaxConcurrentReconciles: max(r.Workers, 1)})
	if r.Around == nil {
		return b.Complete(r)
	}
	return b.WithEventFilter(r.Around.Predicate()).Complete(r.Around.Reconciler(r))
}

// lab:begin owns-vs-watches

// WatchWithWatches is the same wiring as WatchWithOwns, spelled out
// (discussion question 3): Owns(&Job{}) is Watches on Jobs with a handler
// that maps a Job to the CronJob named by its controller owner reference.
// OnlyControllerOwner matters: without it, any owner reference to a CronJob
// would do, also one that does not control the Job.
func WatchWithWatches(b *builder.Builder, mgr ctrl.Manager) *builder.Builder {
	return b.For(&batchv1.CronJob{}).
		Watches(&kbatchv1.Job{}, handler.EnqueueRequestForOwner(
			mgr.GetScheme(), mgr.GetRESTMapper(), &batchv1.CronJob{}, handler.OnlyControllerOwner()))
}

// lab:end
