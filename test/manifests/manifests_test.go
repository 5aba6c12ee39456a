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

// Package manifests checks what kustomize builds from config/ and what Helm
// renders from charts/cronlab: the overlays no test cluster here can apply
// (config/with-webhooks needs cert-manager), read for the references that
// must meet, and the chart's CRD against config's.
package manifests

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
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
		Labels      map[string]string `json:"labels"`
	} `json:"metadata"`
	Spec map[string]any `json:"spec"`
	// Of RBAC objects (namespaced_test.go).
	Rules    []any          `json:"rules"`
	RoleRef  map[string]any `json:"roleRef"`
	Subjects []any          `json:"subjects"`
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
	readTree(t, filepath.Join("..", "..", "config"))
	out, err := exec.Command(kustomize, "build", filepath.Join("..", "..", "config", dir)).Output()
	if err != nil {
		t.Fatalf("kustomize build config/%s: %v", dir, err)
	}
	return decode(t, "config/"+dir, out)
}

// render runs bin/helm (make helm) template on the chart with --set values.
func render(t *testing.T, set ...string) []object {
	t.Helper()
	helm, err := filepath.Abs(filepath.Join("..", "..", "bin", "helm"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(helm); err != nil {
		t.Fatalf("%s is missing: run make helm (make test does)", helm)
	}
	readTree(t, filepath.Join("..", "..", "charts"))
	args := []string{"template", "lab", filepath.Join("..", "..", "charts", "cronlab"), "--namespace", "lab-system"}
	for _, s := range set {
		args = append(args, "--set", s)
	}
	var stderr bytes.Buffer
	cmd := exec.Command(helm, args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("helm %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return decode(t, "charts/cronlab", out)
}

// readTree reads every file under dir. go test caches a package's result
// keyed by the files the test itself opened, and helm and kustomize read
// theirs in a child process: without this, a changed chart or overlay
// would be answered from the cache.
func readTree(t *testing.T, dir string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		_, err = os.ReadFile(path)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func decode(t *testing.T, source string, out []byte) []object {
	t.Helper()
	var objs []object
	for _, doc := range bytes.Split(out, []byte("\n---\n")) {
		var o object
		if err := yaml.Unmarshal(doc, &o); err != nil {
			t.Fatalf("%s: %v", source, err)
		}
		if o.Kind != "" {
			objs = append(objs, o)
		}
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
	checkConversionService(t, crd, objs)

	// cert-manager: the Certificate's CA goes into the CRD and both webhook
	// configurations, and the Certificate names an Issuer that exists.
	checkCertManager(t, objs)
}

// checkConversionService checks that the CRD's conversion webhook calls
// the webhook Service among objs, on the path controller-runtime serves.
func checkConversionService(t *testing.T, crd object, objs []object) {
	t.Helper()
	var webhookService *object
	for _, svc := range find(objs, "Service") {
		if strings.HasSuffix(svc.Metadata.Name, "webhook-service") {
			webhookService = &svc
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
}

func checkCertManager(t *testing.T, objs []object) {
	t.Helper()
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

// The chart's CRD is config's CRD: hack/chart-sync writes it from the same
// files, and these specs hold it to that. With the webhooks off it is
// config/default's (v1 only); with them on, config/with-webhooks' (v2
// served, converted by the release's own webhook Service).
func TestTheChartsCRDIsConfigsCRD(t *testing.T) {
	for _, tc := range []struct {
		name, config string
		set          []string
	}{
		{"webhooks off", "default", nil},
		{"webhooks and cert-manager on", "with-webhooks", []string{"webhooks.enabled=true", "certManager.enabled=true"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs := render(t, tc.set...)
			chartCRDs := find(objs, "CustomResourceDefinition")
			configCRDs := find(build(t, tc.config), "CustomResourceDefinition")
			if len(chartCRDs) != 1 || len(configCRDs) != 1 {
				t.Fatalf("the chart renders %d CRDs and config/%s %d, want one each", len(chartCRDs), tc.config, len(configCRDs))
			}
			chart, config := chartCRDs[0], configCRDs[0]
			if chart.Metadata.Name != config.Metadata.Name {
				t.Fatalf("the chart's CRD is %s, config's %s", chart.Metadata.Name, config.Metadata.Name)
			}
			// The Service differs by name and namespace, as each names its
			// own; compare it apart, and the rest as it is.
			if get(chart.Spec, "conversion.webhook") != nil {
				checkConversionService(t, chart, objs)
				checkCertManager(t, objs)
				delete(get(chart.Spec, "conversion.webhook.clientConfig").(map[string]any), "service")
				delete(get(config.Spec, "conversion.webhook.clientConfig").(map[string]any), "service")
			}
			if !reflect.DeepEqual(chart.Spec, config.Spec) {
				t.Errorf("the chart's CRD spec differs from config/%s's: run make chart, or teach hack/chart-sync the change", tc.config)
			}
			if chart.Metadata.Annotations["helm.sh/resource-policy"] != "keep" {
				t.Errorf("the CRD is not kept on uninstall by default (annotations %v): helm uninstall would delete every CronJob", chart.Metadata.Annotations)
			}
			if chart.Metadata.Labels["app.kubernetes.io/instance"] != "lab" {
				t.Errorf("the CRD lacks the release's labels: %v", chart.Metadata.Labels)
			}
		})
	}
}

func TestTheChartsCRDWithoutCertManagerTrustsTheGivenCA(t *testing.T) {
	crds := find(render(t, "webhooks.enabled=true", "webhooks.caBundle=Zm9v"), "CustomResourceDefinition")
	if len(crds) != 1 {
		t.Fatalf("%d CRDs, want 1", len(crds))
	}
	if got := get(crds[0].Spec, "conversion.webhook.clientConfig.caBundle"); got != "Zm9v" {
		t.Errorf("the conversion webhook trusts caBundle %v, want the value webhooks.caBundle", got)
	}
	if _, ok := crds[0].Metadata.Annotations["cert-manager.io/inject-ca-from"]; ok {
		t.Error("without cert-manager the CRD must not ask for its CA to be injected")
	}
}

func TestTheChartsCRDSwitches(t *testing.T) {
	if crds := find(render(t, "crd.enable=false"), "CustomResourceDefinition"); len(crds) != 0 {
		t.Errorf("crd.enable=false still renders %d CRDs", len(crds))
	}
	crds := find(render(t, "crd.keep=false"), "CustomResourceDefinition")
	if len(crds) != 1 {
		t.Fatalf("%d CRDs, want 1", len(crds))
	}
	if _, ok := crds[0].Metadata.Annotations["helm.sh/resource-policy"]; ok {
		t.Error("crd.keep=false still keeps the CRD on uninstall")
	}
}
