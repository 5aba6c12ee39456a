//go:build recipes

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

// The recipe of docs/maintaining.md that adds a stage, walked by a test on
// a scratch clone: a small stage between scheduling and envtest, made by
// the documented steps. It takes about two minutes (lab dev verify of the new
// stage runs stage 06's envtest specs on its starter, and the new row is
// measured), so it is not in make test: make test-recipes runs it.

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"cronlab.dev/cronlab/cmd/lab/internal/base"
	"cronlab.dev/cronlab/cmd/lab/internal/stage"
)

// The new stage's folder, as a maintainer would write it: its code with
// the region to write, its test, stage.yaml and the two READMEs.
var backoffStage = map[string]string{
	"backoff.go": `// Package backoff is a stage made by the recipe's test: how long to wait
// before the next attempt.
package backoff

import "time"

// lab:begin backoff

// Delay is the wait before attempt n (from 0): a second, doubled at each
// attempt up to 32 seconds, then a minute.
func Delay(n int) time.Duration {
	if n >= 6 {
		return time.Minute
	}
	return time.Second << n
}

// lab:end
`,
	"backoff_test.go": `package backoff

import (
	"testing"
	"time"

	"cronlab.dev/cronlab/test/say"
)

func TestDelay(t *testing.T) {
	for n, want := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second, 32 * time.Second, time.Minute, time.Minute} {
		if got := Delay(n); got != want {
			t.Error(say.Both("Delay(%d) = %v, want %v", "Delay(%d) = %v，应为 %v", n, got, want))
		}
	}
}
`,
	"stage.yaml": `title: "Backoff: how long to wait before the next attempt"
titleZh: "退避：下一次尝试之前等多久"
regions: [backoff]
tests:
- package: ./exercises/backoff
  run: "^TestDelay$"
functions:
- {name: Delay, specs: ["TestDelay"]}
hints:
- en: A second shifted left by n is the doubling; from the seventh attempt on (n >= 6) it is a minute.
  zh: 把一秒左移 n 位就是翻倍；从第七次尝试起（n >= 6）就是一分钟。
mistakes:
- name: a delay that never stops growing
  nameZh: 延迟一直增长，没有上限
  edits:
  - file: exercises/backoff/backoff.go
    replace: "\tif n >= 6 {\n\t\treturn time.Minute\n\t}\n"
    with: ""
`,
	"README.md":       "# Stage: backoff\n\nWrite `Delay` in `exercises/backoff/backoff.go`: the wait before attempt `n` (from 0) is a second,\ndoubled at each attempt up to 32 seconds, then a minute.\n",
	"README.zh-CN.md": "# 阶段：退避\n\n在 `exercises/backoff/backoff.go` 中编写 `Delay`：第 `n` 次尝试（从 0 开始）之前等待一秒，每次尝试翻一倍，到 32 秒为止，之后是一分钟。\n",
}

func TestTheRecipeAddsAStageBetweenTwo(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", "..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	clone := filepath.Join(t.TempDir(), "cronlab")
	shell(t, root, "git", "clone", "-q", root, clone)
	// What make setup-envtest and make controller-gen left in bin/, so that
	// the clone downloads and builds nothing the repository has already.
	for _, f := range []string{"controller-gen", "envtest-assets-path"} {
		if raw, err := os.ReadFile(filepath.Join(root, "bin", f)); err == nil {
			writeFile(t, filepath.Join(clone, "bin", f), raw, 0o755)
		}
	}
	before := shell(t, clone, "git", "rev-parse", "HEAD")
	was, err := stage.Load(clone)
	if err != nil {
		t.Fatal(err)
	}
	suitesWas, err := mutationSuites(clone, was, nil)
	if err != nil {
		t.Fatal(err)
	}

	// Recipe 4, steps 1 to 5: its place in the list, its folder.
	list := filepath.Join(clone, stage.ListFile)
	raw, err := os.ReadFile(list)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, list, []byte(strings.Replace(string(raw), "\n- scheduling\n", "\n- scheduling\n- backoff\n", 1)), 0o644)
	for name, text := range backoffStage {
		writeFile(t, filepath.Join(clone, "exercises", "backoff", name), []byte(text), 0o644)
	}
	shell(t, clone, "make", "translation-stamp", "FILES=exercises/backoff/README.zh-CN.md")
	shell(t, clone, "git", "add", "-A")
	shell(t, clone, "git", "-c", "user.name=recipe", "-c", "user.email=recipe@cronlab.dev", "commit", "-q", "-m", "a stage between scheduling and envtest")
	after := shell(t, clone, "git", "rev-parse", "HEAD")

	touched := strings.Fields(shell(t, clone, "git", "diff", "--name-only", before, after))
	t.Logf("files touched: %d: %s", len(touched), strings.Join(touched, ", "))
	for _, f := range touched {
		if f != stage.ListFile && !strings.HasPrefix(f, "exercises/backoff/") {
			t.Errorf("the recipe touched %s, outside the new folder and the list", f)
		}
	}

	now, err := stage.Load(clone)
	if err != nil {
		t.Fatal(err)
	}
	if s, err := stage.Find(now, "backoff"); err != nil || s.Num != "07" {
		t.Fatalf("backoff is stage %s (%v), want 07, between scheduling and envtest", s.Num, err)
	}
	// Every other stage keeps its identity, its branch, its hint ids and
	// its mutation row; only the numbers after the new one move.
	for _, w := range was {
		n, err := stage.Find(now, w.Slug)
		if err != nil {
			t.Fatalf("%s is gone: %v", w.Slug, err)
		}
		if n.Branch() != w.Branch() || !slices.Equal(hintIDs(n), hintIDs(w)) {
			t.Errorf("%s: branch %s, hints %v; it was %s, %v", w.Slug, n.Branch(), hintIDs(n), w.Branch(), hintIDs(w))
		}
	}
	suitesNow, err := mutationSuites(clone, now, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range suitesWas {
		i := slices.IndexFunc(suitesNow, func(s stage.Stage) bool { return s.Slug == w.Slug })
		if i < 0 {
			t.Errorf("no row %s any more", w.Slug)
			continue
		}
		a, errA := suiteInputs(clone, before, w)
		b, errB := suiteInputs(clone, after, suitesNow[i])
		if errA != nil || errB != nil || a != b {
			t.Errorf("the inputs of row %s moved: %s, now %s (%v, %v)", w.Slug, a, b, errA, errB)
		}
	}

	// Step 7: the checks.
	shell(t, clone, "go", "test", "./test/say/", "./cmd/lab/internal/stage/", "./cmd/lab/internal/hints/")
	shell(t, clone, "make", "verify-translations")
	shell(t, clone, "go", "build", "-o", "bin/lab", "./cmd/lab")
	out := shell(t, clone, filepath.Join(clone, "bin", "lab"), "dev", "verify", "backoff")
	for _, want := range []string{"the tests of stage 06 pass on it", "the check of stage 07 catches: a delay that never stops growing", "1 stage(s) verified"} {
		if !strings.Contains(out, want) {
			t.Errorf("lab dev verify backoff said\n%s\nwithout %q", out, want)
		}
	}

	// Step 8: its row measured and committed, the guard lists no row that
	// it did not list before the stage came.
	staleWas := guardLists(t, clone, before)
	out = shell(t, clone, filepath.Join(clone, "bin", "lab"), "dev", "mutants", "backoff")
	if !strings.Contains(out, "backoff: ") || !strings.Contains(out, " 0 survived") {
		t.Errorf("lab dev mutants backoff said\n%s", out)
	}
	shell(t, clone, "git", "-c", "user.name=recipe", "-c", "user.email=recipe@cronlab.dev", "commit", "-q", "-am", "its mutation row")
	t.Logf("rows the guard lists before the stage: %v", staleWas)
	if staleNow := guardLists(t, clone, ""); !slices.Equal(staleNow, staleWas) {
		t.Errorf("the guard lists %v, and listed %v before the stage", staleNow, staleWas)
	}
}

// guardLists are the rows that lab dev mutants --guard, given no time, says
// changed since the report, at commit at (the clone's HEAD if "").
func guardLists(t *testing.T, clone, at string) []string {
	t.Helper()
	if at != "" {
		head := shell(t, clone, "git", "rev-parse", "HEAD")
		shell(t, clone, "git", "checkout", "-q", at)
		defer shell(t, clone, "git", "checkout", "-q", head)
	}
	cmd := exec.Command(filepath.Join(clone, "bin", "lab"), "dev", "mutants", "--guard", "--budget", "1ns")
	cmd.Dir = clone
	out, _ := cmd.CombinedOutput() // it fails when a row changed: what it lists is the point
	var rows []string
	for _, line := range strings.Split(string(out), "\n") {
		if row, _, ok := strings.Cut(strings.TrimPrefix(line, "lab: "), " changed and the guard's"); ok {
			rows = append(rows, row)
		}
	}
	if !strings.Contains(string(out), "guard: ") {
		t.Fatalf("lab dev mutants --guard did not run:\n%s", out)
	}
	return rows
}

func hintIDs(s stage.Stage) (ids []string) {
	for _, h := range s.Hints {
		ids = append(ids, h.ID)
	}
	return ids
}

// shell runs a command in dir and fails the test with its output when it
// fails.
func shell(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s in %s: %v\n%s", name, strings.Join(args, " "), dir, err, base.LastLines(string(out), 40))
	}
	return strings.TrimSpace(string(out))
}

func writeFile(t *testing.T, path string, data []byte, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, mode); err != nil {
		t.Fatal(err)
	}
}
