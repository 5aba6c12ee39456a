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

// Package v1 holds the admission webhooks of batch.cronlab.dev/v1 CronJob.
//
// The API server calls them on every create and update, before it stores
// the object: the defaulting (mutating) webhook may fill in fields, the
// validating webhook may refuse the request. They complement the CRD's own
// schema and CEL rules (api/v1), which the API server checks by itself:
// the webhooks know what CEL cannot, such as whether a time zone exists,
// whether a schedule can ever fire, and who is asking.
//
// Webhooks are optional. With ENABLE_WEBHOOKS=false the manager starts
// without them (and without certificates); the CRD rules still hold.
package v1

import (
	"context"
	"fmt"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	batchv1 "cronlab.dev/cronlab/api/v1"
	"cronlab.dev/cronlab/internal/schedule"
)

// SetupCronJobWebhookWithManager registers the defaulting and validating
// webhooks with the manager's webhook server (port 9443, certificates from
// --webhook-cert-path) and, since v1 is the hub that v2 converts through,
// the conversion webhook at /convert.
func SetupCronJobWebhookWithManager(mgr ctrl.Manager) error {
	return ctrl.NewWebhookManagedBy(mgr, &batchv1.CronJob{}).
		WithDefaulter(&CronJobDefaulter{}).
		WithValidator(&CronJobValidator{Client: mgr.GetClient()}).
		Complete()
}

// The webhook markers become config/webhook/manifests.yaml (make manifests):
// which requests the API server sends to which path.

// lab:begin webhook-default

// +kubebuilder:webhook:path=/mutate-batch-cronlab-dev-v1-cronjob,mutating=true,failurePolicy=fail,sideEffects=None,groups=batch.cronlab.dev,resources=cronjobs,verbs=create;update,versions=v1,name=mcronjob-v1.kb.io,admissionReviewVersions=v1

// CronJobDefaulter fills in the defaults of batch/v1 CronJob. The CRD has
// the same defaults as markers, and the API server applies those first; the
// webhook shows the other way, which can also compute defaults from other
// fields. It never overwrites what the user set.
type CronJobDefaulter struct{}

func (d *CronJobDefaulter) Default(_ context.Context, cj *batchv1.CronJob) error {
	if cj.Spec.ConcurrencyPolicy == "" {
		cj.Spec.ConcurrencyPolicy = batchv1.AllowConcurrent
	}
	if cj.Spec.Suspend == nil {
		cj.Spec.Suspend = ptr.To(false)
	}
	if cj.Spec.SuccessfulJobsHistoryLimit == nil {
		cj.Spec.SuccessfulJobsHistoryLimit = ptr.To[int32](3)
	}
	if cj.Spec.FailedJobsHistoryLimit == nil {
		cj.Spec.FailedJobsHistoryLimit = ptr.To[int32](1)
	}
	return nil
}

// lab:end

// lab:begin webhook-validate

// +kubebuilder:webhook:path=/validate-batch-cronlab-dev-v1-cronjob,mutating=false,failurePolicy=fail,sideEffects=None,groups=batch.cronlab.dev,resources=cronjobs,verbs=create;update,versions=v1,name=vcronjob-v1.kb.io,admissionReviewVersions=v1
// +kubebuilder:rbac:groups=authorization.k8s.io,resources=subjectaccessreviews,verbs=create

// CronJobValidator refuses CronJobs that could never run as meant, and
// CronJobs whose author may not run Jobs in that namespace.
type CronJobValidator struct {
	// Client creates SubjectAccessReviews: "may this user create Jobs here?"
	Client client.Client
}

func (v *CronJobValidator) ValidateCreate(ctx context.Context, cj *batchv1.CronJob) (admission.Warnings, error) {
	errs := ValidateCronJob(cj, nil)
	errs = append(errs, v.requesterMayCreateJobs(ctx, cj)...)
	return nil, invalid(cj, errs)
}

func (v *CronJobValidator) ValidateUpdate(ctx context.Context, old, cj *batchv1.CronJob) (admission.Warnings, error) {
	errs := ValidateCronJob(cj, old)
	errs = append(errs, v.requesterMayCreateJobs(ctx, cj)...)
	return nil, invalid(cj, errs)
}

func (v *CronJobValidator) ValidateDelete(context.Context, *batchv1.CronJob) (admission.Warnings, error) {
	return nil, nil
}

func invalid(cj *batchv1.CronJob, errs field.ErrorList) error {
	if len(errs) == 0 {
		return nil
	}
	return apierrors.NewInvalid(batchv1.GroupVersion.WithKind("CronJob").GroupKind(), cj.Name, errs)
}

// ValidateCronJob checks a CronJob as upstream's API validation checks a
// batch/v1 CronJob. old is nil on create. As upstream, it checks the name's
// length on create only, since an update cannot change a name; the CRD's own
// rule (api/v1), which the API server applies before any webhook, checks it
// on update too, so a longer name that predates that rule can be deleted but
// not changed. The time zone is checked on update only if it changed, so
// that a zone removed from a later tzdata does not lock the object.
func ValidateCronJob(cj, old *batchv1.CronJob) field.ErrorList {
	var errs field.ErrorList
	spec := field.NewPath("spec")

	if old == nil && len(cj.Name) > 52 {
		errs = append(errs, field.Invalid(field.NewPath("metadata", "name"), cj.Name,
			"must be at most 52 characters: Job names add 11 characters to it and may have at most 63"))
	}

	// The schedule is checked in UTC here, so that a bad time zone is
	// reported on its own field below.
	if _, err := schedule.Parse(cj.Spec.Schedule, "Etc/UTC"); err != nil {
		errs = append(errs, fieldError(spec, err))
	}
	if tz := cj.Spec.TimeZone; tz != nil && (old == nil || !ptr.Equal(old.Spec.TimeZone, tz)) {
		if _, err := schedule.LoadTimeZone(*tz); err != nil {
			errs = append(errs, fieldError(spec, err))
		}
	}

	switch cj.Spec.ConcurrencyPolicy {
	case batchv1.AllowConcurrent, batchv1.ForbidConcurrent, batchv1.ReplaceConcurrent:
	default:
		errs = append(errs, field.NotSupported(spec.Child("concurrencyPolicy"), cj.Spec.ConcurrencyPolicy,
			[]batchv1.ConcurrencyPolicy{batchv1.AllowConcurrent, batchv1.ForbidConcurrent, batchv1.ReplaceConcurrent}))
	}
	for _, f := range []struct {
		name  string
		value *int64
	}{
		{"startingDeadlineSeconds", cj.Spec.StartingDeadlineSeconds},
		{"successfulJobsHistoryLimit", widen(cj.Spec.SuccessfulJobsHistoryLimit)},
		{"failedJobsHistoryLimit", widen(cj.Spec.FailedJobsHistoryLimit)},
	} {
		if f.value != nil && *f.value < 0 {
			errs = append(errs, field.Invalid(spec.Child(f.name), *f.value, "must be 0 or more"))
		}
	}

	job := spec.Child("jobTemplate", "spec")
	if cj.Spec.JobTemplate.Spec.Selector != nil {
		errs = append(errs, field.Forbidden(job.Child("selector"), "must not be set: the Job controller makes one for every Job"))
	}
	if ptr.Deref(cj.Spec.JobTemplate.Spec.ManualSelector, false) {
		errs = append(errs, field.Forbidden(job.Child("manualSelector"), "must not be true: the Job controller makes a selector for every Job"))
	}
	if p := cj.Spec.JobTemplate.Spec.Template.Spec.RestartPolicy; p != "OnFailure" && p != "Never" {
		errs = append(errs, field.NotSupported(job.Child("template", "spec", "restartPolicy"), p, []string{"OnFailure", "Never"}))
	}
	return errs
}

func fieldError(spec *field.Path, err error) *field.Error {
	if e, ok := err.(*schedule.InvalidError); ok {
		return field.Invalid(spec.Child(e.Field), e.Value, e.Reason)
	}
	return field.InternalError(spec, err)
}

func widen(n *int32) *int64 {
	if n == nil {
		return nil
	}
	return ptr.To(int64(*n))
}

// requesterMayCreateJobs closes a privilege escalation: cronlab's manager
// may create Jobs in every namespace, so without this check anyone allowed
// to create a CronJob could run any workload through it, even where they
// may not create Jobs themselves. The API server tells the webhook who is
// asking; a SubjectAccessReview asks the API server whether that user may
// create Jobs in the CronJob's namespace.
func (v *CronJobValidator) requesterMayCreateJobs(ctx context.Context, cj *batchv1.CronJob) field.ErrorList {
	req, err := admission.RequestFromContext(ctx)
	if err != nil {
		return field.ErrorList{field.InternalError(nil, err)}
	}
	user := req.UserInfo
	extra := map[string]authorizationv1.ExtraValue{}
	for k, v := range user.Extra {
		extra[k] = authorizationv1.ExtraValue(v)
	}
	review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User: user.Username, UID: user.UID, Groups: user.Groups, Extra: extra,
		ResourceAttributes: &authorizationv1.ResourceAttributes{
			Namespace: cj.Namespace, Verb: "create", Group: "batch", Resource: "jobs",
		},
	}}
	if err := v.Client.Create(ctx, review); err != nil {
		return field.ErrorList{field.InternalError(nil, fmt.Errorf("asking the API server whether %q may create Jobs: %w", user.Username, err))}
	}
	if !review.Status.Allowed {
		return field.ErrorList{field.Forbidden(field.NewPath("spec", "jobTemplate"),
			fmt.Sprintf("user %q may not create Jobs in namespace %q, so may not create a CronJob that would create them", user.Username, cj.Namespace))}
	}
	return nil
}

// lab:end
