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

// The procedure of docs/answers/api-evolution.md, on a real API server and
// its etcd: cronlab stores v1 and will, but a project whose next version
// becomes the stored one goes through these steps. The test moves the
// storage version to v2, and reads etcd itself to show what is stored.

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	kbatchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	batchv1 "cronlab.dev/cronlab/api/v1"
	batchv2 "cronlab.dev/cronlab/api/v2"
	webhookv1 "cronlab.dev/cronlab/internal/webhook/v1"
	"cronlab.dev/cronlab/test/utils"
)

const crdName = "cronjobs.batch.cronlab.dev"

func TestTheStorageVersionMovesOnlyWhenObjectsAreRewritten(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	root := filepath.Join("..", "..")
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, apiextensionsv1.AddToScheme, batchv1.AddToScheme, batchv2.AddToScheme} {
		if err := add(scheme); err != nil {
			t.Fatal(err)
		}
	}

	// An API server with v2 served through the conversion webhook, as
	// config/with-webhooks has it; its own, as the test changes the CRD.
	assets, err := utils.EnvtestAssets(root)
	if err != nil {
		t.Fatal(err)
	}
	installed, err := utils.CRDServingV2(root)
	if err != nil {
		t.Fatal(err)
	}
	env := utils.WithoutWatchCache(&envtest.Environment{
		CRDs:                  []*apiextensionsv1.CustomResourceDefinition{installed},
		CRDInstallOptions:     envtest.CRDInstallOptions{Scheme: scheme},
		BinaryAssetsDirectory: assets,
		UseExistingCluster:    ptr.To(false),
	})
	cfg, err := utils.StartEnvtest(env)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	opts := env.WebhookInstallOptions
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:        scheme,
		Metrics:       metricsserver.Options{BindAddress: "0"},
		WebhookServer: webhook.NewServer(webhook.Options{Host: opts.LocalServingHost, Port: opts.LocalServingPort, CertDir: opts.LocalServingCertDir}),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := webhookv1.SetupCronJobWebhookWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	go func() { _ = mgr.Start(ctx) }()
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	etcd, err := clientv3.New(clientv3.Config{Endpoints: []string{env.ControlPlane.Etcd.URL.String()}, DialTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = etcd.Close() })
	stored := func() map[string]string {
		t.Helper()
		resp, err := etcd.Get(ctx, "/", clientv3.WithPrefix())
		if err != nil {
			t.Fatal(err)
		}
		versions := map[string]string{}
		for _, kv := range resp.Kvs {
			if key := string(kv.Key); strings.Contains(key, "/batch.cronlab.dev/cronjobs/") {
				var obj struct{ APIVersion string }
				if err := json.Unmarshal(kv.Value, &obj); err != nil {
					t.Fatalf("%s: %v", key, err)
				}
				versions[key[strings.LastIndex(key, "/")+1:]] = obj.APIVersion
			}
		}
		return versions
	}

	create := func(name string) {
		t.Helper()
		cj := &batchv1.CronJob{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
			Spec: batchv1.CronJobSpec{Schedule: "*/5 * * * *", JobTemplate: kbatchv1.JobTemplateSpec{Spec: kbatchv1.JobSpec{
				Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "c", Image: "busybox"}},
				}},
			}}},
		}
		// The webhook server may still be starting: the conversion of the
		// create's answer needs it.
		deadline := time.Now().Add(20 * time.Second)
		for err := c.Create(ctx, cj); err != nil; err = c.Create(ctx, cj) {
			if time.Now().After(deadline) {
				t.Fatalf("creating %s: %v", name, err)
			}
			time.Sleep(200 * time.Millisecond)
			cj.ResourceVersion = ""
		}
	}
	crdNow := func() *apiextensionsv1.CustomResourceDefinition {
		t.Helper()
		var crd apiextensionsv1.CustomResourceDefinition
		if err := c.Get(ctx, client.ObjectKey{Name: crdName}, &crd); err != nil {
			t.Fatal(err)
		}
		return &crd
	}

	create("first")
	create("second")
	if got := stored(); got["first"] != "batch.cronlab.dev/v1" || got["second"] != "batch.cronlab.dev/v1" {
		t.Fatalf("stored before the move: %v, want both as v1", got)
	}

	t.Log("moving the storage version to v2")
	crd := crdNow()
	for i := range crd.Spec.Versions {
		crd.Spec.Versions[i].Storage = crd.Spec.Versions[i].Name == "v2"
	}
	if err := c.Update(ctx, crd); err != nil {
		t.Fatal(err)
	}
	if got := crdNow().Status.StoredVersions; !slices.Equal(got, []string{"v1", "v2"}) {
		t.Fatalf("status.storedVersions = %v, want [v1 v2]", got)
	}
	create("third") // through v1, as a client that has not heard of v2 would
	got := stored()
	if got["first"] != "batch.cronlab.dev/v1" || got["second"] != "batch.cronlab.dev/v1" || got["third"] != "batch.cronlab.dev/v2" {
		t.Fatalf("stored after the move: %v; want the old objects still as v1, the new one as v2", got)
	}

	t.Log("removing v1 from the CRD before the objects are rewritten: the API server refuses")
	crd = crdNow()
	crd.Spec.Versions = slices.DeleteFunc(crd.Spec.Versions, func(v apiextensionsv1.CustomResourceDefinitionVersion) bool { return v.Name == "v1" })
	if err := c.Update(ctx, crd); err == nil || !strings.Contains(err.Error(), "storedVersions") {
		t.Fatalf("removing v1 while it is stored: got %v, want a refusal that names status.storedVersions", err)
	}

	var out bytes.Buffer
	if err := migrate(ctx, cfg, crdName, &out); err != nil {
		t.Fatalf("migrate: %v\n%s", err, out.String())
	}
	t.Logf("migrate-storage said:\n%s", out.String())
	if !strings.Contains(out.String(), "rewrote 3 objects as v2") {
		t.Errorf("migrate-storage said:\n%s\nwant it to report 3 objects rewritten as v2", out.String())
	}
	for name, version := range stored() {
		if version != "batch.cronlab.dev/v2" {
			t.Errorf("%s is stored as %s after the rewrite", name, version)
		}
	}
	if got := crdNow().Status.StoredVersions; !slices.Equal(got, []string{"v2"}) {
		t.Errorf("status.storedVersions = %v after the rewrite, want [v2]", got)
	}

	t.Log("now v1 can go")
	crd = crdNow()
	crd.Spec.Versions = slices.DeleteFunc(crd.Spec.Versions, func(v apiextensionsv1.CustomResourceDefinitionVersion) bool { return v.Name == "v1" })
	if err := c.Update(ctx, crd); err != nil {
		t.Fatalf("removing v1 after the rewrite: %v", err)
	}
	var first batchv2.CronJob
	if err := c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "first"}, &first); err != nil {
		t.Fatalf("reading an old object as v2 once v1 is gone: %v", err)
	}
	if first.Spec.Schedule.Cron == nil || first.Spec.Schedule.Cron.Minute != "*/5" {
		t.Errorf("first reads as %+v", first.Spec.Schedule)
	}

	out.Reset()
	if err := migrate(ctx, cfg, crdName, &out); err != nil || !strings.Contains(out.String(), "nothing to rewrite") {
		t.Errorf("a second run: %v\n%s", err, out.String())
	}
}
