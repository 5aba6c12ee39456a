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

	"cronlab.dev/cronlab/cmd/lab/internal/base"
	"cronlab.dev/cronlab/cmd/lab/internal/gotest"
	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
	"cronlab.dev/cronlab/cmd/lab/internal/stage"
)

// BuildOpts says how a check's tests are built: with a build overlay that
// replaces source files (go build -overlay: lab dev verify's mistakes), into a
// directory of their own. Zero: the tree as it is, into bin/lab-state/tests.
type BuildOpts struct {
	Overlay string
	Out     string
	NoVet   bool     // vetted already, or a mistakes' schema (vet would read every mistake at once)
	Env     []string // for the test binaries
	// Slot is a part of lab dev verify's slot: the shared API server of its
	// own ("" for an attendee's check: the clone's one server).
	Slot string
	// OwnAPIServers has every envtest suite start an API server of its
	// own, with the CRD of the tree it runs in: that CRD is a mutant's
	// (lab dev mutants config/crd), which the shared server must not take.
	OwnAPIServers bool
}

// StartBuilds builds the test binaries of a stage's tests, all at once, and
// returns where each will be.
func StartBuilds(dir string, s stage.Stage, o BuildOpts) []chan BuildResult {
	builds := make([]chan BuildResult, len(s.Tests))
	for i, t := range s.Tests {
		builds[i] = make(chan BuildResult, 1)
		go func() { builds[i] <- buildTest(dir, t, o) }()
	}
	return builds
}

// BuildResult is a test binary, or why there is none.
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
			return r, base.SetupError{Err: i18n.Errorf("building the tests of %s: %w", "构建 %s 的测试：%w", t.Package, b.Err)}
		}
		return r, i18n.Errorf("does not compile", "无法编译")
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
	clearTraces(dir, t)
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
	attachTraces(l, dir, t, &r)
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
