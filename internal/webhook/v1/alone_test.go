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

package v1

// The CRD's schema and CEL rules refuse most of what ValidateCronJob checks
// before the API server calls the webhook (cases_test.go), so the suite's
// API servers cannot show that the webhook's own checks work: they never
// get the chance. A cluster whose CRD came from an older release, or was
// edited by hand, has only them. These specs call the webhook's code itself,
// with no API server, or with a fake one that answers the access review.

import (
	"context"
	"errors"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	batchv1 "cronlab.dev/cronlab/api/v1"
)

var _ = Describe("ValidateCronJob by itself, without the CRD's schema in front of it", func() {
	// plain is the valid CronJob without a time zone, defaulted as the API
	// server hands it to the webhook.
	plain := func() *batchv1.CronJob {
		cj := validCronJob("ns", "x")
		cj.Spec.TimeZone = nil
		Expect((&CronJobDefaulter{}).Default(context.Background(), cj)).To(Succeed())
		return cj
	}

	It("accepts a CronJob at every limit: a name of 52 characters, limits and deadline of 0, restartPolicy Never, no time zone", func() {
		cj := plain()
		cj.Name = strings.Repeat("a", 52)
		cj.Spec.StartingDeadlineSeconds = ptr.To[int64](0)
		cj.Spec.SuccessfulJobsHistoryLimit = ptr.To[int32](0)
		cj.Spec.FailedJobsHistoryLimit = ptr.To[int32](0)
		cj.Spec.JobTemplate.Spec.Template.Spec.RestartPolicy = "Never"
		Expect(ValidateCronJob(cj, nil)).To(BeEmpty())
		for _, policy := range []batchv1.ConcurrencyPolicy{batchv1.AllowConcurrent, batchv1.ForbidConcurrent, batchv1.ReplaceConcurrent} {
			cj.Spec.ConcurrencyPolicy = policy
			Expect(ValidateCronJob(cj, nil)).To(BeEmpty(), "concurrencyPolicy %s", policy)
		}
	})

	It("names the three concurrency policies it supports when it refuses another", func() {
		cj := plain()
		cj.Spec.ConcurrencyPolicy = "Sometimes"
		Expect(ValidateCronJob(cj, nil).ToAggregate()).To(MatchError(ContainSubstring(`supported values: "Allow", "Forbid", "Replace"`)))
	})

	for _, tc := range []struct {
		name  string
		spoil func(*batchv1.CronJob)
		field string
	}{
		{"a name of 53 characters", func(cj *batchv1.CronJob) { cj.Name = strings.Repeat("a", 53) }, "metadata.name"},
		{"an unknown concurrency policy", func(cj *batchv1.CronJob) { cj.Spec.ConcurrencyPolicy = "Sometimes" }, "spec.concurrencyPolicy"},
		{"a negative starting deadline", func(cj *batchv1.CronJob) { cj.Spec.StartingDeadlineSeconds = ptr.To[int64](-1) }, "spec.startingDeadlineSeconds"},
		{"a negative successful history limit", func(cj *batchv1.CronJob) { cj.Spec.SuccessfulJobsHistoryLimit = ptr.To[int32](-1) }, "spec.successfulJobsHistoryLimit"},
		{"a negative failed history limit", func(cj *batchv1.CronJob) { cj.Spec.FailedJobsHistoryLimit = ptr.To[int32](-1) }, "spec.failedJobsHistoryLimit"},
		{"a job template with a selector", func(cj *batchv1.CronJob) {
			cj.Spec.JobTemplate.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"a": "b"}}
		}, "spec.jobTemplate.spec.selector"},
		{"a job template with manualSelector", func(cj *batchv1.CronJob) { cj.Spec.JobTemplate.Spec.ManualSelector = ptr.To(true) }, "spec.jobTemplate.spec.manualSelector"},
		{"restartPolicy Always", func(cj *batchv1.CronJob) { cj.Spec.JobTemplate.Spec.Template.Spec.RestartPolicy = "Always" }, "spec.jobTemplate.spec.template.spec.restartPolicy"},
		{"restartPolicy not set", func(cj *batchv1.CronJob) { cj.Spec.JobTemplate.Spec.Template.Spec.RestartPolicy = "" }, "spec.jobTemplate.spec.template.spec.restartPolicy"},
	} {
		It("refuses "+tc.name+", on its own field", func() {
			cj := plain()
			tc.spoil(cj)
			Expect(ValidateCronJob(cj, nil)).To(ConsistOf(HaveField("Field", tc.field)))
		})
	}
})

var _ = Describe("The access review of the validating webhook, against a fake API server", func() {
	requester := authenticationv1.UserInfo{Username: "alice", UID: "u-1", Groups: []string{"team"},
		Extra: map[string]authenticationv1.ExtraValue{"scopes": {"jobs"}}}
	asked := func(req authenticationv1.UserInfo) context.Context {
		return admission.NewContextWithRequest(context.Background(), admission.Request{
			AdmissionRequest: admissionv1.AdmissionRequest{UserInfo: req}})
	}
	// cronJob is a valid CronJob of namespace team-a, defaulted as the API
	// server hands it to the webhook.
	cronJob := func() *batchv1.CronJob {
		cj := validCronJob("team-a", "x")
		Expect((&CronJobDefaulter{}).Default(context.Background(), cj)).To(Succeed())
		return cj
	}
	// reviewer answers every SubjectAccessReview with allowed, or with err,
	// and keeps the last one it was asked.
	reviewer := func(allowed bool, err error, last *authorizationv1.SubjectAccessReview) client.Client {
		return interceptor.NewClient(fake.NewClientBuilder().WithScheme(scheme.Scheme).Build(), interceptor.Funcs{
			Create: func(_ context.Context, _ client.WithWatch, obj client.Object, _ ...client.CreateOption) error {
				review := obj.(*authorizationv1.SubjectAccessReview)
				*last = *review.DeepCopy()
				review.Status.Allowed = allowed
				return err
			},
		})
	}

	It("asks about the requester, with each of their attributes, whether they may create Jobs in the CronJob's namespace", func() {
		var last authorizationv1.SubjectAccessReview
		v := &CronJobValidator{Client: reviewer(true, nil, &last)}
		_, err := v.ValidateCreate(asked(requester), cronJob())
		Expect(err).NotTo(HaveOccurred())
		Expect(last.Spec.User).To(Equal("alice"))
		Expect(last.Spec.UID).To(Equal("u-1"))
		Expect(last.Spec.Groups).To(Equal([]string{"team"}))
		Expect(last.Spec.Extra).To(Equal(map[string]authorizationv1.ExtraValue{"scopes": {"jobs"}}),
			"the review must carry the requester's extra attributes: an authorizer (a scoped token's) may decide on them")
		Expect(last.Spec.ResourceAttributes).To(Equal(&authorizationv1.ResourceAttributes{
			Namespace: "team-a", Verb: "create", Group: "batch", Resource: "jobs"}))
	})

	It("refuses an update by a user who may not create Jobs, as it refuses a create", func() {
		var last authorizationv1.SubjectAccessReview
		v := &CronJobValidator{Client: reviewer(false, nil, &last)}
		old := cronJob()
		cj := old.DeepCopy()
		cj.Spec.Suspend = ptr.To(true)
		_, err := v.ValidateUpdate(asked(requester), old, cj)
		Expect(err).To(MatchError(ContainSubstring(mayNotCreateJobs("alice", "team-a"))))
	})

	It("refuses, and does not let through, when it cannot know who asks or what the API server answers", func() {
		var last authorizationv1.SubjectAccessReview
		v := &CronJobValidator{Client: reviewer(true, nil, &last)}
		_, err := v.ValidateCreate(context.Background(), cronJob())
		Expect(err).To(MatchError(ContainSubstring("Internal error")), "a request without the admission request in its context")

		v = &CronJobValidator{Client: reviewer(true, errors.New("the API server is away"), &last)}
		_, err = v.ValidateCreate(asked(requester), cronJob())
		Expect(err).To(MatchError(ContainSubstring(`asking the API server whether "alice" may create Jobs: the API server is away`)))
	})
})
