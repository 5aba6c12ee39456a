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
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTheMutationReportKeepsWhatItFound: the scores survive a write and a
// read, and the Markdown report shows each stage's row and its survivors.
func TestTheMutationReportKeepsWhatItFound(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mutation.json")
	if scores, err := readScores(path); err != nil || scores != nil {
		t.Fatalf("no report yet: %v, %v", scores, err)
	}
	want := []mutationScore{
		{Stage: "04", Slug: "reconcile-loop", Mutants: 10, NotCompile: 2, Killed: 8, Survivors: []string{}, Seconds: 60},
		{Stage: "06", Slug: "scheduling", Mutants: 5, NotCompile: 1, Killed: 3, Survivors: []string{"status.go:1 negate condition (startDueRun): a -> !(a)"}},
	}
	if err := writeScores(path, want); err != nil {
		t.Fatal(err)
	}
	got, err := readScores(path)
	if err != nil || len(got) != 2 || got[1].Survivors[0] != want[1].Survivors[0] {
		t.Fatalf("read back %+v, %v", got, err)
	}
	md, err := os.ReadFile(filepath.Join(filepath.Dir(path), "mutation.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"| 04 reconcile-loop | 10 | 2 | 8 | 0 | 100.0 % | 60 s |",
		"| 06 scheduling | 5 | 1 | 3 | 1 | 75.0 % | 0 s |",
		"### 06 scheduling\n\n- `status.go:1 negate condition (startDueRun): a -> !(a)`",
	} {
		if !strings.Contains(string(md), line) {
			t.Errorf("the report lacks %q:\n%s", line, md)
		}
	}
	if strings.Contains(string(md), "### 04") {
		t.Error("the report lists stage 04 among the survivors, which has none")
	}
}
