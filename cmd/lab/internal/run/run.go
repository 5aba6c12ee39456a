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
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"cronlab.dev/cronlab/cmd/lab/internal/apiserver"
	"cronlab.dev/cronlab/cmd/lab/internal/base"
	"cronlab.dev/cronlab/cmd/lab/internal/gosrc"
	"cronlab.dev/cronlab/cmd/lab/internal/gotest"
	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
	"cronlab.dev/cronlab/cmd/lab/internal/report"
	"cronlab.dev/cronlab/cmd/lab/internal/stage"

	"cronlab.dev/cronlab/test/utils"
)

// How much runChecks prints.
type Verbosity int

const (
	Quiet    Verbosity = iota // nothing (list, verify)
	Summary                   // a line per package, each failure explained (check)
	FullText                  // summary, and the tests' whole output (check -v)
)

// runChecks runs a stage's before-commands and tests in dir, a tree of the
// clone at root. Tests that start envtest use root's shared API server
// (apiserver.go). It returns the results of each test package.
func Checks(l i18n.Lang, root, dir string, s stage.Stage, v Verbosity) ([]gotest.Results, error) {
	return ChecksWith(l, root, dir, s, v, false, BuildOpts{})
}

// runChecksToFail runs the checks of a tree on which they must fail (a
// starter, a mistake), and stops at the first failure: which one fails
// first is all lab verify reports, and the failures after it would only
// wait out their timeouts.
func ChecksToFail(l i18n.Lang, root, dir string, s stage.Stage, slot string) ([]gotest.Results, error) {
	return ChecksWith(l, root, dir, s, Quiet, true, BuildOpts{Slot: slot})
}

func ChecksWith(l i18n.Lang, root, dir string, s stage.Stage, v Verbosity, failFast bool, o BuildOpts) ([]gotest.Results, error) {
	defer base.Traced("check of stage " + s.ID)()
	for _, t := range s.Tests {
		if usesEnvtest(dir, t.Package) {
			if err := apiserver.EnsureEnvtest(l, root); err != nil {
				return nil, err
			}
			break
		}
	}
	// Conflict markers that a carry left, in any file (a Helm template too),
	// are named before anything is built: the compiler would call them a
	// syntax error, and a template would not compile at all.
	if markers := ConflictMarkers(dir, LeftOpen(dir), nil); len(markers) > 0 {
		r := gotest.Results{Markers: markers, NoRest: "conflict markers"}
		if v > Quiet {
			fmt.Println(l.Tr("  FAIL  merge conflict markers are left in the code", "  FAIL  代码中还留有合并冲突标记"))
			report.Explain(l, r, nil)
		}
		return []gotest.Results{r}, fmt.Errorf("%s", l.Tr("merge conflict markers left in the code", "代码中留有合并冲突标记"))
	}
	for _, before := range s.Before {
		args := strings.Fields(before)
		if out, err := base.Output(dir, args[0], args[1:]...); err != nil {
			if v > Quiet {
				fmt.Println(base.LastLines(out, 20))
			}
			return nil, fmt.Errorf(l.Tr("%q failed", "%q 失败了"), before)
		}
	}
	return Built(l, root, dir, s, v, failFast, o, StartBuilds(dir, s, o))
}

// buildOpts says how a check's tests are built: with a build overlay that
// replaces source files (go build -overlay: lab verify's mistakes), into a
// directory of their own. Zero: the tree as it is, into bin/lab-state/tests.
type BuildOpts struct {
	Overlay string
	Out     string
	NoVet   bool     // vetted already, or a mistakes' schema (vet would read every mistake at once)
	Env     []string // for the test binaries
	// Slot is a part of lab verify's slot: the shared API server of its
	// own ("" for an attendee's check: the clone's one server).
	Slot string
}

// startBuilds builds the test binaries of a stage's tests, all at once, and
// returns where each will be.
func StartBuilds(dir string, s stage.Stage, o BuildOpts) []chan BuildResult {
	builds := make([]chan BuildResult, len(s.Tests))
	for i, t := range s.Tests {
		builds[i] = make(chan BuildResult, 1)
		go func() { builds[i] <- buildTest(dir, t, o) }()
	}
	return builds
}

// runBuilt runs the tests of a stage as their builds finish.
func Built(l i18n.Lang, root, dir string, s stage.Stage, v Verbosity, failFast bool, o BuildOpts, builds []chan BuildResult) ([]gotest.Results, error) {
	owned := OwnedFiles(root, dir, s)
	calls := gosrc.CallGraph(dir, owned)
	var failed []string
	var all []gotest.Results
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
	if o.Overlay != "" {
		env = append(env, "GOFLAGS=-overlay="+o.Overlay)
	}
	env = append(env, o.Env...)
	shared := false
	// Every test binary builds while the shared API server is made ready:
	// neither needs the other until the tests run.
	for i, t := range s.Tests {
		start := time.Now()
		built := builds[i]
		if !shared && apiserver.Enabled() && usesEnvtest(dir, t.Package) {
			sharedEnv, release, err := apiserver.Of(root, o.Slot).Acquire(l, dir)
			if err != nil {
				for _, b := range builds[i:] {
					<-b
				}
				return nil, err
			}
			defer release()
			env, shared = append(env, sharedEnv...), true
		}
		r, err := runTest(l, dir, env, t, <-built, owned, failFast)
		if len(r.BuildErrors) > 0 && !failFast && o.Overlay == "" {
			r, err = checkTheRest(l, dir, s, env, t, owned, r, err)
		}
		r.Calls = calls
		all = append(all, r)
		if v == FullText {
			fmt.Println(r.Output)
		}
		if v > Quiet {
			mark := "PASS"
			if err != nil {
				mark = "FAIL"
			}
			fmt.Printf("  %s  %s: %s (%.0fs)\n", mark, t.Package, report.Counts(l, r), time.Since(start).Seconds())
			if err != nil {
				report.Explain(l, r, err)
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
		return all, fmt.Errorf(l.Tr("failing: %s", "未通过：%s"), strings.Join(failed, ", "))
	}
	return all, nil
}

// buildResult is a test binary, or why there is none.
type BuildResult struct {
	binary    string
	buildJSON string // go test -c -json's output: compile errors
	Err       error
	vet       string // go vet's findings, if it found any
}

// buildTest compiles the tests of a stage's package into a binary kept in
// dir's bin/lab-state/tests, so that a check of unchanged code does not
// link again (go test -c leaves an up-to-date binary alone). go test would
// vet the package first, then build; vetting beside the build is the same
// check, and seconds sooner. -ldflags=-w leaves out the tables debuggers
// read, for a faster link; stack traces keep their files and lines.
func buildTest(dir string, t stage.Test, o BuildOpts) BuildResult {
	defer base.Traced("build " + t.Package)()
	var overlay []string
	if o.Overlay != "" {
		overlay = []string{"-overlay=" + o.Overlay}
	}
	vetDone := make(chan string, 1)
	vet := func() {
		defer close(vetDone)
		if o.NoVet {
			return
		}
		defer base.Traced("go vet " + t.Package)()
		// At a lower priority: on two cores the build is what the check
		// waits for.
		vet := append(append([]string{"go", "vet"}, overlay...), t.Package)
		if _, err := exec.LookPath("nice"); err == nil {
			vet = append([]string{"nice"}, vet...)
		}
		if out, err := base.Output(dir, vet[0], vet[1:]...); err != nil {
			vetDone <- out
		}
	}
	go vet()
	bins := filepath.Join(dir, "bin", "lab-state", "tests")
	if o.Out != "" {
		bins = o.Out
	}
	b := BuildResult{binary: filepath.Join(bins, strings.NewReplacer("/", "_", ".", "_").Replace(strings.Trim(t.Package, "./"))+".test")}
	if err := os.MkdirAll(bins, 0o755); err != nil {
		return BuildResult{Err: err}
	}
	args := append([]string{"test", "-c", "-json", "-vet=off", "-ldflags=-w", "-o", b.binary}, overlay...)
	b.buildJSON, b.Err = base.Output(dir, "go", append(args, t.Package)...)
	b.vet = <-vetDone
	return b
}

// runTest runs a built test binary as go test would (in the package's
// directory, its output turned into JSON events by test2json) and reads its
// results. The error says why the package failed, in a line.
func runTest(l i18n.Lang, dir string, env []string, t stage.Test, b BuildResult, owned map[string]bool, failFast bool) (gotest.Results, error) {
	defer base.Traced("run " + t.Package)()
	if b.Err != nil {
		r := gotest.ParseJSON([]byte(b.buildJSON), dir, t.Package, owned, false)
		if len(r.BuildErrors) == 0 {
			return r, base.SetupError{Err: fmt.Errorf("building the tests of %s: %w", t.Package, b.Err)}
		}
		return r, fmt.Errorf("does not compile")
	}
	args := t.BinaryArgs(failFast)
	ginkgo := usesGinkgo(dir, t.Package)
	var report string
	if ginkgo {
		f, err := os.CreateTemp("", "lab-ginkgo-*.json")
		if err != nil {
			return gotest.Results{}, err
		}
		report = f.Name()
		_ = f.Close()
		defer func() { _ = os.Remove(report) }()
		args = append(args, "-ginkgo.json-report="+report)
		// Colours are for a terminal: check -v | less shows escape codes.
		if !base.IsTerminal(os.Stdout) {
			args = append(args, "-ginkgo.no-color")
		}
		if failFast {
			args = append(args, "-ginkgo.fail-fast")
		}
	}
	binary, err := filepath.Abs(b.binary)
	if err != nil {
		return gotest.Results{}, err
	}
	out, runErr := base.OutputEnv(filepath.Join(dir, t.Package), env, "go", append([]string{"tool", "test2json", "-t", "-p", t.Package, binary}, args...)...)
	r := gotest.ParseJSON([]byte(out), dir, t.Package, owned, ginkgo)
	r.Ginkgo = ginkgo
	if b.vet != "" {
		r.VetErrors = gotest.VetFindings(b.vet, dir)
	}
	if ginkgo {
		if err := gotest.ReadGinkgoReport(report, dir, owned, &r); err != nil && runErr == nil {
			return r, err
		}
	}
	switch {
	case len(r.VetErrors) > 0:
		return r, fmt.Errorf("%s", l.Tr("go vet found a mistake", "go vet 发现了一个错误"))
	case runErr != nil && len(r.Failures) == 0:
		// Failed, but no test said why: a crash before the tests, or a
		// filter that matched nothing (-ginkgo.fail-on-empty).
		return r, fmt.Errorf(l.Tr("failed before any test reported: %s", "在任何测试报告结果之前就失败了：%s"), base.LastLines(r.Output, 12))
	case runErr != nil:
		return r, fmt.Errorf(l.Tr("%d failing", "%d 个未通过"), len(r.Failures))
	case r.Passed == 0 || strings.Contains(r.Output, "no tests to run"):
		return r, fmt.Errorf(l.Tr("no test matched %q", "没有测试匹配 %q"), t.Run+t.Labels)
	}
	return r, nil
}

// leftOpen are the files of the tree with changes not committed: where a
// carry leaves its conflicts (carry.go).
func LeftOpen(dir string) map[string]bool {
	out, _ := base.Output(dir, "git", "diff", "--name-only")
	files := map[string]bool{}
	for _, f := range strings.Fields(out) {
		files[f] = true
	}
	return files
}

// ownedFiles are the files that hold the stage's regions in the reference:
// the attendee's own code, shown first in a panic's stack.
func OwnedFiles(root, dir string, s stage.Stage) map[string]bool {
	defer base.Traced("find the stage's files")()
	owned := map[string]bool{}
	ref, err := base.ReferenceCommit(root)
	if err != nil || len(s.Regions) == 0 {
		return owned
	}
	for _, path := range RegionFiles(root, ref, s) {
		owned[path] = true
	}
	return owned
}

// regionFiles lists the files of commit ref that hold one of the stage's
// regions.
func RegionFiles(root, ref string, s stage.Stage) []string {
	out, _ := base.Output(root, "git", "grep", "-l", "-E", "lab:begin ("+strings.Join(s.Regions, "|")+")( |\\*|$)", ref, "--", ".")
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
func TodoFiles(dir, rev, id string) []string {
	args := []string{"grep", "-c", "-F", "TODO(lab " + id + ")"}
	if rev != "" {
		args = append(args, rev)
	}
	// cmd/lab's own tests quote TODOs as expected output.
	args = append(args, "--", ".", ":(exclude)*.md", ":(exclude)cmd/lab")
	out, _ := base.Output(dir, "git", args...)
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

// listChecks checks that each of the stage's tests selects at least one
// test, without running them.
func ListChecks(dir string, s stage.Stage) error {
	for _, t := range s.Tests {
		out, err := base.Output(dir, "go", t.ListArgs()...)
		if err != nil {
			return fmt.Errorf("%s: %v\n%s", strings.Join(t.ListArgs()[2:], " "), err, base.LastLines(out, 10))
		}
		if t.Labels == "" && !listedATest(out) {
			return fmt.Errorf("%s: no test matches", strings.Join(t.ListArgs()[2:], " "))
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
