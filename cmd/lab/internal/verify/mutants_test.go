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
	"slices"
	"strings"
	"testing"

	"cronlab.dev/cronlab/cmd/lab/internal/mutants"
	"cronlab.dev/cronlab/cmd/lab/internal/stage"
)

// TestTheMutationReportKeepsWhatItFound: the scores survive a write and a
// read, and the Markdown report shows each stage's row and its survivors.
func TestTheMutationReportKeepsWhatItFound(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mutation.json")
	if scores, err := readScores(path); err != nil || scores != nil {
		t.Fatalf("no report yet: %v, %v", scores, err)
	}
	want := []mutationScore{
		{Stage: "04", Slug: "reconcile-loop", Mutants: 10, NotCompile: 2, Killed: 6, Survivors: []string{}, Specs: 7, Seconds: 60,
			CaughtLater: map[string]string{"cronjob_controller.go:2 remove statement (Reconcile): return y": "06", "cronjob_controller.go:1 remove statement (Reconcile): return x": "05"}},
		{Stage: "06", Slug: "scheduling", Mutants: 5, NotCompile: 1, Killed: 3, Survivors: []string{"status.go:1 negate condition (startDueRun): a -> !(a)"},
			Specs: 4, Unfailed: []string{"./internal/controller Stage 06 › asserts nothing"}, Unsure: []string{"./internal/controller Stage 06 › changed"}},
		{Stage: "internal/schedule", Mutants: 4, Killed: 3, Survivors: []string{}, Equivalent: []string{"schedule.go remove statement (f): x = y"}, Specs: 2},
		{Stage: "07", Slug: "envtest", Survivors: []string{}, Specs: 5},
		{Stage: "08", Slug: "helm-chart", NotMeasured: "its check runs make helm on the tree first"},
	}
	if err := writeScores(path, want); err != nil {
		t.Fatal(err)
	}
	got, err := readScores(path)
	if err != nil || len(got) != 5 || got[1].Survivors[0] != want[1].Survivors[0] {
		t.Fatalf("read back %+v, %v", got, err)
	}
	md, err := os.ReadFile(filepath.Join(filepath.Dir(path), "mutation.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"| 04 reconcile-loop | 10 | 2 | 0 | 6 | 2 | 0 | 100.0 % | 75.0 % | 7 | 0 | 60 s |",
		"| 06 scheduling | 5 | 1 | 0 | 3 | 0 | 1 | 75.0 % | 75.0 % | 4 | 1 | 0 s |",
		"| internal/schedule | 4 | 0 | 1 | 3 | 0 | 0 | 100.0 % | 100.0 % | 2 | 0 | 0 s |",
		"| 07 envtest | 0 | 0 | 0 | 0 | 0 | 0 | no mutants | - | 5 | 0 | 0 s |",
		"## Caught by a later stage\n\nEach one survives its own stage's check, and the check of the stage named fails on it.\n\n### 04 reconcile-loop\n\n- `cronjob_controller.go:1 remove statement (Reconcile): return x`: stage 05\n- `cronjob_controller.go:2 remove statement (Reconcile): return y`: stage 06\n",
		"The regions of stage 07 hold no Go function to mutate",
		"- stage 08: its check runs make helm on the tree first\n",
		"## Equivalent mutants\n\nSet aside, for no test could tell them from the reference; why each one is, is said in\n`test/mutation/equivalents.yaml`.\n\n### internal/schedule\n\n- `schedule.go remove statement (f): x = y`\n",
		"### 06 scheduling\n\n- `status.go:1 negate condition (startDueRun): a -> !(a)`",
		"## Specs that never fail\n\nEach one passed with every mutant and every catalogue mistake made: it wants a mistake that it\ncatches, or to go. One marked (not sure) changed since its row was last measured whole and failed none of\n" +
			"the mutants checked again: it may fail one whose kill was kept (`bin/lab mutants --full <row>` says).\n\n### 06 scheduling\n\n" +
			"- `./internal/controller Stage 06 › asserts nothing`\n- `./internal/controller Stage 06 › changed` (not sure)\n",
		"| 06 scheduling | 5 | 1 | 0 | 3 | 0 | 1 | 75.0 % | 75.0 % | 4 | 1 | 0 s |",
	} {
		if !strings.Contains(string(md), line) {
			t.Errorf("the report lacks %q:\n%s", line, md)
		}
	}
	if strings.Contains(string(md), "| 08 ") {
		t.Error("a stage that is not measured has a row of scores")
	}
	if strings.Count(string(md), "### 04") != 1 || strings.Count(string(md), "### internal/schedule") != 1 {
		t.Error("the report lists a stage or package under a heading where it has nothing to show")
	}
}

// TestMutantsNameStagesAndPackages: lab mutants takes stage IDs and package
// directories; with none, every stage and every tested package; a package
// without tests is refused with the list of those it could take.
func TestMutantsNameStagesAndPackages(t *testing.T) {
	root := filepath.Join("..", "..", "..", "..")
	stages, err := stage.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	ids := func(ss []stage.Stage) (out []string) {
		for _, s := range ss {
			out = append(out, s.ID)
		}
		return out
	}
	got, err := mutationSuites(root, stages, []string{"06", "./internal/schedule/"})
	if err != nil || !slices.Equal(ids(got), []string{"06", "internal/schedule"}) {
		t.Errorf("06 and ./internal/schedule/: %v, %v", ids(got), err)
	}
	if got[1].Dir != "" || got[1].Tests[0].Package != "./internal/schedule" {
		t.Errorf("the package's suite: %+v", got[1])
	}
	all, err := mutationSuites(root, stages, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"01", "17", "internal/schedule", "internal/runs", "internal/controller", "api/v1"} {
		if !slices.Contains(ids(all), want) {
			t.Errorf("all suites lack %s: %v", want, ids(all))
		}
	}
	if slices.Contains(ids(all), "internal/controlplane") {
		t.Error("internal/controlplane has no tests, but is a suite")
	}
	if _, err := mutationSuites(root, stages, []string{"internal/controlplane"}); err == nil || !strings.Contains(err.Error(), "internal/schedule") {
		t.Errorf("a package without tests: %v", err)
	}
}

// TestEveryEquivalentMutantIsOneOfTheReference: each entry of
// test/mutation/equivalents.yaml says why, and names by its key a mutant
// that the reference still has, in a stage's region or a tested package;
// an entry that names none is stale (the code changed) and must go.
func TestEveryEquivalentMutantIsOneOfTheReference(t *testing.T) {
	root := filepath.Join("..", "..", "..", "..")
	why, err := readEquivalents(root)
	if err != nil {
		t.Fatal(err)
	}
	stages, err := stage.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]bool{}
	var regionNames []string
	for _, s := range stages {
		regionNames = append(regionNames, s.Regions...)
	}
	ms, err := mutants.Of(root, regionNames)
	if err != nil {
		t.Fatal(err)
	}
	pkgs, err := testedPackages(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pkgs {
		more, err := mutants.InPackage(root, p)
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, more...)
	}
	for _, m := range ms {
		keys[m.Key()] = true
	}
	for key := range why {
		if !keys[key] {
			t.Errorf("test/mutation/equivalents.yaml names a mutant that the reference does not have (%d mutants made): %s", len(ms), key)
		}
	}
}
