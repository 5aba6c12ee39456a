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

// Package runs holds what a CronJob controller decides about a run and its
// Job without talking to the API server: which run is due, the name of its
// Job, whether a Job has finished, how status.active refers to it, and when
// to look again. Both controllers of the lab call these functions: the
// reference (internal/controller, with controller-runtime) and the one
// written by hand (internal/handwritten, client-go only, stage 16), so the
// two differ only in the machinery around the decisions.
//
// Nothing here imports a client: the functions are tested with plain
// values (runs_test.go), as upstream tests its cronjob utils.
package runs

import (
	"fmt"
	"maps"
	"slices"
	"time"

	kbatchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	batchv1 "cronlab.dev/cronlab/api/v1"
	"cronlab.dev/cronlab/internal/schedule"
)

// lab:begin children

// ControllerOf returns the owner reference of the CronJob that controls the
// Job, or nil when none does. It answers "whose Job is this?" for every path
// that asks: the reference's field index (IndexJobsByOwner), a Job found
// under the name of a run (createJob), and the hand-written controller's
// index and event handler (stage 16). The reference must be the controller
// (a Job has at most one) and name a CronJob of our API group, in any of its
// versions: upstream's CronJob (batch/v1) has the same Kind, and controls
// Jobs of its own.
func ControllerOf(job metav1.Object) *metav1.OwnerReference {
	ref := metav1.GetControllerOf(job)
	if ref == nil || ref.Kind != "CronJob" {
		return nil
	}
	if gv, err := schema.ParseGroupVersion(ref.APIVersion); err != nil || gv.Group != batchv1.GroupVersion.Group {
		return nil
	}
	return ref
}

// ControlledBy reports whether cronJob controls the Job. The UID decides,
// not the name: a CronJob deleted and created again under the same name is
// another CronJob, and the Jobs of the first are not its own.
func ControlledBy(job metav1.Object, cronJob *batchv1.CronJob) bool {
	ref := ControllerOf(job)
	return ref != nil && ref.UID == cronJob.UID
}

// JobFinished reports whether a Job has finished, and how: JobComplete or
// JobFailed. Only the Job controller decides that, through these conditions.
func JobFinished(job *kbatchv1.Job) (bool, kbatchv1.JobConditionType) {
	for _, c := range job.Status.Conditions {
		if (c.Type == kbatchv1.JobComplete || c.Type == kbatchv1.JobFailed) && c.Status == corev1.ConditionTrue {
			return true, c.Type
		}
	}
	return false, ""
}

// lab:end

// ActiveHas reports whether status.active lists the Job with this UID.
func ActiveHas(cronJob *batchv1.CronJob, uid types.UID) bool {
	return slices.ContainsFunc(cronJob.Status.Active, func(ref corev1.ObjectReference) bool { return ref.UID == uid })
}

// JobReference is how status.active refers to a running Job.
func JobReference(job *kbatchv1.Job) corev1.ObjectReference {
	return corev1.ObjectReference{
		APIVersion:      kbatchv1.SchemeGroupVersion.String(),
		Kind:            "Job",
		Namespace:       job.Namespace,
		Name:            job.Name,
		UID:             job.UID,
		ResourceVersion: job.ResourceVersion,
	}
}

// Recorded reports whether status, the CronJob's status as the API server
// stores it, already holds what the finished job told the controller: it
// no longer lists the Job as active, and a success is no later than
// lastSuccessfulTime. Only then may history cleanup delete the Job. Deleted
// first, with the manager stopped before its status write, a success would
// be lost for good: the one Job that told of it is gone
// (docs/reliability.md, "A crash between two writes").
func Recorded(status batchv1.CronJobStatus, job *kbatchv1.Job) bool {
	if slices.ContainsFunc(status.Active, func(ref corev1.ObjectReference) bool { return ref.UID == job.UID }) {
		return false
	}
	if _, how := JobFinished(job); how == kbatchv1.JobComplete && job.Status.CompletionTime != nil {
		return status.LastSuccessfulTime != nil && !job.Status.CompletionTime.After(status.LastSuccessfulTime.Time)
	}
	return true
}

// lab:begin build-job

// NewJob makes the Job for the run scheduled at run from the CronJob's
// template; run is in the CronJob's time zone, which the annotation keeps.
// Both controllers create their Jobs with it, so a Job looks the same
// whichever made it.
func NewJob(cronJob *batchv1.CronJob, run time.Time) *kbatchv1.Job {
	tmpl := cronJob.Spec.JobTemplate
	job := &kbatchv1.Job{
		ObjectMeta: metav1.ObjectMeta{
			Name:        JobName(cronJob, run),
			Namespace:   cronJob.Namespace,
			Labels:      maps.Clone(tmpl.Labels),
			Annotations: maps.Clone(tmpl.Annotations),
			// The controller reference makes the CronJob the owner of the
			// Job: the garbage collector deletes the Job when the CronJob is
			// deleted, and Owns() routes the Job's events to this CronJob.
			// controllerutil.SetControllerReference writes the same
			// reference, looking the Kind up in a scheme; here it is known.
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(cronJob, batchv1.GroupVersion.WithKind("CronJob"))},
		},
		Spec: *tmpl.Spec.DeepCopy(),
	}
	// Set after the template's labels, so that a template cannot take it
	// away: without it the cache would not hold the Job (cache.go).
	metav1.SetMetaDataLabel(&job.ObjectMeta, batchv1.CronJobLabel, cronJob.Name)
	// The scheduled time, in the CronJob's time zone, so people and tools can
	// tell which run a Job belongs to (and the benchmark can measure skew).
	metav1.SetMetaDataAnnotation(&job.ObjectMeta, batchv1.ScheduledTimeAnnotation, run.Format(time.RFC3339))
	return job
}

// JobName is the name of the Job for the run scheduled at t. It is the same
// every time it is computed, and that is what makes creating a Job safe to
// repeat: a second attempt for the same run fails with AlreadyExists instead
// of starting the run twice (discussion question 5). Like upstream, runs on
// whole minutes are numbered in minutes since 1970; runs between minutes,
// which only "@every" schedules have, in seconds, so they never collide.
func JobName(cronJob *batchv1.CronJob, t time.Time) string {
	if t.Second() == 0 {
		return fmt.Sprintf("%s-%d", cronJob.Name, t.Unix()/60)
	}
	return fmt.Sprintf("%s-%d", cronJob.Name, t.Unix())
}

// lab:end

// lab:begin start-run

// Due tells which run of the CronJob is due at now, if any, and when the
// next one is. The runs counted are those after the last one started
// (status.lastScheduleTime), or after the CronJob was created if none has
// started yet; startingDeadlineSeconds bounds how late a run may start.
func Due(cronJob *batchv1.CronJob, sched *schedule.Schedule, now time.Time) schedule.Due {
	last := cronJob.CreationTimestamp.Time
	if cronJob.Status.LastScheduleTime != nil {
		last = cronJob.Status.LastScheduleTime.Time
	}
	var deadline *time.Duration
	if s := cronJob.Spec.StartingDeadlineSeconds; s != nil {
		deadline = ptr.To(time.Duration(*s) * time.Second)
	}
	return sched.Due(last, now, deadline)
}

// lab:end

// RequeueDelay is how long to wait for the run at next. The small extra
// delay makes sure the clock reads at least next when the controller looks
// again, even if the timer and the clock disagree by a few milliseconds.
func RequeueDelay(now, next time.Time) time.Duration {
	return next.Sub(now) + 100*time.Millisecond
}
