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

package start

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cronlab.dev/cronlab/cmd/lab/internal/base"
	"cronlab.dev/cronlab/cmd/lab/internal/carry"
	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
	"cronlab.dev/cronlab/cmd/lab/internal/labtest"
	"cronlab.dev/cronlab/cmd/lab/internal/progress"
	"cronlab.dev/cronlab/cmd/lab/internal/run"
	"cronlab.dev/cronlab/cmd/lab/internal/stage"
	"cronlab.dev/cronlab/cmd/lab/internal/starter"
)

func passed(t *testing.T, root, id string) {
	t.Helper()
	p := progress.Read(root)
	p.Stages[id] = progress.StageResult{Passed: true, At: time.Now()}
	if err := p.Save(root); err != nil {
		t.Fatal(err)
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

func TestStartCarriesTheAttendeesOwnCodeIntoTheNextStage(t *testing.T) {
	l := i18n.English
	root, stages := labtest.TinyLab(t)
	t.Setenv("LAB_CARRY", "")
	if err := CmdStart(l, root, stages, stages[0], false); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(root, "p", "p.go")
	src := mustRead(t, p)
	if !strings.Contains(src, "TODO(lab one)") || !strings.Contains(src, "TODO(lab two)") {
		t.Fatalf("the starter of 01 stubs One and Two:\n%s", src)
	}
	// The attendee writes One their own way, and leaves it uncommitted.
	mine := strings.Replace(src, readFunc(src, "One"), "func One() string {\n\treturn \"ONE\"[:0] + \"one\" // my own way\n}", 1)
	if err := os.WriteFile(p, []byte(mine), 0o644); err != nil {
		t.Fatal(err)
	}

	// Not passed yet: stage 02 starts from the reference, and says why.
	if branch, why := carry.From(l, root, stages, stages[1], false); branch != "" || !strings.Contains(why, "did not pass") {
		t.Errorf("carry before 01 passed: %q, %q", branch, why)
	}

	passed(t, root, "one")
	if err := CmdStart(l, root, stages, stages[1], false); err != nil {
		t.Fatal(err)
	}
	if b := strings.TrimSpace(labtest.Git(t, root, "branch", "--show-current")); b != "lab/two" {
		t.Fatalf("on %s, want lab/two", b)
	}
	got := mustRead(t, p)
	if !strings.Contains(got, "// my own way") {
		t.Errorf("the attendee's One did not come along:\n%s", got)
	}
	if !strings.Contains(got, "TODO(lab two)") {
		t.Errorf("Two is not stage 02's stub:\n%s", got)
	}
	if log := labtest.Git(t, root, "log", "--format=%s", "lab/one"); !strings.Contains(log, "committed by lab start") {
		t.Errorf("the uncommitted work on lab/one was not committed first:\n%s", log)
	}
	if r := progress.Read(root).Stages["one"]; !r.Passed {
		t.Error("the progress file did not survive lab start")
	}

	// --fresh: the reference's One.
	if err := CmdStart(l, root, stages, stages[1], true); err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, p); strings.Contains(got, "// my own way") || !strings.Contains(got, `return "one"`) {
		t.Errorf("--fresh did not start from the reference:\n%s", got)
	}
	if branches := labtest.Git(t, root, "branch", "--list", "lab/two-saved-*"); !strings.Contains(branches, "lab/two-saved-") {
		t.Error("the lab/two that --fresh replaced was not kept")
	}
}

func TestAConflictIsLeftAsMarkersAndSaid(t *testing.T) {
	l := i18n.English
	root, stages := labtest.TinyLab(t)
	t.Setenv("LAB_CARRY", "always")
	// An attendee whose git shows conflicts with the base too: the carry
	// still writes the two-sided markers that its sentence explains.
	global := filepath.Join(t.TempDir(), "gitconfig")
	if err := os.WriteFile(global, []byte("[merge]\n\tconflictStyle = zdiff3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GIT_CONFIG_GLOBAL", global)
	if err := CmdStart(l, root, stages, stages[0], false); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(root, "p", "p.go")
	src := mustRead(t, p)
	// The attendee began stage 02 early: they changed Two's stub, which the
	// starter of 02 changes too.
	early := strings.Replace(src, readFunc(src, "Two"), "func Two() string {\n\treturn \"two, early\"\n}", 1)
	if err := os.WriteFile(p, []byte(early), 0o644); err != nil {
		t.Fatal(err)
	}
	labtest.Git(t, root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-am", "early")
	dir, _, cleanup, err := starter.Tree(l, root, stages, stages[1], "")
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	ref, _ := base.ReferenceCommit(root)
	c, err := carry.Into(root, dir, ref, "lab/one", stages[1])
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Conflicted) != 1 || !strings.HasPrefix(c.Conflicted[0], "p/p.go") {
		t.Fatalf("conflicts: %v, want p/p.go", c.Conflicted)
	}
	got := string(c.Conflicts["p/p.go"])
	for _, want := range []string{"<<<<<<< your code 你的代码 (lab/one)", "two, early", "=======", ">>>>>>> the starter of stage 02 第 02 阶段的起始代码"} {
		if !strings.Contains(got, want) {
			t.Errorf("the merged file lacks %q:\n%s", want, got)
		}
	}

	// lab start leaves the markers in the working tree, not in a commit.
	if err := CmdStart(l, root, stages, stages[1], false); err != nil {
		t.Fatal(err)
	}
	p = filepath.Join(root, "p", "p.go")
	if got := mustRead(t, p); !strings.Contains(got, "<<<<<<< your code 你的代码 (lab/one)") {
		t.Errorf("the working tree has no conflict markers:\n%s", got)
	}
	if committed := labtest.Git(t, root, "show", "HEAD:p/p.go"); strings.Contains(committed, "<<<<<<<") {
		t.Errorf("the conflict markers were committed:\n%s", committed)
	}
	if status := labtest.Git(t, root, "status", "--porcelain"); !strings.Contains(status, "p/p.go") {
		t.Errorf("p/p.go is not left modified: %q", status)
	}
	if got := mustRead(t, p); strings.Contains(got, "|||||||") {
		t.Errorf("a diff3 section in the markers:\n%s", got)
	}
	// lab check names them before it builds anything.
	if markers := run.ConflictMarkers(root, run.LeftOpen(root), nil); len(markers) != 3 || !strings.HasPrefix(markers[0], "p/p.go:") {
		t.Errorf("the check finds the markers at %v, want three lines of p/p.go", markers)
	}
}

// With LAB_CARRY=always, a stage that was not finished comes along, but not
// its stubs: what the attendee never wrote is the reference's in the next
// starter, so that the next stage does not start on an earlier TODO.
func TestCarryingAnUnfinishedStageDoesNotCarryItsStubs(t *testing.T) {
	l := i18n.English
	root, stages := labtest.TinyLab(t)
	t.Setenv("LAB_CARRY", "always")
	// A third region in stage 01, which the attendee leaves a stub.
	p := filepath.Join(root, "p", "p.go")
	three := mustRead(t, p) + "\n// lab:begin three\n\n// Three says three.\nfunc Three() string {\n\treturn \"three\"\n}\n\n// lab:end\n"
	if err := os.WriteFile(p, []byte(three), 0o644); err != nil {
		t.Fatal(err)
	}
	yaml := filepath.Join(root, "exercises", "one", "stage.yaml")
	if err := os.WriteFile(yaml, []byte(strings.Replace(mustRead(t, yaml), "[one]", "[one, three]", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	labtest.Git(t, root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-am", "three")
	stages, err := stage.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	if err := CmdStart(l, root, stages, stages[0], false); err != nil {
		t.Fatal(err)
	}
	src := mustRead(t, p)
	mine := strings.Replace(src, readFunc(src, "One"), "func One() string {\n\treturn \"one\" // mine\n}", 1)
	if err := os.WriteFile(p, []byte(mine), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := CmdStart(l, root, stages, stages[1], false); err != nil {
		t.Fatal(err)
	}
	got := mustRead(t, p)
	if !strings.Contains(got, "// mine") {
		t.Errorf("the attendee's One did not come along:\n%s", got)
	}
	if strings.Contains(got, "TODO(lab one)") || !strings.Contains(got, `return "three"`) {
		t.Errorf("Three, never written, is not the reference's:\n%s", got)
	}
}

// A region whose earlier starters have given forms (stage.yaml's trusting:)
// is, on the attendee's branch, the form they never touched; the next
// stage's starter marks it TODO. Carrying their code over is no conflict:
// nothing of theirs is in it (a walkthrough met five such "conflicts" at
// bin/lab start 15).
func TestAGivenFormTheAttendeeNeverTouchedIsNoConflict(t *testing.T) {
	l := i18n.English
	root, stages := labtest.TinyLab(t)
	t.Setenv("LAB_CARRY", "")
	// A third stage writes Two; the starters of one and two have a form of it.
	for name, content := range map[string]string{
		"exercises/stages.yaml":     "- one\n- zero\n- two\n",
		"exercises/zero/stage.yaml": "title: zero\nregions: []\ntests:\n- package: ./p\n  run: TestZero\nhints:\n- en: nothing\n",
		"exercises/zero/README.md":  "# Zero\n",
		"exercises/two/stage.yaml":  "title: two\nregions: [two]\ntrusting: {two: given/p.go}\ntests:\n- package: ./p\n  run: TestTwo\nhints:\n- en: write Two\n",
		"exercises/two/given/p.go":  "//go:build ignore\n\npackage p\n\n// Two is given: it says nothing yet.\nfunc Two() string {\n\treturn \"\"\n}\n",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	labtest.Git(t, root, "add", "-A")
	labtest.Git(t, root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "a given form of Two")
	stages, err := stage.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	if err := CmdStart(l, root, stages, stages[0], false); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(root, "p", "p.go")
	src := mustRead(t, p)
	if !strings.Contains(src, "// Two is given") || strings.Contains(src, "TODO(lab two)") {
		t.Fatalf("stage one's starter does not have the given form of Two:\n%s", src)
	}
	mine := strings.Replace(src, readFunc(src, "One"), "func One() string {\n\treturn \"one\" // mine\n}", 1)
	if err := os.WriteFile(p, []byte(mine), 0o644); err != nil {
		t.Fatal(err)
	}
	passed(t, root, "one")
	if err := CmdStart(l, root, stages, stages[1], false); err != nil {
		t.Fatal(err)
	}
	passed(t, root, "zero")
	if err := CmdStart(l, root, stages, stages[2], false); err != nil {
		t.Fatal(err)
	}
	if b := strings.TrimSpace(labtest.Git(t, root, "branch", "--show-current")); b != "lab/two" {
		t.Fatalf("on %s, want lab/two (a conflict keeps the attendee where they were)", b)
	}
	got := mustRead(t, p)
	if strings.Contains(got, "<<<<<<<") || !strings.Contains(got, "// mine") {
		t.Errorf("their One did not come along cleanly:\n%s", got)
	}
	if !strings.Contains(got, "TODO(lab two)") || !strings.Contains(got, "// Two is given") {
		t.Errorf("Two is not stage two's starter, the given form marked TODO:\n%s", got)
	}
	if status := labtest.Git(t, root, "status", "--porcelain", "--untracked-files=no"); strings.TrimSpace(status) != "" {
		t.Errorf("the carry left changes in the working tree:\n%s", status)
	}
}

// readFunc is the text of func name in src, from "func" to its closing brace.
func readFunc(src, name string) string {
	start := strings.Index(src, "func "+name+"(")
	end := strings.Index(src[start:], "\n}")
	return src[start : start+end+2]
}

// lab status on lab/two shows stage 01 as given by the starter, not as not
// started; off the lab branches nothing is given.
func TestStatusShowsTheStagesAStarterSolved(t *testing.T) {
	l := i18n.English
	root, stages := labtest.TinyLab(t)
	status := func() string {
		t.Helper()
		return labtest.Printed(t, func() error { return progress.CmdStatus(l, root, stages) })
	}
	if got := status(); strings.Contains(got, "given") || !strings.Contains(got, "01  one                    not started") {
		t.Errorf("on main:\n%s", got)
	}
	if err := CmdStart(l, root, stages, stages[1], false); err != nil {
		t.Fatal(err)
	}
	got := status()
	for _, want := range []string{"  01  one                    given", "> 02  two                    in progress", "solved in the starter of lab/two"} {
		if !strings.Contains(got, want) {
			t.Errorf("on lab/two, no %q in:\n%s", want, got)
		}
	}
	if progress.CurrentStage(stages, "lab/two-saved-20261123-101010") != "02" || progress.CurrentStage(stages, "main") != "" {
		t.Error("currentStage")
	}
}

// The TODO file that a starter generated (zz_lab_todo.go) in a package the
// next stage leaves alone comes along, for stubs the attendee may still
// carry, but it is not named as the attendee's code.
func TestTheStartersTODOFileIsNotCarriedAsTheAttendeesCode(t *testing.T) {
	l := i18n.English
	root, _ := labtest.TinyLab(t)
	write := func(name, content string) {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// One returns an error, so its stub needs the package's labTODO; Two
	// lives in another package.
	write("p/p.go", "package p\n\n// lab:begin one\n\n// One says one.\nfunc One() (string, error) {\n\treturn \"one\", nil\n}\n\n// lab:end\n")
	write("q/q.go", "package q\n\n// lab:begin two\n\n// Two says two.\nfunc Two() string {\n\treturn \"two\"\n}\n\n// lab:end\n")
	write("exercises/two/stage.yaml", "title: two\nregions: [two]\ntests:\n- package: ./q\n  run: TestTwo\nhints:\n- en: write Two\n")
	labtest.Git(t, root, "add", "-A")
	labtest.Git(t, root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "Two apart")
	stages, err := stage.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("LAB_CARRY", "")
	if err := CmdStart(l, root, stages, stages[0], false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "p", "zz_lab_todo.go")); err != nil {
		t.Fatalf("the starter of 01 has no TODO file in p: %v", err)
	}
	p := filepath.Join(root, "p", "p.go")
	src := mustRead(t, p)
	mine := strings.Replace(src, readFunc(src, "One"), "func One() (string, error) {\n\treturn \"one\", nil // my own way\n}", 1)
	if err := os.WriteFile(p, []byte(mine), 0o644); err != nil {
		t.Fatal(err)
	}
	passed(t, root, "one")
	out := labtest.Printed(t, func() error { return CmdStart(l, root, stages, stages[1], false) })
	if !strings.Contains(out, "Carried your code in p/p.go.") {
		t.Errorf("lab start 02 does not name the attendee's p/p.go:\n%s", out)
	}
	if strings.Contains(out, "zz_lab_todo.go") {
		t.Errorf("lab start 02 names the starter's generated TODO file as the attendee's code:\n%s", out)
	}
}
