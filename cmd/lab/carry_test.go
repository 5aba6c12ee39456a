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

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A lab of two stages in a git repository of its own: stage 01 writes One,
// stage 02 writes Two, both in p/p.go.
func tinyLab(t *testing.T) (root string, stages []stage) {
	t.Helper()
	root = t.TempDir()
	files := map[string]string{
		".gitignore": "bin/\n",
		"go.mod":     "module example.com/lab\n\ngo 1.26\n",
		"p/p.go": `package p

// lab:begin one

// One says one.
func One() string {
	return "one"
}

// lab:end

// lab:begin two

// Two says two.
func Two() string {
	return "two"
}

// lab:end
`,
		"exercises/01-one/stage.yaml": "title: one\nregions: [one]\ntests:\n- package: ./p\n  run: TestOne\nhints:\n- en: write One\n",
		"exercises/01-one/README.md":  "# One\n",
		"exercises/02-two/stage.yaml": "title: two\nregions: [two]\ntests:\n- package: ./p\n  run: TestTwo\nhints:\n- en: write Two\n",
		"exercises/02-two/README.md":  "# Two\n",
		"bin/controller-gen":          "#!/bin/sh\n",
	}
	for name, content := range files {
		path := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	git(t, root, "init", "-q", "-b", "main")
	git(t, root, "add", "-A")
	git(t, root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "the reference")
	stages, err := loadStages(root)
	if err != nil {
		t.Fatal(err)
	}
	return root, stages
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := output(dir, "git", args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func passed(t *testing.T, root, id string) {
	t.Helper()
	p := loadProgress(root)
	p.Stages[id] = stageResult{Passed: true, At: time.Now()}
	if err := p.save(root); err != nil {
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
	root, stages := tinyLab(t)
	t.Setenv("LAB_CARRY", "")
	if err := cmdStart(root, stages, stages[0], false); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(root, "p", "p.go")
	starter := mustRead(t, p)
	if !strings.Contains(starter, "TODO(lab 01)") || !strings.Contains(starter, "TODO(lab 02)") {
		t.Fatalf("the starter of 01 stubs One and Two:\n%s", starter)
	}
	// The attendee writes One their own way, and leaves it uncommitted.
	mine := strings.Replace(starter, readFunc(starter, "One"), "func One() string {\n\treturn \"ONE\"[:0] + \"one\" // my own way\n}", 1)
	if err := os.WriteFile(p, []byte(mine), 0o644); err != nil {
		t.Fatal(err)
	}

	// Not passed yet: stage 02 starts from the reference, and says why.
	if branch, why := carryFrom(root, stages, stages[1], false); branch != "" || !strings.Contains(why, "did not pass") {
		t.Errorf("carry before 01 passed: %q, %q", branch, why)
	}

	passed(t, root, "01")
	if err := cmdStart(root, stages, stages[1], false); err != nil {
		t.Fatal(err)
	}
	if b := strings.TrimSpace(git(t, root, "branch", "--show-current")); b != "lab/02" {
		t.Fatalf("on %s, want lab/02", b)
	}
	got := mustRead(t, p)
	if !strings.Contains(got, "// my own way") {
		t.Errorf("the attendee's One did not come along:\n%s", got)
	}
	if !strings.Contains(got, "TODO(lab 02)") {
		t.Errorf("Two is not stage 02's stub:\n%s", got)
	}
	if log := git(t, root, "log", "--format=%s", "lab/01"); !strings.Contains(log, "committed by lab start") {
		t.Errorf("the uncommitted work on lab/01 was not committed first:\n%s", log)
	}
	if r := loadProgress(root).Stages["01"]; !r.Passed {
		t.Error("the progress file did not survive lab start")
	}

	// --fresh: the reference's One.
	if err := cmdStart(root, stages, stages[1], true); err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, p); strings.Contains(got, "// my own way") || !strings.Contains(got, `return "one"`) {
		t.Errorf("--fresh did not start from the reference:\n%s", got)
	}
	if branches := git(t, root, "branch", "--list", "lab/02-saved-*"); !strings.Contains(branches, "lab/02-saved-") {
		t.Error("the lab/02 that --fresh replaced was not kept")
	}
}

func TestAConflictIsLeftAsMarkersAndSaid(t *testing.T) {
	root, stages := tinyLab(t)
	t.Setenv("LAB_CARRY", "always")
	if err := cmdStart(root, stages, stages[0], false); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(root, "p", "p.go")
	starter := mustRead(t, p)
	// The attendee began stage 02 early: they changed Two's stub, which the
	// starter of 02 changes too.
	early := strings.Replace(starter, readFunc(starter, "Two"), "func Two() string {\n\treturn \"two, early\"\n}", 1)
	if err := os.WriteFile(p, []byte(early), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-am", "early")
	dir, _, cleanup, err := starterTree(root, stages, stages[1], "")
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	ref, _ := referenceCommit(root)
	_, conflicted, err := carryInto(root, dir, ref, "lab/01", stages[1])
	if err != nil {
		t.Fatal(err)
	}
	if len(conflicted) != 1 || !strings.HasPrefix(conflicted[0], "p/p.go") {
		t.Fatalf("conflicts: %v, want p/p.go", conflicted)
	}
	got := mustRead(t, filepath.Join(dir, "p", "p.go"))
	for _, want := range []string{"<<<<<<< your code (lab/01)", "two, early", "=======", ">>>>>>> the starter of stage 02"} {
		if !strings.Contains(got, want) {
			t.Errorf("the merged file lacks %q:\n%s", want, got)
		}
	}
}

// readFunc is the text of func name in src, from "func" to its closing brace.
func readFunc(src, name string) string {
	start := strings.Index(src, "func "+name+"(")
	end := strings.Index(src[start:], "\n}")
	return src[start : start+end+2]
}
