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
	"cmp"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"cronlab.dev/cronlab/test/utils"
)

// cmdList shows every stage with the result of its last check in this
// clone, from the progress file: instant. With run, it checks every stage
// first, which takes minutes.
func cmdList(root string, stages []stage, run bool) error {
	p := loadProgress(root)
	if run {
		fmt.Println(tr("Checking every stage in this checkout, one after the other (several minutes) ...",
			"正在逐个检查本克隆中的每个阶段（需要几分钟）……"))
		for _, s := range stages {
			rs, err := runChecks(root, ".", s, quiet)
			p.record(s, rs, err)
			fmt.Printf("  %s  %-22s %s\n", s.ID, s.Slug, p.Stages[s.ID].describe())
		}
		return p.save(root)
	}
	branch, _ := output(root, "git", "branch", "--show-current")
	current := currentStage(branch)
	for _, s := range stages {
		state := p.Stages[s.ID].describe()
		if p.Stages[s.ID].At.IsZero() && current != "" && s.ID < current {
			state = tr("given (in the starter)", "已给出（在起始代码中）") // as bin/lab status says
		}
		fmt.Printf("  %s  %-22s %s %s\n", s.ID, s.Slug, padRight(state, 30), s.title())
	}
	fmt.Println(tr("\nThe results are those of each stage's last `bin/lab check` in this clone; `bin/lab list --run` checks them all now.",
		"\n结果是本克隆中每个阶段最近一次 `bin/lab check` 的结果；`bin/lab list --run` 现在重新检查所有阶段。"))
	return nil
}

func cmdStart(root string, stages []stage, s stage, fresh bool) error {
	if err := ensureControllerGen(root); err != nil {
		return err
	}
	branch := "lab/" + s.ID
	carry, why := carryFrom(root, stages, s, fresh)
	if why != "" {
		fmt.Println(why)
	}
	if carry != "" {
		if committed, err := commitWork(root, carry); err != nil {
			return err
		} else if committed {
			fmt.Printf(tr("Committed your uncommitted changes on %s first, so that nothing is lost.\n",
				"先把你在 %s 上未提交的改动提交了，以免丢失。\n"), carry)
		}
		fmt.Printf(tr("Making %s: the starter of stage %s with your own code of the stages before it (from %s) ...\n",
			"正在创建 %s：第 %s 阶段的起始代码，带上你自己写的之前各阶段的代码（来自 %s）……\n"), branch, s.ID, carry)
	} else {
		fmt.Printf(tr("Making %s: the reference with stage %s and later stages to write ...\n",
			"正在创建 %s：参考实现，其中第 %s 阶段及之后的阶段留给你写……\n"), branch, s.ID)
	}
	dir, commit, cleanup, err := starterTree(root, stages, s, "")
	if err != nil {
		return err
	}
	defer cleanup()
	var c carried
	if carry != "" {
		ref, err := referenceCommit(root)
		if err != nil {
			return err
		}
		if c, err = carryInto(root, dir, ref, carry, s); err != nil {
			return err
		}
		if commit, err = output(dir, "git", "rev-parse", "HEAD"); err != nil {
			return err
		}
		commit = strings.TrimSpace(commit)
		fmt.Printf(tr("Carried your code in %s.\n", "已带入你在 %s 中的代码。\n"), strings.Join(c.merged, ", "))
		if len(c.unwritten) > 0 {
			fmt.Printf(tr("Your %s still had the stubs of %s: those come from the reference.\n",
				"你的 %s 中 %s 还是桩（stub）：这些取自参考实现。\n"), carry, strings.Join(c.unwritten, ", "))
		}
	} else if current, _ := output(root, "git", "branch", "--show-current"); strings.HasPrefix(strings.TrimSpace(current), "lab/") {
		// Their work on another stage stays on its branch, committed, so
		// that the switch below can happen and nothing is lost.
		current = strings.TrimSpace(current)
		if committed, err := commitWork(root, current); err != nil {
			return err
		} else if committed {
			fmt.Printf(tr("Committed your uncommitted changes on %s, so that nothing is lost (git switch %s goes back to them).\n",
				"已把你在 %s 上未提交的改动提交，以免丢失（git switch %s 可以回到它们）。\n"), current, current)
		}
	}
	// Starting a stage again (--fresh, say): the branch of the first start is
	// kept under another name, with what was not committed, not overwritten.
	if _, err := output(root, "git", "rev-parse", "--verify", "--quiet", "refs/heads/"+branch); err == nil {
		current, _ := output(root, "git", "branch", "--show-current")
		onIt := strings.TrimSpace(current) == branch
		if onIt {
			if _, err := commitWork(root, branch); err != nil {
				return err
			}
		}
		saved := fmt.Sprintf("%s-saved-%s", branch, time.Now().Format("20060102-150405"))
		if _, err := output(root, "git", "branch", "-m", branch, saved); err != nil {
			return err
		}
		fmt.Printf(tr("Your earlier %s is kept as %s.\n", "你之前的 %s 保留为 %s。\n"), branch, saved)
		if onIt {
			if _, err := output(root, "git", "switch", "-q", "--detach", saved); err != nil {
				return err
			}
		}
	}
	if _, err := output(root, "git", "branch", "-f", branch, commit); err != nil {
		return err
	}
	if dirty, _ := output(root, "git", "status", "--porcelain", "--untracked-files=no"); strings.TrimSpace(dirty) != "" {
		if len(c.conflicted) > 0 {
			fmt.Printf(tr("Your code and the starter changed the same lines in %s: %s has the starter's version of\n"+
				"those files, and yours stays on %s (git diff %s %s -- FILE shows the difference).\n",
				"你的代码和起始代码改动了 %s 中的同一些行：%s 中这些文件是起始代码的版本，\n"+
					"你的版本留在 %s 上（git diff %s %s -- 文件 可以看到差别）。\n"), strings.Join(c.conflicted, ", "), branch, carry, carry, branch)
		}
		current, _ := output(root, "git", "branch", "--show-current")
		fmt.Printf(tr("Made branch %s, but did not switch to it: %s has uncommitted changes (git status shows them).\n"+
			"Commit or stash them, then\n  git switch %s\nand bin/lab check %s.\n",
			"已创建分支 %s，但没有切换过去：%s 有未提交的改动（git status 可以看到）。\n"+
				"先提交或 stash 它们，然后\n  git switch %s\n再运行 bin/lab check %s。\n"), branch, cmp.Or(strings.TrimSpace(current), tr("this checkout", "当前检出")), branch, s.ID)
		return nil
	}
	if _, err := output(root, "git", "switch", branch); err != nil {
		return err
	}
	fmt.Printf(tr("Switched to %s.\n", "已切换到 %s。\n"), branch)
	// A conflict is the attendee's to settle: the file is committed as the
	// starter has it, and the merge with its markers waits in the working
	// tree, where git diff shows it and git checkout undoes it.
	for path, merged := range c.conflicts {
		if err := os.WriteFile(filepath.Join(root, path), merged, 0o644); err != nil {
			return err
		}
	}
	fmt.Printf(tr("\nStage %s: %s\n  read:  %s\n  write: (each marked TODO(lab %s))\n",
		"\n第 %s 阶段：%s\n  阅读：%s\n  编写：（每处都标有 TODO(lab %s)）\n"), s.ID, s.title(), s.readmeFor(root), s.ID)
	ref, err := referenceCommit(root)
	if err != nil {
		return err
	}
	for _, w := range toWrite(root, ref, s) {
		fmt.Printf("           %s\n", w)
	}
	fmt.Print(tr("  check: bin/lab check   (bin/lab check -v shows the tests' whole output)\n",
		"  检查：bin/lab check   （bin/lab check -v 显示测试的全部输出）\n"))
	if conflicted := c.conflicted; len(conflicted) > 0 {
		fmt.Printf(tr("\nYour code and this stage's starter changed the same lines in: %s.\n"+
			"They are marked <<<<<<< your code ... ======= ... >>>>>>> the starter, in your working tree and not\n"+
			"committed (git diff shows them; git checkout FILE drops all your code in that file, which stays on your\n"+
			"earlier branch): keep what you mean, delete the markers, and check. (bin/lab start %s --fresh starts from the reference instead.)\n",
			"\n你的代码和本阶段的起始代码改动了这些文件中的同一些行：%s。\n"+
				"它们在你的工作区中以 <<<<<<< your code ... ======= ... >>>>>>> the starter 标出，尚未提交\n"+
				"（git diff 可以看到；git checkout 文件 会丢掉你在该文件中的全部代码，它们仍留在你之前的分支上）：\n"+
				"保留你想要的，删掉标记行，然后检查。（bin/lab start %s --fresh 则从参考实现开始。）\n"),
			strings.Join(conflicted, ", "), s.ID)
	}
	return nil
}

// toWrite lists what the attendee writes in stage s: for each file with one
// of its regions in the reference commit ref, the functions declared in the
// regions, or the region's name where it holds no function (markers, YAML,
// a template).
func toWrite(root, ref string, s stage) []string {
	wanted := map[string]bool{}
	for _, r := range s.Regions {
		wanted[r] = true
	}
	var lines []string
	for _, path := range regionFiles(root, ref, s) {
		src, err := output(root, "git", "show", ref+":"+path)
		if err != nil {
			continue
		}
		regions, err := findRegions(path, []byte(src))
		if err != nil {
			continue
		}
		var names []string
		for _, r := range regions {
			if !wanted[r.name] {
				continue
			}
			var fns []string
			for _, fn := range functionsIn(path, src, r) {
				_, name, _ := strings.Cut(fn, ".")
				fns = append(fns, cmp.Or(name, fn))
			}
			if len(fns) == 0 {
				fns = []string{"the region " + r.name}
			}
			names = append(names, fns...)
		}
		lines = append(lines, fmt.Sprintf("%-44s %s", path, strings.Join(names, ", ")))
	}
	return lines
}

// functionsIn names the functions declared in region r of a Go file, a
// method as Type.name (as a compiler message's place is named: report.go).
func functionsIn(path, src string, r region) []string {
	if !strings.HasSuffix(path, ".go") {
		return nil
	}
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
	if err != nil {
		return nil
	}
	var names []string
	for _, decl := range file.Decls {
		if fn, ok := decl.(*ast.FuncDecl); ok {
			if line := fset.Position(fn.Pos()).Line; line < r.first || line >= r.end {
				continue
			}
			if fn.Recv != nil && len(fn.Recv.List) == 1 {
				names = append(names, receiverType(fn.Recv.List[0].Type)+"."+fn.Name.Name)
			} else {
				names = append(names, fn.Name.Name)
			}
		}
	}
	return names
}

func cmdCheck(root string, stages []stage, s stage, v verbosity) error {
	fmt.Printf(tr("Checking stage %s: %s\n", "正在检查第 %s 阶段：%s\n"), s.ID, s.title())
	rs, err := runChecks(root, ".", s, v)
	var setup setupError
	if errors.As(err, &setup) {
		return fmt.Errorf(tr("could not run the check of stage %s: %w", "无法运行第 %s 阶段的检查：%w"), s.ID, err)
	}
	s.showFunctions(rs)
	p := loadProgress(root)
	p.record(s, rs, err)
	if saveErr := p.save(root); saveErr != nil {
		fmt.Printf(tr("  (could not save the result: %v)\n", "  （无法保存结果：%v）\n"), saveErr)
	}
	if err != nil {
		h := s.hintForCheck(rs)
		fmt.Printf(tr("\nNot yet. %s\n  hint: %s\n  more: %s, and bin/lab hint (the next hint, a level at a time)\n",
			"\n还没有通过。%s\n  提示：%s\n  更多：%s，以及 bin/lab hint（下一条提示，一次一级）\n"),
			err, strings.TrimLeft(indentLines(wrap(h.text(), 92), "        "), " "), s.readmeFor(root))
		// The hint printed here counts as shown: `lab hint` goes on from it.
		if r := p.Stages[s.ID]; h.ID != "" && !slices.Contains(r.HintsShown, h.ID) {
			r.HintsShown = append(r.HintsShown, h.ID)
			p.Stages[s.ID] = r
			_ = p.save(root)
		}
		if files := todoFiles(".", "", s.ID); len(files) > 0 {
			fmt.Printf(tr("  still TODO(lab %s): %s\n", "  仍有 TODO(lab %s)：%s\n"), s.ID, strings.Join(files, ", "))
		}
		fmt.Println(tr("  run the tests yourself:", "  自己运行这些测试："))
		for _, t := range s.Tests {
			fmt.Printf("    %s\n", t.command())
		}
		if v != fullText {
			fmt.Printf(tr("  all of the tests' output: bin/lab check -v %s\n", "  测试的全部输出：bin/lab check -v %s\n"), s.ID)
		}
		os.Exit(1)
	}
	if next, ok := nextStage(stages, s); ok {
		fmt.Printf(tr("\nStage %s passes. Next: bin/lab start %s  (%s)\n", "\n第 %s 阶段通过。下一步：bin/lab start %s  （%s）\n"), s.ID, next.ID, next.title())
	} else {
		fmt.Printf(tr("\nStage %s passes: that was the last stage. bin/lab list shows where you stand.\n",
			"\n第 %s 阶段通过：这是最后一个阶段。bin/lab list 显示你的整体进度。\n"), s.ID)
	}
	return nil
}

// How much runChecks prints.
type verbosity int

const (
	quiet    verbosity = iota // nothing (list, verify)
	summary                   // a line per package, each failure explained (check)
	fullText                  // summary, and the tests' whole output (check -v)
)

// runChecks runs a stage's before-commands and tests in dir, a tree of the
// clone at root. Tests that start envtest use root's shared API server
// (apiserver.go). It returns the results of each test package.
func runChecks(root, dir string, s stage, v verbosity) ([]results, error) {
	return runChecksWith(root, dir, s, v, false, buildOpts{})
}

// runChecksToFail runs the checks of a tree on which they must fail (a
// starter, a mistake), and stops at the first failure: which one fails
// first is all lab verify reports, and the failures after it would only
// wait out their timeouts.
func runChecksToFail(root, dir string, s stage) ([]results, error) {
	return runChecksWith(root, dir, s, quiet, true, buildOpts{})
}

func runChecksWith(root, dir string, s stage, v verbosity, failFast bool, o buildOpts) ([]results, error) {
	defer traced("check of stage " + s.ID)()
	for _, t := range s.Tests {
		if usesEnvtest(dir, t.Package) {
			if err := ensureEnvtest(root); err != nil {
				return nil, err
			}
			break
		}
	}
	// Conflict markers that a carry left, in any file (a Helm template too),
	// are named before anything is built: the compiler would call them a
	// syntax error, and a template would not compile at all.
	if markers := conflictMarkers(dir, leftOpen(dir), nil); len(markers) > 0 {
		r := results{Markers: markers, NoRest: "conflict markers"}
		if v > quiet {
			fmt.Println(tr("  FAIL  merge conflict markers are left in the code", "  FAIL  代码中还留有合并冲突标记"))
			r.explain(nil)
		}
		return []results{r}, fmt.Errorf("%s", tr("merge conflict markers left in the code", "代码中留有合并冲突标记"))
	}
	for _, before := range s.Before {
		args := strings.Fields(before)
		if out, err := output(dir, args[0], args[1:]...); err != nil {
			if v > quiet {
				fmt.Println(lastLines(out, 20))
			}
			return nil, fmt.Errorf(tr("%q failed", "%q 失败了"), before)
		}
	}
	return runBuilt(root, dir, s, v, failFast, o, startBuilds(dir, s, o))
}

// buildOpts says how a check's tests are built: with a build overlay that
// replaces source files (go build -overlay: lab verify's mistakes), into a
// directory of their own. Zero: the tree as it is, into bin/lab-state/tests.
type buildOpts struct {
	overlay string
	out     string
	noVet   bool     // vetted already, or a mistakes' schema (vet would read every mistake at once)
	env     []string // for the test binaries
}

// startBuilds builds the test binaries of a stage's tests, all at once, and
// returns where each will be.
func startBuilds(dir string, s stage, o buildOpts) []chan buildResult {
	builds := make([]chan buildResult, len(s.Tests))
	for i, t := range s.Tests {
		builds[i] = make(chan buildResult, 1)
		go func() { builds[i] <- buildTest(dir, t, o) }()
	}
	return builds
}

// runBuilt runs the tests of a stage as their builds finish.
func runBuilt(root, dir string, s stage, v verbosity, failFast bool, o buildOpts, builds []chan buildResult) ([]results, error) {
	owned := ownedFiles(root, dir, s)
	calls := callGraph(dir, owned)
	var failed []string
	var all []results
	// The tests find etcd and kube-apiserver through KUBEBUILDER_ASSETS or
	// the clone's bin/envtest-assets-path, which a tree made by the tool
	// (a starter, a copy for the mistakes) does not have.
	var env []string
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		if assets, err := utils.EnvtestAssets(root); err == nil {
			env = append(env, "KUBEBUILDER_ASSETS="+assets)
		}
	}
	// A test that runs go itself (stage 09 builds the manager) builds with
	// the overlay too.
	if o.overlay != "" {
		env = append(env, "GOFLAGS=-overlay="+o.overlay)
	}
	env = append(env, o.env...)
	shared := false
	// Every test binary builds while the shared API server is made ready:
	// neither needs the other until the tests run.
	for i, t := range s.Tests {
		start := time.Now()
		built := builds[i]
		if !shared && sharedEnabled() && usesEnvtest(dir, t.Package) {
			sharedEnv, release, err := newSharedServer(root).acquire(dir)
			if err != nil {
				for _, b := range builds[i:] {
					<-b
				}
				return nil, err
			}
			defer release()
			env, shared = append(env, sharedEnv...), true
		}
		r, err := runTest(dir, env, t, <-built, owned, failFast)
		if len(r.BuildErrors) > 0 && !failFast && o.overlay == "" {
			r, err = checkTheRest(dir, s, env, t, owned, r, err)
		}
		r.Calls = calls
		all = append(all, r)
		if v == fullText {
			fmt.Println(r.Output)
		}
		if v > quiet {
			mark := "PASS"
			if err != nil {
				mark = "FAIL"
			}
			fmt.Printf("  %s  %s: %s (%.0fs)\n", mark, t.Package, r.counts(), time.Since(start).Seconds())
			if err != nil {
				r.explain(err)
			}
		}
		if err != nil {
			failed = append(failed, t.Package)
			if failFast {
				for _, b := range builds[i+1:] {
					<-b
				}
				break
			}
		}
	}
	if len(failed) > 0 {
		return all, fmt.Errorf(tr("failing: %s", "未通过：%s"), strings.Join(failed, ", "))
	}
	return all, nil
}

// buildResult is a test binary, or why there is none.
type buildResult struct {
	binary    string
	buildJSON string // go test -c -json's output: compile errors
	err       error
	vet       string // go vet's findings, if it found any
}

// buildTest compiles the tests of a stage's package into a binary kept in
// dir's bin/lab-state/tests, so that a check of unchanged code does not
// link again (go test -c leaves an up-to-date binary alone). go test would
// vet the package first, then build; vetting beside the build is the same
// check, and seconds sooner. -ldflags=-w leaves out the tables debuggers
// read, for a faster link; stack traces keep their files and lines.
func buildTest(dir string, t stageTest, o buildOpts) buildResult {
	defer traced("build " + t.Package)()
	var overlay []string
	if o.overlay != "" {
		overlay = []string{"-overlay=" + o.overlay}
	}
	vetDone := make(chan string, 1)
	vet := func() {
		defer close(vetDone)
		if o.noVet {
			return
		}
		defer traced("go vet " + t.Package)()
		// At a lower priority: on two cores the build is what the check
		// waits for.
		vet := append(append([]string{"go", "vet"}, overlay...), t.Package)
		if _, err := exec.LookPath("nice"); err == nil {
			vet = append([]string{"nice"}, vet...)
		}
		if out, err := output(dir, vet[0], vet[1:]...); err != nil {
			vetDone <- out
		}
	}
	go vet()
	bins := filepath.Join(dir, "bin", "lab-state", "tests")
	if o.out != "" {
		bins = o.out
	}
	b := buildResult{binary: filepath.Join(bins, strings.NewReplacer("/", "_", ".", "_").Replace(strings.Trim(t.Package, "./"))+".test")}
	if err := os.MkdirAll(bins, 0o755); err != nil {
		return buildResult{err: err}
	}
	args := append([]string{"test", "-c", "-json", "-vet=off", "-ldflags=-w", "-o", b.binary}, overlay...)
	b.buildJSON, b.err = output(dir, "go", append(args, t.Package)...)
	b.vet = <-vetDone
	return b
}

// binaryArgs are the test binary's flags for what t.args gives go test;
// failFast stops the tests at the first failure.
func (t stageTest) binaryArgs(failFast bool) []string {
	args := []string{"-test.v=test2json", "-test.timeout=10m"}
	if failFast {
		args = append(args, "-test.failfast")
	}
	if t.Run != "" {
		args = append(args, "-test.run="+t.Run)
	}
	if t.Labels != "" {
		args = append(args, "-ginkgo.label-filter="+t.Labels, "-ginkgo.fail-on-empty")
	}
	return args
}

// runTest runs a built test binary as go test would (in the package's
// directory, its output turned into JSON events by test2json) and reads its
// results. The error says why the package failed, in a line.
func runTest(dir string, env []string, t stageTest, b buildResult, owned map[string]bool, failFast bool) (results, error) {
	defer traced("run " + t.Package)()
	if b.err != nil {
		r := parseGoTestJSON([]byte(b.buildJSON), dir, t.Package, owned, false)
		if len(r.BuildErrors) == 0 {
			return r, setupError{fmt.Errorf("building the tests of %s: %w", t.Package, b.err)}
		}
		return r, fmt.Errorf("does not compile")
	}
	args := t.binaryArgs(failFast)
	ginkgo := usesGinkgo(dir, t.Package)
	var report string
	if ginkgo {
		f, err := os.CreateTemp("", "lab-ginkgo-*.json")
		if err != nil {
			return results{}, err
		}
		report = f.Name()
		_ = f.Close()
		defer func() { _ = os.Remove(report) }()
		args = append(args, "-ginkgo.json-report="+report)
		// Colours are for a terminal: check -v | less shows escape codes.
		if !isTerminal(os.Stdout) {
			args = append(args, "-ginkgo.no-color")
		}
		if failFast {
			args = append(args, "-ginkgo.fail-fast")
		}
	}
	binary, err := filepath.Abs(b.binary)
	if err != nil {
		return results{}, err
	}
	out, runErr := outputEnv(filepath.Join(dir, t.Package), env, "go", append([]string{"tool", "test2json", "-t", "-p", t.Package, binary}, args...)...)
	r := parseGoTestJSON([]byte(out), dir, t.Package, owned, ginkgo)
	r.Ginkgo = ginkgo
	if b.vet != "" {
		r.VetErrors = vetFindings(b.vet, dir)
	}
	if ginkgo {
		if err := readGinkgoReport(report, dir, owned, &r); err != nil && runErr == nil {
			return r, err
		}
	}
	switch {
	case len(r.VetErrors) > 0:
		return r, fmt.Errorf("%s", tr("go vet found a mistake", "go vet 发现了一个错误"))
	case runErr != nil && len(r.Failures) == 0:
		// Failed, but no test said why: a crash before the tests, or a
		// filter that matched nothing (-ginkgo.fail-on-empty).
		return r, fmt.Errorf(tr("failed before any test reported: %s", "在任何测试报告结果之前就失败了：%s"), lastLines(r.Output, 12))
	case runErr != nil:
		return r, fmt.Errorf(tr("%d failing", "%d 个未通过"), len(r.Failures))
	case r.Passed == 0 || strings.Contains(r.Output, "no tests to run"):
		return r, fmt.Errorf(tr("no test matched %q", "没有测试匹配 %q"), t.Run+t.Labels)
	}
	return r, nil
}

func (r results) counts() string {
	switch {
	case len(r.Stubbed) > 0 && r.Passed+r.Failed == 0:
		return fmt.Sprintf(tr("%s does not compile; with it stubbed, no test ran: the setup failed", "%s 无法编译；把它换成桩之后，没有测试运行：准备步骤失败了"), stubbedNames(r.Stubbed))
	case len(r.Stubbed) > 0:
		what := stubbedFunctions(r.Stubbed) + tr(" does not compile", " 无法编译")
		if stubbedFunctions(r.Stubbed) == "" {
			what = tr("an import is not used", "有一个导入没有被使用")
		}
		return fmt.Sprintf(tr("%s; the rest: %d of %d passed", "%s；其余部分：%d / %d 通过"), what, r.Passed, r.Passed+r.Failed)
	case len(r.BuildErrors) > 0:
		return tr("does not compile", "无法编译")
	case r.Passed+r.Failed == 0 && len(r.Failures) > 0:
		return tr("no test ran: the setup failed", "没有测试运行：准备步骤失败了")
	}
	return fmt.Sprintf(tr("%d of %d passed", "%d / %d 通过"), r.Passed, r.Passed+r.Failed)
}

// explain prints why a package failed: compile errors, or each failure with
// its place, values or panic.
func (r results) explain(err error) {
	if len(r.Stubbed) > 0 {
		var fns, imports []compileError
		for _, c := range r.Stubbed {
			if c.Function == unusedImportName {
				imports = append(imports, c)
			} else {
				fns = append(fns, c)
			}
		}
		if len(fns) > 0 {
			fmt.Println(tr("       Does not compile:", "       无法编译："))
			for _, c := range fns {
				fmt.Printf("         %s   %s:%d: %s\n", c.Function, c.File, c.Line, strings.ReplaceAll(c.Message, "\n", "\n           "))
			}
			explainImports(fns)
		}
		if len(imports) > 0 {
			fmt.Println(tr("       Imported and not used (Go refuses it): delete these, or let goimports or your editor do it:",
				"       导入了却没有使用（Go 不允许）：删掉它们，或者交给 goimports 或你的编辑器处理："))
			for _, c := range imports {
				fmt.Printf("         %s:%d: %s\n", c.File, c.Line, c.Message)
			}
		}
		if len(fns) > 0 {
			fmt.Printf(tr("       The rest, checked with %s replaced by its stub (its own specs fail with it, and those of the functions that call it may too):\n",
				"       其余部分，在把 %s 换成桩之后检查（它自己的测试用例会因此失败，调用它的函数的测试用例也可能失败）：\n"), stubbedFunctions(fns))
		} else {
			fmt.Println(tr("       The rest, checked without those imports:", "       其余部分，去掉这些导入之后检查："))
		}
		r.Stubbed, r.BuildErrors = nil, nil
		if len(r.Failures) > 0 {
			r.explain(err)
		}
		return
	}
	if len(r.Markers) > 0 {
		fmt.Println(tr("       Merge conflict markers are still in the code (the compiler calls them a syntax error):",
			"       代码中还有合并冲突标记（编译器把它们报告为语法错误）："))
		for _, where := range markerLines(r.Markers) {
			fmt.Printf("         %s\n", where)
		}
		fmt.Println(tr("       A merge left them where two sides changed the same lines: between <<<<<<< and ======= is one\n"+
			"       side (your code, when bin/lab start merged), between ======= and >>>>>>> the other (the starter).\n"+
			"       Keep what you mean and delete the three marker lines; git diff shows them.",
			"       合并时两边改动了同一些行，就会留下这些标记：<<<<<<< 与 ======= 之间是一边（bin/lab start 合并时\n"+
				"       是你的代码），======= 与 >>>>>>> 之间是另一边（起始代码）。\n"+
				"       保留你想要的内容，删掉三行标记；git diff 可以看到它们。"))
		return
	}
	if len(r.BuildErrors) > 0 {
		// Each message with the function it is in: the stage asks for
		// functions, and which one does not compile is what matters.
		fmt.Println(tr("       The code does not compile:", "       代码无法编译："))
		var lines []string
		for _, e := range r.BuildErrors {
			if c := placeCompileError(".", e); c.Function != "" {
				first, rest, _ := strings.Cut(e, "\n")
				e = strings.TrimSuffix(first+tr("   (in ", "   （在 ")+c.Function+tr(")", " 中）")+"\n"+rest, "\n")
			}
			lines = append(lines, e)
		}
		fmt.Println(indentLines(limitLines(strings.Join(lines, "\n"), 15), "         "))
		var placed []compileError
		for _, e := range r.BuildErrors {
			placed = append(placed, placeCompileError(".", e))
		}
		explainImports(placed)
		if r.NoRest != "" {
			fmt.Println(indentLines(wrap(tr("The other functions were not checked: ", "其他函数没有检查：")+r.NoRest+tr(".", "。"), 90), "       "))
		}
		return
	}
	if len(r.VetErrors) > 0 {
		fmt.Println(tr("       go vet (which go test runs first) found:", "       go vet（go test 会先运行它）发现："))
		fmt.Println(indentLines(limitLines(strings.Join(r.VetErrors, "\n"), 15), "         "))
	}
	if len(r.Failures) == 0 {
		if len(r.VetErrors) == 0 {
			fmt.Println(indentLines(err.Error(), "       "))
		}
		return
	}
	for i, f := range r.Failures {
		if i == 5 {
			fmt.Printf(tr("       ... and %d more failing:\n", "       ……另有 %d 个未通过：\n"), len(r.Failures)-i)
			for _, g := range r.Failures[i:] {
				fmt.Printf("         %s\n", g.Name)
			}
			break
		}
		f.show("       ")
	}
}

// leftOpen are the files of the tree with changes not committed: where a
// carry leaves its conflicts (carry.go).
func leftOpen(dir string) map[string]bool {
	out, _ := output(dir, "git", "diff", "--name-only")
	files := map[string]bool{}
	for _, f := range strings.Fields(out) {
		files[f] = true
	}
	return files
}

// markerLines groups conflict markers (file:line) by file: "f.go lines 3, 5, 9".
func markerLines(markers []string) []string {
	var files []string
	lines := map[string][]string{}
	for _, m := range markers {
		file, line, _ := strings.Cut(m, ":")
		if _, ok := lines[file]; !ok {
			files = append(files, file)
		}
		lines[file] = append(lines[file], line)
	}
	var out []string
	for _, f := range files {
		out = append(out, f+" lines "+strings.Join(lines[f], ", "))
	}
	return out
}

// explainImports says which imports a starter dropped that the code now
// written needs: the compiler only says "undefined: kbatchv1".
func explainImports(cs []compileError) {
	seen := map[string]bool{}
	for _, c := range cs {
		imp := droppedImport(".", c.File, c.Message)
		if imp == "" || seen[c.File+imp] {
			continue
		}
		seen[c.File+imp] = true
		fmt.Printf(tr("       %s needs the import %s: the starter left out the imports that only the code you write\n"+
			"       uses. Add it to the file's import block (goimports, or your editor on save, does it for you).\n",
			"       %s 需要导入 %s：起始代码去掉了只有你要写的代码才用到的导入。\n"+
				"       把它加到文件的 import 块中（goimports 或保存时的编辑器会替你加上）。\n"), c.File, imp)
	}
}

// ownedFiles are the files that hold the stage's regions in the reference:
// the attendee's own code, shown first in a panic's stack.
func ownedFiles(root, dir string, s stage) map[string]bool {
	defer traced("find the stage's files")()
	owned := map[string]bool{}
	ref, err := referenceCommit(root)
	if err != nil || len(s.Regions) == 0 {
		return owned
	}
	for _, path := range regionFiles(root, ref, s) {
		owned[path] = true
	}
	return owned
}

// regionFiles lists the files of commit ref that hold one of the stage's
// regions.
func regionFiles(root, ref string, s stage) []string {
	out, _ := output(root, "git", "grep", "-l", "-E", "lab:begin ("+strings.Join(s.Regions, "|")+")( |\\*|$)", ref, "--", ".")
	var paths []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if line != "" {
			paths = append(paths, strings.TrimPrefix(line, ref+":"))
		}
	}
	return paths
}

// usesGinkgo tells whether the tests of pkg are a Ginkgo suite, which takes
// -ginkgo.* flags and writes a JSON report.
func usesGinkgo(dir, pkg string) bool {
	return testsMention(dir, pkg, "github.com/onsi/ginkgo/v2")
}

// selectStages returns the stages named, or all of them.
func selectStages(stages []stage, names []string) ([]stage, error) {
	if len(names) == 0 {
		return stages, nil
	}
	var out []stage
	for _, name := range names {
		s, err := findStage(stages, name)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

func selected(todo []stage, s stage) bool {
	for _, t := range todo {
		if t.ID == s.ID {
			return true
		}
	}
	return false
}

func isSetupError(err error) bool {
	var setup setupError
	return errors.As(err, &setup)
}

// usesEnvtest tells whether the tests of pkg, a directory under dir, start an
// API server.
func usesEnvtest(dir, pkg string) bool {
	return testsMention(dir, pkg, "envtest", "StartAPIServer")
}

// testsMention tells whether a _test.go file of pkg contains one of words.
func testsMention(dir, pkg string, words ...string) bool {
	tests, _ := filepath.Glob(filepath.Join(dir, pkg, "*_test.go"))
	for _, f := range tests {
		src, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, w := range words {
			if strings.Contains(string(src), w) {
				return true
			}
		}
	}
	return false
}

// todoFiles lists the files of revision rev (empty: the working tree) that
// still have a stub of stage id, with how many, as "path (n)". Docs that
// quote a TODO as an example do not count.
func todoFiles(dir, rev, id string) []string {
	args := []string{"grep", "-c", "-F", "TODO(lab " + id + ")"}
	if rev != "" {
		args = append(args, rev)
	}
	// cmd/lab's own tests quote TODOs as expected output.
	args = append(args, "--", ".", ":(exclude)*.md", ":(exclude)cmd/lab")
	out, _ := output(dir, "git", args...)
	var files []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		i := strings.LastIndex(line, ":")
		if i < 0 {
			continue
		}
		path := strings.TrimPrefix(line[:i], rev+":")
		files = append(files, fmt.Sprintf("%s (%s)", path, line[i+1:]))
	}
	return files
}

func cmdSolution(root string, stages []stage, s stage) error {
	if err := ensureControllerGen(root); err != nil {
		return err
	}
	_, commit, cleanup, err := starterTree(root, stages, s, "")
	if err != nil {
		return err
	}
	defer cleanup()
	// Only this stage's regions: a starter of the next stage differs from
	// this one's by exactly them.
	next := stage{ID: "99"}
	for _, other := range stages {
		if other.ID > s.ID {
			next = other
			break
		}
	}
	target, err := referenceCommit(root)
	if err != nil {
		return err
	}
	if next.ID != "99" {
		_, nextCommit, cleanupNext, err := starterTree(root, stages, next, "")
		if err != nil {
			return err
		}
		defer cleanupNext()
		target = nextCommit
	}
	out, err := output(root, "git", "diff", "--stat", "-p", commit, target, "--", ".", ":!*zz_generated*", ":!config/crd/bases", ":!*zz_lab_todo.go")
	if err != nil {
		return err
	}
	fmt.Printf(tr("The reference solution of stage %s (%s), as a diff from its starter:\n\n%s",
		"第 %s 阶段（%s）的参考实现，以相对起始代码的 diff 显示：\n\n%s"), s.ID, s.title(), out)
	return nil
}

func cmdBranches(root string, stages []stage) error {
	if err := ensureControllerGen(root); err != nil {
		return err
	}
	for _, s := range stages {
		_, commit, cleanup, err := starterTree(root, stages, s, "")
		if err != nil {
			return err
		}
		_, err = output(root, "git", "branch", "-f", "lab/"+s.ID, commit)
		cleanup()
		if err != nil {
			return err
		}
		fmt.Printf("  lab/%s  %s\n", s.ID, s.title())
	}
	fmt.Println(tr("\nPush them to the class repository with: git push <remote> 'refs/heads/lab/*:refs/heads/lab/*'",
		"\n把它们推送到课堂仓库：git push <remote> 'refs/heads/lab/*:refs/heads/lab/*'"))
	return nil
}

func ensureControllerGen(root string) error {
	if _, err := os.Stat(filepath.Join(root, "bin", "controller-gen")); err == nil {
		return nil
	}
	_, err := output(root, "make", "controller-gen")
	return err
}

// listChecks checks that each of the stage's tests selects at least one
// test, without running them.
func listChecks(dir string, s stage) error {
	for _, t := range s.Tests {
		out, err := output(dir, "go", t.listArgs()...)
		if err != nil {
			return fmt.Errorf("%s: %v\n%s", strings.Join(t.listArgs()[2:], " "), err, lastLines(out, 10))
		}
		if t.Labels == "" && !listedATest(out) {
			return fmt.Errorf("%s: no test matches", strings.Join(t.listArgs()[2:], " "))
		}
	}
	return nil
}

// listedATest tells whether `go test -list` printed a test name.
func listedATest(out string) bool {
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "Test") || strings.HasPrefix(line, "Example") || strings.HasPrefix(line, "Fuzz") {
			return true
		}
	}
	return false
}

// cmdDoctor checks the machine for what the workshop needs.
func cmdDoctor(root string) error {
	ok := true
	check := func(what string, err error, fix string) {
		if err == nil {
			fmt.Printf("  ok    %s\n", what)
			return
		}
		ok = false
		fmt.Printf(tr("  MISSING %s: %v\n        fix: %s\n", "  缺少  %s：%v\n        解决：%s\n"), what, err, fix)
	}
	for _, f := range laptopFindings(root) {
		check(f.what, f.err, f.fix)
	}
	check(fmt.Sprintf(tr("Go 1.26 or newer (%s)", "Go 1.26 或更新版本（%s）"), runtime.Version()), goVersionOK(), tr("install Go 1.26 from https://go.dev/dl", "从 https://go.dev/dl 安装 Go 1.26"))
	_, err := exec.LookPath("git")
	check("git", err, tr("install git", "安装 git"))

	kubectl := checkKubectl(root)
	check(kubectl.what, kubectl.err, kubectl.fix)
	// Two ways to a cluster: kind (Docker and the pinned kind) or the local
	// cluster (kwokctl in bin/). What the kind path lacks is a note, not a
	// failure, as long as one of the two works.
	docker, kind := checkKindPath(root)
	for _, f := range []finding{docker, kind} {
		if f.err == nil {
			check(f.what, nil, "")
		} else {
			fmt.Printf(tr("  note  %s: %v\n        fix: %s\n", "  注意  %s：%v\n        解决：%s\n"), f.what, f.err, f.fix)
		}
	}
	_, kwokErr := os.Stat(filepath.Join(root, "bin", "kwokctl"))
	switch {
	case kwokErr == nil:
		check(tr("the local cluster tools (kwokctl in bin/)", "本地集群工具（bin/ 中的 kwokctl）"), nil, "")
	case docker.err != nil || kind.err != nil:
		check(tr("a way to run a cluster", "运行集群的办法"), fmt.Errorf("%s", tr("neither kind with a running Docker, nor kwokctl in bin/", "既没有能用的 kind 加运行中的 Docker，bin/ 中也没有 kwokctl")),
			tr("run `make cluster` (no Docker needed), or fix Docker and kind as the notes above say", "运行 `make cluster`（不需要 Docker），或者按上面的注意事项修好 Docker 和 kind"))
	}
	if kubectl.path != "" {
		out, err := output(root, kubectl.path, "--request-timeout=5s", "get", "--raw", "/readyz")
		if err != nil {
			err = fmt.Errorf("%s", lastLines(out, 1))
		}
		check(tr("a reachable cluster (current kubeconfig context)", "可以连接的集群（当前 kubeconfig 上下文）"), err, tr("start one: `make cluster` (no Docker) or `make kind-cluster`", "启动一个：`make cluster`（不需要 Docker）或 `make kind-cluster`"))
	}
	_, err = os.Stat(filepath.Join(root, "bin", "envtest-assets-path"))
	check(tr("envtest binaries (etcd, kube-apiserver)", "envtest 的二进制文件（etcd、kube-apiserver）"), err, tr("run `make setup-envtest` (downloads, or builds them from the Go module proxy once)", "运行 `make setup-envtest`（下载它们，或者从 Go 模块代理构建一次）"))
	if !ok {
		return fmt.Errorf("%s", tr("some parts are missing; fix them as shown and run `lab doctor` again", "缺少一些东西；按上面说的补上，再运行一次 `lab doctor`"))
	}
	fmt.Println(tr("\nAll set.", "\n一切就绪。"))
	return nil
}

func goVersionOK() error {
	var major, minor int
	if _, err := fmt.Sscanf(runtime.Version(), "go%d.%d", &major, &minor); err != nil {
		return nil // a development build: assume it is new enough
	}
	if major > 1 || minor >= 26 {
		return nil
	}
	return fmt.Errorf(tr("this is %s", "这里是 %s"), runtime.Version())
}

func nextStage(stages []stage, s stage) (stage, bool) {
	for i := range stages {
		if stages[i].ID == s.ID && i+1 < len(stages) {
			return stages[i+1], true
		}
	}
	return stage{}, false
}

func previousStage(stages []stage, s stage) (stage, bool) {
	for i := range stages {
		if stages[i].ID == s.ID && i > 0 {
			return stages[i-1], true
		}
	}
	return stage{}, false
}
