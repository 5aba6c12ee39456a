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

	"cronlab.dev/cronlab/cmd/lab/internal/regions"
	"cronlab.dev/cronlab/cmd/lab/internal/run"
	"cronlab.dev/cronlab/cmd/lab/internal/stage"
)

// An attendee starts a stage from its README: it must name every function
// the stage asks for, so that what `bin/lab start` lists is explained there.
func TestEveryStageREADMENamesTheFunctionsToWrite(t *testing.T) {
	root := filepath.Join("..", "..", "..", "..")
	stages, err := stage.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range stages {
		readme, err := os.ReadFile(filepath.Join(root, s.Readme()))
		if err != nil || len(strings.TrimSpace(string(readme))) == 0 {
			t.Errorf("stage %s has no README (%s)", s.Num, s.Readme())
			continue
		}
		for _, fn := range stageFunctions(t, root, s) {
			if slices.Contains(s.Regions, fn) {
				continue // a region without functions: the README names what it asks otherwise
			}
			if _, method, ok := strings.Cut(fn, "."); ok {
				fn = method
			}
			if !strings.Contains(string(readme), fn) {
				t.Errorf("%s does not name %s, which stage %s asks the attendee to write", s.Readme(), fn, s.Num)
			}
		}
	}
}

// The table of which specs check which function (functions.go) names every
// function the stage asks for, and nothing else; and each spec it names is
// in the stage's tests. (That each names a spec the reference runs, lab
// verify checks: it has the reference's results at hand.)
func TestEveryFunctionOfAStageHasItsSpecs(t *testing.T) {
	root := filepath.Join("..", "..", "..", "..")
	stages, err := stage.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range stages {
		want := map[string]bool{}
		for _, name := range stageFunctions(t, root, s) {
			want[name] = true
		}
		var sources strings.Builder
		for _, test := range s.Tests {
			files, _ := filepath.Glob(filepath.Join(root, test.Package, "*_test.go"))
			for _, f := range files {
				raw, _ := os.ReadFile(f)
				sources.Write(raw)
			}
		}
		for _, f := range s.Functions {
			if !want[f.Name] {
				t.Errorf("stage %s: the table names %s, which is not a function (or region) of the stage", s.Num, f.Name)
			}
			delete(want, f.Name)
			if len(f.Specs) == 0 {
				t.Errorf("stage %s: no spec checks %s", s.Num, f.Name)
			}
			for _, spec := range f.Specs {
				if !strings.Contains(sources.String(), spec) {
					t.Errorf("stage %s: %s is checked by %q, which is in none of its tests", s.Num, f.Name, spec)
				}
			}
		}
		for name := range want {
			t.Errorf("stage %s: %s has no row in stage.yaml's functions", s.Num, name)
		}
	}
}

// stageFunctions lists the functions of a stage's regions, or a region's
// name where it declares none.
func stageFunctions(t *testing.T, root string, s stage.Stage) []string {
	t.Helper()
	wanted := map[string]bool{}
	for _, r := range s.Regions {
		wanted[r] = true
	}
	var names []string
	for _, path := range run.RegionFiles(root, "HEAD", s) {
		src, err := os.ReadFile(filepath.Join(root, path))
		if err != nil {
			t.Fatal(err)
		}
		found, err := regions.Parse(path, src)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range found {
			if !wanted[r.Name] {
				continue
			}
			fns := regions.FunctionsIn(path, string(src), r)
			if len(fns) == 0 {
				fns = []string{r.Name}
			}
			names = append(names, fns...)
		}
	}
	return names
}

// Every edit of every mistake in the catalogue finds what it replaces, once,
// in the reference as it is: a spec or a function rewritten (a sentence
// added to an assertion) must take its mistakes along, or lab dev verify cannot
// make them, and lab dev mutants counts them as never made.
func TestEveryMistakeEditsTheReferenceAsItIs(t *testing.T) {
	root := filepath.Join("..", "..", "..", "..")
	stages, err := stage.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	edits := 0
	for _, s := range stages {
		for _, m := range s.Mistakes {
			for _, e := range m.Edits {
				src, err := os.ReadFile(filepath.Join(root, e.File))
				if err != nil {
					t.Errorf("stage %s, mistake %q: %v", s.Num, m.Name, err)
					continue
				}
				edits++
				if n := strings.Count(string(src), e.Replace); n != 1 {
					t.Errorf("stage %s, mistake %q: what it replaces in %s is there %d times, not once: write the edit against the file as it is now", s.Num, m.Name, e.File, n)
				}
			}
		}
	}
	if edits < 20 {
		t.Errorf("only %d edits in the catalogue: is it read?", edits)
	}
}
