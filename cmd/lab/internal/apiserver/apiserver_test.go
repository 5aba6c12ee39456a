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

package apiserver

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	kbatchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
	"cronlab.dev/cronlab/internal/controlplane"
)

// TestSharedServer follows the shared API server through the checks of an
// attendee: started once, reused with the last check's objects gone,
// started again when the CRDs change, and stopped by its own bookkeeping.
func TestSharedServer(t *testing.T) {
	l := i18n.English
	assets, err := controlplane.Assets(filepath.Join("..", "..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("KUBEBUILDER_ASSETS", assets)
	lab := filepath.Join(t.TempDir(), "lab")
	if out, err := exec.Command("go", "build", "-o", lab, "../..").CombinedOutput(); err != nil {
		t.Fatalf("building the lab tool: %v\n%s", err, out)
	}
	LabExecutable = func() (string, error) { return lab, nil }
	t.Cleanup(func() { LabExecutable = os.Executable })

	tree := t.TempDir() // a clone with one CRD file
	crds := filepath.Join(tree, "config", "crd", "bases")
	must(t, os.MkdirAll(crds, 0o755))
	must(t, os.WriteFile(filepath.Join(crds, "a.yaml"), []byte("# version 1\n"), 0o644))
	s := Open(tree)
	t.Cleanup(func() { _ = s.Stop() })

	env, release, err := s.Acquire(l, tree)
	if err != nil {
		t.Fatal(err)
	}
	if want := "KUBECONFIG=" + s.path("kubeconfig"); !strings.Contains(strings.Join(env, " "), want) {
		t.Errorf("env %q lacks %s", env, want)
	}
	first, _ := s.state()
	kube := clientFor(t, s)
	ctx := context.Background()
	ns, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "leftover-"}}, metav1.CreateOptions{})
	must(t, err)
	for _, in := range []string{ns.Name, "default"} {
		_, err := kube.BatchV1().Jobs(in).Create(ctx, job("leftover"), metav1.CreateOptions{})
		must(t, err)
	}
	release()

	// The next check reuses the server, without what the last one left.
	_, release, err = s.Acquire(l, tree)
	if err != nil {
		t.Fatal(err)
	}
	release()
	if again, _ := s.state(); again.Server != first.Server {
		t.Errorf("the server was started again (%v, then %v); want it reused", first.Server, again.Server)
	}
	if _, err := kube.CoreV1().Namespaces().Get(ctx, ns.Name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("namespace %s: %v; want it deleted", ns.Name, err)
	}
	if jobs, err := kube.BatchV1().Jobs("default").List(ctx, metav1.ListOptions{}); err != nil || len(jobs.Items) != 0 {
		t.Errorf("Jobs in default: %v, %v; want none", jobs, err)
	}

	// New CRDs: a new server, and the old one and its etcd and kube-apiserver
	// are gone.
	must(t, os.WriteFile(filepath.Join(crds, "a.yaml"), []byte("# version 2\n"), 0o644))
	_, release, err = s.Acquire(l, tree)
	if err != nil {
		t.Fatal(err)
	}
	release()
	second, _ := s.state()
	if second.Server == first.Server {
		t.Errorf("the server is still %v after the CRDs changed", first.Server)
	}
	if anyOurs(append([]process{first.Server}, first.Children...)) {
		t.Errorf("the first server or its children still run: %v", first)
	}

	must(t, s.Stop())
	if anyOurs(append([]process{second.Server}, second.Children...)) {
		t.Errorf("stop left the server or its children running: %v", second)
	}
	if _, err := s.state(); err == nil {
		t.Error("stop left the server's state behind")
	}

	// An attendee deletes the clone while its server runs: nothing will
	// ever check with it again, and the server stops on its own.
	_, release, err = s.Acquire(l, tree)
	if err != nil {
		t.Fatal(err)
	}
	release()
	third, err := s.state()
	must(t, err)
	must(t, os.RemoveAll(s.dir))
	all := append([]process{third.Server}, third.Children...)
	for deadline := time.Now().Add(time.Minute); anyOurs(all); time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("a minute after its state directory was deleted, the server or its children still run: %v", third)
		}
	}
}

func clientFor(t *testing.T, s Server) kubernetes.Interface {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", s.path("kubeconfig"))
	must(t, err)
	return kubernetes.NewForConfigOrDie(cfg)
}

func job(name string) *kbatchv1.Job {
	return &kbatchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: kbatchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
		RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "c", Image: "busybox"}},
	}}}}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// LAB_SHARED_APISERVER turns the shared server off, in the spellings people
// use; anything else leaves it on.
func TestTheSharedServerCanBeTurnedOff(t *testing.T) {
	for value, want := range map[string]bool{"": true, "on": true, "1": true, "off": false, "OFF": false, "0": false, "false": false, "no": false} {
		t.Setenv(sharedOff, value)
		if got := Enabled(); got != want {
			t.Errorf("%s=%q: Enabled() = %v, want %v", sharedOff, value, got, want)
		}
	}
}
