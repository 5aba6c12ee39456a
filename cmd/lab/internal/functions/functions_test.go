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

import (
	"io"
	"os"
	"reflect"
	"strings"
	"testing"

	"cronlab.dev/cronlab/cmd/lab/internal/gotest"
	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
	"cronlab.dev/cronlab/cmd/lab/internal/stage"
)

func TestAResultPerFunction(t *testing.T) {
	s := stage.Stage{Functions: []stage.Function{
		{Name: "JobFinished", Specs: []string{"TestJobFinished", "tells finished Jobs"}},
		{Name: "CronJobReconciler.observeJobs", Specs: []string{"moves finished Jobs out of active"}},
		{Name: "CronJobReconciler.Reconcile", Specs: []string{"writes what it observed"}},
		{Name: "IndexJobsByOwner", Specs: []string{"BeforeSuite", "through the field index"}},
		{Name: "pruneHistory", Specs: []string{"deletes the oldest"}},
	}}
	status := func(rs ...gotest.Results) map[string]string {
		got := map[string]string{}
		for _, fr := range Verdicts(s, ".", rs) {
			got[fr.Name] = fr.Status
		}
		return got
	}

	ran := gotest.Results{Ginkgo: true, Failures: []gotest.Failure{{Name: "Stage 04 › moves finished Jobs out of active and keeps the newest"}, {Name: "TestJobFinished/a_subtest"}}, Outcomes: []gotest.Outcome{
		{Name: "TestJobFinished", Status: "passed"},
		{Name: "Stage 04 › tells finished Jobs from running ones", Status: "passed"},
		{Name: "Stage 04 › moves finished Jobs out of active and keeps the newest", Status: "failed"},
		{Name: "Stage 04 › writes what it observed to the status", Status: "passed"},
		{Name: "Stage 04 › lists the Jobs through the field index", Status: "passed"},
	}}
	want := map[string]string{"JobFinished": "passed", "CronJobReconciler.observeJobs": "failed",
		"CronJobReconciler.Reconcile": "passed", "IndexJobsByOwner": "passed", "pruneHistory": "not run"}
	if got := status(ran); !reflect.DeepEqual(got, want) {
		t.Errorf("specs ran:\n got %v\nwant %v", got, want)
	}
	if frs := Verdicts(s, ".", []gotest.Results{ran}); frs[0].Passed != 2 || frs[0].Ran != 2 || len(frs[1].Failing) != 1 {
		t.Errorf("counts: %+v", frs[:2])
	}
	// The suite's specs ran, so its setup passed: a spec of IndexJobsByOwner.
	if fr := Verdicts(s, ".", []gotest.Results{ran})[3]; fr.Ran != 2 || fr.Passed != 2 {
		t.Errorf("a setup that passed counts for the function it checks: %+v", fr)
	}

	// The suite's setup fails on a stub: the function it names failed, the
	// others are not checked, even one whose unit test of another package passed.
	setup := gotest.Results{Failures: []gotest.Failure{{Name: "BeforeSuite", Message: "TODO(lab 04)"}}}
	unit := gotest.Results{Outcomes: []gotest.Outcome{{Name: "TestJobFinished", Status: "passed"}}}
	want = map[string]string{"JobFinished": "not run", "CronJobReconciler.observeJobs": "not run",
		"CronJobReconciler.Reconcile": "not run", "IndexJobsByOwner": "failed", "pruneHistory": "not run"}
	if got := status(setup, unit); !reflect.DeepEqual(got, want) {
		t.Errorf("setup failed:\n got %v\nwant %v", got, want)
	}

	// A teardown that fails after the specs ran (AfterSuite) leaves the
	// functions' results as they were.
	teardown := ran
	teardown.Failures = append(append([]gotest.Failure{}, ran.Failures...), gotest.Failure{Name: "AfterSuite", Message: "etcd did not stop"})
	if got := status(teardown); got["CronJobReconciler.Reconcile"] != "passed" || got["JobFinished"] != "passed" {
		t.Errorf("an AfterSuite failure: %v", got)
	}

	// A function that does not compile was stubbed for the rest: it says so,
	// whatever its stubbed specs did.
	stubbed := ran
	stubbed.Stubbed = []gotest.CompileError{{File: "internal/controller/status.go", Line: 60, Function: "CronJobReconciler.observeJobs", Message: "undefined: x"}}
	frs := Verdicts(s, ".", []gotest.Results{stubbed})
	if frs[1].Status != "does not compile" || frs[1].CompileError != "internal/controller/status.go:60: undefined: x" {
		t.Errorf("stubbed: %+v", frs[1])
	}
	if frs[2].Status != "passed" {
		t.Errorf("a function beside the one that does not compile: %+v", frs[2])
	}
}

func TestAGoTestNamesItsSpacesAsUnderscores(t *testing.T) {
	f := stage.Function{Specs: []string{"complete job"}}
	if !f.Checks("TestJobFinished/complete_job") || f.Checks("TestJobFinished/failed") {
		t.Error("a part with spaces must match a Go subtest's underscores, and only that")
	}
}

// Stage 05: deleteJob is correct, pruneHistory still its stub. One spec of
// deleteJob goes through pruneHistory, which calls it: deleteJob waits for
// pruneHistory instead of failing, and pruneHistory, whose own specs fail,
// is the one that failed.
func TestAFunctionCheckedThroughAnUnwrittenOneWaitsForIt(t *testing.T) {
	s := stage.Stage{Functions: []stage.Function{
		{Name: "deleteJob", Specs: []string{"deletes a running Job", "deletes the oldest finished Jobs"}},
		{Name: "pruneHistory", Specs: []string{"deletes the oldest finished Jobs", "keeps every Job within its limit"}},
	}}
	r := gotest.Results{Ginkgo: true, Outcomes: []gotest.Outcome{
		{Name: "Stage 05 › deletes a running Job, forgets it", Status: "passed"},
		{Name: "Stage 05 › deletes the oldest finished Jobs beyond the limits", Status: "failed"},
		{Name: "Stage 05 › keeps every Job within its limit", Status: "failed"},
	}}
	frs := Verdicts(s, ".", []gotest.Results{r})
	if frs[0].Status != "waiting" || !reflect.DeepEqual(frs[0].WaitingFor, []string{"pruneHistory"}) || frs[0].Through != "specs" {
		t.Errorf("deleteJob: %+v, want waiting for pruneHistory through its specs", frs[0])
	}
	if frs[1].Status != "failed" {
		t.Errorf("pruneHistory: %+v, want failed", frs[1])
	}

	// Once pruneHistory passes its own spec, a failure of the shared one is
	// deleteJob's as much as pruneHistory's: both fail.
	r.Outcomes[2].Status = "passed"
	frs = Verdicts(s, ".", []gotest.Results{r})
	if frs[0].Status != "failed" || frs[1].Status != "failed" {
		t.Errorf("only the shared spec fails: %s and %s, want both failed", frs[0].Status, frs[1].Status)
	}
}

// Stage 15: get is a helper that every lag spec checks, and cLag calls it.
// Only cLag is wrong: its spec fails, which is a spec of get too. cLag is
// the one that failed (get fails nothing of its own, so it is not blamed),
// and get waits for cLag, the narrower of the two.
func TestAHelperEverySpecChecksIsNotBlamed(t *testing.T) {
	s := stage.Stage{Functions: []stage.Function{
		{Name: "get", Specs: []string{"c-lag:", "u-lag:", "d-lag:"}},
		{Name: "cLag", Specs: []string{"c-lag:", "AlreadyExists is an error"}},
	}}
	r := gotest.Results{Ginkgo: true, Calls: map[string][]string{"cLag": {"get"}}, Outcomes: []gotest.Outcome{
		{Name: "Stale › c-lag: adopts the Job", Status: "failed"},
		{Name: "Stale › u-lag: writes status", Status: "passed"},
		{Name: "Stale › d-lag: takes NotFound", Status: "passed"},
		{Name: "Mutants › AlreadyExists is an error (c-lag)", Status: "passed"},
	}}
	frs := Verdicts(s, ".", []gotest.Results{r})
	if frs[1].Status != "failed" {
		t.Errorf("cLag: %+v, want failed: its own spec fails", frs[1])
	}
	if frs[0].Status != "waiting" || !reflect.DeepEqual(frs[0].WaitingFor, []string{"cLag"}) {
		t.Errorf("get: %+v, want waiting for cLag", frs[0])
	}
}

// printed is what f writes to standard output.
func printed(t *testing.T, f func()) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout := os.Stdout
	os.Stdout = w
	done := make(chan string)
	go func() {
		b, _ := io.ReadAll(r)
		done <- string(b)
	}()
	f()
	os.Stdout = stdout
	w.Close()
	return <-done
}

// What the screen says of each function adds up, in both languages: the
// marks, a function waiting for another by name, and a total that says
// what it counts; a region without a function is a part, named as one.
func TestTheFunctionsScreenSaysWhatItCounts(t *testing.T) {
	s := stage.Stage{Functions: []stage.Function{
		{Name: "deleteJob", Specs: []string{"deletes a running Job", "deletes the oldest finished Jobs"}},
		{Name: "pruneHistory", Specs: []string{"deletes the oldest finished Jobs", "keeps every Job within its limit"}},
	}}
	r := gotest.Results{Ginkgo: true, Outcomes: []gotest.Outcome{
		{Name: "deletes a running Job", Status: "passed"},
		{Name: "deletes the oldest finished Jobs", Status: "failed"},
		{Name: "keeps every Job within its limit", Status: "failed"},
	}}
	zh := printed(t, func() { ShowFunctions(i18n.Chinese, s, []gotest.Results{r}) })
	for _, want := range []string{"你的函数：", "等待  deleteJob", "经由 pruneHistory 检查它", "失败  pruneHistory",
		"0 / 2 个函数通过（检查多个函数的测试用例在每个函数下各计一次）"} {
		if !strings.Contains(zh, want) {
			t.Errorf("the Chinese screen lacks %q:\n%s", want, zh)
		}
	}
	en := printed(t, func() { ShowFunctions(i18n.English, s, []gotest.Results{r}) })
	if !strings.Contains(en, "wait  deleteJob") || !strings.Contains(en, "0 of 2 functions pass (a spec that checks several functions counts under each)") {
		t.Errorf("the English screen:\n%s", en)
	}

	regions := stage.Stage{Regions: []string{"api-spec", "api-status"}, Functions: []stage.Function{
		{Name: "api-spec", Specs: []string{"TestEnumsAndDefaults"}}, {Name: "api-status", Specs: []string{"TestStatus"}},
	}}
	r = gotest.Results{Outcomes: []gotest.Outcome{{Name: "TestEnumsAndDefaults", Status: "failed"}, {Name: "TestStatus", Status: "passed"}}}
	zh = printed(t, func() { ShowFunctions(i18n.Chinese, regions, []gotest.Results{r}) })
	for _, want := range []string{"你要写的部分：", "失败  区域 api-spec", "通过  区域 api-status", "1 / 2 个部分通过"} {
		if !strings.Contains(zh, want) {
			t.Errorf("the screen of a stage of regions lacks %q:\n%s", want, zh)
		}
	}
}

// Stage 06's shape: startDueRun calls nextRunMessage, and startDueRun does
// not compile. A spec of both goes through startDueRun's stub and fails, so
// nextRunMessage waits for it: through its specs, not by calling it (a
// check once said "it calls startDueRun", the other way round). Turned
// about, a caller whose callee does not compile waits because it calls it.
func TestAWaitSaysWhichWayTheCallGoes(t *testing.T) {
	s := stage.Stage{Functions: []stage.Function{
		{Name: "CronJobReconciler.startDueRun", Specs: []string{"creates the Job of a due run", "says in Ready when the next run is"}},
		{Name: "nextRunMessage", Specs: []string{"spells the next run", "says in Ready when the next run is"}},
	}}
	r := gotest.Results{Ginkgo: true,
		Calls:   map[string][]string{"CronJobReconciler.startDueRun": {"nextRunMessage"}},
		Stubbed: []gotest.CompileError{{File: "internal/controller/status.go", Line: 180, Function: "CronJobReconciler.startDueRun", Message: "undefined: due"}},
		Outcomes: []gotest.Outcome{
			{Name: "creates the Job of a due run", Status: "failed"},
			{Name: "spells the next run", Status: "passed"},
			{Name: "says in Ready when the next run is", Status: "failed"},
		}}
	en := printed(t, func() { ShowFunctions(i18n.English, s, []gotest.Results{r}) })
	if want := "1 of 2 specs pass; the others check it through CronJobReconciler.startDueRun, which does not compile and ran as a stub: fix that first"; !strings.Contains(en, "wait  nextRunMessage") || !strings.Contains(en, want) {
		t.Errorf("the English screen lacks %q:\n%s", want, en)
	}
	zh := printed(t, func() { ShowFunctions(i18n.Chinese, s, []gotest.Results{r}) })
	if want := "1 / 2 个测试用例通过；其余的经由 CronJobReconciler.startDueRun 检查它，而那里无法编译，检查时运行的是桩：先修好那里"; !strings.Contains(zh, want) {
		t.Errorf("the Chinese screen lacks %q:\n%s", want, zh)
	}
	for _, screen := range []string{en, zh} {
		if strings.Contains(screen, "it calls CronJobReconciler.startDueRun") || strings.Contains(screen, "它调用的 CronJobReconciler.startDueRun") {
			t.Errorf("the screen says nextRunMessage calls startDueRun, which it does not:\n%s", screen)
		}
	}

	// The other way round: nextRunMessage does not compile, and
	// startDueRun, which calls it, fails a spec of its own.
	r.Stubbed[0].Function = "nextRunMessage"
	r.Outcomes[1].Status = "failed"
	en = printed(t, func() { ShowFunctions(i18n.English, s, []gotest.Results{r}) })
	if want := "but it calls nextRunMessage, which does not compile and ran as a stub"; !strings.Contains(en, want) {
		t.Errorf("the English screen lacks %q:\n%s", want, en)
	}
	zh = printed(t, func() { ShowFunctions(i18n.Chinese, s, []gotest.Results{r}) })
	if want := "但它调用的 nextRunMessage 无法编译，检查时运行的是桩"; !strings.Contains(zh, want) {
		t.Errorf("the Chinese screen lacks %q:\n%s", want, zh)
	}
}

// Stage 06 with startDueRun still the starter's stub and the rest written:
// the specs of Due, runStarted and nextRunMessage drive them through
// startDueRun, whose stub returns its TODO first, so they wait for it; only
// startDueRun fails, and says it is not written yet. In the starter, where
// every function is a stub, each one fails as unwritten and none waits.
func TestFunctionsWaitForAStubTheirSpecsRunInto(t *testing.T) {
	s := stage.Stage{Slug: "scheduling", Num: "06", Functions: []stage.Function{
		{Name: "Due", Specs: []string{"counts the first run", "skips a late run"}},
		{Name: "CronJobReconciler.startDueRun", Specs: []string{"creates the Job of a due run", "says in Ready when the next run is"}},
		{Name: "nextRunMessage", Specs: []string{"spells the next run", "says in Ready when the next run is"}},
	}}
	todo := "unexpected error: TODO(lab scheduling): write this (在此编写); see exercises/06-scheduling/README.md"
	r := gotest.Results{Ginkgo: true,
		Todo: []string{"CronJobReconciler.startDueRun"},
		Outcomes: []gotest.Outcome{
			{Name: "counts the first run", Status: "failed"}, {Name: "skips a late run", Status: "failed"},
			{Name: "creates the Job of a due run", Status: "failed"}, {Name: "spells the next run", Status: "passed"},
			{Name: "says in Ready when the next run is", Status: "failed"},
		},
		Failures: []gotest.Failure{
			{Name: "counts the first run", Message: todo}, {Name: "skips a late run", Message: todo},
			{Name: "creates the Job of a due run", Message: todo}, {Name: "says in Ready when the next run is", Message: "Ready says nothing"},
		}}
	got := map[string]Result{}
	for _, fr := range Verdicts(s, ".", []gotest.Results{r}) {
		got[fr.Name] = fr
	}
	if fr := got["Due"]; fr.Status != "waiting" || fr.Through != "stub" || !reflect.DeepEqual(fr.WaitingFor, []string{"CronJobReconciler.startDueRun"}) {
		t.Errorf("Due, whose specs return startDueRun's TODO: %+v, want waiting for startDueRun's stub", fr)
	}
	if fr := got["nextRunMessage"]; fr.Status != "waiting" || fr.Through != "stub" {
		t.Errorf("nextRunMessage, whose failing spec startDueRun's stub checks too: %+v, want waiting for it", fr)
	}
	if fr := got["CronJobReconciler.startDueRun"]; fr.Status != "failed" || !fr.Stub {
		t.Errorf("startDueRun, the stub: %+v, want failed and a stub", fr)
	}
	en := printed(t, func() { ShowFunctions(i18n.English, s, []gotest.Results{r}) })
	for _, want := range []string{
		"wait  Due                            0 of 2 specs pass; they ran into the stub of CronJobReconciler.startDueRun, not written yet: write that first",
		"FAIL  CronJobReconciler.startDueRun  still the starter's stub (its TODO line is there): write it, then delete that line; 0 of 2 specs pass",
	} {
		if !strings.Contains(en, want) {
			t.Errorf("the English screen lacks %q:\n%s", want, en)
		}
	}
	zh := printed(t, func() { ShowFunctions(i18n.Chinese, s, []gotest.Results{r}) })
	if want := "其余的碰到了 CronJobReconciler.startDueRun 的桩，那里还没有编写：先写那里"; !strings.Contains(zh, want) {
		t.Errorf("the Chinese screen lacks %q:\n%s", want, zh)
	}

	r.Todo = []string{"Due", "CronJobReconciler.startDueRun", "nextRunMessage"}
	r.Outcomes[3].Status = "failed"
	for _, fr := range Verdicts(s, ".", []gotest.Results{r}) {
		if fr.Status != "failed" || !fr.Stub {
			t.Errorf("in the starter, %s: %+v, want failed as a stub, waiting for none", fr.Name, fr)
		}
	}
}

// Stage 06's Schedule.Due, dueEvery and dueTable share TestDue, and each
// fails a spec of its own: none explains the others, so each fails,
// whatever the table's order (a check once marked two of them waiting for
// each other, and the third failed, by the order of stage.yaml).
func TestFunctionsThatShareAFailingSpecDoNotWaitForEachOther(t *testing.T) {
	fns := []stage.Function{
		{Name: "Schedule.Due", Specs: []string{"TestDue", "skips a late run"}},
		{Name: "Schedule.dueEvery", Specs: []string{"TestDue", "gives sub-minute runs names"}},
		{Name: "Schedule.dueTable", Specs: []string{"TestDue", "starts only the most recent"}},
	}
	r := gotest.Results{Outcomes: []gotest.Outcome{
		{Name: "TestDue", Status: "failed"}, {Name: "skips a late run", Status: "failed"},
		{Name: "gives sub-minute runs names", Status: "failed"}, {Name: "starts only the most recent", Status: "failed"},
	}}
	for _, order := range [][]int{{0, 1, 2}, {2, 1, 0}, {1, 2, 0}} {
		s := stage.Stage{Slug: "scheduling", Num: "06"}
		for _, i := range order {
			s.Functions = append(s.Functions, fns[i])
		}
		for _, fr := range Verdicts(s, ".", []gotest.Results{r}) {
			if fr.Status != "failed" {
				t.Errorf("order %v: %s is %s (waiting for %v), want failed", order, fr.Name, fr.Status, fr.WaitingFor)
			}
		}
	}
}
