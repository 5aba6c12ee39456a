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

// Package api checks stage 2: the CRD that `make manifests` generates from
// your markers. It reads the YAML, the same file the API server is given,
// so it tests what the cluster will enforce, not what the Go code says.
package api

import (
	"os"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"cronlab.dev/cronlab/test/say"
)

func loadSchema(t *testing.T) apiextensionsv1.JSONSchemaProps {
	t.Helper()
	raw, err := os.ReadFile("../../config/crd/bases/batch.cronlab.dev_cronjobs.yaml")
	if err != nil {
		t.Fatal(say.Both("no CRD: run `make manifests` (%v)",
			"没有找到 CRD：请运行 `make manifests`（%v）", err))
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal(raw, &crd); err != nil {
		t.Fatal(err)
	}
	return *crd.Spec.Versions[0].Schema.OpenAPIV3Schema
}

func field(t *testing.T, s apiextensionsv1.JSONSchemaProps, path string) apiextensionsv1.JSONSchemaProps {
	t.Helper()
	for _, name := range strings.Split(path, ".") {
		next, ok := s.Properties[name]
		if !ok {
			t.Fatal(say.Both("the CRD has no field %s",
				"CRD 中没有字段 %s", path))
		}
		s = next
	}
	return s
}

func hasRule(s apiextensionsv1.JSONSchemaProps, contains string) bool {
	for _, r := range s.XValidations {
		if strings.Contains(r.Rule, contains) {
			return true
		}
	}
	return false
}

func TestScheduleIsRequiredAndChecked(t *testing.T) {
	schema := loadSchema(t)
	spec := field(t, schema, "spec")
	if !contains(spec.Required, "schedule") || !contains(spec.Required, "jobTemplate") {
		t.Error(say.Both("spec.schedule and spec.jobTemplate must be required (no omitempty, no +optional); required is %v",
			"spec.schedule 和 spec.jobTemplate 必须是必填字段（不加 omitempty，"+
				"也不加 +optional）；现在 required 为 %v", spec.Required))
	}
	schedule := field(t, schema, "spec.schedule")
	if schedule.MinLength == nil || *schedule.MinLength != 1 {
		t.Error(say.Both("spec.schedule needs +kubebuilder:validation:MinLength=1: an empty schedule must be refused",
			"spec.schedule 需要 +kubebuilder:validation:MinLength=1：空的时间表必须被拒绝"))
	}
	if !hasRule(schedule, "TZ") {
		t.Error(say.Both("spec.schedule needs a CEL rule (+kubebuilder:validation:XValidation) that refuses TZ anywhere, as in TZ= and CRON_TZ=",
			"spec.schedule 需要一条 CEL 规则（+kubebuilder:validation:XValidation），"+
				"拒绝任何位置出现的 TZ，例如 TZ= 和 CRON_TZ="))
	}
	if !hasRule(schedule, "matches(") && !hasRule(schedule, "findAll(") {
		t.Error(say.Both("spec.schedule needs a CEL rule that checks for five fields or a descriptor, with self.matches(...) or self.findAll(...)",
			"spec.schedule 需要一条 CEL 规则，"+
				"用 self.matches(...) 或 self.findAll(...) 检查它是五个字段，"+
				"或是一个描述符（descriptor）"))
	}
}

func TestEnumsAndDefaults(t *testing.T) {
	schema := loadSchema(t)
	policy := field(t, schema, "spec.concurrencyPolicy")
	var values []string
	for _, v := range policy.Enum {
		values = append(values, strings.Trim(string(v.Raw), `"`))
	}
	if strings.Join(values, ",") != "Allow,Forbid,Replace" {
		t.Error(say.Both("spec.concurrencyPolicy must be an enum of Allow, Forbid, Replace; it is %v",
			"spec.concurrencyPolicy 必须是由 Allow、Forbid、Replace 组成的枚举；现在是 %v", values))
	}
	for path, want := range map[string]string{
		"spec.concurrencyPolicy":          `"Allow"`,
		"spec.suspend":                    `false`,
		"spec.successfulJobsHistoryLimit": `3`,
		"spec.failedJobsHistoryLimit":     `1`,
	} {
		f := field(t, schema, path)
		if f.Default == nil || string(f.Default.Raw) != want {
			t.Error(say.Both("%s needs +kubebuilder:default=%s",
				"%s 需要 +kubebuilder:default=%s", path, strings.Trim(want, `"`)))
		}
	}
}

func TestNumbersCannotBeNegative(t *testing.T) {
	schema := loadSchema(t)
	for _, path := range []string{"spec.startingDeadlineSeconds", "spec.successfulJobsHistoryLimit", "spec.failedJobsHistoryLimit"} {
		f := field(t, schema, path)
		if f.Minimum == nil || *f.Minimum != 0 {
			t.Error(say.Both("%s needs +kubebuilder:validation:Minimum=0",
				"%s 需要 +kubebuilder:validation:Minimum=0", path))
		}
	}
}

func TestTheJobTemplateIsChecked(t *testing.T) {
	spec := field(t, loadSchema(t), "spec")
	for _, want := range []string{"selector", "manualSelector", "restartPolicy"} {
		if !hasRule(spec, want) {
			t.Error(say.Both("spec needs a CEL rule about jobTemplate.spec...%s (see docs/validation.md for why)",
				"spec 需要一条关于 jobTemplate.spec...%s 的 CEL 规则（原因见 docs/validation.zh-CN.md）", want))
		}
	}
}

func TestStatusConditionsAreAMapByType(t *testing.T) {
	conditions := field(t, loadSchema(t), "status.conditions")
	if conditions.XListType == nil || *conditions.XListType != "map" || len(conditions.XListMapKeys) != 1 || conditions.XListMapKeys[0] != "type" {
		t.Error(say.Both("status.conditions needs +listType=map and +listMapKey=type, so that each condition type appears once and can be patched alone",
			"status.conditions 需要 +listType=map 和 +listMapKey=type，"+
				"这样每种类型的状况（Condition）只出现一次，并且能单独打补丁"))
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
