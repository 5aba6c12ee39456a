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

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	batchv1 "cronlab.dev/cronlab/api/v1"
)

func newNamespace(s *apiServer) string {
	GinkgoHelper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "webhook-test-"}}
	Expect(s.client.Create(ctx, ns)).To(Succeed())
	return ns.Name
}

var _ = Describe("Bad CronJobs", func() {
	for _, mode := range []struct {
		name     string
		server   func() *apiServer
		webhooks bool
	}{
		{"with webhooks", func() *apiServer { return withWebhooks }, true},
		{"without webhooks", func() *apiServer { return withoutWebhooks }, false},
	} {
		Context(mode.name, func() {
			It("accept the valid CronJob that the bad inputs start from, and one whose name has the most characters the CRD allows, 52", func() {
				s := mode.server()
				ns := newNamespace(s)
				Expect(s.client.Create(ctx, validCronJob(ns, "good"))).To(Succeed())
				Expect(s.client.Create(ctx, validCronJob(ns, strings.Repeat("a", 52)))).To(Succeed())
			})

			for i, bad := range badInputs {
				refused := mode.webhooks || !bad.webhookOnly
				title := fmt.Sprintf("are refused: %s", bad.name)
				if !refused {
					title = fmt.Sprintf("cannot all be caught by the CRD: %s is stored", bad.name)
				}
				It(title, func() {
					s := mode.server()
					cj := validCronJob(newNamespace(s), fmt.Sprintf("bad-%d", i))
					bad.spoil(cj)
					err := s.client.Create(ctx, cj)
					if !refused {
						Expect(err).NotTo(HaveOccurred())
						return
					}
					Expect(err).To(HaveOccurred())
					Expect(err.Error()).To(Equal(bad.answer(cj)))
					Expect(apierrors.IsInvalid(err) || apierrors.IsForbidden(err)).To(BeTrue(), "an Invalid (422) or Forbidden (403) answer, not a server error")
					stored := s.client.Get(ctx, client.ObjectKeyFromObject(cj), &batchv1.CronJob{})
					Expect(apierrors.IsNotFound(stored)).To(BeTrue(), "nothing was stored")
				})
			}
		})
	}

	It("are refused on update too", func() {
		ns := newNamespace(withWebhooks)
		cj := validCronJob(ns, "later-broken")
		Expect(withWebhooks.client.Create(ctx, cj)).To(Succeed())
		cj.Spec.Schedule = "0 0 30 2 *"
		err := withWebhooks.client.Update(ctx, cj)
		Expect(err).To(MatchError(`admission webhook "vcronjob-v1.kb.io" denied the request: CronJob.batch.cronlab.dev "later-broken" is invalid: spec.schedule: Invalid value: "0 0 30 2 *": never fires: February has no day 30`))
		var stored batchv1.CronJob
		Expect(withWebhooks.client.Get(ctx, client.ObjectKeyFromObject(cj), &stored)).To(Succeed())
		Expect(stored.Spec.Schedule).To(Equal("*/5 * * * *"))
	})
})

var _ = Describe("ValidateCronJob on update, as upstream", func() {
	// defaulted is a valid CronJob as the API server hands it to the
	// webhook: with the defaults filled in (the webhook's, which are the
	// CRD's).
	defaulted := func() *batchv1.CronJob {
		cj := validCronJob("ns", "x")
		Expect((&CronJobDefaulter{}).Default(ctx, cj)).To(Succeed())
		return cj
	}

	It("does not check the name length again, so a long name can still be changed", func() {
		old := defaulted()
		old.Name = "a-name-from-before-the-limit-that-is-longer-than-fifty-two"
		cj := old.DeepCopy()
		cj.Spec.Suspend = ptr.To(true)
		Expect(ValidateCronJob(cj, old)).To(BeEmpty())
		Expect(ValidateCronJob(cj, nil)).To(ConsistOf(HaveField("Field", "metadata.name")))
	})

	It("checks the time zone only when it changes", func() {
		old := defaulted()
		old.Spec.TimeZone = ptr.To("Removed/FromTzdata")
		cj := old.DeepCopy()
		cj.Spec.Suspend = ptr.To(true)
		Expect(ValidateCronJob(cj, old)).To(BeEmpty())
		cj.Spec.TimeZone = ptr.To("Also/Unknown")
		Expect(ValidateCronJob(cj, old)).To(ConsistOf(HaveField("Field", "spec.timeZone")))
	})
})

var _ = Describe("Defaulting", func() {
	It("fills in upstream's defaults", func() {
		cj := validCronJob("ns", "x")
		Expect((&CronJobDefaulter{}).Default(ctx, cj)).To(Succeed())
		Expect(cj.Spec.ConcurrencyPolicy).To(Equal(batchv1.AllowConcurrent))
		Expect(cj.Spec.Suspend).To(Equal(ptr.To(false)))
		Expect(cj.Spec.SuccessfulJobsHistoryLimit).To(Equal(ptr.To[int32](3)))
		Expect(cj.Spec.FailedJobsHistoryLimit).To(Equal(ptr.To[int32](1)))
	})

	It("never overwrites what the user set", func() {
		cj := validCronJob("ns", "x")
		cj.Spec.ConcurrencyPolicy = batchv1.ForbidConcurrent
		cj.Spec.Suspend = ptr.To(true)
		cj.Spec.SuccessfulJobsHistoryLimit = ptr.To[int32](0)
		cj.Spec.FailedJobsHistoryLimit = ptr.To[int32](7)
		Expect((&CronJobDefaulter{}).Default(ctx, cj)).To(Succeed())
		Expect(cj.Spec.ConcurrencyPolicy).To(Equal(batchv1.ForbidConcurrent))
		Expect(cj.Spec.Suspend).To(Equal(ptr.To(true)))
		Expect(cj.Spec.SuccessfulJobsHistoryLimit).To(Equal(ptr.To[int32](0)))
		Expect(cj.Spec.FailedJobsHistoryLimit).To(Equal(ptr.To[int32](7)))
	})

	It("gives a CronJob stored through the API the same defaults, with or without webhooks", func() {
		for _, s := range []*apiServer{withWebhooks, withoutWebhooks} {
			cj := validCronJob(newNamespace(s), "defaults")
			Expect(s.client.Create(ctx, cj)).To(Succeed())
			var stored batchv1.CronJob
			Expect(s.client.Get(ctx, client.ObjectKeyFromObject(cj), &stored)).To(Succeed())
			Expect(stored.Spec.ConcurrencyPolicy).To(Equal(batchv1.AllowConcurrent))
			Expect(stored.Spec.Suspend).To(Equal(ptr.To(false)))
			Expect(stored.Spec.SuccessfulJobsHistoryLimit).To(Equal(ptr.To[int32](3)))
			Expect(stored.Spec.FailedJobsHistoryLimit).To(Equal(ptr.To[int32](1)))
		}
	})
})

// The CRD's defaults reach the webhook first, so through the API server the
// webhook's defaulting cannot be seen: the spec above passes without it. This
// one sends the mutating webhook a CronJob as an API server without the CRD's
// defaults would, and reads what it answers.
var _ = Describe("The mutating webhook", func() {
	It("answers a CronJob without defaults with a patch that adds upstream's", func() {
		cj := validCronJob("ns", "bare")
		raw, err := json.Marshal(cj)
		Expect(err).NotTo(HaveOccurred())
		review, err := json.Marshal(admissionv1.AdmissionReview{
			TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
			Request: &admissionv1.AdmissionRequest{
				UID: "1", Operation: admissionv1.Create, Object: runtime.RawExtension{Raw: raw},
				Kind: metav1.GroupVersionKind{Group: "batch.cronlab.dev", Version: "v1", Kind: "CronJob"},
			},
		})
		Expect(err).NotTo(HaveOccurred())
		answer := httptest.NewRecorder()
		request := httptest.NewRequest(http.MethodPost, "/mutate-batch-cronlab-dev-v1-cronjob", bytes.NewReader(review))
		request.Header.Set("Content-Type", "application/json")
		mgr.GetWebhookServer().WebhookMux().ServeHTTP(answer, request)

		var got admissionv1.AdmissionReview
		Expect(json.Unmarshal(answer.Body.Bytes(), &got)).To(Succeed(), "the webhook's answer: %s", answer.Body.String())
		Expect(got.Response).NotTo(BeNil())
		Expect(got.Response.Allowed).To(BeTrue())
		var patch []map[string]any
		Expect(json.Unmarshal(got.Response.Patch, &patch)).To(Succeed())
		Expect(patch).To(ContainElements(
			And(HaveKeyWithValue("path", "/spec/concurrencyPolicy"), HaveKeyWithValue("value", "Allow")),
			And(HaveKeyWithValue("path", "/spec/suspend"), HaveKeyWithValue("value", false)),
			And(HaveKeyWithValue("path", "/spec/successfulJobsHistoryLimit"), HaveKeyWithValue("value", BeEquivalentTo(3))),
			And(HaveKeyWithValue("path", "/spec/failedJobsHistoryLimit"), HaveKeyWithValue("value", BeEquivalentTo(1))),
		), "SetupCronJobWebhookWithManager must register CronJobDefaulter (WithDefaulter)")
	})
})

var _ = Describe("Who may create a CronJob", func() {
	// userIn returns a client for a user who may create CronJobs in ns,
	// and Jobs too if mayCreateJobs.
	userIn := func(s *apiServer, ns, name string, mayCreateJobs bool) client.Client {
		GinkgoHelper()
		rules := []rbacv1.PolicyRule{{APIGroups: []string{"batch.cronlab.dev"}, Resources: []string{"cronjobs"}, Verbs: []string{"create", "get"}}}
		if mayCreateJobs {
			rules = append(rules, rbacv1.PolicyRule{APIGroups: []string{"batch"}, Resources: []string{"jobs"}, Verbs: []string{"create"}})
		}
		Expect(s.client.Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Rules: rules})).To(Succeed())
		Expect(s.client.Create(ctx, &rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
			RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: name},
			Subjects:   []rbacv1.Subject{{Kind: "User", APIGroup: "rbac.authorization.k8s.io", Name: name}},
		})).To(Succeed())
		user, err := s.env.AddUser(envtest.User{Name: name}, nil)
		Expect(err).NotTo(HaveOccurred())
		c, err := client.New(user.Config(), client.Options{Scheme: scheme.Scheme})
		Expect(err).NotTo(HaveOccurred())
		return c
	}

	It("lets a user who may create Jobs create a CronJob", func() {
		ns := newNamespace(withWebhooks)
		alice := userIn(withWebhooks, ns, "alice", true)
		Expect(alice.Create(ctx, validCronJob(ns, "alices"))).To(Succeed())
	})

	It("refuses a user who may create CronJobs but not Jobs, so the operator cannot run Jobs for them", func() {
		ns := newNamespace(withWebhooks)
		bob := userIn(withWebhooks, ns, "bob", false)
		cj := validCronJob(ns, "bobs")
		err := bob.Create(ctx, cj)
		Expect(err).To(MatchError(`admission webhook "vcronjob-v1.kb.io" denied the request: CronJob.batch.cronlab.dev "bobs" is invalid: ` + mayNotCreateJobs("bob", ns)))
		Expect(apierrors.IsNotFound(withWebhooks.client.Get(ctx, client.ObjectKeyFromObject(cj), &batchv1.CronJob{}))).To(BeTrue())
	})

	It("cannot stop such a user without the webhook: only RBAC on CronJobs applies", func() {
		ns := newNamespace(withoutWebhooks)
		bob := userIn(withoutWebhooks, ns, "bob", false)
		Expect(bob.Create(ctx, validCronJob(ns, "bobs"))).To(Succeed())
	})
})
