//go:build linux

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

// Isolation: what attendee A's kubeconfig may not do to attendee B, nor to
// the cluster. Each attempt is a real request with A's token, and must come
// back 403 Forbidden: not 404 (which would mean A may look, and found
// nothing), not 401 (a broken token proves nothing), not success. The
// attempts on the CRD are dry runs: the API server authorizes a dry run
// exactly as the real request, and if RBAC were wrong a real delete of the
// CRD would take every CronJob of the cluster with it.

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"

	kbatchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	batchv1 "cronlab.dev/cronlab/api/v1"
)

const (
	crdName       = "cronjobs.batch.cronlab.dev"
	neighbourName = "neighbour" // B's suspended CronJob, the target of A's attempts
)

// attempt is one request A made, and what came back.
type attempt struct {
	What      string
	Forbidden bool
	Err       string // the API server's answer; "" when the request succeeded
}

// kubectlRun is a kubectl command with A's kubeconfig, and its output.
type kubectlRun struct {
	Command, Output string
	Exit            int
	Want            string
	Judged          bool // false: shown for what it teaches, whatever it says
}

// checkIsolation runs every attempt of A on B and on the cluster, then the
// same question through kubectl, as an attendee would ask it.
func (r *run) checkIsolation(ctx context.Context) error {
	a, b := r.attendees[0], r.attendees[1]
	target := cronJob(b.ns, neighbourName, true)
	if err := b.c.Create(ctx, target); err != nil {
		return fmt.Errorf("B (%s) could not create a CronJob in their own namespace: %w", b.name, err)
	}
	before := target.ResourceVersion
	progress("isolation: %s's kubeconfig against %s's namespace %s and the cluster", a.name, b.name, b.ns)
	for _, t := range r.attempts(a, b) {
		err := t.do(ctx)
		at := attempt{What: t.what, Forbidden: apierrors.IsForbidden(err)}
		if err != nil {
			at.Err = err.Error()
		}
		r.refusals = append(r.refusals, at)
		switch {
		case at.Forbidden && len(r.refusals) == 1:
			progress("  refused (403): %s:\n            %s", t.what, at.Err)
		case at.Forbidden:
			progress("  refused (403): %s", t.what)
		case err == nil:
			r.failf("isolation: %s was allowed; it must be refused with 403", t.what)
		default:
			r.failf("isolation: %s failed, but not with 403 Forbidden: %v", t.what, err)
		}
	}
	if err := r.neighbourUntouched(ctx, b, before); err != nil {
		return err
	}
	var own batchv1.CronJobList
	if err := a.c.List(ctx, &own, client.InNamespace(a.ns)); err != nil {
		r.failf("isolation: %s cannot even list the CronJobs of their own namespace: %v", a.name, err)
	}
	r.kubectlChecks(ctx, a, b)
	return nil
}

type try struct {
	what string
	do   func(ctx context.Context) error
}

func (r *run) attempts(a, b *attendee) []try {
	crd := &unstructured.Unstructured{}
	crd.SetGroupVersionKind(schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"})
	crd.SetName(crdName)
	neighbour := func() *batchv1.CronJob { return cronJob(b.ns, neighbourName, true) }
	annotate := client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"annotations":{"classrun.cronlab.dev/intruder":"`+a.name+`"}}}`))
	return []try{
		{fmt.Sprintf("list the CronJobs of %s", b.ns), func(ctx context.Context) error {
			return a.c.List(ctx, &batchv1.CronJobList{}, client.InNamespace(b.ns))
		}},
		{fmt.Sprintf("get the CronJob %s/%s", b.ns, neighbourName), func(ctx context.Context) error {
			return a.c.Get(ctx, client.ObjectKeyFromObject(neighbour()), neighbour())
		}},
		{fmt.Sprintf("list the Jobs of %s", b.ns), func(ctx context.Context) error {
			return a.c.List(ctx, &kbatchv1.JobList{}, client.InNamespace(b.ns))
		}},
		{fmt.Sprintf("create a CronJob in %s", b.ns), func(ctx context.Context) error {
			return a.c.Create(ctx, cronJob(b.ns, "intruder", true))
		}},
		{fmt.Sprintf("patch the CronJob %s/%s", b.ns, neighbourName), func(ctx context.Context) error {
			return a.c.Patch(ctx, neighbour(), annotate)
		}},
		{fmt.Sprintf("delete the CronJob %s/%s", b.ns, neighbourName), func(ctx context.Context) error {
			return a.c.Delete(ctx, neighbour())
		}},
		{"patch the CRD " + crdName + " (dry run)", func(ctx context.Context) error {
			return a.c.Patch(ctx, crd.DeepCopy(), annotate, client.DryRunAll)
		}},
		{"delete the CRD " + crdName + " (dry run)", func(ctx context.Context) error {
			return a.c.Delete(ctx, crd.DeepCopy(), client.DryRunAll)
		}},
		{"list the cluster's namespaces", func(ctx context.Context) error {
			return a.c.List(ctx, &corev1.NamespaceList{})
		}},
	}
}

// neighbourUntouched checks, as the instructor, that B's namespace holds
// what B put there and nothing else, unchanged.
func (r *run) neighbourUntouched(ctx context.Context, b *attendee, before string) error {
	var list batchv1.CronJobList
	if err := r.adminClient.List(ctx, &list, client.InNamespace(b.ns)); err != nil {
		return err
	}
	switch {
	case len(list.Items) != 1 || list.Items[0].Name != neighbourName:
		names := make([]string, 0, len(list.Items))
		for _, cj := range list.Items {
			names = append(names, cj.Name)
		}
		r.failf("isolation: %s holds the CronJobs %v after A's attempts; only %s was created there", b.ns, names, neighbourName)
	case list.Items[0].ResourceVersion != before:
		r.failf("isolation: %s/%s changed during A's attempts (resourceVersion %s, then %s)", b.ns, neighbourName, before, list.Items[0].ResourceVersion)
	default:
		r.neighbourSame = true
		progress("  %s/%s unchanged (resourceVersion %s); no other CronJob there", b.ns, neighbourName, before)
	}
	return nil
}

// kubectlChecks asks the same as an attendee would, with kubectl and A's
// kubeconfig: the refusal that docs quote, and kubectl auth can-i on both
// sides of the line. The lab's CronJobs are named in full: for the bare
// name "cronjobs" kubectl picks the built-in group, batch, whose CronJobs
// the attendee's Role does not grant in any namespace, so its refusal
// would prove nothing about the neighbour. What kubectl says to the bare
// name in the attendee's own namespace is shown, not judged.
func (r *run) kubectlChecks(ctx context.Context, a, b *attendee) {
	runs := []struct {
		args   []string
		want   string
		exit   int
		judged bool
	}{
		{[]string{"get", "cronjobs.batch.cronlab.dev", "-n", b.ns}, "Error from server (Forbidden)", 1, true},
		{[]string{"auth", "can-i", "create", "cronjobs.batch.cronlab.dev", "-n", a.ns}, "yes", 0, true},
		{[]string{"auth", "can-i", "create", "cronjobs.batch.cronlab.dev", "-n", b.ns}, "no", 1, true},
		{[]string{"get", "cronjobs.batch.cronlab.dev", "-n", a.ns}, "No resources found", 0, true},
		{[]string{"get", "cronjobs", "-n", a.ns}, "", 0, false},
	}
	for _, k := range runs {
		cmd := exec.CommandContext(ctx, r.cfg.kubectl, k.args...)
		cmd.Env = append(cleanEnv(), "KUBECONFIG="+a.kubeconfig)
		out, err := cmd.CombinedOutput()
		exit := 0
		if ee, ok := err.(*exec.ExitError); ok {
			exit = ee.ExitCode()
		} else if err != nil {
			r.failf("isolation: kubectl could not run (%v): -kubectl names it", err)
			return
		}
		kr := kubectlRun{Command: "KUBECONFIG=" + filepath.Base(a.kubeconfig) + " kubectl " + strings.Join(k.args, " "),
			Output: strings.TrimSpace(string(out)), Exit: exit, Want: k.want, Judged: k.judged}
		r.kubectlRuns = append(r.kubectlRuns, kr)
		progress("  $ %s\n            %s", kr.Command, kr.Output)
		if k.judged && (exit != k.exit || !strings.HasPrefix(kr.Output, k.want)) {
			r.failf("isolation: `%s` said %q (exit %d); expected %q (exit %d)", kr.Command, kr.Output, exit, k.want, k.exit)
		}
	}
}

// cronJob is a minimal valid CronJob of the lab's API: every minute, in
// UTC, a Job whose pod kwok completes at once. Suspended, it never runs.
func cronJob(ns, name string, suspend bool) *batchv1.CronJob {
	cj := &batchv1.CronJob{}
	cj.Namespace, cj.Name = ns, name
	cj.Spec.Schedule = "*/1 * * * *"
	cj.Spec.TimeZone = ptr.To("Etc/UTC")
	cj.Spec.Suspend = ptr.To(suspend)
	pod := &cj.Spec.JobTemplate.Spec.Template.Spec
	pod.RestartPolicy = corev1.RestartPolicyOnFailure
	pod.Containers = []corev1.Container{{Name: "hello", Image: "busybox:1.37", Args: []string{"/bin/sh", "-c", "date"}}}
	return cj
}
