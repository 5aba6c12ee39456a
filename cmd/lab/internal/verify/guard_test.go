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
