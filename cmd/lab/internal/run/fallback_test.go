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
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"cronlab.dev/cronlab/cmd/lab/internal/gotest"
	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
	"cronlab.dev/cronlab/cmd/lab/internal/stage"
)

// A module where the attendee wrote two functions and one does not
// compile: with it stubbed through the overlay, the other one's test runs
// and passes, and the attendee's file is left as it was.
func TestOneFunctionThatDoesNotCompileLeavesTheOthersChecked(t *testing.T) {
	l := i18n.English
	dir := t.TempDir()
	write := func(name, src string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/m\n\ngo 1.26\n")
	broken := "package p\n\nimport \"strings\"\n\ntype R struct{}\n\nfunc Good() string { return strings.ToUpper(\"ok\") }\n\nfunc (r *R) Bad() (int, error) {\n\treturn undefinedHelper(), nil\n}\n"
	write("p/p.go", broken)
	write("p/p_test.go", "package p\n\nimport \"testing\"\n\nfunc TestGood(t *testing.T) {\n\tif Good() != \"OK\" {\n\t\tt.Fatal(Good())\n\t}\n}\n\nfunc TestBad(t *testing.T) {\n\tif _, err := new(R).Bad(); err != nil {\n\t\tt.Fatal(err)\n\t}\n}\n")

	out, err := exec.Command("go", "-C", dir, "test", "-c", "-json", "-o", os.DevNull, "./p").CombinedOutput()
	if err == nil {
		t.Fatal("the broken package built")
	}
	r := gotest.ParseJSON(out, dir, "./p", nil, false)
	if len(r.BuildErrors) == 0 {
		t.Fatalf("no compiler message in:\n%s", out)
	}
	s := stage.Stage{Slug: "stage-99", Num: "99", Dir: "exercises/99-x"}
	overlay, broken2, cleanup, ok := stubbedOverlay(l, dir, s, map[string]bool{"p/p.go": true}, r.BuildErrors)
	if !ok {
		t.Fatalf("no overlay for %v", r.BuildErrors)
	}
	defer cleanup()
	if len(broken2) != 1 || broken2[0].Function != "R.Bad" {
		t.Errorf("broken: %+v, want R.Bad", broken2)
	}
	out, err = exec.Command("go", "-C", dir, "test", "-overlay", overlay, "-v", "./p").CombinedOutput()
	text := string(out)
	if err == nil || !strings.Contains(text, "--- PASS: TestGood") || !strings.Contains(text, "--- FAIL: TestBad") ||
		!strings.Contains(text, "TODO(lab stage-99): this function does not compile") {
		t.Errorf("with R.Bad stubbed, want TestGood to pass and TestBad to fail with the TODO that says why:\n%s", text)
	}
	if raw, _ := os.ReadFile(filepath.Join(dir, "p", "p.go")); string(raw) != broken {
		t.Error("the attendee's file was changed")
	}

	if _, _, _, ok := stubbedOverlay(l, dir, s, map[string]bool{}, r.BuildErrors); ok {
		t.Error("an error in a file the attendee does not write was stubbed away")
	}
}

// What cannot be stubbed says why: conflict markers by name, a syntax error
// as one, an error outside the stage's functions as such.
func TestACheckThatCannotStubSaysWhy(t *testing.T) {
	l := i18n.English
	dir, write := scratchModule(t)
	owned := map[string]bool{"p/p.go": true}
	build := func() []string { return buildErrors(t, dir) }

	write("p/p.go", "package p\n\nimport (\n<<<<<<< your code (lab/04)\n\t\"strings\"\n=======\n\t\"time\"\n>>>>>>> the starter of stage 05\n)\n\nfunc A() string { return strings.ToUpper(time.UTC.String()) }\n")
	errs := build()
	if got := ConflictMarkers(dir, owned, errs); strings.Join(got, " ") != "p/p.go:4 p/p.go:6 p/p.go:8" {
		t.Errorf("conflict markers at %v, want lines 4, 6 and 8 of p/p.go (the compiler said %v)", got, errs)
	}

	write("p/p.go", "package p\n\nfunc A() string {\n\treturn \"a\"\n\nfunc B() string { return \"b\" }\n")
	if why := whyNoRest(l, dir, owned, build()); !strings.Contains(why, "syntax error") {
		t.Errorf("a syntax error: %q", why)
	}
	if got := ConflictMarkers(dir, owned, nil); len(got) != 0 {
		t.Errorf("markers in a file without any: %v", got)
	}

	write("p/p.go", "package p\n\nfunc A() string { return helper() }\n")
	write("p/given.go", "package p\n\nfunc helper() string { return undefinedThing }\n")
	if why := whyNoRest(l, dir, owned, build()); !strings.Contains(why, "outside the functions") || !strings.Contains(why, "p/given.go") {
		t.Errorf("an error in a given file: %q", why)
	}
}

// A compiler message of several lines ("not enough return values" goes on
// with have and want) is one error, placed in its function, which is
// stubbed for the rest of the check like any other.
func TestAMessageOfSeveralLinesIsOneCompileError(t *testing.T) {
	l := i18n.English
	dir, write := scratchModule(t)
	write("p/p.go", "package p\n\nfunc Finished() (bool, string) {\n\treturn false\n}\n\nfunc Good() int { return 1 }\n")
	r := gotest.Results{BuildErrors: buildErrors(t, dir)}
	if len(r.BuildErrors) != 1 || !strings.Contains(r.BuildErrors[0], "not enough return values\n\thave (bool)\n\twant (bool, string)") {
		t.Fatalf("build errors %q, want one with its have and want", r.BuildErrors)
	}
	if c := gotest.PlaceCompileError(dir, r.BuildErrors[0]); c.Function != "Finished" || c.Line != 4 {
		t.Errorf("placed as %+v", c)
	}
	if _, broken, cleanup, ok := stubbedOverlay(l, dir, stage.Stage{Slug: "stage-99", Num: "99", Dir: "exercises/99-x"}, map[string]bool{"p/p.go": true}, r.BuildErrors); !ok {
		t.Error("no overlay: the rest would not be checked")
	} else {
		cleanup()
		if len(broken) != 1 || broken[0].Function != "Finished" {
			t.Errorf("stubbed %+v", broken)
		}
	}
}

// An import that nothing uses is the compile error that Go's strictness
// gives most often while a function is half written: the rest is checked
// with it dropped.
func TestAnUnusedImportLeavesTheRestChecked(t *testing.T) {
	l := i18n.English
	dir, write := scratchModule(t)
	write("p/p.go", "package p\n\nimport (\n\t\"fmt\"\n\t\"strings\"\n)\n\nfunc Good() string { return strings.ToUpper(\"ok\") }\n")
	r := gotest.Results{BuildErrors: buildErrors(t, dir)}
	overlay, broken, cleanup, ok := stubbedOverlay(l, dir, stage.Stage{Slug: "stage-99", Num: "99", Dir: "exercises/99-x"}, map[string]bool{"p/p.go": true}, r.BuildErrors)
	if !ok {
		t.Fatalf("no overlay for %q", r.BuildErrors)
	}
	defer cleanup()
	if len(broken) != 1 || broken[0].Function != gotest.UnusedImportName {
		t.Errorf("broken: %+v", broken)
	}
	if out, err := exec.Command("go", "-C", dir, "build", "-overlay="+overlay, "./p").CombinedOutput(); err != nil {
		t.Errorf("the overlay does not build: %v\n%s", err, out)
	}
}

// scratchModule is an empty Go module in a temporary directory, and a
// function that writes a file of it.
func scratchModule(t *testing.T) (dir string, write func(name, src string)) {
	t.Helper()
	dir = t.TempDir()
	write = func(name, src string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/m\n\ngo 1.26\n")
	return dir, write
}

// buildErrors builds the tests of package p of a scratch module, which
// must fail, and returns the compiler's messages as lab check reads them.
func buildErrors(t *testing.T, dir string) []string {
	t.Helper()
	out, err := exec.Command("go", "-C", dir, "test", "-c", "-json", "-o", os.DevNull, "./p").CombinedOutput()
	if err == nil {
		t.Fatal("the broken package built")
	}
	return gotest.ParseJSON(out, dir, "./p", nil, false).BuildErrors
}
