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
	"path/filepath"
	"strings"
	"time"

	"cronlab.dev/cronlab/cmd/lab/internal/apiserver"
	"cronlab.dev/cronlab/cmd/lab/internal/base"
	"cronlab.dev/cronlab/cmd/lab/internal/gosrc"
	"cronlab.dev/cronlab/cmd/lab/internal/gotest"
	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
	"cronlab.dev/cronlab/cmd/lab/internal/regions"
	"cronlab.dev/cronlab/cmd/lab/internal/report"
	"cronlab.dev/cronlab/cmd/lab/internal/stage"
	"cronlab.dev/cronlab/internal/controlplane"
)

// How much Checks prints.
type Verbosity int

const (
	Quiet    Verbosity = iota // nothing (list, verify)
	Summary                   // a line per package, each failure explained (check)
	FullText                  // summary, and the tests' whole output (check -v)
)

// Checks runs a stage's before-commands and tests in dir, a tree of the
// clone at root. Tests that start envtest use root's shared API server
// (package apiserver). It returns the results of each test package.
func Checks(l i18n.Lang, root, dir string, s stage.Stage, v Verbosity) ([]gotest.Results, error) {
	return ChecksWith(l, root, dir, s, v, false, BuildOpts{})
}

// ChecksToFail runs the checks of a tree on which they must fail (a
// starter, a mistake), and stops at the first failure: which one fails
// first is all lab dev verify reports, and the failures after it would only
// wait out their timeouts.
func ChecksToFail(l i18n.Lang, root, dir string, s stage.Stage, slot string) ([]gotest.Results, error) {
	return ChecksWith(l, root, dir, s, Quiet, true, BuildOpts{Slot: slot})
}

func ChecksWith(l i18n.Lang, root, dir string, s stage.Stage, v Verbosity, failFast bool, o BuildOpts) ([]gotest.Results, error) {
	defer base.Traced("check of stage " + s.Slug)()
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
			fmt.Println(l.Tr("  FAIL  merge conflict markers are left in the code", "  失败  代码中还留有合并冲突标记"))
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

// inBothLanguages, when the tests spoke Chinese, finds the English of what
// each failure said (gotest.Failure.Said), from the test sources of t's
// package, and the Chinese of its name, from the package's testdata
// (gotest.ChineseNames).
func inBothLanguages(l i18n.Lang, dir string, t stage.Test, r *gotest.Results) {
	if l != i18n.Chinese || len(r.Failures) == 0 {
		return
	}
	pkg := filepath.Join(dir, t.Package)
	twins := gosrc.Twins(pkg)
	names := gotest.ChineseNames(pkg)
	for i, f := range r.Failures {
		r.Failures[i].Said = gosrc.English(f.Message, twins)
		r.Failures[i].NameZh = gotest.ChineseName(f.Name, names)
	}
}

// Built runs the tests of a stage as their builds finish.
func Built(l i18n.Lang, root, dir string, s stage.Stage, v Verbosity, failFast bool, o BuildOpts, builds []chan BuildResult) ([]gotest.Results, error) {
	owned := OwnedFiles(root, dir, s)
	calls := gosrc.CallGraph(dir, owned)
	todo := gosrc.StillStubs(dir, owned, regions.TodoMarker(s.Slug))
	var failed []string
	var all []gotest.Results
	// The tests find etcd and kube-apiserver through KUBEBUILDER_ASSETS or
	// the clone's bin/envtest-assets-path, which a tree made by the tool
	// (a starter, a copy for the mistakes) does not have.
	var env []string
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		if assets, err := controlplane.Assets(root); err == nil {
			env = append(env, "KUBEBUILDER_ASSETS="+assets)
		}
	}
	// A test that runs go itself (stage 09 builds the manager) builds with
	// the overlay too.
	if o.Overlay != "" {
		env = append(env, "GOFLAGS=-overlay="+o.Overlay)
	}
	// A test that records a trace says where it is under its failure; the
	// check says it itself, with what the trace shows (traces.go).
	env = append(env, "CRONLAB_TRACE_POINTER=off")
	env = append(env, o.Env...)
	// The tests write their sentences in the tool's language (test/say).
	env = append(env, "LAB_LANG="+string(l))
	shared := false
	// Every test binary builds while the shared API server is made ready:
	// neither needs the other until the tests run.
	for i, t := range s.Tests {
		start := time.Now()
		built := builds[i]
		if !shared && !o.OwnAPIServers && apiserver.Enabled() && usesEnvtest(dir, t.Package) {
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
		inBothLanguages(l, dir, t, &r)
		r.Calls, r.Todo = calls, todo
		all = append(all, r)
		if v == FullText {
			fmt.Println(r.Output)
		}
		if v > Quiet {
			mark := l.Tr("PASS", "通过")
			if err != nil {
				mark = l.Tr("FAIL", "失败")
			}
			fmt.Printf(l.Tr("  %s  %s: %s (%.0fs)\n", "  %s  %s：%s（%.0f 秒）\n"), mark, t.Package, report.Counts(l, r), time.Since(start).Seconds())
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
