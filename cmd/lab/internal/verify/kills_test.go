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
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
	"cronlab.dev/cronlab/cmd/lab/internal/labtest"
	"cronlab.dev/cronlab/cmd/lab/internal/stage"
)

// TestOnlyWhatAChangeOfSpecsCanMoveIsCheckedAgain: a row of seven mutants
// (one new, one the compiler refused) and three specs, after each kind of
// change, sends back exactly the mutants the rule names, and keeps the
// others' kills with the killers that did not change.
func TestOnlyWhatAChangeOfSpecsCanMoveIsCheckedAgain(t *testing.T) {
	prior := rowKills{
		Specs: map[string]string{"./p A": "a1", "./p B": "b1", "./p C": inRest},
		Killed: map[string][]string{
			"m1": {"./p A"},          // killed by A alone
			"m2": {"./p A", "./p B"}, // by A and B
			"m3": {"./p C"},          // by a spec whose code is in the rest
			"m4": {},                 // killers not known
		},
		Survived:    []string{"m5"},
		NotCompiled: []string{"m7"}, // the compiler refused it
	}
	keys := []string{"m1", "m2", "m3", "m4", "m5", "m6", "m7"} // m6 is new
	cases := []struct {
		name  string
		specs map[string]string // the specs that ran now, and their code
		again map[string]rerunWhy
		kept  map[string][]string
	}{
		{"nothing changed", map[string]string{"./p A": "a1", "./p B": "b1", "./p C": inRest},
			map[string]rerunWhy{"m4": killersUnknown, "m6": isNew}, // m5 passed these very specs
			map[string][]string{"m1": {"./p A"}, "m2": {"./p A", "./p B"}, "m3": {"./p C"}}},
		{"A changed", map[string]string{"./p A": "a2", "./p B": "b1", "./p C": inRest},
			map[string]rerunWhy{"m1": killersChanged, "m4": killersUnknown, "m5": survivedBefore, "m6": isNew},
			map[string][]string{"m2": {"./p B"}, "m3": {"./p C"}}},
		{"A and B changed", map[string]string{"./p A": "a2", "./p B": "b2", "./p C": inRest},
			map[string]rerunWhy{"m1": killersChanged, "m2": killersChanged, "m4": killersUnknown, "m5": survivedBefore, "m6": isNew},
			map[string][]string{"m3": {"./p C"}}},
		{"A renamed (gone, and a new spec)", map[string]string{"./p A2": "a1", "./p B": "b1", "./p C": inRest},
			map[string]rerunWhy{"m1": killersChanged, "m4": killersUnknown, "m5": survivedBefore, "m6": isNew},
			map[string][]string{"m2": {"./p B"}, "m3": {"./p C"}}},
		{"a spec added", map[string]string{"./p A": "a1", "./p B": "b1", "./p C": inRest, "./p D": "d1"},
			map[string]rerunWhy{"m4": killersUnknown, "m5": survivedBefore, "m6": isNew},
			map[string][]string{"m1": {"./p A"}, "m2": {"./p A", "./p B"}, "m3": {"./p C"}}},
		{"C's code now found by its name", map[string]string{"./p A": "a1", "./p B": "b1", "./p C": "c1"},
			map[string]rerunWhy{"m3": killersChanged, "m4": killersUnknown, "m5": survivedBefore, "m6": isNew},
			map[string][]string{"m1": {"./p A"}, "m2": {"./p A", "./p B"}}},
	}
	for _, c := range cases {
		why, kept := selectReruns(prior, keys, c.specs)
		again := map[string]rerunWhy{}
		for k, w := range why {
			if w != keptKill && w != keptRefused && w != keptSurvivor {
				again[k] = w
			}
		}
		if why["m7"] != keptRefused {
			t.Errorf("%s: a mutant the compiler refused, the rest as it was: %v, want it kept as refused", c.name, why["m7"])
		}
		if !maps.Equal(again, c.again) {
			t.Errorf("%s: checked again %v, want %v", c.name, again, c.again)
		}
		if !maps.EqualFunc(kept, c.kept, slices.Equal) {
			t.Errorf("%s: kept %v, want %v", c.name, kept, c.kept)
		}
		for k := range kept {
			if why[k] != keptKill {
				t.Errorf("%s: %s both kept and checked again", c.name, k)
			}
		}
	}
}

// TestAMeasureWithAChangedRestChecksEverything: when the code apart from
// the specs changed, or no matrix is there, or --full, plan sends every
// mutant back.
func TestAMeasureWithAChangedRestChecksEverything(t *testing.T) {
	prior := &rowKills{Rest: "r1", Specs: map[string]string{"./p A": "a1"}, Killed: map[string][]string{"f m1": {"./p A"}}}
	names := []string{"f:3 m1", "f:9 m2"}
	s := stage.Stage{Slug: "01"}
	for _, c := range []struct {
		name string
		m    measure
		rest string
		want []bool
	}{
		{"rest changed", measure{prior: prior}, "r2", []bool{true, true}},
		{"no matrix", measure{}, "r1", []bool{true, true}},
		{"--full", measure{prior: prior, full: true}, "r1", []bool{true, true}},
		{"only specs", measure{prior: prior}, "r1", []bool{false, true}},
	} {
		check, _ := c.m.plan(i18n.English, s, names, []string{"./p A"}, c.rest, map[string]string{"./p A": "a1"})
		if !slices.Equal(check, c.want) {
			t.Errorf("%s: checked %v, want %v", c.name, check, c.want)
		}
	}
}

// TestASpecsCodeIsApartFromTheRest: changing an It's body changes its
// digest and leaves the rest; adding an It leaves the rest; changing a
// BeforeEach changes the rest; an It whose name is made at run time, or
// one in a helper or in a function literal called from another container
// (whose name the source does not spell), stays in the rest, as does a
// table's body, and its entries are specs; a Go test is a spec, the one
// that runs the suite is not.
func TestASpecsCodeIsApartFromTheRest(t *testing.T) {
	const base = `package p_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestSuite(t *testing.T) { RunSpecs(t, "p") }

func TestPlain(t *testing.T) { _ = One() }

var _ = Describe("One", func() {
	BeforeEach(func() { setUp() })
	When("asked", func() {
		It("says one", func() { Expect(One()).To(Equal("one")) })
	})
	for _, n := range []string{"x"} {
		It("made "+n, func() {})
	}
	shared := func() { It("shared", func() {}) }
	Context("elsewhere", func() { shared() })
	DescribeTable("spells", func(n int) { Expect(n).To(BeNumerically(">", 0)) },
		Entry("one", 1),
	)
	helper()
})

func helper() { It("in a helper", func() {}) }
`
	split := func(src string) (string, map[string]string) {
		t.Helper()
		rest, specs := specsApart("p/p_test.go", src)
		return rest, specs
	}
	rest, specs := split(base)
	names := slices.Sorted(maps.Keys(specs))
	if want := []string{"One › spells › one", "One › when asked › says one", "TestPlain"}; !slices.Equal(names, want) {
		t.Fatalf("specs %q, want %q", names, want)
	}
	for _, in := range []string{"RunSpecs", "made ", "in a helper", "setUp", `It("shared"`, "BeNumerically"} {
		if !strings.Contains(rest, in) {
			t.Errorf("the rest lacks %q:\n%s", in, rest)
		}
	}
	body, bodySpecs := split(strings.Replace(base, `Equal("one")`, `Equal("uno")`, 1))
	if body != rest || bodySpecs["One › when asked › says one"] == specs["One › when asked › says one"] {
		t.Error("a spec's body changed: want its digest changed and the rest as it was")
	}
	added, _ := split(strings.Replace(base, "\thelper()\n", "\tIt(\"says two\", func() {})\n\thelper()\n", 1))
	if added != rest {
		t.Error("a spec added changed the rest")
	}
	if setup, _ := split(strings.Replace(base, "setUp()", "setUp(); more()", 1)); setup == rest {
		t.Error("a BeforeEach changed, and the rest did not")
	}
	if plain, plainSpecs := split(strings.Replace(base, "_ = One()", "_ = One() + One()", 1)); plain != rest || plainSpecs["TestPlain"] == specs["TestPlain"] {
		t.Error("a Go test changed: want its digest changed and the rest as it was")
	}
}

// TestKeysThatRepeatGetANumber: two mutants alike but for their lines
// each get a line of the matrix.
func TestKeysThatRepeatGetANumber(t *testing.T) {
	got := mutantKeys([]string{"f.go:3 remove statement (F): x()", "f.go:9 remove statement (F): x()", "f.go:4 negate condition (F): a -> !a"})
	want := []string{"f.go remove statement (F): x()", "f.go remove statement (F): x() #2", "f.go negate condition (F): a -> !a"}
	if !slices.Equal(got, want) {
		t.Errorf("keys %q, want %q", got, want)
	}
}

// TestTheMatrixIsWrittenSorted: rows by name, lists sorted, so that a
// measure that changes little changes few lines.
func TestTheMatrixIsWrittenSorted(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mutation-kills.json")
	rows := []rowKills{
		{Stage: "internal/runs", Specs: map[string]string{}, Killed: map[string][]string{"b": {"./p Z", "./p A"}}, Survived: []string{"y", "x"}},
		{Stage: "06", Specs: map[string]string{}, Killed: map[string][]string{}, Survived: []string{}},
	}
	if err := writeKills(path, rows); err != nil {
		t.Fatal(err)
	}
	back, err := readKills(path)
	if err != nil {
		t.Fatal(err)
	}
	if back[0].Stage != "06" || !slices.Equal(back[1].Killed["b"], []string{"./p A", "./p Z"}) || !slices.Equal(back[1].Survived, []string{"x", "y"}) {
		t.Errorf("read back %+v", back)
	}
}

// TestARowsRestIsAllButItsSpecs: on a small lab, changing a test
// function's code changes its digest alone; a catalogue mistake added
// leaves the rest (every measure checks the catalogue whole); a helper of
// the tests, or the code under test, changes the rest.
func TestARowsRestIsAllButItsSpecs(t *testing.T) {
	root, _ := labtest.TinyLab(t)
	write := func(file, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(root, file), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		labtest.Git(t, root, "add", "-A")
		labtest.Git(t, root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "edit")
	}
	digests := func() (string, map[string]string) {
		t.Helper()
		stages, err := stage.Load(root)
		if err != nil {
			t.Fatal(err)
		}
		rest, specs, err := rowDigests(root, "HEAD", stages[0])
		if err != nil {
			t.Fatal(err)
		}
		return rest, specs
	}
	const tests = "package p\n\nimport \"testing\"\n\nfunc want(t *testing.T, got, want string) {\n\tif got != want {\n\t\tt.Errorf(\"%%q\", got)\n\t}\n}\n\n" +
		"func TestOne(t *testing.T) { want(t, One(), %q) }\n\nfunc TestTwo(t *testing.T) { want(t, Two(), \"two\") }\n"
	write("p/p_test.go", fmt.Sprintf(tests, "one"))
	rest, specs := digests()
	if len(specs) != 2 || specs["./p TestOne"] == "" {
		t.Fatalf("specs %v, want ./p TestOne and ./p TestTwo", specs)
	}
	write("p/p_test.go", fmt.Sprintf(tests, "ONE"))
	if r, s := digests(); r != rest || s["./p TestOne"] == specs["./p TestOne"] || s["./p TestTwo"] != specs["./p TestTwo"] {
		t.Errorf("TestOne's code changed: want its digest alone changed; rest %s then %s, specs %v then %v", rest, r, specs, s)
	}
	raw, err := os.ReadFile(filepath.Join(root, "exercises/one/stage.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	write("exercises/one/stage.yaml", strings.Replace(string(raw), "hints:", "mistakes:\n- name: says two\n  edits:\n  - file: p/p.go\n    replace: return \"one\"\n    with: return \"two\"\nhints:", 1))
	if r, _ := digests(); r != rest {
		t.Error("a catalogue mistake added changed the rest")
	}
	write("p/p_test.go", strings.Replace(fmt.Sprintf(tests, "ONE"), "got != want", "got != want && want != \"\"", 1))
	if r, _ := digests(); r == rest {
		t.Error("a helper of the tests changed, and the rest did not")
	}
	helper, _ := digests()
	src, err := os.ReadFile(filepath.Join(root, "p/p.go"))
	if err != nil {
		t.Fatal(err)
	}
	write("p/p.go", strings.Replace(string(src), `return "one"`, `return "uno"`, 1))
	if r, _ := digests(); r == helper {
		t.Error("the code under test changed, and the rest did not")
	}
}

// TestAMeasureLeavesEachVerdictInTheMatrix: kills kept stay with their
// killers, mutants checked go in with the specs that failed (none: killers
// not known), survivors and those the compiler refused are listed, and one
// that could not be made is left out, to be checked next time.
func TestAMeasureLeavesEachVerdictInTheMatrix(t *testing.T) {
	m := &measure{now: rowKills{Stage: "01", Specs: map[string]string{}, Killed: map[string][]string{}, Survived: []string{}},
		refused: []string{"f.go:5 refused"}}
	c := newCatalogueRun("")
	c.killers["f.go:2 killed"] = []string{"./p A"}
	c.killers["f.go:3 killed alone"] = nil
	keys := map[string]string{"f.go:1 kept": "f.go kept", "f.go:2 killed": "f.go killed", "f.go:3 killed alone": "f.go killed alone",
		"f.go:4 survived": "f.go survived", "f.go:5 refused": "f.go refused", "f.go:6 unmade": "f.go unmade"}
	m.record(stage.Stage{Slug: "01"}, c, keys, map[string][]string{"f.go kept": {"./p B"}}, mutationScore{Survivors: []string{"f.go:4 survived"}})
	want := map[string][]string{"f.go kept": {"./p B"}, "f.go killed": {"./p A"}, "f.go killed alone": {}}
	if !maps.EqualFunc(m.now.Killed, want, slices.Equal) {
		t.Errorf("killed %v, want %v", m.now.Killed, want)
	}
	if !slices.Equal(m.now.Survived, []string{"f.go survived"}) || !slices.Equal(m.now.NotCompiled, []string{"f.go refused"}) {
		t.Errorf("survived %v, not compiled %v", m.now.Survived, m.now.NotCompiled)
	}
	if _, listed := m.now.Killed["f.go unmade"]; listed {
		t.Error("a mutant that could not be made is in the matrix")
	}
}
