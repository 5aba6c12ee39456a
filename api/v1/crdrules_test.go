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

package v1_test

// The CRD's rules, run in this process by the API server's own code: the
// generated YAML in config/crd/bases is read, and each field's OpenAPI schema
// (lengths, pattern) and CEL rules are evaluated as kube-apiserver evaluates
// them on a create. This is what lets validation_test.go try thousands of
// schedules in a second; internal/webhook/v1 sends a few of each kind to real
// API servers.

import (
	"context"
	"os"
	"testing"

	apiextensions "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/environment"
	"sigs.k8s.io/yaml"
)

const crdFile = "../../config/crd/bases/batch.cronlab.dev_cronjobs.yaml"

// fieldRules validates values of one string field of the CronJob CRD.
type fieldRules struct {
	path    *field.Path
	schema  validation.SchemaValidator
	cel     *cel.Validator
	maxCost []uint64 // the estimated worst-case cost of each CEL rule
}

// loadFieldRules reads the CRD and picks the field at path (for example
// "spec", "schedule"). It fails when a rule does not compile in the
// environment the API server uses for a new CRD.
func loadFieldRules(t testing.TB, path ...string) *fieldRules {
	t.Helper()
	raw, err := os.ReadFile(crdFile)
	if err != nil {
		t.Fatalf("no CRD: run `make manifests` (%v)", err)
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal(raw, &crd); err != nil {
		t.Fatal(err)
	}
	props := *crd.Spec.Versions[0].Schema.OpenAPIV3Schema
	for _, name := range path {
		next, ok := props.Properties[name]
		if !ok {
			t.Fatalf("the CRD has no field %v", path)
		}
		props = next
	}
	var internal apiextensions.JSONSchemaProps
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(&props, &internal, nil); err != nil {
		t.Fatal(err)
	}
	schemaValidator, _, err := validation.NewSchemaValidator(&internal)
	if err != nil {
		t.Fatal(err)
	}
	structural, err := schema.NewStructural(&internal)
	if err != nil {
		t.Fatal(err)
	}
	compiled, err := cel.Compile(structural, model.SchemaDeclType(structural, false), celconfig.PerCallLimit,
		environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()), cel.NewExpressionsEnvLoader())
	if err != nil {
		t.Fatal(err)
	}
	r := &fieldRules{
		path:   field.NewPath(path[0], path[1:]...),
		schema: schemaValidator,
		cel:    cel.NewValidator(structural, false, celconfig.PerCallLimit),
	}
	for i, c := range compiled {
		if c.Error != nil {
			t.Fatalf("rule %d of %v does not compile: %v", i, path, c.Error)
		}
		r.maxCost = append(r.maxCost, c.MaxCost)
	}
	return r
}

// check returns what the API server would say about value, nothing if it
// would store it. As the API server does, the CEL rules are skipped when a
// value is too long, since their cost was estimated from the maximum length.
func (r *fieldRules) check(value string) field.ErrorList {
	errs := validation.ValidateCustomResource(r.path, value, r.schema)
	for _, e := range errs {
		if e.Type == field.ErrorTypeTooLong {
			return errs
		}
	}
	celErrs, _ := r.cel.Validate(context.Background(), r.path, nil, value, nil, celconfig.RuntimeCELCostBudget)
	return append(errs, celErrs...)
}
