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

// The catalogue of attendee mistakes. A stage's check is only as good as
// the mistakes it catches, so each stage.yaml lists realistic ones, made on
// the reference: a reversed comparison, Patch for Status().Patch, a missing
// owner reference, a spec that asserts nothing. `lab dev verify` makes each
// mistake in a scratch copy of the reference and fails when the stage's
// check still passes. (Not to be confused with the mutants_test.go files of
// stages 07 and 15: those are Reconcilers with bugs that the attendee's own
// specs must catch, and they run inside the stage's check.)

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"cronlab.dev/cronlab/cmd/lab/internal/base"
	"cronlab.dev/cronlab/cmd/lab/internal/gotest"
	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
	"cronlab.dev/cronlab/cmd/lab/internal/run"
	"cronlab.dev/cronlab/cmd/lab/internal/stage"
	"cronlab.dev/cronlab/cmd/lab/internal/starter"
)

// A catalogueRun checks the catalogues of several stages and keeps their
// scores.
type catalogueRun struct {
	caught map[string]int
	// slot is the verify part's slot (lab dev verify's parts run at once, each
	// in trees and with an API server of its own); "" in a single process.
	slot string
	// everySpec runs every spec with each mistake made, not only up to the
	// first failure, and failing counts, by stage, the mistakes each spec
	// failed on (lab dev mutants: a spec that no mistake fails teaches nothing).
	everySpec bool
	failing   map[string]map[string]int
	// killers are, with everySpec, the specs that failed with each mistake
	// caught, by its name (lab dev mutants keeps them: kills.go).
	killers map[string][]string
}

func newCatalogueRun(slot string) *catalogueRun {
	return &catalogueRun{caught: map[string]int{}, slot: slot, failing: map[string]map[string]int{}, killers: map[string][]string{}}
}

// failFast: verify needs only the first failure; lab dev mutants all of them.
func (c *catalogueRun) failFast() bool { return !c.everySpec }

// record counts the specs that failed with mistake m made.
func (c *catalogueRun) record(s stage.Stage, m stage.Mistake, rs []gotest.Results) {
	if c.failing[s.Slug] == nil {
		c.failing[s.Slug] = map[string]int{}
	}
	failed := specsOf(s, rs, "failed")
	for _, name := range failed {
		c.failing[s.Slug][name]++
	}
	c.killers[m.Name] = failed
}

// specsOf names the specs of a check's results that ended as status says,
// each with its package: the results are in the order of the stage's tests.
func specsOf(s stage.Stage, rs []gotest.Results, status string) []string {
	var names []string
	for i, r := range rs {
		if i >= len(s.Tests) {
			break
		}
		for _, o := range r.Outcomes {
			if o.Status == status {
				names = append(names, s.Tests[i].Package+" "+o.Name)
			}
		}
	}
	return names
}

// check makes each mistake of stage s in the tree at dir (the starter of
// the stage after s: s solved, later stages still stubs, as the attendee
// has it) and runs the stage's check, which must fail.
func (c *catalogueRun) check(l i18n.Lang, root, dir string, s stage.Stage) (problems []string) {
	if !overlayable(s) {
		for _, m := range s.Mistakes {
			start := time.Now()
			undo, err := m.Apply(dir)
			if err != nil {
				problems = append(problems, c.cannotMake(l, s, m, err))
				continue
			}
			rs, err := run.ChecksToFail(l, root, dir, s, c.slot)
			undo()
			problems = append(problems, c.judge(l, s, m, rs, err, start)...)
		}
		return problems
	}

	// The mistakes that fit one build together first (schema.go); those it
	// does not catch, and the others, each with a build of its own.
	caught := c.checkInSchema(l, root, dir, s)
	var alone []int
	for i := range s.Mistakes {
		if !caught[i] {
			alone = append(alone, i)
		}
	}

	c.eachAlone(l, root, dir, s, alone, func(i int, o outcome) {
		if o.unmade != nil {
			problems = append(problems, c.cannotMake(l, s, s.Mistakes[i], o.unmade))
			return
		}
		problems = append(problems, c.judge(l, s, s.Mistakes[i], o.rs, o.err, o.start)...)
	})
	return problems
}

// An outcome is what the check said with one mistake made: its results
// and error, or why the mistake could not be made (unmade).
type outcome struct {
	rs     []gotest.Results
	err    error
	start  time.Time
	unmade error
}

// eachAlone checks the mistakes of s at the indexes given, each built alone
// as a build overlay of the tree at dir, and hands each outcome to judge.
// Each mistake's test
// binaries build while the one before it runs its tests: a build is mostly
// the link, on one core, and the tests mostly wait for the API server.
func (c *catalogueRun) eachAlone(l i18n.Lang, root, dir string, s stage.Stage, alone []int, judge func(i int, o outcome)) {
	type prepared struct {
		opts   run.BuildOpts
		builds []chan run.BuildResult
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
			overlay, err := s.Mistakes[i].Overlay(dir, at)
			if err != nil {
				ready[k] <- prepared{err: err}
				continue
			}
			o := run.BuildOpts{Overlay: overlay, Out: filepath.Join(at, "tests"), Slot: c.slot}
			builds := run.StartBuilds(dir, s, o)
			for _, b := range builds { // built, before the next one starts
				r := <-b
				b <- r
			}
			ready[k] <- prepared{opts: o, builds: builds}
		}
	}()
	for k, i := range alone {
		start := time.Now()
		p := <-ready[k]
		if p.err != nil {
			<-ahead
			judge(i, outcome{start: start, unmade: p.err})
			continue
		}
		rs, err := run.Built(l, root, dir, s, run.Quiet, c.failFast(), p.opts, p.builds)
		<-ahead
		judge(i, outcome{rs: rs, err: err, start: start})
	}
}

// checkInSchema builds the mistakes of s that only edit function bodies
// into one set of test binaries (schema.go) and runs the stage's check
// once for each; it returns those that the check catches. It trusts the
// schema only if the check passes on it with no mistake selected.
func (c *catalogueRun) checkInSchema(l i18n.Lang, root, dir string, s stage.Stage) (caught map[int]bool) {
	caught = map[int]bool{}
	at, err := filepath.Abs(filepath.Join(dir, "bin", "lab-state", "_mistakes", "schema"))
	if err != nil {
		return caught
	}
	sch, err := makeSchema(dir, at, s.Mistakes)
	if err != nil || len(sch.holds) < 2 { // for one mistake, a build of its own costs the same
		return caught
	}
	o := run.BuildOpts{Overlay: sch.overlay, Out: filepath.Join(at, "tests"), NoVet: true, Slot: c.slot}
	var built []run.BuildResult
	for _, b := range run.StartBuilds(dir, s, o) {
		r := <-b
		if r.Err != nil { // built alone, each mistake says why it does not compile
			return caught
		}
		built = append(built, r)
	}
	fmt.Printf(l.Tr("  %d of the %d mistakes share one build (cmd/lab/internal/verify/schema.go)\n", "  %d / %d 个错误共用一次构建（cmd/lab/internal/verify/schema.go）\n"), len(sch.holds), len(s.Mistakes))
	runMistake := func(mistake int) ([]gotest.Results, error) {
		o.Env = []string{fmt.Sprintf("%s=%d", mistakeEnv, mistake)}
		builds := make([]chan run.BuildResult, len(built))
		for k, r := range built {
			builds[k] = make(chan run.BuildResult, 1)
			builds[k] <- r
		}
		return run.Built(l, root, dir, s, run.Quiet, c.failFast(), o, builds)
	}
	if _, err := runMistake(0); err != nil {
		fmt.Printf(l.Tr("  note  the check fails on the mistakes' schema with none selected, so each mistake is built alone: %v\n",
			"  注意  一个错误都没选时，检查在错误合集上就失败了，所以每个错误单独构建：%v\n"), err)
		return caught
	}
	for i, m := range s.Mistakes {
		if !sch.holds[i] {
			continue
		}
		start := time.Now()
		rs, err := runMistake(i + 1)
		if err == nil || base.IsSetupError(err) || compileErrors(rs) != "" {
			fmt.Printf(l.Tr("  note  the schema's check does not catch %q; it is built alone to judge it\n",
				"  注意  错误合集的检查没有发现 %q；单独构建它来判断\n"), m.NameIn(l))
			continue
		}
		caught[i] = true
		c.judge(l, s, m, rs, err, start)
	}
	return caught
}

// overlayable tells whether the mistakes of s can be build overlays: Go
// files only, and no command before the tests that reads the tree
// (make manifests reads the Go files on disk).
func overlayable(s stage.Stage) bool {
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

func (c *catalogueRun) cannotMake(l i18n.Lang, s stage.Stage, m stage.Mistake, err error) string {
	fmt.Printf(l.Tr("  FAIL  mistake of stage %s %q cannot be made: %v\n", "  FAIL  第 %s 阶段的错误 %q 无法植入：%v\n"), s.Num, m.NameIn(l), err)
	return fmt.Sprintf("stage %s: %v", s.Num, err)
}

// judge reads the check's outcome with mistake m made: it must fail, in a
// test, not in the compiler or the setup.
func (c *catalogueRun) judge(l i18n.Lang, s stage.Stage, m stage.Mistake, rs []gotest.Results, err error, start time.Time) (problems []string) {
	switch {
	case compileErrors(rs) != "":
		fmt.Printf(l.Tr("  FAIL  mistake of stage %s %q does not compile: %s\n", "  FAIL  第 %s 阶段的错误 %q 无法编译：%s\n"), s.Num, m.NameIn(l), compileErrors(rs))
		return []string{fmt.Sprintf("stage %s: mistake %q does not compile, so it tests the compiler, not the check: %s", s.Num, m.Name, compileErrors(rs))}
	case err == nil:
		fmt.Printf(l.Tr("  FAIL  the check of stage %s passes with the mistake %q\n", "  FAIL  第 %s 阶段的检查在有错误 %q 时仍然通过\n"), s.Num, m.NameIn(l))
		return []string{fmt.Sprintf("stage %s: the check passes with the mistake %q: add a test that catches it", s.Num, m.Name)}
	case base.IsSetupError(err):
		fmt.Printf(l.Tr("  FAIL  mistake of stage %s %q: the check could not run: %v\n", "  FAIL  第 %s 阶段的错误 %q：检查无法运行：%v\n"), s.Num, m.NameIn(l), err)
		return []string{fmt.Sprintf("stage %s: mistake %q: %v", s.Num, m.Name, err)}
	}
	c.caught[s.Slug]++
	c.record(s, m, rs)
	fmt.Printf(l.Tr("  ok    the check of stage %s catches: %s (%.0fs)\n        failing: %s\n", "  ok    第 %s 阶段的检查发现了：%s（%.0f 秒）\n        未通过：%s\n"), s.Num, m.NameIn(l), time.Since(start).Seconds(), firstFailure(rs, err))
	return nil
}

func compileErrors(rs []gotest.Results) string {
	for _, r := range rs {
		if len(r.BuildErrors) > 0 {
			return r.BuildErrors[0]
		}
	}
	return ""
}

// firstFailure names what failed first, to show that a mistake was caught
// by a spec about it.
func firstFailure(rs []gotest.Results, err error) string {
	for _, r := range rs {
		if len(r.VetErrors) > 0 {
			return "go vet: " + r.VetErrors[0]
		}
		if len(r.Failures) > 0 {
			f := r.Failures[0]
			return f.Name + ": " + base.FirstLine(f.Panic+f.Message)
		}
	}
	return err.Error()
}

// checkOnOwnTree checks the catalogue of s on the starter of the next stage,
// or for the last stage on the reference.
func (c *catalogueRun) checkOnOwnTree(l i18n.Lang, root string, stages []stage.Stage, s stage.Stage) ([]string, error) {
	if len(s.Mistakes) == 0 {
		return nil, nil
	}
	var dir string
	var cleanup func()
	var err error
	if next, ok := stage.Next(stages, s); ok {
		dir, _, cleanup, err = starter.Tree(l, root, stages, next, verifyTree(root, c.slot))
	} else {
		dir, cleanup, err = scratchTree(root, c.slot)
	}
	if err != nil {
		return nil, err
	}
	defer cleanup()
	// Without any mistake the check must pass here, or its failures with
	// one would say nothing.
	if rs, err := run.ChecksWith(l, root, dir, s, run.Quiet, false, run.BuildOpts{Slot: c.slot}); err != nil {
		return []string{fmt.Sprintf("stage %s: its check fails on %s before any mistake is made: %s", s.Num, dir, firstFailure(rs, err))}, nil
	}
	return c.check(l, root, dir, s), nil
}

func (c *catalogueRun) scores(l i18n.Lang, stages []stage.Stage) string {
	var lines []string
	for _, s := range stages {
		if len(s.Mistakes) == 0 {
			lines = append(lines, fmt.Sprintf(l.Tr("  %s  %-22s no catalogue yet", "  %s  %-22s 还没有错误清单"), s.Num, s.Slug))
		} else {
			lines = append(lines, fmt.Sprintf("  %s  %-22s %d / %d", s.Num, s.Slug, c.caught[s.Slug], len(s.Mistakes)))
		}
	}
	return strings.Join(lines, "\n")
}

// CmdMistakes is `lab dev mistakes`: the catalogues of the stages named (or of
// every stage), without the rest of verify.
func CmdMistakes(l i18n.Lang, root string, stages []stage.Stage, only []string) error {
	if err := starter.EnsureControllerGen(root); err != nil {
		return err
	}
	todo, err := stage.Select(stages, only)
	if err != nil {
		return err
	}
	c := newCatalogueRun("")
	var problems []string
	for _, s := range todo {
		fmt.Printf(l.Tr("stage %s (%s)\n", "第 %s 阶段（%s）\n"), s.Num, s.TitleIn(l))
		found, err := c.checkOnOwnTree(l, root, stages, s)
		if err != nil {
			return err
		}
		problems = append(problems, found...)
	}
	fmt.Printf(l.Tr("\nMistakes caught (caught / catalogue):\n%s\n", "\n发现的错误（发现数 / 清单总数）：\n%s\n"), c.scores(l, todo))
	if len(problems) > 0 {
		return fmt.Errorf("%d problem(s):\n%s", len(problems), strings.Join(problems, "\n"))
	}
	return nil
}

// scratchTree is a worktree of the reference, for the mistakes of the last
// stage. Its path is fixed, so that Go's build cache, which keys compiled
// packages by their directory, serves it again on the next run.
func scratchTree(root, slot string) (dir string, cleanup func(), err error) {
	ref, err := base.ReferenceCommit(root)
	if err != nil {
		return "", nil, err
	}
	dir = filepath.Join(base.StateDir(root), "mistakes-tree"+slot)
	_, _ = base.Output(root, "git", "worktree", "remove", "--force", dir)
	_ = os.RemoveAll(dir)
	_, _ = base.Output(root, "git", "worktree", "prune")
	if _, err := base.Output(root, "git", "worktree", "add", "--detach", dir, ref); err != nil {
		return "", nil, err
	}
	return dir, func() { _, _ = base.Output(root, "git", "worktree", "remove", "--force", dir) }, nil
}

// verifyTree is where lab dev verify makes its starters, one after the other.
func verifyTree(root, slot string) string {
	return filepath.Join(base.StateDir(root), "verify-tree"+slot)
}
