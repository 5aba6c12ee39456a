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

// The catalogue of attendee mistakes. A stage's check is only as good as
// the mistakes it catches, so each stage.yaml lists realistic ones, made on
// the reference: a reversed comparison, Patch for Status().Patch, a missing
// owner reference, a spec that asserts nothing. `lab verify` makes each
// mistake in a scratch copy of the reference and fails when the stage's
// check still passes. (Not to be confused with the mutants_test.go files of
// stages 07 and 15: those are Reconcilers with bugs that the attendee's own
// specs must catch, and they run inside the stage's check.)

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// A mistake is one or more edits of the reference: what an attendee might
// write instead.
type mistake struct {
	Name  string `json:"name"`
	Edits []edit `json:"edits"`
}

// An edit replaces a piece of a file. Replace must occur exactly once in
// File, so that a catalogue that no longer matches the reference fails
// verify instead of silently testing nothing.
type edit struct {
	File    string `json:"file"`
	Replace string `json:"replace"`
	With    string `json:"with"`
}

// edited returns the files of the tree at dir that the mistake changes,
// by absolute path: with its edits made, and as they are.
func (m mistake) edited(dir string) (files, originals map[string][]byte, err error) {
	files, originals = map[string][]byte{}, map[string][]byte{}
	for _, e := range m.Edits {
		path, err := filepath.Abs(filepath.Join(dir, e.File))
		if err != nil {
			return nil, nil, err
		}
		src, ok := files[path]
		if !ok {
			if src, err = os.ReadFile(path); err != nil {
				return nil, nil, fmt.Errorf("mistake %q: %w", m.Name, err)
			}
			originals[path] = src
		}
		if n := strings.Count(string(src), e.Replace); n != 1 {
			return nil, nil, fmt.Errorf("mistake %q: %s has the text to replace %d times, not once: update the catalogue in stage.yaml", m.Name, e.File, n)
		}
		files[path] = []byte(strings.Replace(string(src), e.Replace, e.With, 1))
	}
	return files, originals, nil
}

// apply makes the mistake in the tree at dir and returns the function that
// undoes it.
func (m mistake) apply(dir string) (undo func(), err error) {
	files, originals, err := m.edited(dir)
	if err != nil {
		return nil, err
	}
	undo = func() {
		for path, orig := range originals {
			_ = os.WriteFile(path, orig, 0o644)
		}
	}
	for path, content := range files {
		if err := os.WriteFile(path, content, 0o644); err != nil {
			undo()
			return nil, err
		}
	}
	return undo, nil
}

// overlay writes the mistake's files under at and returns a build overlay
// (go build -overlay) that puts them in place of the tree's: Go then builds
// the tree with the mistake made, which stays as it was on disk, so that
// the next mistake can build while this one's tests run.
func (m mistake) overlay(dir, at string) (string, error) {
	files, _, err := m.edited(dir)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(at, 0o755); err != nil {
		return "", err
	}
	replace := map[string]string{}
	for path, content := range files {
		copyPath := filepath.Join(at, fmt.Sprintf("%d-%s", len(replace), filepath.Base(path)))
		if err := os.WriteFile(copyPath, content, 0o644); err != nil {
			return "", err
		}
		replace[path] = copyPath
	}
	raw, err := json.Marshal(map[string]map[string]string{"Replace": replace})
	if err != nil {
		return "", err
	}
	overlay := filepath.Join(at, "overlay.json")
	return overlay, os.WriteFile(overlay, raw, 0o644)
}

// A catalogueRun checks the catalogues of several stages and keeps their
// scores.
type catalogueRun struct {
	caught map[string]int
}

func newCatalogueRun() *catalogueRun {
	return &catalogueRun{caught: map[string]int{}}
}

// check makes each mistake of stage s in the tree at dir (the starter of
// the stage after s: s solved, later stages still stubs, as the attendee
// has it) and runs the stage's check, which must fail.
func (c *catalogueRun) check(root, dir string, s stage) (problems []string) {
	if !overlayable(s) {
		for _, m := range s.Mistakes {
			start := time.Now()
			undo, err := m.apply(dir)
			if err != nil {
				problems = append(problems, c.cannotMake(s, m, err))
				continue
			}
			rs, err := runChecksToFail(root, dir, s)
			undo()
			problems = append(problems, c.judge(s, m, rs, err, start)...)
		}
		return problems
	}

	// The mistakes that fit one build together first (schema.go); those it
	// does not catch, and the others, each with a build of its own.
	caught := c.checkInSchema(root, dir, s)
	var alone []int
	for i := range s.Mistakes {
		if !caught[i] {
			alone = append(alone, i)
		}
	}

	// Each mistake is a build overlay of the tree, so the next one's test
	// binaries build while this one's tests run: a build is mostly the
	// link, on one core, and the tests mostly wait for the API server.
	type prepared struct {
		opts   buildOpts
		builds []chan buildResult
		err    error
	}
	ready := make([]chan prepared, len(alone))
	for k := range ready {
		ready[k] = make(chan prepared, 1)
	}
	ahead := make(chan struct{}, 2) // one mistake checked, the next one built
	go func() {
		for k, i := range alone {
			ahead <- struct{}{}
			// Under "_mistakes": go's ./... patterns skip directories whose
			// names start with "_", so these copies are never a package.
			at, err := filepath.Abs(filepath.Join(dir, "bin", "lab-state", "_mistakes", strconv.Itoa(i)))
			if err != nil {
				ready[k] <- prepared{err: err}
				continue
			}
			overlay, err := s.Mistakes[i].overlay(dir, at)
			if err != nil {
				ready[k] <- prepared{err: err}
				continue
			}
			o := buildOpts{overlay: overlay, out: filepath.Join(at, "tests")}
			builds := startBuilds(dir, s, o)
			for _, b := range builds { // built, before the next one starts
				r := <-b
				b <- r
			}
			ready[k] <- prepared{opts: o, builds: builds}
		}
	}()
	for k, i := range alone {
		m := s.Mistakes[i]
		start := time.Now()
		p := <-ready[k]
		if p.err != nil {
			problems = append(problems, c.cannotMake(s, m, p.err))
			<-ahead
			continue
		}
		rs, err := runBuilt(root, dir, s, quiet, true, p.opts, p.builds)
		<-ahead
		problems = append(problems, c.judge(s, m, rs, err, start)...)
	}
	return problems
}

// checkInSchema builds the mistakes of s that only edit function bodies
// into one set of test binaries (schema.go) and runs the stage's check
// once for each; it returns those that the check catches. It trusts the
// schema only if the check passes on it with no mistake selected.
func (c *catalogueRun) checkInSchema(root, dir string, s stage) (caught map[int]bool) {
	caught = map[int]bool{}
	at, err := filepath.Abs(filepath.Join(dir, "bin", "lab-state", "_mistakes", "schema"))
	if err != nil {
		return caught
	}
	sch, err := makeSchema(dir, at, s.Mistakes)
	if err != nil || len(sch.holds) < 2 { // for one mistake, a build of its own costs the same
		return caught
	}
	o := buildOpts{overlay: sch.overlay, out: filepath.Join(at, "tests"), noVet: true}
	var built []buildResult
	for _, b := range startBuilds(dir, s, o) {
		r := <-b
		if r.err != nil { // built alone, each mistake says why it does not compile
			return caught
		}
		built = append(built, r)
	}
	fmt.Printf(tr("  %d of the %d mistakes share one build (cmd/lab/schema.go)\n", "  %d / %d 个错误共用一次构建（cmd/lab/schema.go）\n"), len(sch.holds), len(s.Mistakes))
	run := func(mistake int) ([]results, error) {
		o.env = []string{fmt.Sprintf("%s=%d", mistakeEnv, mistake)}
		builds := make([]chan buildResult, len(built))
		for k, r := range built {
			builds[k] = make(chan buildResult, 1)
			builds[k] <- r
		}
		return runBuilt(root, dir, s, quiet, true, o, builds)
	}
	if _, err := run(0); err != nil {
		fmt.Printf(tr("  note  the check fails on the mistakes' schema with none selected, so each mistake is built alone: %v\n",
			"  注意  一个错误都没选时，检查在错误合集上就失败了，所以每个错误单独构建：%v\n"), err)
		return caught
	}
	for i, m := range s.Mistakes {
		if !sch.holds[i] {
			continue
		}
		start := time.Now()
		rs, err := run(i + 1)
		if err == nil || isSetupError(err) || compileErrors(rs) != "" {
			fmt.Printf(tr("  note  the schema's check does not catch %q; it is built alone to judge it\n",
				"  注意  错误合集的检查没有发现 %q；单独构建它来判断\n"), m.Name)
			continue
		}
		caught[i] = true
		c.judge(s, m, rs, err, start)
	}
	return caught
}

// overlayable tells whether the mistakes of s can be build overlays: Go
// files only, and no command before the tests that reads the tree
// (make manifests reads the Go files on disk).
func overlayable(s stage) bool {
	if len(s.Before) > 0 {
		return false
	}
	for _, m := range s.Mistakes {
		for _, e := range m.Edits {
			if !strings.HasSuffix(e.File, ".go") {
				return false
			}
		}
	}
	return true
}

func (c *catalogueRun) cannotMake(s stage, m mistake, err error) string {
	fmt.Printf(tr("  FAIL  mistake of stage %s %q cannot be made: %v\n", "  FAIL  第 %s 阶段的错误 %q 无法制造：%v\n"), s.ID, m.Name, err)
	return fmt.Sprintf("stage %s: %v", s.ID, err)
}

// judge reads the check's outcome with mistake m made: it must fail, in a
// test, not in the compiler or the setup.
func (c *catalogueRun) judge(s stage, m mistake, rs []results, err error, start time.Time) (problems []string) {
	switch {
	case compileErrors(rs) != "":
		fmt.Printf(tr("  FAIL  mistake of stage %s %q does not compile: %s\n", "  FAIL  第 %s 阶段的错误 %q 无法编译：%s\n"), s.ID, m.Name, compileErrors(rs))
		return []string{fmt.Sprintf("stage %s: mistake %q does not compile, so it tests the compiler, not the check: %s", s.ID, m.Name, compileErrors(rs))}
	case err == nil:
		fmt.Printf(tr("  FAIL  the check of stage %s passes with the mistake %q\n", "  FAIL  第 %s 阶段的检查在有错误 %q 时仍然通过\n"), s.ID, m.Name)
		return []string{fmt.Sprintf("stage %s: the check passes with the mistake %q: add a test that catches it", s.ID, m.Name)}
	case isSetupError(err):
		fmt.Printf(tr("  FAIL  mistake of stage %s %q: the check could not run: %v\n", "  FAIL  第 %s 阶段的错误 %q：检查无法运行：%v\n"), s.ID, m.Name, err)
		return []string{fmt.Sprintf("stage %s: mistake %q: %v", s.ID, m.Name, err)}
	}
	c.caught[s.ID]++
	fmt.Printf(tr("  ok    the check of stage %s catches: %s (%.0fs)\n        failing: %s\n", "  ok    第 %s 阶段的检查发现了：%s（%.0f 秒）\n        未通过：%s\n"), s.ID, m.Name, time.Since(start).Seconds(), firstFailure(rs, err))
	return nil
}

func compileErrors(rs []results) string {
	for _, r := range rs {
		if len(r.BuildErrors) > 0 {
			return r.BuildErrors[0]
		}
	}
	return ""
}

// firstFailure names what failed first, to show that a mistake was caught
// by a spec about it.
func firstFailure(rs []results, err error) string {
	for _, r := range rs {
		if len(r.VetErrors) > 0 {
			return "go vet: " + r.VetErrors[0]
		}
		if len(r.Failures) > 0 {
			f := r.Failures[0]
			return f.Name + ": " + firstLine(f.Panic+f.Message)
		}
	}
	return err.Error()
}

// checkOnOwnTree checks the catalogue of s on the starter of the next stage,
// or for the last stage on the reference.
func (c *catalogueRun) checkOnOwnTree(root string, stages []stage, s stage) ([]string, error) {
	if len(s.Mistakes) == 0 {
		return nil, nil
	}
	var dir string
	var cleanup func()
	var err error
	if next, ok := nextStage(stages, s); ok {
		dir, _, cleanup, err = starterTree(root, stages, next, verifyTree(root))
	} else {
		dir, cleanup, err = scratchTree(root)
	}
	if err != nil {
		return nil, err
	}
	defer cleanup()
	// Without any mistake the check must pass here, or its failures with
	// one would say nothing.
	if rs, err := runChecks(root, dir, s, quiet); err != nil {
		return []string{fmt.Sprintf("stage %s: its check fails on %s before any mistake is made: %s", s.ID, dir, firstFailure(rs, err))}, nil
	}
	return c.check(root, dir, s), nil
}

func (c *catalogueRun) scores(stages []stage) string {
	var lines []string
	for _, s := range stages {
		if len(s.Mistakes) == 0 {
			lines = append(lines, fmt.Sprintf(tr("  %s  %-22s no catalogue yet", "  %s  %-22s 还没有错误清单"), s.ID, s.Slug))
		} else {
			lines = append(lines, fmt.Sprintf("  %s  %-22s %d / %d", s.ID, s.Slug, c.caught[s.ID], len(s.Mistakes)))
		}
	}
	return strings.Join(lines, "\n")
}

// cmdMistakes is `lab mistakes`: the catalogues of the stages named (or of
// every stage), without the rest of verify.
func cmdMistakes(root string, stages []stage, only []string) error {
	if err := ensureControllerGen(root); err != nil {
		return err
	}
	todo, err := selectStages(stages, only)
	if err != nil {
		return err
	}
	c := newCatalogueRun()
	var problems []string
	for _, s := range todo {
		fmt.Printf(tr("stage %s (%s)\n", "第 %s 阶段（%s）\n"), s.ID, s.title())
		found, err := c.checkOnOwnTree(root, stages, s)
		if err != nil {
			return err
		}
		problems = append(problems, found...)
	}
	fmt.Printf(tr("\nMistakes caught (caught / catalogue):\n%s\n", "\n发现的错误（发现数 / 清单总数）：\n%s\n"), c.scores(todo))
	if len(problems) > 0 {
		return fmt.Errorf("%d problem(s):\n%s", len(problems), strings.Join(problems, "\n"))
	}
	return nil
}

// scratchTree is a worktree of the reference, for the mistakes of the last
// stage. Its path is fixed, so that Go's build cache, which keys compiled
// packages by their directory, serves it again on the next run.
func scratchTree(root string) (dir string, cleanup func(), err error) {
	ref, err := referenceCommit(root)
	if err != nil {
		return "", nil, err
	}
	dir = filepath.Join(stateDir(root), "mistakes-tree"+verifySlot)
	_, _ = output(root, "git", "worktree", "remove", "--force", dir)
	_ = os.RemoveAll(dir)
	_, _ = output(root, "git", "worktree", "prune")
	if _, err := output(root, "git", "worktree", "add", "--detach", dir, ref); err != nil {
		return "", nil, err
	}
	return dir, func() { _, _ = output(root, "git", "worktree", "remove", "--force", dir) }, nil
}

// verifyTree is where lab verify makes its starters, one after the other.
func verifyTree(root string) string { return filepath.Join(stateDir(root), "verify-tree"+verifySlot) }

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}
