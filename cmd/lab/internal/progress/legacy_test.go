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

package progress

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// A progress file written before stages had names (version 2, keyed by
// the stages' numbers) still reads: the stages passed and the hints seen
// are the same stages' and hints', now keyed by slug, and a save keeps it
// so.
func TestAProgressFileOfNumberedStagesStillReads(t *testing.T) {
	root := t.TempDir()
	old := `{
  "version": 2,
  "stages": {
    "04": {"passed": true, "specs": 12, "failed": 0, "at": "2026-11-20T10:00:00Z", "branch": "lab/04", "hintsShown": ["04.1"]},
    "06": {"passed": false, "specs": 27, "failed": 3, "at": "2026-11-20T11:00:00Z", "branch": "lab/06-saved-20261120-105959",
           "failing": ["06.7"], "hintsShown": ["06.1", "06.7"], "started": "2026-11-20T10:30:00Z"}
  }
}`
	if err := os.MkdirAll(filepath.Join(root, "bin", "lab-state"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(Path(root), []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, when := range []string{"read", "saved and read again"} {
		p := Read(root)
		if len(p.Stages) != 2 {
			t.Fatalf("%s: stages %v", when, p.Stages)
		}
		rl, s := p.Stages["reconcile-loop"], p.Stages["scheduling"]
		if !rl.Passed || rl.Specs != 12 || rl.Branch != "lab/reconcile-loop" || !slices.Equal(rl.HintsShown, []string{"reconcile-loop.1"}) {
			t.Errorf("%s: reconcile-loop %+v", when, rl)
		}
		if s.Passed || s.Failed != 3 || s.Started.IsZero() || s.Branch != "lab/scheduling-saved-20261120-105959" ||
			!slices.Equal(s.Failing, []string{"scheduling.7"}) || !slices.Equal(s.HintsShown, []string{"scheduling.1", "scheduling.7"}) {
			t.Errorf("%s: scheduling %+v", when, s)
		}
		if err := p.Save(root); err != nil {
			t.Fatal(err)
		}
	}
	if p := Read(root); p.Version != FileVersion {
		t.Errorf("saved as version %d", p.Version)
	}
}
