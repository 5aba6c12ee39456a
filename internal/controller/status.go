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

// This file holds steps 3, 5 and 6 of Reconcile and the end of step 2:
// what the Jobs tell us, the scheduling decision, the conditions that sum
// it up for the user, and catchUp, which stage 15 writes.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	kbatchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	batchv1 "cronlab.dev/cronlab/api/v1"
	"cronlab.dev/cronlab/internal/runs"
	"cronlab.dev/cronlab/internal/schedule"
)

// lab:begin observe

// observeJobs brings status.active and status.lastSuccessfulTime up to date
// with the Jobs: finished Jobs leave the active list, a running Job that the
// list does not know joins it, and the newest successful completion is kept.
func (r *CronJobReconciler) observeJobs(ctx context.Context, cronJob *batchv1.CronJob, jobs []kbatchv1.Job) error {
	seen := make(map[types.UID]bool, len(jobs))
	for i := range jobs {
		job := &jobs[i]
		seen[job.UID] = true
		finished, how := runs.JobFinished(job)
		switch {
		case !finished && !runs.ActiveHas(cronJob, job.UID):
			if err := r.adoptRunningJob(ctx, cronJob, job); err != nil {
				return err
			}
		case finished && runs.ActiveHas(cronJob, job.UID):
			removeActive(cronJob, job.UID)
			r.Recorder.Eventf(cronJob, job, corev1.EventTypeNormal, "SawCompletedJob", "Observe",
				"Saw completed job: %s, condition: %s", job.Name, how)
		}
		if how == kbatchv1.JobComplete && job.Status.CompletionTime != nil {
			last := cronJob.Status.LastSuccessfulTime
			if last == nil || job.Status.CompletionTime.After(last.Time) {
				cronJob.Status.LastSuccessfulTime = job.Status.CompletionTime.DeepCopy()
			}
		}
	}
	// An entry of status.active that no listed Job matches may be gone:
	// jobGone decides, and stage 15 asks how it can know.
	for _, ref := range slices.Clone(cronJob.Status.Active) { // a copy: the loop removes entries
		if seen[ref.UID] {
			continue
		}
		gone, err := r.jobGone(ctx, types.NamespacedName{Namespace: ref.Namespace, Name: ref.Name}, ref.UID)
		if err != nil {
			return err
		}
		if gone {
			removeActive(cronJob, ref.UID)
			r.Recorder.Eventf(cronJob, nil, corev1.EventTypeNormal, "MissingJob", "Observe", "Active job went missing: %s", ref.Name)
		}
	}
	return nil
}

// lab:end

// lab:begin catch-up

// catchUp stops a reconcile whose cache does not show this manager's own
// last writes yet (OwnWrites): their events are on the way and bring the
// next reconcile, so it returns how long to wait for them at most. When
// the Jobs show that the cached CronJob is older than a status write that
// OwnWrites does not remember (after a restart, on a new leader), it reads
// the CronJob from the API server instead (refreshIfStale).
//
// This region's functions guard against a cache that lags behind the API
// server, which stage 13 (question 6) shows and stage 15 (the stale cache)
// asks for. The starters before stage 15 have the forms of
// exercises/stale-cache/trusting/status.go instead, which trust the cache,
// so that stages 04 to 06 teach the loop alone. Reconcile calls catchUp in
// its step 2; observeJobs calls adoptRunningJob and jobGone.
func (r *CronJobReconciler) catchUp(ctx context.Context, cronJob *batchv1.CronJob, jobs []kbatchv1.Job) (retryIn time.Duration, err error) {
	if retryIn, waiting := r.OwnWrites.Waiting(cronJob, jobs); waiting {
		return retryIn, nil
	}
	return 0, r.refreshIfStale(ctx, cronJob, jobs)
}

// refreshIfStale replaces the cached CronJob with the API server's copy when
// its status.active and the cached Jobs disagree: a running Job of this
// CronJob that the list lacks, or an entry of the list that no cached Job
// matches. That is what the reconciles right after a run usually see (the
// u-lag of stage 15, the stale cache): the events of the new Job, of the Job it
// replaced and of our own status write reach the cache in any order. Going
// on from a stale copy would write the same status a second time, and
// report Jobs as missing or unexpected that are neither. A Reconciler with
// OwnWrites stops at step 2 in those reconciles instead; this read remains
// for the writes it does not remember.
func (r *CronJobReconciler) refreshIfStale(ctx context.Context, cronJob *batchv1.CronJob, jobs []kbatchv1.Job) error {
	if activeMatchesJobs(cronJob, jobs) {
		return nil
	}
	return r.APIReader.Get(ctx, client.ObjectKeyFromObject(cronJob), cronJob)
}

// activeMatchesJobs reports whether status.active lists every running Job,
// and only Jobs that are there.
func activeMatchesJobs(cronJob *batchv1.CronJob, jobs []kbatchv1.Job) bool {
	there := make(map[types.UID]bool, len(jobs))
	for i := range jobs {
		there[jobs[i].UID] = true
		if finished, _ := runs.JobFinished(&jobs[i]); !finished && !runs.ActiveHas(cronJob, jobs[i].UID) {
			return false
		}
	}
	for _, ref := range cronJob.Status.Active {
		if !there[ref.UID] {
			return false
		}
	}
	return true
}

// adoptRunningJob adds a running Job that this CronJob controls, and that
// status.active does not list, to the list. Reconcile has read the status
// from the API server by now (refreshIfStale), so the Job was created by
// hand or by a controller that crashed before it could record it, which
// deserves an Event; unless the Job is gone and only the cache still has
// it, as the Job that Replace deleted a moment ago. Only the API server can
// tell.
func (r *CronJobReconciler) adoptRunningJob(ctx context.Context, cronJob *batchv1.CronJob, job *kbatchv1.Job) error {
	if gone, err := r.jobGone(ctx, client.ObjectKeyFromObject(job), job.UID); gone || err != nil {
		return err
	}
	r.Recorder.Eventf(cronJob, job, corev1.EventTypeWarning, "UnexpectedJob", "Observe",
		"Saw a job that the controller did not create or forgot: %s", job.Name)
	cronJob.Status.Active = append(cronJob.Status.Active, runs.JobReference(job))
	return nil
}

// jobGone asks the API server whether the Job with this name and UID is
// gone: deleted, or replaced by another Job of the same name. The cache
// cannot answer that; it may be behind in either direction.
func (r *CronJobReconciler) jobGone(ctx context.Context, key types.NamespacedName, uid types.UID) (bool, error) {
	var live kbatchv1.Job
	err := r.APIReader.Get(ctx, key, &live)
	if apierrors.IsNotFound(err) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	return live.UID != uid, nil
}

// lab:end

// lab:begin start-run

// startDueRun makes the scheduling decision of this reconcile and carries it
// out. It returns when the next run is due (zero: do not come back on a
// timer) and an error only when talking to the API server failed.
func (r *CronJobReconciler) startDueRun(ctx context.Context, cronJob *batchv1.CronJob, jobs []kbatchv1.Job, now time.Time) (time.Time, error) {
	log := logf.FromContext(ctx)
	if cronJob.DeletionTimestamp != nil {
		return time.Time{}, nil
	}

	// A schedule or time zone that does not parse is the user's to fix. It
	// goes to an Event and a condition (reportUnschedulable, which records
	// the Event once per problem, not on every reconcile); retrying would not
	// help, and the user's fix is an update that triggers a new reconcile.
	sched, err := schedule.Parse(cronJob.Spec.Schedule, ptr.Deref(cronJob.Spec.TimeZone, ""))
	if err != nil {
		reason := batchv1.ReasonInvalidSchedule
		if invalid, ok := errors.AsType[*schedule.InvalidError](err); ok && invalid.Field == "timeZone" {
			reason = batchv1.ReasonUnknownTimeZone
		}
		r.reportUnschedulable(cronJob, now, reason, err)
		return time.Time{}, nil
	}
	if ptr.Deref(cronJob.Spec.Suspend, false) {
		r.setReady(cronJob, now, metav1.ConditionTrue, batchv1.ReasonSuspended, "spec.suspend is true: no new Jobs are started")
		return time.Time{}, nil
	}

	due := runs.Due(cronJob, sched, now)
	loc := sched.Location()
	switch {
	case due.Run.IsZero():
		r.noteDue(cronJob, now, due, loc, "")
		return due.Next, nil
	case due.TooLate:
		if r.noteDue(cronJob, now, due, loc, "was missed: it is later than startingDeadlineSeconds allows") {
			r.Recorder.Eventf(cronJob, nil, corev1.EventTypeWarning, "MissSchedule", "Schedule",
				"Missed scheduled time to start a job: %s", due.Run.UTC().Format(time.RFC1123Z))
		}
		return due.Next, nil
	case runStarted(cronJob, jobs, due.Run):
		r.noteDue(cronJob, now, due, loc, "")
		return due.Next, nil
	case cronJob.Spec.ConcurrencyPolicy == batchv1.ForbidConcurrent && len(cronJob.Status.Active) > 0:
		// The run stays due: if the running Job finishes before the
		// deadline, the next reconcile starts it, as upstream does.
		if r.noteDue(cronJob, now, due, loc, "waits: a Job still runs and concurrencyPolicy is Forbid") {
			r.Recorder.Eventf(cronJob, nil, corev1.EventTypeNormal, "JobAlreadyActive", "Schedule",
				"Not starting job because prior execution is running and concurrency policy is Forbid")
		}
		return due.Next, nil
	}

	if cronJob.Spec.ConcurrencyPolicy == batchv1.ReplaceConcurrent {
		for _, ref := range slices.Clone(cronJob.Status.Active) { // a copy: the loop removes entries
			log.Info("replacing a Job that still runs", "job", ref.Name)
			if err := r.deleteJob(ctx, cronJob, ref.Namespace, ref.Name, ref.UID); err != nil {
				r.noteDue(cronJob, now, due, loc, "")
				return time.Time{}, failedDelete{err}
			}
		}
	}

	run := due.Run.In(loc)
	created, err := r.createJob(ctx, cronJob, run)
	if notOurs, ok := errors.AsType[jobNotOwned](err); ok {
		if r.noteDue(cronJob, now, due, loc, "cannot start: "+notOurs.Error()) {
			r.Recorder.Eventf(cronJob, nil, corev1.EventTypeWarning, "JobNotOwned", "Create", "%v; leaving it alone", notOurs)
		}
		return due.Next, nil
	}
	r.noteDue(cronJob, now, due, loc, "")
	if apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause) {
		return time.Time{}, nil // the CronJob goes away with its namespace
	}
	if err != nil {
		r.Recorder.Eventf(cronJob, nil, corev1.EventTypeWarning, "FailedCreate", "Create", "Error creating job: %v", err)
		return time.Time{}, fmt.Errorf("creating the Job for the run at %s: %w", run.Format(time.RFC3339), err)
	}
	if created {
		jobCreationSkew.Observe(now.Sub(run).Seconds())
		r.Recorder.Eventf(cronJob, nil, corev1.EventTypeNormal, "SuccessfulCreate", "Create", "Created job %s", runs.JobName(cronJob, run))
	}
	return due.Next, nil
}

// runStarted reports whether the run at t has its Job already. Due counts
// only runs after status.lastScheduleTime, so the status cannot say so; but
// the status may not record a run whose Job exists (a manager stopped
// between the create and the status write; stage 15 asks whether that is
// the only way), and the Jobs then tell the truth, through the name
// that only this run's Job has. runStarted writes the run
// into status.lastScheduleTime, which the status patch of step 6 then sends
// to the API server.
func runStarted(cronJob *batchv1.CronJob, jobs []kbatchv1.Job, t time.Time) bool {
	name := runs.JobName(cronJob, t)
	for _, job := range jobs {
		if job.Name == name {
			cronJob.Status.LastScheduleTime = &metav1.Time{Time: t}
			return true
		}
	}
	return false
}

func nextRunMessage(next time.Time, loc *time.Location) string {
	if next.IsZero() {
		return "the schedule has no further runs"
	}
	return "next run at " + next.In(loc).Format(time.RFC3339)
}

// lab:end

// reportUnschedulable tells the user why the CronJob cannot run: with
// Ready=False for as long as the problem lasts, and with a Warning Event once
// per problem and generation. The condition is the memory: a reconcile that
// finds this problem already reported for this generation records no second
// Event, so `kubectl describe` lists it once, not once per reconcile (and
// every status write causes one more reconcile).
func (r *CronJobReconciler) reportUnschedulable(cronJob *batchv1.CronJob, now time.Time, reason string, problem error) {
	if r.setReady(cronJob, now, metav1.ConditionFalse, reason, problem.Error()) {
		r.Recorder.Eventf(cronJob, nil, corev1.EventTypeWarning, reason, "Schedule", "%v", problem)
	}
}

// noteDue sets Ready to say when the next run is and, when the due run does
// not start, why (whyNot). It reports whether that is news, which is when
// startDueRun records its Events about the due run: the message names the
// next run, so it changes once per run, and whyNot changes it once per
// problem. As in reportUnschedulable, the condition is the memory, and each
// Event is recorded once per run, problem and generation, not on each of the
// reconciles that every status write and Job event cause. It also warns,
// with the news, about more than 100 missed runs (upstream's TooManyMissedTimes).
func (r *CronJobReconciler) noteDue(cronJob *batchv1.CronJob, now time.Time, due schedule.Due, loc *time.Location, whyNot string) bool {
	message := nextRunMessage(due.Next, loc)
	if whyNot != "" {
		message = fmt.Sprintf("the run at %s %s; %s", due.Run.In(loc).Format(time.RFC3339), whyNot, message)
	}
	news := r.setReady(cronJob, now, metav1.ConditionTrue, batchv1.ReasonScheduling, message)
	if news && due.TooMany() {
		r.Recorder.Eventf(cronJob, nil, corev1.EventTypeWarning, "TooManyMissedTimes", "Schedule",
			"too many missed start times (more than %d). Set or decrease .spec.startingDeadlineSeconds or check clock skew", schedule.TooManyMissed)
	}
	return news
}

// setReady records whether the controller can schedule the CronJob, and
// reports whether the condition changed: its status, reason, message or
// generation. meta.SetStatusCondition moves lastTransitionTime only when the
// status changes, so a condition that stays True keeps the time it became True.
func (r *CronJobReconciler) setReady(cronJob *batchv1.CronJob, now time.Time, status metav1.ConditionStatus, reason, message string) bool {
	return meta.SetStatusCondition(&cronJob.Status.Conditions, metav1.Condition{
		Type: batchv1.ConditionReady, Status: status, Reason: reason, Message: message,
		ObservedGeneration: cronJob.Generation, LastTransitionTime: metav1.NewTime(now),
	})
}

// setDegraded records whether this reconcile failed to act on the cluster.
// Such failures are also returned as errors, so controller-runtime retries
// them with back-off; the condition tells the user why nothing happens, and
// its reason names what failed: a delete (of step 4, or of a running Job
// that Replace removes in step 5) or the create of a run's Job.
func (r *CronJobReconciler) setDegraded(cronJob *batchv1.CronJob, now time.Time, pruneErr, runErr error) {
	cond := metav1.Condition{
		Type: batchv1.ConditionDegraded, Status: metav1.ConditionFalse, Reason: batchv1.ReasonReconciled,
		Message: "the last reconcile succeeded", ObservedGeneration: cronJob.Generation, LastTransitionTime: metav1.NewTime(now),
	}
	_, deleting := errors.AsType[failedDelete](runErr)
	switch err := errors.Join(runErr, pruneErr); {
	case runErr != nil && !deleting:
		cond.Status, cond.Reason, cond.Message = metav1.ConditionTrue, batchv1.ReasonFailedCreate, err.Error()
	case err != nil:
		cond.Status, cond.Reason, cond.Message = metav1.ConditionTrue, batchv1.ReasonFailedDelete, err.Error()
	}
	meta.SetStatusCondition(&cronJob.Status.Conditions, cond)
}

// failedDelete marks an error of step 5 that a delete caused, not a create:
// Replace could not remove a Job that still runs.
type failedDelete struct{ error }

func (e failedDelete) Unwrap() error { return e.error }
