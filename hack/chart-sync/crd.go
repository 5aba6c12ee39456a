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
	"fmt"
	"os"
	"reflect"
	"strconv"
	"strings"

	"sigs.k8s.io/yaml"
)

// patchOp is one operation of a JSON patch, as config/with-webhooks writes
// the CRD's conversion patch.
type patchOp struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	Value any    `json:"value"`
}

func readPatch(path string) ([]patchOp, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var ops []patchOp
	if err := yaml.Unmarshal(b, &ops); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return ops, nil
}

// templatizeCRD writes a CRD as a chart template: installed when
// crd.enable is on, kept on uninstall when crd.keep is on, and, when the
// webhooks are on, changed as config/with-webhooks' patch changes it (v2
// served, conversion by the release's webhook Service). The patch is read,
// not restated, so the chart and config/with-webhooks cannot disagree; an
// operation this function does not know how to template is an error.
func templatizeCRD(path string, patch []patchOp) (string, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	if bytes.Contains(raw, []byte("{{")) {
		return "", fmt.Errorf("it contains {{, which Helm would read as a template")
	}
	var crd map[string]any
	if err := yaml.Unmarshal(raw, &crd); err != nil {
		return "", err
	}
	var conversion any
	for _, op := range patch {
		switch {
		case op.Op == "test":
			if got := at(crd, op.Path); !reflect.DeepEqual(got, op.Value) {
				return "", fmt.Errorf("the conversion patch expects %v at %s, the CRD has %v", op.Value, op.Path, got)
			}
		case op.Op == "replace" && strings.HasSuffix(op.Path, "/served") && op.Value == true:
			if err := set(crd, op.Path, "CHART_WEBHOOKS_ENABLED"); err != nil {
				return "", err
			}
		case op.Op == "add" && op.Path == "/spec/conversion":
			conversion = op.Value
			client, ok := at(conversion, "/webhook/clientConfig/service").(map[string]any)
			if !ok {
				return "", fmt.Errorf("the conversion patch has no webhook.clientConfig.service")
			}
			client["name"] = fullname + "-webhook-service"
			client["namespace"] = namespace
			if err := set(conversion, "/webhook/clientConfig/caBundle", "CHART_CA_BUNDLE"); err != nil {
				return "", err
			}
			if err := set(crd, "/spec/conversion", "CHART_CONVERSION"); err != nil {
				return "", err
			}
		default:
			return "", fmt.Errorf("chart-sync does not know how to template %q of %s in the conversion patch: teach hack/chart-sync/crd.go", op.Op, op.Path)
		}
	}
	if conversion == nil {
		return "", fmt.Errorf("the conversion patch adds no /spec/conversion")
	}

	meta := crd["metadata"].(map[string]any)
	name := meta["name"].(string)
	annotations, _ := meta["annotations"].(map[string]any)
	if annotations == nil {
		annotations = map[string]any{}
	}
	annotations["CHART_CRD_ANNOTATIONS"] = ""
	meta["annotations"] = annotations
	meta["labels"] = map[string]any{labels: ""}

	body, err := yaml.Marshal(crd)
	if err != nil {
		return "", err
	}
	conv, err := yaml.Marshal(conversion)
	if err != nil {
		return "", err
	}
	s := string(body)
	s = replaceOnce(s, "    CHART_CRD_ANNOTATIONS: \"\"\n", ""+
		"    {{- if .Values.crd.keep }}\n"+
		"    helm.sh/resource-policy: keep\n"+
		"    {{- end }}\n"+
		"    {{- if and .Values.webhooks.enabled .Values.certManager.enabled }}\n"+
		"    cert-manager.io/inject-ca-from: {{ .Release.Namespace }}/{{ include \"cronlab.certificate\" . }}\n"+
		"    {{- end }}\n")
	s = replaceOnce(s, "    "+labels+": \"\"\n", "    {{- include \"cronlab.labels\" . | nindent 4 }}\n")
	s = replaceOnce(s, "served: CHART_WEBHOOKS_ENABLED\n", "served: {{ .Values.webhooks.enabled }}\n")
	s = replaceOnce(s, "  conversion: CHART_CONVERSION\n", ""+
		"  {{- if .Values.webhooks.enabled }}\n"+
		"  conversion:\n"+
		indent(string(conv), "    ")+
		"  {{- end }}\n")
	s = caBundle(s)
	s = strings.ReplaceAll(s, fullname, `{{ include "cronlab.fullname" . }}`)
	s = strings.ReplaceAll(s, namespace, `{{ .Release.Namespace }}`)
	if strings.Contains(s, "CHART_") {
		return "", fmt.Errorf("a placeholder was left in the template")
	}
	return fmt.Sprintf(header, path+" and config/with-webhooks/crd_conversion_patch.yaml") +
		"{{- if .Values.crd.enable }}\n" +
		"{{- include \"cronlab.crdOwner\" (dict \"name\" " + strconv.Quote(name) + " \"ctx\" .) }}\n" +
		"---\n" + s + "{{- end }}\n", nil
}

// caBundle replaces each caBundle placeholder, at whatever depth, by the
// chart's caBundle value, which only the path without cert-manager needs.
func caBundle(s string) string {
	var out strings.Builder
	for _, line := range strings.SplitAfter(s, "\n") {
		pad, ok := strings.CutSuffix(line, "caBundle: CHART_CA_BUNDLE\n")
		if !ok || strings.TrimLeft(pad, " ") != "" {
			out.WriteString(line)
			continue
		}
		fmt.Fprintf(&out, "%s{{- if not .Values.certManager.enabled }}\n", pad)
		fmt.Fprintf(&out, "%scaBundle: {{ required \"webhooks.caBundle is needed when certManager.enabled is false\" .Values.webhooks.caBundle }}\n", pad)
		fmt.Fprintf(&out, "%s{{- end }}\n", pad)
	}
	return out.String()
}

func replaceOnce(s, old, new string) string {
	if strings.Count(s, old) != 1 {
		panic(fmt.Sprintf("chart-sync: %q occurs %d times, want once", old, strings.Count(s, old)))
	}
	return strings.Replace(s, old, new, 1)
}

func indent(s, pad string) string {
	lines := strings.SplitAfter(strings.TrimSuffix(s, "\n"), "\n")
	for i := range lines {
		lines[i] = pad + lines[i]
	}
	return strings.Join(lines, "") + "\n"
}

// at follows a JSON pointer (/spec/versions/1/name) through maps and lists.
func at(v any, pointer string) any {
	for _, key := range strings.Split(strings.TrimPrefix(pointer, "/"), "/") {
		switch x := v.(type) {
		case map[string]any:
			v = x[key]
		case []any:
			i, err := strconv.Atoi(key)
			if err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

// set puts value at a JSON pointer whose parent exists.
func set(v any, p string, value any) error {
	parent, key := p[:strings.LastIndex(p, "/")], p[strings.LastIndex(p, "/")+1:]
	container := v
	if parent != "" {
		container = at(v, parent)
	}
	switch x := container.(type) {
	case map[string]any:
		x[key] = value
	case []any:
		i, err := strconv.Atoi(key)
		if err != nil || i < 0 || i >= len(x) {
			return fmt.Errorf("no element %s", p)
		}
		x[i] = value
	default:
		return fmt.Errorf("nothing at %s", parent)
	}
	return nil
}
