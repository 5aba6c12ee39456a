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

// This file is mostly stage 05 of the lab, secondary resources: a CronJob
// does its work through Jobs that it creates, owns, and eventually deletes.
// The field index and listChildJobs at the top are stage 04's.

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	kbatchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	batchv1 "cronlab.dev/cronlab/api/v1"
	"cronlab.dev/cronlab/internal/runs"
)

// lab:begin children

// jobOwnerKey names a field index on Jobs: the UID of the CronJob that
// controls them. The manager's cache keeps the index up to date, so listing
// the Jobs of one CronJob does not scan every Job of the namespace.
// The UID, not the name, is indexed: a CronJob deleted and created again
// under the same name must not pick up the Jobs of its predecessor.
const jobOwnerKey = ".metadata.ownerReferences.controller.uid"

// IndexJobsByOwner registers jobOwnerKey with the manager's cache. It has to
// run before the manager starts.
func IndexJobsByOwner(ctx context.Context, indexer client.FieldIndexer) error {
	return indexer.IndexField(ctx, &kbatchv1.Job{}, jobOwnerKey, func(obj client.Object) []string {
		owner := runs.ControllerOf(obj)
		if owner == nil {
			return nil
		}
		return []string{string(owner.UID)}
	})
}

// listChildJobs returns the Jobs that this CronJob controls, as the cache
// has them: the manager's copy of the cluster, which the watches keep, so
// that listing costs the API server nothing.
func (r *CronJobReconciler) listChildJobs(ctx context.Context, cronJob *batchv1.CronJob) ([]kbatchv1.Job, error) {
	var jobs kbatchv1.JobList
	if err := r.List(ctx, &jobs, client.InNamespace(cronJob.Namespace),
		client.MatchingFields{jobOwnerKey: string(cronJob.UID)}); err != nil {
		return nil, fmt.Errorf("listing the Jobs of CronJob %s: %w", cronJob.Name, err)
	}
	return jobs.Items, nil
}

// lab:end

// status.active lists references to the running Jobs (runs.JobReference,
// runs.ActiveHas). removeActive keeps it; every stage uses it, so it is given
// rather than written in the lab.

func removeActive(cronJob *batchv1.CronJob, uid types.UID) {
	cronJob.Status.Active = slices.DeleteFunc(cronJob.Status.Active, func(ref corev1.ObjectReference) bool { return ref.UID == uid })
	if len(cronJob.Status.Active) == 0 {
		cronJob.Status.Active = nil
	}
}

// lab:begin create-job

// createJob creates the Job for a run, lists it in status.active if it still
// runs, and sets status.lastScheduleTime to the run. If the
// Job exists already, because an earlier attempt created it but did not live
// to record it, and it is ours, it is adopted as if just created. A Job of
// that name that someone else controls is left alone, and the answer is a
// jobNotOwned error, which startDueRun reports. created reports whether the
// API server made a new Job.
func (r *CronJobReconciler) createJob(ctx context.Context, cronJob *batchv1.CronJob, run time.Time) (created bool, err error) {
	job := runs.NewJob(cronJob, run)
	err = r.Create(ctx, job)
	switch {
	case err == nil:
		created = true
	case apierrors.IsAlreadyExists(err):
		// Ask the API server, not the cache: a Job without the label is never in it.
		if err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(job), job); err != nil {
			return false, err
		}
		if !runs.ControlledBy(job, cronJob) {
			return false, jobNotOwned{job: job.Name}
		}
		if err := r.labelAsOurs(ctx, cronJob, job); err != nil {
			return false, err
		}
	default:
		return false, err
	}
	if finished, _ := runs.JobFinished(job); !finished && !runs.ActiveHas(cronJob, job.UID) {
		cronJob.Status.Active = append(cronJob.Status.Active, runs.JobReference(job))
	}
	cronJob.Status.LastScheduleTime = &metav1.Time{Time: run}
	return created, nil
}

// lab:end

// jobNotOwned says that the Job of a run's name exists and that someone else
// controls it: the run cannot start, and the Job is not ours to touch.
type jobNotOwned struct{ job string }

func (e jobNotOwned) Error() string {
	return "Job " + e.job + " exists and belongs to someone else"
}

// labelAsOurs gives an adopted Job the CronJobLabel if it lacks it (someone
// removed it, or an older version created the Job). Without the label the
// cache never holds the Job: its end would go unseen, and status.active would
// never agree with the Jobs that Reconcile lists.
func (r *CronJobReconciler) labelAsOurs(ctx context.Context, cronJob *batchv1.CronJob, job *kbatchv1.Job) error {
	if job.Labels[batchv1.CronJobLabel] == cronJob.Name {
		return nil
	}
	patch := client.MergeFrom(job.DeepCopy())
	metav1.SetMetaDataLabel(&job.ObjectMeta, batchv1.CronJobLabel, cronJob.Name)
	if err := r.Patch(ctx, job, patch); err != nil {
		return fmt.Errorf("labelling adopted Job %s: %w", job.Name, err)
	}
	return nil
}

// lab:begin create-job

// deleteJob deletes a Job and its pods. Background propagation returns at
// once and lets the garbage collector remove the pods afterwards. The UID
// precondition makes sure we delete the Job we looked at, not a new one that
// took its name; if it fails (Conflict), or the Job is gone (NotFound), the
// Job we meant no longer exists, which is what we wanted.
func (r *CronJobReconciler) deleteJob(ctx context.Context, cronJob *batchv1.CronJob, ns, name string, uid types.UID) error {
	job := &kbatchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	err := r.Delete(ctx, job, client.PropagationPolicy(metav1.DeletePropagationBackground), client.Preconditions{UID: &uid})
	if apierrors.IsConflict(err) {
		err = apierrors.NewNotFound(kbatchv1.Resource("jobs"), name)
	}
	if client.IgnoreNotFound(err) != nil {
		r.Recorder.Eventf(cronJob, job, corev1.EventTypeWarning, "FailedDelete", "Delete", "Error deleting job %s: %v", name, err)
		return fmt.Errorf("deleting Job %s: %w", name, err)
	}
	removeActive(cronJob, uid)
	if err == nil {
		r.Recorder.Eventf(cronJob, job, corev1.EventTypeNormal, "SuccessfulDelete", "Delete", "Deleted job %s", name)
	}
	return nil
}

// lab:end

// lab:begin history

// pruneHistory deletes the oldest finished Jobs beyond the history limits:
// successful ones beyond successfulJobsHistoryLimit, failed ones beyond
// failedJobsHistoryLimit. A nil limit keeps every Job. It keeps going after
// a failed delete and returns the first error.
//
// It deletes only a Job whose end stored, the status that the API server
// has, records already (runs.Recorded): Reconcile writes what this
// reconcile observed only in step 6, after this step, and a manager that
// stops in between would lose a success whose Job it deleted. A Job kept
// here goes in the next reconcile, which the status write itself brings.
func (r *CronJobReconciler) pruneHistory(ctx context.Context, cronJob *batchv1.CronJob, stored batchv1.CronJobStatus, jobs []kbatchv1.Job) error {
	var succeeded, failed []*kbatchv1.Job
	for i := range jobs {
		job := &jobs[i]
		if job.DeletionTimestamp != nil {
			continue // already on its way out
		}
		switch _, how := runs.JobFinished(job); how {
		case kbatchv1.JobComplete:
			succeeded = append(succeeded, job)
		case kbatchv1.JobFailed:
			failed = append(failed, job)
		}
	}
	var firstErr error
	for _, group := range []struct {
		jobs  []*kbatchv1.Job
		limit *int32
	}{{succeeded, cronJob.Spec.SuccessfulJobsHistoryLimit}, {failed, cronJob.Spec.FailedJobsHistoryLimit}} {
		if group.limit == nil || len(group.jobs) <= int(*group.limit) {
			continue
		}
		slices.SortFunc(group.jobs, olderFirst)
		for _, job := range group.jobs[:len(group.jobs)-int(*group.limit)] {
			if !runs.Recorded(stored, job) {
				continue
			}
			if err := r.deleteJob(ctx, cronJob, job.Namespace, job.Name, job.UID); err != nil && firstErr == nil {
				firstErr = err
			}
		}
	}
	return firstErr
}

// lab:end

// olderFirst orders Jobs by start time, Jobs that never started last, and
// by name when the times are equal, as upstream does.
func olderFirst(a, b *kbatchv1.Job) int {
	switch {
	case a.Status.StartTime == nil && b.Status.StartTime == nil:
		return strings.Compare(a.Name, b.Name)
	case a.Status.StartTime == nil:
		return 1
	case b.Status.StartTime == nil:
		return -1
	}
	if c := a.Status.StartTime.Compare(b.Status.StartTime.Time); c != 0 {
		return c
	}
	return strings.Compare(a.Name, b.Name)
}
