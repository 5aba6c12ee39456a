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

// Package crdrules runs a CRD's rules in the test's own process, with the
// API server's own code: the generated YAML in config/crd/bases is read,
// and a value is checked against one version's OpenAPI schema (types,
// lengths, patterns, enums) and CEL rules, and given its defaults, as
// kube-apiserver does on a create. api/v1 tries thousands of schedules this
// way in a second; api/v2 tries each of its rules at its edges. The webhook's
// suite (internal/webhook/v1) sends a few of each kind to real API servers.
package crdrules

import (
	"context"
	"os"
	"testing"

	apiextensions "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/environment"
	"sigs.k8s.io/yaml"
)

// Rules are the rules of one node of a CRD's schema: a whole object, or
// one field of it.
type Rules struct {
	// path is where the node is in the object: nil for the whole object,
	// which the API server validates from its top, so that an error says
	// spec.schedule, not the version.
	path       *field.Path
	structural *schema.Structural
	schema     validation.SchemaValidator
	cel        *cel.Validator
	// MaxCost is the estimated worst-case cost of each CEL rule of the node
	// itself (not of the fields below it), which the API server holds to a
	// limit when the CRD is created.
	MaxCost []uint64
}

// Load reads the CRD in file and picks the node at path (none: the whole
// object; "spec", "schedule": one field) of version's schema. It fails the
// test when a rule of that node does not compile in the environment the API
// server uses for a new CRD.
func Load(t testing.TB, file, version string, path ...string) *Rules {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("no CRD: run `make manifests` (%v)", err)
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal(raw, &crd); err != nil {
		t.Fatal(err)
	}
	var props *apiextensionsv1.JSONSchemaProps
	for _, v := range crd.Spec.Versions {
		if v.Name == version && v.Schema != nil {
			props = v.Schema.OpenAPIV3Schema
		}
	}
	if props == nil {
		t.Fatalf("%s has no schema of version %s", file, version)
	}
	for _, name := range path {
		next, ok := props.Properties[name]
		if !ok {
			t.Fatalf("the CRD's %s has no field %v", version, path)
		}
		props = &next
	}
	var internal apiextensions.JSONSchemaProps
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(props, &internal, nil); err != nil {
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
	// The whole object is a resource's root: its CEL rules may read
	// metadata.name, which its schema does not declare.
	root := len(path) == 0
	compiled, err := cel.Compile(structural, model.SchemaDeclType(structural, root), celconfig.PerCallLimit,
		environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()), cel.NewExpressionsEnvLoader())
	if err != nil {
		t.Fatal(err)
	}
	r := &Rules{
		structural: structural,
		schema:     schemaValidator,
		cel:        cel.NewValidator(structural, root, celconfig.PerCallLimit),
	}
	if !root {
		r.path = field.NewPath(path[0], path[1:]...)
	}
	for i, c := range compiled {
		if c.Error != nil {
			t.Fatalf("rule %d of %v does not compile: %v", i, path, c.Error)
		}
		r.MaxCost = append(r.MaxCost, c.MaxCost)
	}
	return r
}

// Check returns what the API server would say about value (a string, or an
// object decoded from JSON or YAML into maps), nothing if it would store
// it. For the whole object it also runs the API server's checks of the
// embedded objects' metadata and of lists that are sets or maps; it leaves
// out those of the object's own metadata (a name that is no DNS subdomain,
// a missing namespace), which no marker of ours makes. As the API server
// does, it skips the CEL rules when the schema already found a wrong type, a
// missing field, a value not in an enum, or a value or a list too long: a
// rule may read such a value as its declared type, and its cost was
// estimated from those bounds. The API server then adds a line saying that
// some rules were not checked; Check does not.
func (r *Rules) Check(value any) field.ErrorList {
	errs := validation.ValidateCustomResource(r.path, value, r.schema)
	if obj, ok := value.(map[string]any); ok && r.path == nil {
		errs = append(errs, objectmeta.Validate(nil, obj, r.structural, false)...)
		errs = append(errs, listtype.ValidateListSetsAndMaps(nil, r.structural, obj)...)
	}
	for _, e := range errs {
		switch e.Type {
		case field.ErrorTypeTypeInvalid, field.ErrorTypeRequired, field.ErrorTypeNotSupported,
			field.ErrorTypeTooLong, field.ErrorTypeTooMany:
			return errs
		}
	}
	celErrs, _ := r.cel.Validate(context.Background(), r.path, nil, value, nil, celconfig.RuntimeCELCostBudget)
	return append(errs, celErrs...)
}

// Default fills in value the defaults of the schema, as the API server
// does to an object it decodes.
func (r *Rules) Default(value any) {
	defaulting.Default(value, r.structural)
}
