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

package mutants

import (
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const sample = `package sample

import "time"

func outside(a, b int) bool { return a < b }

// lab:begin due

// due reports whether the run at t is due at now, within the deadline.
func due(t, now time.Time, deadline time.Duration, skipped *int) (bool, error) {
	if t.IsZero() || now.Before(t) {
		return false, nil
	}
	for i := 0; i < 3; i++ {
		*skipped++
	}
	if now.Sub(t) > deadline {
		return false, errTooLate
	}
	return true, nil
}

// lab:end

var errTooLate error
`

func mutantsOf(t *testing.T) []Mutant {
	t.Helper()
	return mutantsIn(t, "sample/due.go", sample, "due")
}

// mutantsIn makes the mutants of one region of a sample source.
func mutantsIn(t *testing.T, file, src, region string) []Mutant {
	t.Helper()
	ms, err := InFile(file, []byte(src), map[string]bool{region: true})
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

func TestEachKindOfMutantInTheRegionOnly(t *testing.T) {
	got := map[string]bool{}
	for _, m := range mutantsOf(t) {
		if m.Func != "due" {
			t.Errorf("a mutant of %s, outside the region: %s", m.Func, m.Name())
		}
		got[string(m.Op)+": "+m.Was+" -> "+m.Now] = true
	}
	for _, want := range []string{
		"return zero: the body of due -> { return false, nil }",
		"remove statement: if t.IsZero() || now.Before(t) { ... -> ",
		"remove statement: return false, nil -> ",
		"remove statement: *skipped++ -> ",
		"remove statement: for i := 0; i < 3; i++ { ... -> ",
		"negate condition: t.IsZero() || now.Before(t) -> !(t.IsZero() || now.Before(t))",
		"negate condition: i < 3 -> !(i < 3)",
		"drop operand: t.IsZero() || now.Before(t) -> t.IsZero()",
		"drop operand: t.IsZero() || now.Before(t) -> now.Before(t)",
		"move boundary: now.Before(t) -> !now.After(t)",
		"move boundary: i < 3 -> i <= 3",
		"move boundary: now.Sub(t) > deadline -> now.Sub(t) >= deadline",
		"swallow error: errTooLate -> nil",
	} {
		if !got[want] {
			t.Errorf("no mutant %q among:\n%s", want, strings.Join(slices.Sorted(maps.Keys(got)), "\n"))
		}
	}
}

// TestEveryMutantIsOneEditThatParses: each mutant changes only its
// function, whose text occurs once in the file, and the file still parses.
func TestEveryMutantIsOneEditThatParses(t *testing.T) {
	for _, m := range mutantsOf(t) {
		e := m.Mistake().Edits[0]
		if n := strings.Count(sample, e.Replace); n != 1 {
			t.Fatalf("%s: the function's text occurs %d times in the file", m.Name(), n)
		}
		mutated := strings.Replace(sample, e.Replace, e.With, 1)
		if mutated == sample {
			t.Errorf("%s changes nothing", m.Name())
		}
		if _, err := parser.ParseFile(token.NewFileSet(), "due.go", mutated, 0); err != nil {
			t.Errorf("%s does not parse: %v\n%s", m.Name(), err, e.With)
		}
	}
}

func TestNamesAreUnique(t *testing.T) {
	seen := map[string]bool{}
	for _, m := range mutantsOf(t) {
		if seen[m.Name()] {
			t.Errorf("two mutants named %s", m.Name())
		}
		seen[m.Name()] = true
	}
}

// TestTheReferenceHasMutantsInEveryGoRegion: every region of the reference
// that holds a Go function gives mutants, each of which parses.
func TestTheReferenceHasMutantsInEveryGoRegion(t *testing.T) {
	root := filepath.Join("..", "..", "..", "..")
	ms, err := Of(root, []string{"reconcile", "children", "observe", "schedule-due", "start-run", "handwritten-loop"})
	if err != nil {
		t.Fatal(err)
	}
	byFunc, names := map[string]int{}, map[string]bool{}
	for _, m := range ms {
		byFunc[m.Func]++
		if names[m.Name()] {
			t.Errorf("two mutants named %s", m.Name())
		}
		names[m.Name()] = true
		e := m.Mistake().Edits[0]
		src, err := os.ReadFile(filepath.Join(root, e.File))
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(src), e.Replace); n != 1 {
			t.Fatalf("%s: the function's text occurs %d times in %s", m.Name(), n, e.File)
		}
		if _, err := parser.ParseFile(token.NewFileSet(), e.File, strings.Replace(string(src), e.Replace, e.With, 1), 0); err != nil {
			t.Errorf("%s does not parse: %v", m.Name(), err)
		}
	}
	for _, fn := range []string{"CronJobReconciler.Reconcile", "CronJobReconciler.observeJobs", "Schedule.dueTable", "CronJobReconciler.startDueRun", "Controller.processNextWorkItem"} {
		if byFunc[fn] == 0 {
			t.Errorf("no mutant of %s; by function: %v", fn, byFunc)
		}
	}
	t.Logf("%d mutants: %v", len(ms), byFunc)
}

// TestMutantsThatDoNotCompileAreSetAside type-checks the mutants of the
// reference's stage 06 regions: the ones that leave a variable unused or a
// function without its return do not count, the rest compile.
func TestMutantsThatDoNotCompileAreSetAside(t *testing.T) {
	if testing.Short() {
		t.Skip("lists the packages with go list -export (-short skips it)")
	}
	root := filepath.Join("..", "..", "..", "..")
	ms, err := Of(root, []string{"schedule-due", "start-run"})
	if err != nil {
		t.Fatal(err)
	}
	ok, not, err := Compiling(root, ms)
	if err != nil {
		t.Fatal(err)
	}
	if len(ok)+len(not) != len(ms) || len(ok) == 0 {
		t.Fatalf("%d mutants: %d compile, %d do not", len(ms), len(ok), len(not))
	}
	t.Logf("%d mutants: %d compile, %d do not", len(ms), len(ok), len(not))
	var removedReturn bool
	for name, why := range not {
		if strings.Contains(name, "remove statement") && strings.Contains(why, "missing return") {
			removedReturn = true
		}
	}
	if !removedReturn {
		t.Errorf("no mutant failed with a missing return; those that do not compile: %v", not)
	}
	for _, m := range ok {
		if m.Op == ReturnZero && m.Func == "CronJobReconciler.startDueRun" {
			return
		}
	}
	t.Errorf("startDueRun returning zero values compiles, but is not among the %d that do", len(ok))
}

// TestInPackageMutatesEveryFunctionButNotTestsOrGeneratedFiles: the tests
// of a package that no stage checks as a whole are judged by mutants of all
// of its functions.
func TestInPackageMutatesEveryFunctionButNotTestsOrGeneratedFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) {
		if err := os.MkdirAll(filepath.Join(dir, "p"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "p", name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("due.go", sample)
	write("due_test.go", "package sample\n\nfunc helper(a, b int) bool { return a < b }\n")
	write("zz_generated.deepcopy.go", "package sample\n\nfunc deep(a, b int) bool { return a < b }\n")
	ms, err := InPackage(dir, "p")
	if err != nil {
		t.Fatal(err)
	}
	funcs := map[string]bool{}
	for _, m := range ms {
		funcs[m.Func] = true
		if m.File != "p/due.go" {
			t.Errorf("a mutant of %s: %s", m.File, m.Name())
		}
	}
	if !funcs["outside"] || !funcs["due"] || len(funcs) != 2 {
		t.Errorf("mutated functions %v, want outside and due", slices.Sorted(maps.Keys(funcs)))
	}
}
