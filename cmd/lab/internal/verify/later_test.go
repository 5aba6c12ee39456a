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

package verify

import (
	"path/filepath"
	"slices"
	"testing"
)

// TestAPackageIsJudgedByTheTestsOfThePackagesThatBuildIt: the survivors of
// api/v2's own tests go next to the webhook's suite, which registers v2 in
// its scheme, and those of internal/leader to the controller's, which runs
// the fence; never to the package itself, nor to the end-to-end suite, which
// needs a cluster.
func TestAPackageIsJudgedByTheTestsOfThePackagesThatBuildIt(t *testing.T) {
	root := filepath.Join("..", "..", "..", "..")
	for pkg, want := range map[string]string{
		"api/v2":              "internal/webhook/v1",
		"internal/leader":     "internal/controller",
		"internal/controller": "exercises/q3-owns-vs-watches", // a stage's check, which tests WatchWithWatches
	} {
		got, err := testersOf(root, pkg)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(got, want) {
			t.Errorf("the tests that build %s: %q, want %s among them", pkg, got, want)
		}
		for _, never := range []string{pkg, "test/e2e"} {
			if slices.Contains(got, never) {
				t.Errorf("the tests that build %s: %q, which hold %s", pkg, got, never)
			}
		}
	}
}
