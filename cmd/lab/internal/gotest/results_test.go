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

package gotest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
)

// What go test -json says of a package: two tests that pass and fail, and
// a subtest that does not count twice; the failure keeps its place and
// what the assertion said.
func TestParseJSONCountsTestsAndKeepsWhatAFailureSaid(t *testing.T) {
	events := strings.Join([]string{
		`{"Action":"run","Package":"p","Test":"TestDouble"}`,
		`{"Action":"output","Package":"p","Test":"TestDouble","Output":"    code_test.go:10: Double(2) = 5, want 4\n"}`,
		`{"Action":"fail","Package":"p","Test":"TestDouble"}`,
		`{"Action":"run","Package":"p","Test":"TestHalf"}`,
		`{"Action":"pass","Package":"p","Test":"TestHalf/even"}`,
		`{"Action":"pass","Package":"p","Test":"TestHalf"}`,
		`{"Action":"fail","Package":"p"}`,
	}, "\n")
	r := ParseJSON([]byte(events), t.TempDir(), "p", nil, false)
	if r.Passed != 1 || r.Failed != 1 || len(r.Outcomes) != 2 {
		t.Fatalf("passed %d, failed %d, outcomes %v; want 1, 1 and two", r.Passed, r.Failed, r.Outcomes)
	}
	f := r.Failures[0]
	if f.Name != "TestDouble" || f.Location != "p/code_test.go:10" || f.Message != "Double(2) = 5, want 4" {
		t.Errorf("the failure reads %+v", f)
	}
}

// A subtest that panics fails without a word of its own: go test prints the
// panic under the top-level test, after the subtest's "--- FAIL" line. The
// subtest, the row an attendee reads first, is given that panic.
func TestASubtestThatPanicsSaysSo(t *testing.T) {
	events := strings.Join([]string{
		`{"Action":"run","Package":"p","Test":"TestOwner"}`,
		`{"Action":"run","Package":"p","Test":"TestOwner/a_CronJob"}`,
		`{"Action":"output","Package":"p","Test":"TestOwner/a_CronJob","Output":"--- FAIL: TestOwner/a_CronJob (0.00s)\n"}`,
		`{"Action":"fail","Package":"p","Test":"TestOwner/a_CronJob"}`,
		`{"Action":"output","Package":"p","Test":"TestOwner","Output":"--- FAIL: TestOwner (0.00s)\n"}`,
		`{"Action":"output","Package":"p","Test":"TestOwner","Output":"panic: runtime error: invalid memory address or nil pointer dereference [recovered, repanicked]\n"}`,
		`{"Action":"fail","Package":"p","Test":"TestOwner"}`,
		`{"Action":"fail","Package":"p"}`,
	}, "\n")
	r := ParseJSON([]byte(events), t.TempDir(), "p", nil, false)
	if len(r.Failures) != 2 || r.Failures[0].Name != "TestOwner/a_CronJob" {
		t.Fatalf("failures: %+v", r.Failures)
	}
	if got := r.Failures[0].Panic; got != "runtime error: invalid memory address or nil pointer dereference" {
		t.Errorf("the subtest that panicked says %q", got)
	}
}

// A fatal error (here a mutex unlocked that nobody locked) ends the test
// binary at once, in the test that was running: it is read as a panic.
func TestAFatalErrorIsReadAsAPanic(t *testing.T) {
	events := strings.Join([]string{
		`{"Action":"run","Package":"p","Test":"TestExpectations/seen"}`,
		`{"Action":"output","Package":"p","Test":"TestExpectations/seen","Output":"fatal error: sync: unlock of unlocked mutex\n"}`,
		`{"Action":"output","Package":"p","Test":"TestExpectations/seen","Output":"internal/sync.fatal({0x58f355?, 0x52eae0?})\n"}`,
		`{"Action":"fail","Package":"p","Test":"TestExpectations/seen"}`,
	}, "\n")
	r := ParseJSON([]byte(events), t.TempDir(), "p", nil, false)
	if len(r.Failures) != 1 || r.Failures[0].Panic != "sync: unlock of unlocked mutex" {
		t.Errorf("failures: %+v", r.Failures)
	}
}

// In a package with a Ginkgo suite, the Go test that runs the suite is left
// to the suite's report, but a plain Go test beside it is counted, and its
// failure read, as in any package.
func TestAPlainGoTestBesideAGinkgoSuiteCounts(t *testing.T) {
	events := strings.Join([]string{
		`{"Action":"run","Package":"p","Test":"TestControllers"}`,
		`{"Action":"output","Package":"p","Test":"TestControllers","Output":"Running Suite: Controller Suite - /tmp/p\n"}`,
		`{"Action":"output","Package":"p","Test":"TestControllers","Output":"  [FAILED] a spec\n"}`,
		`{"Action":"fail","Package":"p","Test":"TestControllers"}`,
		`{"Action":"run","Package":"p","Test":"TestNextRunMessage"}`,
		`{"Action":"output","Package":"p","Test":"TestNextRunMessage","Output":"    status_test.go:43: nextRunMessage(...) = \"\", want \"next run at 10:05\"\n"}`,
		`{"Action":"fail","Package":"p","Test":"TestNextRunMessage"}`,
		`{"Action":"run","Package":"p","Test":"TestOther"}`,
		`{"Action":"pass","Package":"p","Test":"TestOther"}`,
		`{"Action":"fail","Package":"p"}`,
	}, "\n")
	r := ParseJSON([]byte(events), t.TempDir(), "p", nil, true)
	if r.Failed != 1 || r.Passed != 1 || len(r.Failures) != 1 || r.Failures[0].Name != "TestNextRunMessage" ||
		!strings.Contains(r.Failures[0].Message, `want "next run at 10:05"`) {
		t.Errorf("passed %d, failed %d, failures %+v: want the plain Go tests counted and the suite's runner left to its report", r.Passed, r.Failed, r.Failures)
	}
}

// A compiler message names the function the attendee writes, and the
// build's JSON lines are read as compile errors, not as tests.
func TestACompileErrorIsReadAndPlaced(t *testing.T) {
	tree := t.TempDir()
	src := "package p\n\ntype R struct{}\n\nfunc (r *R) Next() int {\n\treturn nextRun()\n}\n"
	if err := os.WriteFile(filepath.Join(tree, "code.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	events := `{"ImportPath":"p","Action":"build-output","Output":"# p\n"}` + "\n" +
		`{"ImportPath":"p","Action":"build-output","Output":"code.go:6:9: undefined: nextRun\n"}` + "\n"
	r := ParseJSON([]byte(events), tree, "p", nil, false)
	if len(r.BuildErrors) != 1 || r.BuildErrors[0] != "code.go:6:9: undefined: nextRun" {
		t.Fatalf("build errors %q", r.BuildErrors)
	}
	c := PlaceCompileError(tree, r.BuildErrors[0])
	if c != (CompileError{File: "code.go", Line: 6, Function: "R.Next", Message: "undefined: nextRun"}) {
		t.Errorf("placed as %+v", c)
	}
}

func TestANameIsShownInChineseSegmentBySegment(t *testing.T) {
	twins := map[string]string{
		"Stage 04: the reconcile loop":                 "第 04 阶段：调和循环",
		"moves lastSuccessfulTime forward, never back": "lastSuccessfulTime 只向前移动，从不后退",
		"exactly 100 missed runs is not too many":      "错过正好 100 次运行不算太多",
		"TestDue": "never: a Go test's own name is an identifier",
	}
	for _, tc := range []struct{ name, want string }{
		{"Stage 04: the reconcile loop › moves lastSuccessfulTime forward, never back", "第 04 阶段：调和循环 › lastSuccessfulTime 只向前移动，从不后退"},
		{"Stage 04: the reconcile loop › a spec without a twin", "第 04 阶段：调和循环 › a spec without a twin"},
		{"TestDue/exactly_100_missed_runs_is_not_too_many", "TestDue/错过正好 100 次运行不算太多"},
		{"TestDue", "TestDue"},
	} {
		if got := ChineseName(tc.name, twins); got != tc.want {
			t.Errorf("ChineseName(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
	f := Failure{Name: "TestDue/x", NameZh: "TestDue/某个"}
	if f.NameIn(i18n.English) != "TestDue/x" || f.NameIn(i18n.Chinese) != "TestDue/某个" {
		t.Errorf("NameIn: %q, %q", f.NameIn(i18n.English), f.NameIn(i18n.Chinese))
	}
}

// What a check counts (Results.Counts): the tests and specs that ran, and
// a suite's own node that failed; a failing subtest is its test's failure,
// counted once with the test.
func TestACheckCountsTestsAndSpecsAndASuitesFailedNodeButNoSubtest(t *testing.T) {
	r := Results{Passed: 2, Failed: 1,
		Outcomes: []Outcome{{"TestA", "passed"}, {"TestB", "failed"}, {"spec › one", "passed"}},
		Failures: []Failure{{Name: "TestB/a_row"}, {Name: "TestB"}, {Name: "AfterSuite"}, {Name: "TestGone/a_row"}}}
	if passed, counted := r.Counts(); passed != 2 || counted != 5 {
		t.Errorf("counted %d of which %d passed; want 5 (three that ran, AfterSuite, and the row of a test that left no outcome) and 2", counted, passed)
	}
	if !r.IsSubtest("TestB/a_row") || r.IsSubtest("TestGone/a_row") || r.IsSubtest("TestB") {
		t.Error("a subtest is a row of a test that has an outcome of its own")
	}
}
