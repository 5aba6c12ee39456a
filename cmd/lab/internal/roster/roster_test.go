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

package roster

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/yaml"

	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
)

var cronJobs = schema.GroupVersionResource{Group: "batch.cronlab.dev", Version: "v1", Resource: "cronjobs"}

func cronJob(name string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "batch.cronlab.dev/v1", "kind": "CronJob", "metadata": map[string]any{"name": name},
		"spec": map[string]any{"schedule": "*/1 * * * *", "jobTemplate": map[string]any{"spec": map[string]any{"template": map[string]any{
			"spec": map[string]any{"restartPolicy": "OnFailure", "containers": []any{map[string]any{"name": "c", "image": "busybox"}}}}}}},
	}}
}

// asAttendee is the cluster as the kubeconfig setup wrote for name sees it.
func asAttendee(t *testing.T, out, name string) *Cluster {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", filepath.Join(out, name+".kubeconfig"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewCluster(cfg, name)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A class of two on a real API server with RBAC (envtest): each attendee's
// kubeconfig may do what the lab needs in their namespace, and nothing in
// the other's or to the cluster; setup runs twice; teardown removes what
// setup made and nothing else.
func TestAClassOfTwoOnOneAPIServer(t *testing.T) {
	env := &envtest.Environment{}
	cfg, err := env.Start()
	if err != nil {
		t.Fatalf("envtest: %v (make test sets KUBEBUILDER_ASSETS)", err)
	}
	defer func() { _ = env.Stop() }()
	admin, err := NewCluster(cfg, "envtest")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	other := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "not-the-class"}}
	if _, err := admin.Kube.CoreV1().Namespaces().Create(ctx, other, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	o := Options{Class: "lab", Out: out, TTL: time.Hour, CRDDir: filepath.Join("..", "..", "..", "..", "config", "crd", "bases")}
	for run := range 2 { // setup may run again
		files, err := Setup(ctx, i18n.English, admin, []string{"ada", "bob"}, o)
		if err != nil || len(files) != 2 {
			t.Fatalf("setup, run %d: %v %v", run+1, files, err)
		}
	}
	if fi, err := os.Stat(filepath.Join(out, "ada.kubeconfig")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("ada's kubeconfig: %v, mode %v; want 0600, it holds a token", err, fi.Mode())
	}

	bobsJob, err := admin.Dynamic.Resource(cronJobs).Namespace("lab-bob").Create(ctx, cronJob("bobs"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ada := asAttendee(t, out, "ada")
	// What the lab needs in ada's namespace: her CronJobs and their
	// status, Jobs, Pods, Events, a Lease for her manager.
	if _, err := ada.Dynamic.Resource(cronJobs).Namespace("lab-ada").Create(ctx, cronJob("adas"), metav1.CreateOptions{}); err != nil {
		t.Errorf("ada creating a CronJob in lab-ada: %v", err)
	}
	if _, err := ada.Kube.BatchV1().Jobs("lab-ada").List(ctx, metav1.ListOptions{}); err != nil {
		t.Errorf("ada listing Jobs in lab-ada: %v", err)
	}
	if _, err := ada.Kube.CoreV1().Pods("lab-ada").List(ctx, metav1.ListOptions{}); err != nil {
		t.Errorf("ada listing Pods in lab-ada: %v", err)
	}
	lease := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "cronlab.batch.cronlab.dev"}}
	if _, err := ada.Kube.CoordinationV1().Leases("lab-ada").Create(ctx, lease, metav1.CreateOptions{}); err != nil {
		t.Errorf("ada's manager taking its Lease in lab-ada: %v", err)
	}
	// And nothing else: bob's namespace, the CRD, the cluster.
	forbidden := map[string]error{}
	_, forbidden["reading bob's CronJobs"] = ada.Dynamic.Resource(cronJobs).Namespace("lab-bob").List(ctx, metav1.ListOptions{})
	_, forbidden["creating a CronJob in bob's namespace"] = ada.Dynamic.Resource(cronJobs).Namespace("lab-bob").Create(ctx, cronJob("sneaky"), metav1.CreateOptions{})
	forbidden["deleting bob's CronJob"] = ada.Dynamic.Resource(cronJobs).Namespace("lab-bob").Delete(ctx, "bobs", metav1.DeleteOptions{})
	_, forbidden["reading the CRD"] = ada.Dynamic.Resource(crdResource).Get(ctx, "cronjobs.batch.cronlab.dev", metav1.GetOptions{})
	forbidden["deleting the CRD"] = ada.Dynamic.Resource(crdResource).Delete(ctx, "cronjobs.batch.cronlab.dev", metav1.DeleteOptions{})
	_, forbidden["listing namespaces"] = ada.Kube.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
	_, forbidden["reading (so changing) the Roles of her namespace"] = ada.Kube.RbacV1().Roles("lab-ada").Get(ctx, RoleName, metav1.GetOptions{})
	for what, err := range forbidden {
		if !apierrors.IsForbidden(err) {
			t.Errorf("ada %s: %v, want 403 Forbidden", what, err)
		}
	}
	still, err := admin.Dynamic.Resource(cronJobs).Namespace("lab-bob").Get(ctx, "bobs", metav1.GetOptions{})
	if err != nil || still.GetResourceVersion() != bobsJob.GetResourceVersion() {
		t.Errorf("bob's CronJob after ada's attempts: %v, resourceVersion %s, was %s", err, still.GetResourceVersion(), bobsJob.GetResourceVersion())
	}

	// A namespace of the same name that is not the class's is not taken.
	if _, err := Setup(ctx, i18n.English, admin, []string{"the-class"}, Options{Class: "not", Out: out, TTL: time.Hour, CRDDir: o.CRDDir}); err == nil ||
		!strings.Contains(err.Error(), "is not this class's") {
		t.Errorf("setup over a namespace it did not make: %v", err)
	}

	gone, err := Teardown(ctx, i18n.English, admin, "lab")
	if err != nil || strings.Join(gone, " ") != "lab-ada lab-bob cronjobs.batch.cronlab.dev" {
		t.Errorf("teardown removed %v (%v), want the two namespaces and the CRD it installed", gone, err)
	}
	for _, ns := range []string{"lab-ada", "lab-bob"} {
		// envtest has no namespace controller: a deleted namespace stays
		// Terminating, which is what the API server shows of a deletion.
		got, err := admin.Kube.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
		if err == nil && got.DeletionTimestamp == nil {
			t.Errorf("%s is not being deleted", ns)
		}
	}
	if got, err := admin.Kube.CoreV1().Namespaces().Get(ctx, "not-the-class", metav1.GetOptions{}); err != nil || got.DeletionTimestamp != nil {
		t.Errorf("teardown touched a namespace that is not the class's: %v", err)
	}
	theirsLeftAlone(ctx, t, admin, o)
}

// A CRD someone installed before the class (make install, the chart) is
// theirs: setup neither changes nor owns it, and teardown leaves it.
func theirsLeftAlone(ctx context.Context, t *testing.T, admin *Cluster, o Options) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(o.CRDDir, "batch.cronlab.dev_cronjobs.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	crd := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(raw, &crd.Object); err != nil {
		t.Fatal(err)
	}
	if err := waitDeleted(ctx, admin, crd.GetName()); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Dynamic.Resource(crdResource).Create(ctx, crd, metav1.CreateOptions{FieldManager: "make-install"}); err != nil {
		t.Fatal(err)
	}
	o.Class = "later"
	if _, err := Setup(ctx, i18n.English, admin, []string{"cy"}, o); err != nil {
		t.Fatal(err)
	}
	got, err := admin.Dynamic.Resource(crdResource).Get(ctx, crd.GetName(), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := got.GetAnnotations()[InstalledBy]; ok {
		t.Error("setup marked a CRD it did not install as its own")
	}
	for _, m := range got.GetManagedFields() {
		if m.Manager == FieldManager {
			t.Errorf("setup took over fields of a CRD it did not install: %+v", m)
		}
	}
	if _, err := Teardown(ctx, i18n.English, admin, "later"); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Dynamic.Resource(crdResource).Get(ctx, crd.GetName(), metav1.GetOptions{}); err != nil {
		t.Errorf("teardown deleted a CRD the class did not install: %v", err)
	}
}

// waitDeleted waits until a deleted CRD is gone (its CronJobs removed first).
func waitDeleted(ctx context.Context, c *Cluster, name string) error {
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if _, err := c.Dynamic.Resource(crdResource).Get(ctx, name, metav1.GetOptions{}); apierrors.IsNotFound(err) {
			return nil
		}
	}
	return fmt.Errorf("the CRD %s was not deleted within 30s", name)
}

func TestTheRosterSaysWhichLineIsWrong(t *testing.T) {
	dir := t.TempDir()
	write := func(text string) string {
		p := filepath.Join(dir, "roster.txt")
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	names, err := ReadNames(write("# the class of Thursday\nada\n\nbob\n"))
	if err != nil || strings.Join(names, ",") != "ada,bob" {
		t.Errorf("a good roster: %v %v", names, err)
	}
	for text, want := range map[string]string{
		"ada\nBob Smith\n": "roster.txt:2: \"Bob Smith\" cannot name a namespace",
		"ada\nbob\nada\n":  "roster.txt:3: \"ada\" is on the roster twice (first on line 1)",
		"# nobody\n":       "has no names",
	} {
		if _, err := ReadNames(write(text)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("roster %q: %v, want %q", text, err, want)
		}
	}
}
