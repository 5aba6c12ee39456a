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

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	jsonpatch "github.com/evanphx/json-patch/v5"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

var theCRD = filepath.Join("..", "..", "config", "crd", "bases", "batch.cronlab.dev_cronjobs.yaml")

// patch applies a JSON patch to the CRD as the API server would.
func patch(t *testing.T, crd []byte, p []byte) apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	decoded, err := jsonpatch.DecodePatch(p)
	if err != nil {
		t.Fatal(err)
	}
	out, err := decoded.Apply(crd)
	if err != nil {
		t.Fatalf("the patch does not apply: %v", err)
	}
	var got apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	return got
}

func served(crd apiextensionsv1.CustomResourceDefinition, version string) bool {
	for _, v := range crd.Spec.Versions {
		if v.Name == version {
			return v.Served
		}
	}
	return false
}

func TestTheCRDPatchesServeV2ThroughTheLocalManagerAndTakeItBack(t *testing.T) {
	raw, err := os.ReadFile(theCRD)
	if err != nil {
		t.Fatal(err)
	}
	installed, err := yaml.YAMLToJSON(raw)
	if err != nil {
		t.Fatal(err)
	}
	on, off, err := conversionPatches(theCRD, "https://192.0.2.1:9443", []byte("CA"))
	if err != nil {
		t.Fatal(err)
	}

	serving := patch(t, installed, on)
	if !served(serving, "v2") || !served(serving, "v1") {
		t.Errorf("after -serve-v2: v1 served %v, v2 served %v; want both", served(serving, "v1"), served(serving, "v2"))
	}
	conv := serving.Spec.Conversion
	if conv == nil || conv.Strategy != apiextensionsv1.WebhookConverter || *conv.Webhook.ClientConfig.URL != "https://192.0.2.1:9443/convert" ||
		string(conv.Webhook.ClientConfig.CABundle) != "CA" {
		t.Errorf("after -serve-v2 the conversion is %+v, want the webhook at https://192.0.2.1:9443/convert with the CA", conv)
	}

	servingJSON, err := yaml.Marshal(serving)
	if err != nil {
		t.Fatal(err)
	}
	servingJSON, _ = yaml.YAMLToJSON(servingJSON)
	back := patch(t, servingJSON, off)
	if served(back, "v2") || !served(back, "v1") || back.Spec.Conversion.Strategy != apiextensionsv1.NoneConverter {
		t.Errorf("after -unserve-v2: v2 served %v, conversion %+v; want v2 unserved and no conversion", served(back, "v2"), back.Spec.Conversion)
	}
}

func TestACRDWithoutV2IsRefusedBeforeAnythingIsPatched(t *testing.T) {
	old := filepath.Join(t.TempDir(), "crd.yaml")
	if err := os.WriteFile(old, []byte("spec:\n  versions:\n  - name: v1\n    served: true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := conversionPatches(old, "https://127.0.0.1:9443", nil); err == nil || !strings.Contains(err.Error(), "no version v2") {
		t.Errorf("got %v, want an error saying the CRD has no v2", err)
	}
}
