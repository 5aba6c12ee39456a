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
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"text/template"

	"sigs.k8s.io/yaml"
)

const testRole = `---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: manager-role
rules:
- apiGroups:
  - batch
  resources:
  - jobs
  verbs:
  - get
`

// render executes a generated template as Helm would, with stand-ins for
// the chart's named templates, and decodes the one object it yields.
func render(t *testing.T, tmpl string, namespaced bool) map[string]any {
	t.Helper()
	funcs := template.FuncMap{
		"include": func(name string, _ any) string { return strings.TrimPrefix(name, "cronlab.") },
		"nindent": func(n int, s string) string { return "\n" + strings.Repeat(" ", n) + s },
	}
	parsed, err := template.New("role").Funcs(funcs).Parse(tmpl)
	if err != nil {
		t.Fatalf("the generated template does not parse: %v\n%s", err, tmpl)
	}
	var out bytes.Buffer
	values := map[string]any{
		"Values":  map[string]any{"namespaced": namespaced},
		"Release": map[string]any{"Namespace": "alice"},
	}
	if err := parsed.Execute(&out, values); err != nil {
		t.Fatal(err)
	}
	var obj map[string]any
	if err := yaml.Unmarshal([]byte(strings.TrimPrefix(out.String(), "---\n")), &obj); err != nil {
		t.Fatalf("namespaced=%v renders no YAML: %v\n%s", namespaced, err, out.String())
	}
	return obj
}

func TestTemplatizeMakesAClusterRoleARoleWhenScoped(t *testing.T) {
	path := filepath.Join(t.TempDir(), "role.yaml")
	if err := os.WriteFile(path, []byte(testRole), 0o644); err != nil {
		t.Fatal(err)
	}
	var scoped bytes.Buffer
	if err := templatize(&scoped, path, ".Values.namespaced"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		namespaced      bool
		kind, namespace string
	}{
		{false, "ClusterRole", ""},
		{true, "Role", "alice"},
	} {
		obj := render(t, scoped.String(), tc.namespaced)
		meta := obj["metadata"].(map[string]any)
		ns, _ := meta["namespace"].(string)
		if obj["kind"] != tc.kind || ns != tc.namespace {
			t.Errorf("namespaced=%v: a %v in namespace %q, want a %s in namespace %q:\n%s",
				tc.namespaced, obj["kind"], ns, tc.kind, tc.namespace, scoped.String())
		}
		if meta["name"] != "fullname-manager-role" || len(obj["rules"].([]any)) != 1 {
			t.Errorf("namespaced=%v: the name or the rules changed: %v", tc.namespaced, obj)
		}
	}

	// Without a condition, the file is what it was before scoping existed.
	var plain bytes.Buffer
	if err := templatize(&plain, path, ""); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), "namespaced") || !strings.Contains(plain.String(), "\nkind: ClusterRole\n") {
		t.Errorf("without scopedBy the ClusterRole must stay as it is:\n%s", plain.String())
	}
}
