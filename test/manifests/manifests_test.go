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

// Package manifests checks what kustomize builds from config/: the overlays
// no test cluster here can apply (config/with-webhooks needs cert-manager),
// read for the references that must meet.
package manifests

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// object is what these checks read of a manifest.
type object struct {
	Kind     string `json:"kind"`
	Metadata struct {
		Name        string            `json:"name"`
		Namespace   string            `json:"namespace"`
		Annotations map[string]string `json:"annotations"`
	} `json:"metadata"`
	Spec map[string]any `json:"spec"`
}

// build runs bin/kustomize (make kustomize) on a directory of config/.
func build(t *testing.T, dir string) []object {
	t.Helper()
	kustomize, err := filepath.Abs(filepath.Join("..", "..", "bin", "kustomize"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(kustomize); err != nil {
		t.Fatalf("%s is missing: run make kustomize (make test does)", kustomize)
	}
	out, err := exec.Command(kustomize, "build", filepath.Join("..", "..", "config", dir)).Output()
	if err != nil {
		t.Fatalf("kustomize build config/%s: %v", dir, err)
	}
	var objs []object
	for _, doc := range bytes.Split(out, []byte("\n---\n")) {
		var o object
		if err := yaml.Unmarshal(doc, &o); err != nil {
			t.Fatalf("config/%s: %v", dir, err)
		}
		objs = append(objs, o)
	}
	return objs
}

func find(objs []object, kind string) []object {
	var found []object
	for _, o := range objs {
		if o.Kind == kind {
			found = append(found, o)
		}
	}
	return found
}

// get follows a path of map keys and list indexes ("versions.1.served").
func get(v any, path string) any {
	for _, key := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[key]
		case []any:
			i := 0
			for _, c := range key {
				i = i*10 + int(c-'0')
			}
			if i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

func TestWithWebhooksServesV2ThroughTheConversionWebhook(t *testing.T) {
	objs := build(t, "with-webhooks")
	crds := find(objs, "CustomResourceDefinition")
	if len(crds) != 1 {
		t.Fatalf("%d CRDs, want 1", len(crds))
	}
	crd := crds[0]
	for i, want := range []struct {
		name           string
		served, stored bool
	}{{"v1", true, true}, {"v2", true, false}} {
		v := get(crd.Spec, "versions."+string(rune('0'+i)))
		if get(v, "name") != want.name || get(v, "served") != want.served || get(v, "storage") != want.stored {
			t.Errorf("version %d is %v %v %v, want %s served=%v storage=%v", i, get(v, "name"), get(v, "served"), get(v, "storage"), want.name, want.served, want.stored)
		}
	}
	if got := get(crd.Spec, "conversion.strategy"); got != "Webhook" {
		t.Fatalf("conversion strategy %v, want Webhook", got)
	}
	services := find(objs, "Service")
	var webhookService *object
	for i := range services {
		if strings.HasSuffix(services[i].Metadata.Name, "webhook-service") {
			webhookService = &services[i]
		}
	}
	if webhookService == nil {
		t.Fatal("no webhook Service")
	}
	if got := get(crd.Spec, "conversion.webhook.clientConfig.service.name"); got != webhookService.Metadata.Name {
		t.Errorf("the conversion webhook calls Service %v, the webhook Service is %s", got, webhookService.Metadata.Name)
	}
	if got := get(crd.Spec, "conversion.webhook.clientConfig.service.namespace"); got != webhookService.Metadata.Namespace {
		t.Errorf("the conversion webhook calls namespace %v, the webhook Service is in %s", got, webhookService.Metadata.Namespace)
	}
	if got := get(crd.Spec, "conversion.webhook.clientConfig.service.path"); got != "/convert" {
		t.Errorf("the conversion webhook calls %v, controller-runtime serves /convert", got)
	}

	// cert-manager: the Certificate's CA goes into the CRD and both webhook
	// configurations, and the Certificate names an Issuer that exists.
	certs := find(objs, "Certificate")
	if len(certs) != 1 {
		t.Fatalf("%d Certificates, want 1", len(certs))
	}
	cert := certs[0].Metadata.Namespace + "/" + certs[0].Metadata.Name
	for _, kind := range []string{"CustomResourceDefinition", "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"} {
		for _, o := range find(objs, kind) {
			if got := o.Metadata.Annotations["cert-manager.io/inject-ca-from"]; got != cert {
				t.Errorf("%s %s injects the CA of %q, the Certificate is %s", kind, o.Metadata.Name, got, cert)
			}
		}
	}
	issuer := get(certs[0].Spec, "issuerRef.name")
	found := false
	for _, o := range find(objs, "Issuer") {
		found = found || o.Metadata.Name == issuer
	}
	if !found {
		t.Errorf("the Certificate's issuer %v is not among the Issuers: cert-manager would never issue it", issuer)
	}
}

func TestEveryNameHasOnePrefix(t *testing.T) {
	for _, dir := range []string{"default", "with-webhooks"} {
		for _, o := range build(t, dir) {
			if strings.HasPrefix(o.Metadata.Name, "cronlab-cronlab-") {
				t.Errorf("config/%s: %s %s has the prefix twice", dir, o.Kind, o.Metadata.Name)
			}
		}
	}
}

func TestWithoutWebhooksV2IsNotServed(t *testing.T) {
	for _, crd := range find(build(t, "default"), "CustomResourceDefinition") {
		for _, v := range get(crd.Spec, "versions").([]any) {
			if get(v, "name") == "v2" && get(v, "served") != false {
				t.Errorf("config/default serves v2, which only the conversion webhook can convert")
			}
		}
		if c := get(crd.Spec, "conversion"); c != nil && get(c, "strategy") != "None" {
			t.Errorf("config/default converts with %v, and has no webhook", get(c, "strategy"))
		}
	}
}
