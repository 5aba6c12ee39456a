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

package run

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"cronlab.dev/cronlab/cmd/lab/internal/base"
)

// TestTodoFilesCountsStubsNotTheTextsThatQuoteThem: a stub left in code
// counts; a README, or a stage.yaml whose hint explains what a TODO of the
// stage means, quotes one and does not (stage 17's said "still TODO" on
// every failing check).
func TestTodoFilesCountsStubsNotTheTextsThatQuoteThem(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"api/v2/conversion.go":                  "package v2\n\nfunc f() error {\n\t// TODO(lab multiversion): write this\n\treturn todo(\"TODO(lab multiversion): write this\")\n}\n",
		"charts/cronlab/templates/manager.yaml": "# TODO(lab multiversion): a stub in YAML counts too\n",
		"exercises/multiversion/README.md":      "Each stub says TODO(lab multiversion).\n",
		"exercises/multiversion/stage.yaml":     "hints:\n- en: if it is the TODO(lab multiversion) of stage 17, a function is still its stub\n",
	} {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}} {
		if _, err := base.Output(dir, "git", args...); err != nil {
			t.Fatal(err)
		}
	}
	got := TodoFiles(dir, "", "multiversion")
	want := []string{"api/v2/conversion.go (1)", "charts/cronlab/templates/manager.yaml (1)"}
	if !slices.Equal(got, want) {
		t.Errorf("TodoFiles = %q, want %q", got, want)
	}
}
