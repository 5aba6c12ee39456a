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
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
	"cronlab.dev/cronlab/cmd/lab/internal/labtest"
	"cronlab.dev/cronlab/cmd/lab/internal/stage"
)

// TestTheGuardKnowsARowByWhatItsScoreDependsOn: a comment or a hint that
// changes leaves a stage's digest as it was; its code, a moved region or
// the tests it runs change it.
func TestTheGuardKnowsARowByWhatItsScoreDependsOn(t *testing.T) {
	root, _ := labtest.TinyLab(t)
	digest := func() string {
		t.Helper()
		stages, err := stage.Load(root)
		if err != nil {
			t.Fatal(err)
		}
		ref := strings.TrimSpace(labtest.Git(t, root, "rev-parse", "HEAD"))
		d, err := suiteInputs(root, ref, stages[0])
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	edit := func(file, from, to string) {
		t.Helper()
		path := filepath.Join(root, file)
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(raw), from) {
			t.Fatalf("%s has no %q", file, from)
		}
		if err := os.WriteFile(path, []byte(strings.Replace(string(raw), from, to, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		labtest.Git(t, root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-am", "edit")
	}
	first := digest()
	edit("p/p.go", "// One says one.", "// One says the word one.")
	edit("exercises/one/stage.yaml", "write One", "write One, please")
	if got := digest(); got != first {
		t.Errorf("a comment and a hint changed the digest: %s, then %s", first, got)
	}
	edit("p/p.go", `return "one"`, `return "uno"`)
	code := digest()
	if code == first {
		t.Error("a change of the region's code left the digest as it was")
	}
	edit("p/p.go", "// lab:begin one\n", "// lab:begin one\n// lab:end\n\n// lab:begin three\n")
	if got := digest(); got == code {
		t.Error("a region that no longer holds One left the digest as it was")
	}
	moved := digest()
	edit("exercises/one/stage.yaml", "run: TestOne", "run: TestOneAndMore")
	tests := digest()
	if tests == moved {
		t.Error("a change of the tests the stage runs left the digest as it was")
	}
	edit("exercises/one/stage.yaml", "hints:", "mistakes:\n- name: says two\n  edits:\n  - file: p/p.go\n    replace: return \"one\"\n    with: return \"two\"\nhints:")
	mistake := digest()
	if mistake == tests {
		t.Error("a mistake added to the stage's catalogue left the digest as it was")
	}
	edit("exercises/one/stage.yaml", "- name: says two\n", "- name: says two, not one\n  nameZh: 说成二\n")
	if got := digest(); got != mistake {
		t.Error("a mistake renamed, its edits the same, changed the digest")
	}
	// A later stage's given forms of a region in one's file stand in one's
	// tree where that region's code is.
	given := filepath.Join(root, "exercises", "two", "given", "p.go")
	if err := os.MkdirAll(filepath.Dir(given), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(given, []byte("//go:build ignore\n\npackage p\n\nfunc Two() string { return \"\" }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	labtest.Git(t, root, "add", "-A")
	edit("exercises/two/stage.yaml", "regions: [two]", "regions: [two]\ntrusting: {two: given/p.go}")
	trusting := digest()
	if trusting == mistake {
		t.Error("a later stage's given forms of a region in the row's file left the digest as it was")
	}
	edit("exercises/two/given/p.go", `return ""`, `return "2"`)
	if got := digest(); got == trusting {
		t.Error("a change of a later stage's given form left the digest as it was")
	}
}

// TestASentenceLeavesTheDigestAsItWas: the sentence an assertion leads
// with (say.Both) is printed only when it fails, so rewording it, or giving
// an assertion one, leaves the code's digest as it was; a change of what
// the assertion checks does not.
func TestASentenceLeavesTheDigestAsItWas(t *testing.T) {
	const file = `package p_test

import (
	"testing"

	. "github.com/onsi/gomega"

	tell "cronlab.dev/cronlab/test/say"
)

func TestOne(t *testing.T) {
	g := NewWithT(t)
	g.Expect(One()).To(Equal("one")%s)
	msg := %s
	_ = msg
}
`
	code := func(sentence, assigned string) string {
		return codeOf("p/p_test.go", fmt.Sprintf(file, sentence, assigned))
	}
	was := code(`, tell.Both("One's word", "One 的词")`, `tell.Both("a %d", "一个 %d", 1)`)
	for _, now := range [][2]string{
		{`, tell.Both("what One says", "One 说的词")`, `tell.Both("a %d", "一个 %d", 1)`},
		{``, `tell.Both("b %d", "乙 %d", 2)`},
	} {
		if got := code(now[0], now[1]); got != was {
			t.Errorf("only the sentences changed (%q, %q), but the code did:\n%s\nthen\n%s", now[0], now[1], was, got)
		}
	}
	changed := codeOf("p/p_test.go", strings.Replace(fmt.Sprintf(file, ``, `tell.Both("a", "一")`), `Equal("one")`, `Equal("uno")`, 1))
	if changed == was {
		t.Error("what the assertion checks changed, but the code did not")
	}
	// Another package's Both is code like any other.
	other := strings.Replace(file, `tell "cronlab.dev/cronlab/test/say"`, `tell "example.com/other/say"`, 1)
	if codeOf("p/p_test.go", fmt.Sprintf(other, `, tell.Both("x", "甲")`, `1`)) == codeOf("p/p_test.go", fmt.Sprintf(other, `, tell.Both("y", "乙")`, `1`)) {
		t.Error("a Both of another package was left out as if it were a sentence")
	}
}

// TestTheGuardFailsOnASurvivorTheReportDoesNotList: a survivor listed in
// the report passes (its line may have moved); a new one, or one that the
// report counted as killed, fails, and the message says what to do.
func TestTheGuardFailsOnASurvivorTheReportDoesNotList(t *testing.T) {
	was := mutationScore{Stage: "06", Survivors: []string{"internal/controller/status.go:10 negate condition (noteDue): a -> !(a)"}}
	now := mutationScore{Stage: "06", Survivors: []string{
		"internal/controller/status.go:12 negate condition (noteDue): a -> !(a)",
		"internal/controller/status.go:30 remove statement (noteDue): r.record()",
	}}
	got := lostKills(i18n.English, was, now)
	if len(got) != 1 || !strings.Contains(got[0], "remove statement (noteDue): r.record()") ||
		!strings.Contains(got[0], "make mutants MUTANTS_STAGES=06") || !strings.Contains(got[0], "equivalents.yaml") {
		t.Errorf("lost kills: %q", got)
	}
	if got := lostKills(i18n.English, was, was); len(got) != 0 {
		t.Errorf("the report's own survivors: %q", got)
	}
}

// TestTheGuardsSampleReachesEveryPartOfAStage: a sample is spread over the
// whole list, so it reaches the last functions of a stage too.
func TestTheGuardsSampleReachesEveryPartOfAStage(t *testing.T) {
	items := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	if got := sample(items, 4); !slices.Equal(got, []int{0, 2, 5, 7}) {
		t.Errorf("sample of 4: %v", got)
	}
	if got := sample(items, 0); len(got) != 10 {
		t.Errorf("sample of 0 keeps all: %v", got)
	}
	if got := sample(items, 20); len(got) != 10 {
		t.Errorf("a sample larger than the list keeps all: %v", got)
	}
	if got := keyOf("a/b.go:12 move boundary (f): x < y -> x <= y"); got != "a/b.go move boundary (f): x < y -> x <= y" {
		t.Errorf("key: %q", got)
	}
}

// TestARowMeasuredBeforeAnOperatorIsBehindNotFailing: a row that the report
// holds without its operators (written before rows kept them) was measured
// with the generic ones; the survivors of the Kubernetes operators, which
// that row never had, fail nothing, and the generic ones still do.
func TestARowMeasuredBeforeAnOperatorIsBehindNotFailing(t *testing.T) {
	was := mutationScore{Stage: "secondary-resources"}
	if got := missingOperators(was); !slices.Contains(got, "swap enum") || slices.Contains(got, "negate condition") {
		t.Errorf("an old row misses %v", got)
	}
	now := mutationScore{Stage: "secondary-resources", Operators: allOperators(), Survivors: []string{
		"internal/controller/jobs.go:168 swap enum (CronJobReconciler.deleteJob): corev1.EventTypeNormal -> corev1.EventTypeWarning",
		"internal/controller/jobs.go:30 remove statement (CronJobReconciler.deleteJob): removeActive(cronJob, uid)",
	}}
	if got := missingOperators(now); len(got) != 0 {
		t.Errorf("a row measured today misses %v", got)
	}
	got := lostKills(i18n.English, was, now)
	if len(got) != 1 || !strings.Contains(got[0], "remove statement") {
		t.Errorf("lost kills of a row measured before the Kubernetes operators: %q", got)
	}
	if newer := newOperatorSurvivors(was, now); len(newer) != 1 || !strings.Contains(newer[0], "swap enum") {
		t.Errorf("survivors of newer operators: %q", newer)
	}
	// Measured with every operator, the report holds them all: a new
	// survivor of any of them is a lost kill.
	if got := lostKills(i18n.English, mutationScore{Stage: "secondary-resources", Operators: allOperators()}, now); len(got) != 2 {
		t.Errorf("lost kills of a row measured with every operator: %q", got)
	}
	// A row the report never held: every survivor is new to it.
	if got := lostKills(i18n.English, mutationScore{}, now); len(got) != 2 {
		t.Errorf("lost kills of a row the report never held: %q", got)
	}
}

// TestARowsScoreSplitsByFamilyOfOperators: the generic and the Kubernetes
// counts add up to the row's, and each survivor is counted in its family.
func TestARowsScoreSplitsByFamilyOfOperators(t *testing.T) {
	if got := opOf("a/b.go:12 drop meta field (NewJob): Labels: x"); got != "drop meta field" {
		t.Errorf("operator of a name: %q", got)
	}
	if got := opOf("a/b.go drop option (f): client.InNamespace(ns) #2"); got != "drop option" {
		t.Errorf("operator of a key: %q", got)
	}
	row := mutationScore{Stage: "s", Mutants: 30, NotCompile: 6, KubeMutants: 10, KubeNotCompile: 2, Killed: 19, // 30 = 6 + 1 + 19 + 2 + 2
		Survivors:   []string{"f.go:1 swap enum (f): a.X -> a.Y", "f.go:2 negate condition (f): c -> !(c)"},
		Equivalent:  []string{"f.go direct read (f): r -> r.APIReader"},
		CaughtLater: map[string]string{"f.go:3 wall clock (f): r.now() -> time.Now()": "later", "f.go:4 remove statement (f): x()": "later"},
		Operators:   allOperators()}
	g, k := row.family(false), row.family(true)
	if k.Mutants != 10 || k.NotCompile != 2 || k.Killed != 5 || len(k.Survivors) != 1 || len(k.Equivalent) != 1 || len(k.CaughtLater) != 1 {
		t.Errorf("Kubernetes family: %+v", k)
	}
	if g.Mutants != 20 || g.NotCompile != 4 || g.Killed != 14 || len(g.Survivors) != 1 || len(g.Equivalent) != 0 || len(g.CaughtLater) != 1 {
		t.Errorf("generic family: %+v", g)
	}
	// A row written before the Kubernetes operators: all of it is generic.
	old := mutationScore{Stage: "s", Mutants: 5, NotCompile: 1, Killed: 4}
	if g := old.family(false); g.Mutants != 5 || g.Killed != 4 {
		t.Errorf("an old row's generic family: %+v", g)
	}
	if k := old.family(true); k.Mutants != 0 || k.Killed != 0 {
		t.Errorf("an old row's Kubernetes family: %+v", k)
	}
}

// TestAnOperatorThatMutatesNothingLeavesARowAsItWas: the guard names a row
// as behind only for the new operators that make a mutant of it.
func TestAnOperatorThatMutatesNothingLeavesARowAsItWas(t *testing.T) {
	root := filepath.Join("..", "..", "..", "..")
	old := missingOperators(mutationScore{Stage: "x"})
	got, err := missingThatMutate(root, stage.Stage{Slug: "q6-direct-reads", Dir: "exercises/q6-direct-reads", Regions: []string{"lag-gate"}}, old)
	if err != nil || len(got) != 0 {
		t.Errorf("the lag gate, which calls no Kubernetes API: %v, %v", got, err)
	}
	got, err = missingThatMutate(root, stage.Stage{Slug: "secondary-resources", Dir: "exercises/secondary-resources", Regions: []string{"create-job"}}, old)
	if err != nil || !slices.Contains(got, "swap enum") || !slices.Contains(got, "drop option") || slices.Contains(got, "wall clock") {
		t.Errorf("createJob and deleteJob: %v, %v", got, err)
	}
}
