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

package manifests

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// project is what the kubebuilder CLI reads of PROJECT before it scaffolds.
type project struct {
	Repo      string `json:"repo"`
	Resources []struct {
		Group    string `json:"group"`
		Version  string `json:"version"`
		Kind     string `json:"kind"`
		Path     string `json:"path"`
		Webhooks *struct {
			Defaulting bool     `json:"defaulting"`
			Validation bool     `json:"validation"`
			Conversion bool     `json:"conversion"`
			Spoke      []string `json:"spoke"`
		} `json:"webhooks"`
	} `json:"resources"`
}

// TestPROJECTDescribesTheScaffold: PROJECT lists every API version and
// webhook that the code has, as kubebuilder would have written it; the CLI
// scaffolds over what the file leaves out.
func TestPROJECTDescribesTheScaffold(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "PROJECT"))
	if err != nil {
		t.Fatal(err)
	}
	var p project
	if err := yaml.Unmarshal(raw, &p); err != nil {
		t.Fatalf("PROJECT: %v", err)
	}
	manifests, err := os.ReadFile(filepath.Join("..", "..", "config", "webhook", "manifests.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	served := func(kind, version string) bool {
		return strings.Contains(string(manifests), "path: /"+kind+"-batch-cronlab-dev-"+version+"-cronjob\n")
	}
	var versions, spokes []string
	for _, r := range p.Resources {
		versions = append(versions, r.Version)
		dir := filepath.Join("..", "..", strings.TrimPrefix(r.Path, p.Repo+"/"))
		if _, err := os.Stat(filepath.Join(dir, "cronjob_types.go")); err != nil || filepath.Base(dir) != r.Version {
			t.Errorf("PROJECT: %s %s at %s: no such API package (%v)", r.Kind, r.Version, r.Path, err)
		}
		var defaulting, validation bool
		if w := r.Webhooks; w != nil {
			defaulting, validation = w.Defaulting, w.Validation
			if w.Conversion {
				spokes = append(spokes, w.Spoke...)
			}
		}
		if defaulting != served("mutate", r.Version) || validation != served("validate", r.Version) {
			t.Errorf("PROJECT: %s %s says defaulting %v, validation %v; config/webhook/manifests.yaml serves mutate %v, validate %v",
				r.Kind, r.Version, defaulting, validation, served("mutate", r.Version), served("validate", r.Version))
		}
	}
	for _, v := range spokes {
		if _, err := os.Stat(filepath.Join("..", "..", "api", v, "cronjob_conversion.go")); err != nil || !slices.Contains(versions, v) {
			t.Errorf("PROJECT: spoke %s has no resource of its own or no cronjob_conversion.go (%v)", v, err)
		}
	}
	entries, err := os.ReadDir(filepath.Join("..", "..", "api"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() && !slices.Contains(versions, e.Name()) {
			t.Errorf("api/%s is not in PROJECT: kubebuilder would scaffold over it", e.Name())
		}
		if e.IsDir() && e.Name() != "v1" && !slices.Contains(spokes, e.Name()) {
			t.Errorf("api/%s is converted to and from v1 but PROJECT lists it as no conversion webhook's spoke", e.Name())
		}
	}
}
