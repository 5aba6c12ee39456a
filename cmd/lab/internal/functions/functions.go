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

package functions

// A result per function. An attendee writes functions, not specs: "observeJobs
// passes, Reconcile does not" says where to look. Which specs check which
// function is written down beside the stage, in stage.yaml:
//
//	functions:
//	- {name: observeJobs, specs: ["moves finished Jobs out of active", ...]}
//
// Each entry of specs is part of a spec's name (or a Go test's), or
// BeforeSuite for a suite's setup. The table is kept honest by tests: every
// function of the stage's regions has a row, and each name is in the stage's
// tests (TestEveryFunctionOfAStageHasItsSpecs); each row names specs that the
// reference runs (lab dev verify).

import (
	"fmt"
	"slices"
	"strings"

	"cronlab.dev/cronlab/cmd/lab/internal/gosrc"
	"cronlab.dev/cronlab/cmd/lab/internal/gotest"
	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
	"cronlab.dev/cronlab/cmd/lab/internal/regions"
	"cronlab.dev/cronlab/cmd/lab/internal/stage"
)

// Result is what a check says of one function.
type Result struct {
	Name   string `json:"name"`
	Status string `json:"status"` // passed, failed, waiting, does not compile, not run
	// Passed and Ran count its specs that ran; a spec checks several
	// functions when it drives the whole Reconciler.
	Passed int `json:"passed"`
	Ran    int `json:"ran"`
	// Failing are its specs that failed; CompileError the compiler's first
	// message about it.
	Failing      []string `json:"failing,omitempty"`
	CompileError string   `json:"compileError,omitempty"`
	// WaitingFor are the functions that do not compile or fail their own
	// specs, and that it calls (its specs ran their code) or whose specs its
	// failing ones are (they drive it through that function): its failures
	// may be theirs. Through says which: "calls" or "specs".
	WaitingFor []string `json:"waitingFor,omitempty"`
	Through    string   `json:"through,omitempty"`
	// Stub: its body is still the starter's stub, not written yet. It
	// never waits for another; the functions whose failures run into it
	// wait for it (Through "stub").
	Stub bool `json:"stub,omitempty"`
	// setupFailed: a suite's setup failed, so some specs did not run.
	setupFailed bool
}

// Verdicts folds a check's results, of the tree in dir, into one
// result per function of the stage's table, in the table's order.
func Verdicts(s stage.Stage, dir string, rs []gotest.Results) []Result {
	var out []Result
	stubs := map[string]bool{}
	for _, r := range rs {
		for _, fn := range r.Todo {
			stubs[fn] = true
		}
	}
	for _, f := range s.Functions {
		fr := Result{Name: f.Name, Stub: stubs[f.Name]}
		setupFailed := false
		for _, r := range rs {
			// Compiler messages: those of the functions stubbed for the rest
			// of the check, or, when the rest could not be checked, all.
			placed := r.Stubbed
			if len(placed) == 0 {
				for _, e := range r.BuildErrors {
					placed = append(placed, gotest.PlaceCompileError(dir, e))
				}
			}
			for _, c := range placed {
				if c.Function == f.Name {
					if fr.CompileError == "" {
						fr.CompileError = fmt.Sprintf("%s:%d: %s", c.File, c.Line, c.Message)
					}
				}
			}
			// A suite whose specs ran has passed its setup: one spec for
			// the function that the setup checks (BeforeSuite).
			if r.Ginkgo && len(r.Outcomes) > 0 && f.Checks("BeforeSuite") {
				fr.Ran++
				fr.Passed++
			}
			for _, o := range r.Outcomes {
				if !f.Checks(o.Name) {
					continue
				}
				fr.Ran++
				if o.Status == "passed" {
					fr.Passed++
				} else {
					fr.Failing = append(fr.Failing, o.Name)
				}
			}
			// A package that does not compile ran nothing.
			if len(r.BuildErrors) > 0 && len(r.Stubbed) == 0 {
				setupFailed = true
			}
			// A failure that is no spec is a suite's node: a failed setup
			// (BeforeSuite) means specs did not run, so no function has
			// passed; a failed teardown (AfterSuite) after specs ran says
			// nothing about them. The function a node is listed for failed.
			for _, fail := range r.Failures {
				// (A Go subtest has no outcome of its own either.)
				if gotest.HasOutcome(r.Outcomes, fail.Name) || strings.Contains(fail.Name, "/") {
					continue
				}
				if strings.HasSuffix(fail.Name, "BeforeSuite") || len(r.Outcomes) == 0 {
					setupFailed = true
				}
				if f.Checks(fail.Name) {
					fr.Failing = append(fr.Failing, fail.Name)
				}
			}
		}
		fr.setupFailed = setupFailed
		switch {
		case fr.CompileError != "":
			fr.Status = "does not compile"
		case len(fr.Failing) > 0:
			fr.Status = "failed"
		case fr.Ran == 0 || setupFailed:
			fr.Status = "not run"
		default:
			fr.Status = "passed"
		}
		out = append(out, fr)
	}
	waitForStubs(out, rs, s)
	waitForFailingCallees(out, rs, s)
	waitForSharedSpecs(out, s)
	return out
}

// waitForStubs marks as waiting a function written, and failing, every
// failing spec of which ran into a stub of the stage: a function still the
// starter's stub checks it too, or the failure carries the stub's TODO
// (stage 06 with startDueRun unwritten: Due's specs drive it through
// startDueRun, whose stub returns the TODO before Due is called). Such a
// failure says nothing of the function yet.
func waitForStubs(frs []Result, rs []gotest.Results, s stage.Stage) {
	specsOf := map[string]stage.Function{}
	var stubs []string
	for _, f := range s.Functions {
		specsOf[f.Name] = f
	}
	for _, fr := range frs {
		if fr.Stub && fr.Status != "passed" {
			stubs = append(stubs, fr.Name)
		}
	}
	if len(stubs) == 0 {
		return
	}
	said := map[string]string{}
	for _, r := range rs {
		for _, f := range r.Failures {
			said[f.Name] += f.Message + f.Panic
		}
	}
	marker := regions.TodoMarker(s.Slug)
	for i, fr := range frs {
		if fr.Stub || fr.Status != "failed" || len(fr.Failing) == 0 {
			continue
		}
		var through []string
		explained := true
		for _, spec := range fr.Failing {
			var by []string
			for _, g := range stubs {
				if specsOf[g].Checks(spec) {
					by = append(by, g)
				}
			}
			if len(by) == 0 && strings.Contains(said[spec], marker) {
				by = stubs
			}
			for _, g := range by {
				if !slices.Contains(through, g) {
					through = append(through, g)
				}
			}
			explained = explained && len(by) > 0
		}
		if explained {
			frs[i].Status, frs[i].WaitingFor, frs[i].Through = "waiting", through, "stub"
		}
	}
}

// waitForSharedSpecs marks as waiting a failed function whose every failing
// spec is also a spec of another function of the table that fails specs of
// its own, or does not compile: the spec drives this one through that one
// (stage 05's deleteJob is checked by a spec of pruneHistory, which calls
// it), so while that one is unwritten, the failure says nothing of this one.
//
// Every function is judged on the statuses as they were before any of
// them waits, so the table's order changes nothing; and two functions that
// would wait for each other (stage 06's Schedule.Due and dueTable, which
// TestDue checks together, each failing a spec of its own) both fail:
// neither explains the other.
func waitForSharedSpecs(frs []Result, s stage.Stage) {
	specsOf := map[string]stage.Function{}
	for _, f := range s.Functions {
		specsOf[f.Name] = f
	}
	// by[fr][spec] are the functions that explain fr's failing spec.
	by := make([]map[string][]string, len(frs))
	for i, fr := range frs {
		if fr.Status != "failed" || fr.Stub || len(fr.Failing) == 0 {
			continue
		}
		by[i] = map[string][]string{}
		for _, spec := range fr.Failing {
			for _, g := range frs {
				if g.Name == fr.Name || (g.Status != "failed" && g.Status != "does not compile") || !specsOf[g.Name].Checks(spec) {
					continue
				}
				// g explains the spec when it fails others of its own, or
				// is the narrower of the two (fewer specs: stage 15's cLag
				// beside get, a helper every lag spec checks).
				if failsAlone(g, specsOf[fr.Name]) || g.Ran < fr.Ran {
					by[i][spec] = append(by[i][spec], g.Name)
				}
			}
		}
	}
	wouldWaitFor := func(g, f string) bool {
		for j, fr := range frs {
			if fr.Name == g && by[j] != nil {
				for _, names := range by[j] {
					if slices.Contains(names, f) {
						return true
					}
				}
			}
		}
		return false
	}
	for i, fr := range frs {
		if by[i] == nil {
			continue
		}
		var through []string
		explained := true
		for _, spec := range fr.Failing {
			found := false
			for _, g := range by[i][spec] {
				if wouldWaitFor(g, fr.Name) {
					continue // g would wait for fr in turn
				}
				found = true
				if !slices.Contains(through, g) {
					through = append(through, g)
				}
			}
			explained = explained && found
		}
		if explained && len(through) > 0 {
			frs[i].Status, frs[i].WaitingFor, frs[i].Through = "waiting", through, "specs"
		}
	}
}

// waitForFailingCallees marks as waiting a failed function that calls,
// directly or through others, a function of the table that does not
// compile (its specs ran with its stub) or fails its own specs, and which
// waits for none itself: the caller's specs run the callee's code, so the
// caller's failure may be the callee's (a JobFinished that calls a running
// Job finished makes a correct Reconcile fail). The callee is the one to
// fix first.
//
// A callee whose failing specs are all the caller's own is not blamed: the
// caller's failure explains them as well (stage 15's cLag calls get, and
// every spec of get is a spec of a lag function).
func waitForFailingCallees(frs []Result, rs []gotest.Results, s stage.Stage) {
	specsOf := map[string]stage.Function{}
	for _, f := range s.Functions {
		specsOf[f.Name] = f
	}
	calls := map[string][]string{}
	for _, r := range rs {
		for fn, callees := range r.Calls {
			calls[fn] = append(calls[fn], callees...)
		}
	}
	failing := map[string]bool{}
	for _, fr := range frs {
		failing[fr.Name] = fr.Status == "failed" || fr.Status == "does not compile"
	}
	byName := map[string]Result{}
	for _, fr := range frs {
		byName[fr.Name] = fr
	}
	reachesFailing := gosrc.Reached(calls, func(fn string) bool { return failing[fn] })
	for i, fr := range frs {
		if fr.Status != "failed" {
			continue
		}
		waits := gosrc.Reached(calls, func(fn string) bool {
			return failing[fn] && len(reachesFailing[fn]) == 0 && failsAlone(byName[fn], specsOf[fr.Name])
		})
		if len(waits[fr.Name]) > 0 {
			frs[i].Status, frs[i].WaitingFor, frs[i].Through = "waiting", waits[fr.Name], "calls"
		}
	}
}

// failsAlone says whether g does not compile, or fails a spec that f's
// row of the table does not check: a failure of its own.
func failsAlone(g Result, f stage.Function) bool {
	if g.Status == "does not compile" || (g.Stub && g.Status == "failed") {
		return true
	}
	for _, spec := range g.Failing {
		if !f.Checks(spec) {
			return true
		}
	}
	return false
}

// ShowFunctions prints the result per function under a check's packages,
// and how many failing specs check none of them (the stage's given code, or
// the stage as a whole), so that "every function ok" never stands beside a
// failure unexplained.
func ShowFunctions(l i18n.Lang, s stage.Stage, rs []gotest.Results) {
	frs := Verdicts(s, ".", rs)
	if len(frs) == 0 || len(rs) == 0 {
		return
	}
	// A row of the table may be a region without a Go function (stage 02's
	// markers): it is named as one, and the rows are "parts", not functions.
	label := map[string]string{}
	parts := false
	width := 0
	for _, fr := range frs {
		label[fr.Name] = fr.Name
		if slices.Contains(s.Regions, fr.Name) {
			label[fr.Name], parts = fmt.Sprintf(l.Tr("the region %s", "区域 %s"), fr.Name), true
		}
		width = max(width, i18n.Width(label[fr.Name]))
	}
	if parts {
		fmt.Println(l.Tr("\n  What you write:", "\n  你要写的部分："))
	} else {
		fmt.Println(l.Tr("\n  Your functions:", "\n  你的函数："))
	}
	broken := map[string]bool{}
	for _, fr := range frs {
		broken[fr.Name] = fr.Status == "does not compile"
	}
	why := false
	for _, fr := range frs {
		var mark, detail string
		switch fr.Status {
		case "passed":
			mark, detail = l.Tr("ok  ", "通过"), fmt.Sprintf(l.Tr("%d of %d specs pass", "%d / %d 个测试用例通过"), fr.Passed, fr.Ran)
		case "failed":
			mark, detail = l.Tr("FAIL", "失败"), fmt.Sprintf(l.Tr("%d of %d specs pass", "%d / %d 个测试用例通过"), fr.Passed, fr.Ran)
			switch {
			case fr.Stub && fr.Ran == 0:
				detail = fmt.Sprintf(l.Tr("still the starter's stub (its TODO line is there): write it, then delete that line; the suite's setup fails on it (%s)",
					"仍是起始代码里的桩（TODO 那一行还在）：请编写它，写好后删掉那一行；测试套件的准备步骤在它这里失败（%s）"), strings.Join(fr.Failing, ", "))
			case fr.Stub:
				detail = fmt.Sprintf(l.Tr("still the starter's stub (its TODO line is there): write it, then delete that line; %d of %d specs pass",
					"仍是起始代码里的桩（TODO 那一行还在）：请编写它，写好后删掉那一行；%d / %d 个测试用例通过"), fr.Passed, fr.Ran)
			case fr.Ran == 0:
				detail = fmt.Sprintf(l.Tr("the suite's setup fails on it (%s)", "测试套件的准备步骤在它这里失败（%s）"), strings.Join(fr.Failing, ", "))
			}
		case "waiting":
			mark, detail = l.Tr("wait", "等待"), waitingDetail(l, fr, broken[fr.WaitingFor[0]])
		case "does not compile":
			first, _, _ := strings.Cut(fr.CompileError, "\n")
			mark, detail = l.Tr("FAIL", "失败"), l.Tr("does not compile: ", "无法编译：")+first
		default:
			mark, detail = l.Tr("skip", "未测"), l.Tr("not checked: none of its specs ran", "没有检查：它的测试用例都没有运行")
			if fr.Ran > 0 {
				detail = fmt.Sprintf(l.Tr("%d of %d specs that ran pass; the others did not run", "运行了的测试用例 %d / %d 通过；其余没有运行"), fr.Passed, fr.Ran)
			}
			why = why || fr.setupFailed
		}
		fmt.Printf("    %s  %s%s  %s\n", mark, label[fr.Name], strings.Repeat(" ", width-i18n.Width(label[fr.Name])), detail)
	}
	if why {
		fmt.Println(l.Tr("    (specs did not run because a package does not compile, or a suite's setup failed: see above)",
			"    （有测试用例没有运行，因为某个包无法编译，或者测试套件的准备步骤失败了：见上文）"))
	}
	done := 0
	for _, fr := range frs {
		if fr.Status == "passed" {
			done++
		}
	}
	switch {
	case parts:
		fmt.Printf(l.Tr("    %d of %d parts pass\n", "    %d / %d 个部分通过\n"), done, len(frs))
	case shared(s, rs):
		fmt.Printf(l.Tr("    %d of %d functions pass (a spec that checks several functions counts under each)\n",
			"    %d / %d 个函数通过（检查多个函数的测试用例在每个函数下各计一次）\n"), done, len(frs))
	default:
		fmt.Printf(l.Tr("    %d of %d functions pass\n", "    %d / %d 个函数通过\n"), done, len(frs))
	}
	if n := len(unclaimed(s, rs, "failed")); n > 0 {
		fmt.Printf(l.Tr("    and %d failing spec(s) above that check the stage as a whole, not one of these functions\n",
			"    另有上文 %d 个未通过的测试用例检查的是整个阶段，而不是其中某个函数\n"), n)
	}
}

// waitingDetail says why fr waits, in the direction of the wait: through
// calls, fr calls the one it waits for; through specs, the one it waits for
// is the way its failing specs reach it (stage 06's startDueRun calls
// nextRunMessage, and a spec of both goes through startDueRun), so fr does
// not call it, and saying so would send the attendee the wrong way.
func waitingDetail(l i18n.Lang, fr Result, broken bool) string {
	names := JoinNames(l, fr.WaitingFor)
	// English agrees in number (Chinese needs no such care): the second of
	// each pair is for more than one name.
	many := len(fr.WaitingFor) > 1
	others := l.Tr("the others", "其余的")
	if fr.Passed == 0 {
		others = l.Tr("they", "它们")
	}
	var format string
	switch {
	case fr.Through == "stub" && !many:
		format = l.Tr("%d of %d specs pass; %s ran into the stub of %s, not written yet: write that first",
			"%d / %d 个测试用例通过；%s碰到了 %s 的桩，那里还没有编写：先写那里")
	case fr.Through == "stub":
		format = l.Tr("%d of %d specs pass; %s ran into the stubs of %s, not written yet: write those first",
			"%d / %d 个测试用例通过；%s碰到了 %s 的桩，那里还没有编写：先写那里")
	case fr.Through == "specs" && broken && !many:
		format = l.Tr("%d of %d specs pass; %s check it through %s, which does not compile and ran as a stub: fix that first",
			"%d / %d 个测试用例通过；%s经由 %s 检查它，而那里无法编译，检查时运行的是桩：先修好那里")
	case fr.Through == "specs" && broken:
		format = l.Tr("%d of %d specs pass; %s check it through %s, which do not compile and ran as stubs: fix those first",
			"%d / %d 个测试用例通过；%s经由 %s 检查它，而那里无法编译，检查时运行的是桩：先修好那里")
	case fr.Through == "specs" && !many:
		format = l.Tr("%d of %d specs pass; %s check it through %s, which fails its own specs: fix that first",
			"%d / %d 个测试用例通过；%s经由 %s 检查它，而那里自己的测试用例还没有通过：先修好那里")
	case fr.Through == "specs":
		format = l.Tr("%d of %d specs pass; %s check it through %s, which fail their own specs: fix those first",
			"%d / %d 个测试用例通过；%s经由 %s 检查它，而那里自己的测试用例还没有通过：先修好那里")
	case broken && !many:
		return fmt.Sprintf(l.Tr("%d of %d specs pass, but it calls %s, which does not compile and ran as a stub: fix that first",
			"%d / %d 个测试用例通过，但它调用的 %s 无法编译，检查时运行的是桩：先修好那里"), fr.Passed, fr.Ran, names)
	case broken:
		return fmt.Sprintf(l.Tr("%d of %d specs pass, but it calls %s, which do not compile and ran as stubs: fix those first",
			"%d / %d 个测试用例通过，但它调用的 %s 无法编译，检查时运行的是桩：先修好那里"), fr.Passed, fr.Ran, names)
	case !many:
		return fmt.Sprintf(l.Tr("%d of %d specs pass, but it calls %s, which fails its own specs: fix that first",
			"%d / %d 个测试用例通过，但它调用的 %s 自己的测试用例就没有通过：先修好那里"), fr.Passed, fr.Ran, names)
	default:
		return fmt.Sprintf(l.Tr("%d of %d specs pass, but it calls %s, which fail their own specs: fix those first",
			"%d / %d 个测试用例通过，但它调用的 %s 自己的测试用例就没有通过：先修好那里"), fr.Passed, fr.Ran, names)
	}
	return fmt.Sprintf(format, fr.Passed, fr.Ran, others, names)
}

// shared tells whether a spec that ran checks more than one function of the
// table, so that the functions' counts add up to more than the specs'.
func shared(s stage.Stage, rs []gotest.Results) bool {
	for _, r := range rs {
		for _, o := range r.Outcomes {
			n := 0
			for _, f := range s.Functions {
				if f.Checks(o.Name) {
					n++
				}
			}
			if n > 1 {
				return true
			}
		}
	}
	return false
}

// JoinNames writes "a", "a and b", "a, b and c".
func JoinNames(l i18n.Lang, names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], l.Tr(", ", "、")) + l.Tr(" and ", " 和 ") + names[len(names)-1]
}

// unclaimed lists the specs with the given status ("failed") that no row
// of the table claims: a stage may have specs about it as a whole (stage 12
// shows coalescing beside the function it asks for).
func unclaimed(s stage.Stage, rs []gotest.Results, status string) []string {
	var out []string
	for _, r := range rs {
		for _, o := range r.Outcomes {
			if o.Status != status {
				continue
			}
			claimed := false
			for _, f := range s.Functions {
				claimed = claimed || f.Checks(o.Name)
			}
			if !claimed {
				out = append(out, o.Name)
			}
		}
	}
	return out
}
