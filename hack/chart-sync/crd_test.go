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
)

const testCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: cronjobs.batch.cronlab.dev
spec:
  versions:
  - name: v1
    served: true
  - name: v2
    served: false
`

var conversionPatch = []patchOp{
	{Op: "replace", Path: "/spec/versions/1/served", Value: true},
	{Op: "test", Path: "/spec/versions/1/name", Value: "v2"},
	{Op: "add", Path: "/spec/conversion", Value: map[string]any{
		"strategy": "Webhook",
		"webhook": map[string]any{"clientConfig": map[string]any{
			"service": map[string]any{"name": "webhook-service", "namespace": "system", "path": "/convert"},
		}},
	}},
}

func writeCRD(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "crd.yaml")
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestTemplatizeCRD(t *testing.T) {
	out, err := templatizeCRD(writeCRD(t, testCRD), conversionPatch)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"{{- if .Values.crd.enable }}\n",
		"served: {{ .Values.webhooks.enabled }}\n",
		"  {{- if .Values.webhooks.enabled }}\n  conversion:\n",
		"name: {{ include \"cronlab.fullname\" . }}-webhook-service\n",
		"namespace: {{ .Release.Namespace }}\n",
		"caBundle: {{ required",
		"helm.sh/resource-policy: keep\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the template lacks %q:\n%s", want, out)
		}
	}
}

// A patch or a CRD that chart-sync cannot template faithfully stops it,
// rather than giving the chart a CRD that differs from config/'s.
func TestTemplatizeCRDRefusesWhatItCannotTemplate(t *testing.T) {
	for _, tc := range []struct {
		name, crd string
		patch     []patchOp
		want      string
	}{
		{"an operation it does not know", testCRD,
			append([]patchOp{{Op: "remove", Path: "/spec/versions/0"}}, conversionPatch...), `"remove" of /spec/versions/0`},
		{"a test that fails: v2 is not the second version", strings.Replace(testCRD, "name: v2", "name: v3", 1),
			conversionPatch, "expects v2 at /spec/versions/1/name"},
		{"no conversion", testCRD, conversionPatch[:2], "adds no /spec/conversion"},
		{"template braces in the CRD", testCRD + "  x: \"{{ y }}\"\n", conversionPatch, "Helm would read as a template"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := templatizeCRD(writeCRD(t, tc.crd), tc.patch)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
}
