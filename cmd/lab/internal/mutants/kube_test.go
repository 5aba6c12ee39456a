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

package mutants

import (
	"go/parser"
	"go/token"
	"maps"
	"slices"
	"strings"
	"testing"
)

// kubeSample calls, in one region, each name of the Kubernetes API that an
// operator has a rule for, as a controller does; the packages go by the
// names controllers give them, not always their own.
const kubeSample = `package sample

import (
	"sort"
	"slices"
	"time"

	kbatchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"

	batchv1 "cronlab.dev/cronlab/api/v1"
)

func (r *R) outside() time.Time { return r.Clock.Now() }

// lab:begin kube

func (r *R) reconcile(ctx context.Context, cj *batchv1.CronJob, job *kbatchv1.Job, jobs []kbatchv1.Job) error {
	now := r.now()
	later := r.Clock.Now()
	if err := r.Get(ctx, key, cj); err != nil {
		return err
	}
	if err := r.APIReader.Get(ctx, key, job); apierrors.IsNotFound(err) {
		return nil
	}
	var list kbatchv1.JobList
	if err := r.Client.List(ctx, &list, client.InNamespace(cj.Namespace), client.MatchingLabels{"app": cj.Name}); err != nil {
		return err
	}
	_ = controllerutil.SetControllerReference(cj, job, r.Scheme)
	metav1.SetMetaDataLabel(&job.ObjectMeta, "cronjob", cj.Name)
	if cj.Spec.ConcurrencyPolicy == batchv1.ForbidConcurrent && job.Status.Conditions[0].Type == kbatchv1.JobComplete {
		r.Recorder.Event(cj, corev1.EventTypeNormal, "Skipped", "a run is active")
	}
	if job.Status.Conditions[0].Status == corev1.ConditionTrue || meta.IsStatusConditionTrue(cj.Status.Conditions, "Ready") {
		return nil
	}
	_ = r.Delete(ctx, job, client.Preconditions{UID: &job.UID}, client.PropagationPolicy(metav1.DeletePropagationBackground))
	made := &kbatchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "n", Namespace: cj.Namespace, Labels: cj.Labels,
		OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(cj, gvk)}}}
	_ = r.Create(ctx, made)
	slices.SortFunc(jobs, olderFirst)
	sort.Slice(jobs, func(i, j int) bool { return jobs[i].Name < jobs[j].Name })
	if err := r.Update(ctx, job); err != nil {
		return err
	}
	return r.Status().Patch(ctx, cj, client.MergeFrom(before))
}

// A wrapper passes the verb on: no swap.
func (c *fenced) Patch(ctx context.Context, obj client.Object, patch client.Patch) error {
	return c.Client.Patch(ctx, obj, patch)
}

func olderFirst(a, b *kbatchv1.Job) int {
	if a.Status.StartTime == nil || b.Status.StartTime == nil {
		return 0
	}
	return a.Status.StartTime.Compare(b.Status.StartTime.Time)
}

// Not a comparator: two parameters of different types.
func started(a *kbatchv1.Job, n int) bool { return a.Status.StartTime != nil && n > 0 }

func wire(b *builder.Builder, mgr ctrl.Manager) *builder.Builder {
	return b.For(&batchv1.CronJob{}).Owns(&kbatchv1.Job{}).
		Watches(&corev1.Pod{}, handler.EnqueueRequestForOwner(mgr.GetScheme(), mgr.GetRESTMapper(), &batchv1.CronJob{}, handler.OnlyControllerOwner()))
}

// lab:end
`

func kubeMutantsOf(t *testing.T) []Mutant {
	t.Helper()
	return mutantsIn(t, "sample/kube.go", kubeSample, "kube")
}

// TestEachKubernetesOperatorBeforeAndAfter: each operator's rule, as the
// change it makes on the sample (what was written, what it became), and
// the mistakes no rule may make.
func TestEachKubernetesOperatorBeforeAndAfter(t *testing.T) {
	got := map[string]bool{}
	for _, m := range kubeMutantsOf(t) {
		if m.Op.IsKubernetes() {
			got[string(m.Op)+": "+m.Was+" -> "+m.Now] = true
		}
		if m.Func == "R.outside" {
			t.Errorf("a mutant outside the region: %s", m.Name())
		}
	}
	for _, c := range []struct {
		op       Op
		was, now string
	}{
		{WallClock, "r.now()", "time.Now()"},
		{WallClock, "r.Clock.Now()", "time.Now()"},
		{DirectRead, "r", "r.APIReader"},
		{DirectRead, "r.Client", "r.APIReader"},
		{CacheRead, "r.APIReader", "r"},
		{SiblingCall, "apierrors.IsNotFound", "apierrors.IsAlreadyExists"},
		{SiblingCall, "apierrors.IsNotFound", "apierrors.IsConflict"},
		{SiblingCall, "controllerutil.SetControllerReference", "controllerutil.SetOwnerReference"},
		{SiblingCall, "metav1.SetMetaDataLabel", "metav1.SetMetaDataAnnotation"},
		{SiblingCall, "metav1.NewControllerRef(cj, gvk)",
			"&metav1.OwnerReference{APIVersion: gvk.GroupVersion().String(), Kind: gvk.Kind, Name: cj.GetName(), UID: cj.GetUID()}"},
		{SwapEnum, "batchv1.ForbidConcurrent", "batchv1.ReplaceConcurrent"},
		{SwapEnum, "batchv1.ForbidConcurrent", "batchv1.AllowConcurrent"},
		{SwapEnum, "kbatchv1.JobComplete", "kbatchv1.JobFailed"},
		{SwapEnum, "corev1.EventTypeNormal", "corev1.EventTypeWarning"},
		{SwapEnum, "corev1.ConditionTrue", "corev1.ConditionFalse"},
		{SwapEnum, "metav1.DeletePropagationBackground", "metav1.DeletePropagationOrphan"},
		{SwapEnum, "metav1.DeletePropagationBackground", "metav1.DeletePropagationForeground"},
		{LooseCondition, "kbatchv1.JobComplete", "kbatchv1.JobSuccessCriteriaMet"},
		{LooseCondition, "job.Status.Conditions[0].Status == corev1.ConditionTrue", "job.Status.Conditions[0].Status != corev1.ConditionFalse"},
		{LooseCondition, `meta.IsStatusConditionTrue(cj.Status.Conditions, "Ready")`, `!meta.IsStatusConditionFalse(cj.Status.Conditions, "Ready")`},
		{DropOption, "client.InNamespace(cj.Namespace)", ""},
		{DropOption, `client.MatchingLabels{"app": cj.Name}`, ""},
		{DropOption, "client.Preconditions{UID: &job.UID}", ""},
		{DropOption, "client.PropagationPolicy(metav1.DeletePropagationBackground)", ""},
		{DropOption, "handler.OnlyControllerOwner()", ""},
		{DropMetaField, "Namespace: cj.Namespace", ""},
		{DropMetaField, "Labels: cj.Labels", ""},
		{DropMetaField, "OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(cj, gvk)}", ""},
		{DropWatch, "b.For(&batchv1.CronJob{}).Owns(&kbatchv1.Job{})", "b.For(&batchv1.CronJob{})"},
		{DropWatch, "b.For(&batchv1.CronJob{}).Owns(&kbatchv1.Job{}). ...", "b.For(&batchv1.CronJob{}).Owns(&kbatchv1.Job{})"},
		{ReverseSort, "slices.SortFunc(jobs, olderFirst)", "slices.SortFunc(jobs, olderFirst); slices.Reverse(jobs)"},
		{ReverseSort, "i, j int", "j, i int"},
		{SortKey, ".StartTime", ".CompletionTime"},
		{UpdateToPatch, "r.Update(ctx, job)", "r.Patch(ctx, job, client.MergeFrom(job.DeepCopy()))"},
		{PatchToUpdate, "r.Status().Patch(ctx, cj, client.MergeFrom(before))", "r.Status().Update(ctx, cj)"},
	} {
		if want := string(c.op) + ": " + c.was + " -> " + oneLine(c.now); !got[want] { // a long change is cut as a report line is
			t.Errorf("no mutant %q among:\n%s", want, strings.Join(slices.Sorted(maps.Keys(got)), "\n"))
		}
	}
	for _, not := range []string{
		"wall clock: time.Now() -> time.Now()",                              // the wall clock already
		"swap enum: kbatchv1.JobSuccessCriteriaMet -> kbatchv1.JobComplete", // a loose reading goes one way
		"direct read: r.APIReader -> r.APIReader",
		"patch to update: c.Client.Patch(ctx, obj, patch) -> c.Client.Update(ctx, obj)", // a wrapper's delegation
		"sort key: .CompletionTime -> .StartTime",                                       // the sample's comparator names none
	} {
		if got[not] {
			t.Errorf("a mutant %q, which no rule should make", not)
		}
	}
	for _, m := range kubeMutantsOf(t) {
		if m.Op == SortKey {
			if m.Func != "olderFirst" || strings.Count(m.mutated, "CompletionTime") != 4 || strings.Contains(m.mutated, "StartTime") {
				t.Errorf("%s: the comparator alone, keyed on the other field everywhere in it:\n%s", m.Name(), m.mutated)
			}
		}
	}
	for _, op := range Kubernetes {
		if !slices.ContainsFunc(slices.Collect(maps.Keys(got)), func(k string) bool { return strings.HasPrefix(k, string(op)+": ") }) {
			t.Errorf("the sample has no mutant of operator %q: give it a line that the operator's rule matches", op)
		}
	}
}

// TestKubernetesMutantsAreOneEditThatParses: each Kubernetes mutant
// changes only its function, and the file still parses, the rule that
// the generic ones follow.
func TestKubernetesMutantsAreOneEditThatParses(t *testing.T) {
	names := map[string]bool{}
	for _, m := range kubeMutantsOf(t) {
		if names[m.Name()] {
			t.Errorf("two mutants named %s", m.Name())
		}
		names[m.Name()] = true
		e := m.Mistake().Edits[0]
		mutated := strings.Replace(kubeSample, e.Replace, e.With, 1)
		if mutated == kubeSample {
			t.Errorf("%s changes nothing", m.Name())
		}
		if _, err := parser.ParseFile(token.NewFileSet(), "kube.go", mutated, 0); err != nil {
			t.Errorf("%s does not parse: %v\n%s", m.Name(), err, e.With)
		}
	}
}

// TestAPackageKnownByAnotherNameIsNotMatched: the rules know a package by
// its import path, so a local name that happens to be the same is left
// alone.
func TestAPackageKnownByAnotherNameIsNotMatched(t *testing.T) {
	src := `package sample

import corev1 "example.com/not/core"

// lab:begin kube

func f() string { return corev1.EventTypeNormal }

// lab:end
`
	ms, err := InFile("sample/other.go", []byte(src), map[string]bool{"kube": true})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if m.Op.IsKubernetes() {
			t.Errorf("a Kubernetes mutant of a package that is not Kubernetes': %s", m.Name())
		}
	}
}

// TestEveryOperatorIsGenericOrKubernetes: the report counts the two apart
// by these lists, so an operator in neither would be counted as generic
// without anyone deciding it.
func TestEveryOperatorIsGenericOrKubernetes(t *testing.T) {
	all := append(slices.Clone(Generic), Kubernetes...)
	for _, m := range append(mutantsOf(t), kubeMutantsOf(t)...) {
		if !slices.Contains(all, m.Op) {
			t.Errorf("operator %q is in neither mutants.Generic nor mutants.Kubernetes", m.Op)
		}
	}
	for _, op := range all {
		if strings.Contains(string(op), " (") || strings.Contains(string(op), ":") {
			t.Errorf("operator %q: a report finds the operator in a mutant's name between the file and \" (\"", op)
		}
	}
}
