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

package hints

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"cronlab.dev/cronlab/cmd/lab/internal/functions"
	"cronlab.dev/cronlab/cmd/lab/internal/gosrc"
	"cronlab.dev/cronlab/cmd/lab/internal/gotest"
	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
	"cronlab.dev/cronlab/cmd/lab/internal/progress"
	"cronlab.dev/cronlab/cmd/lab/internal/stage"
)

// Stage 05's shape: JobName in one package, the Reconciler's methods that
// use it in another; createJob reaches JobName only through buildJob.
var callFiles = map[string]string{
	"internal/runs/runs.go": `package runs
func JobName(name string, minute int64) string { return name + string(rune(minute/undefinedHere)) }
`,
	"internal/controller/jobs.go": `package controller
import "example/internal/runs"
type CronJobReconciler struct{}
func (r *CronJobReconciler) buildJob() string { return runs.JobName("report", 1) }
func (r *CronJobReconciler) createJob() string { return r.buildJob() }
func (r *CronJobReconciler) deleteJob() {}
func unrelated() { deleteJob := 1; _ = deleteJob }
`,
}

func writeFiles(t *testing.T, files map[string]string) (string, map[string]bool) {
	t.Helper()
	dir := t.TempDir()
	owned := map[string]bool{}
	for path, src := range files {
		full := filepath.Join(dir, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		owned[path] = true
	}
	return dir, owned
}

func TestWhoWaitsForAFunctionThatDoesNotCompile(t *testing.T) {
	dir, owned := writeFiles(t, callFiles)
	graph := gosrc.CallGraph(dir, owned)
	if got := graph["CronJobReconciler.createJob"]; !reflect.DeepEqual(got, []string{"CronJobReconciler.buildJob"}) {
		t.Errorf("createJob calls %v, want buildJob", got)
	}
	broken := func(fn string) bool { return fn == "JobName" }
	want := map[string][]string{
		"CronJobReconciler.buildJob":  {"JobName"}, // directly, through the package's name
		"CronJobReconciler.createJob": {"JobName"}, // through buildJob
		// deleteJob calls nothing broken; unrelated names a variable
		// deleteJob, which is no call of a broken function either.
	}
	if got := gosrc.Reached(graph, broken); !reflect.DeepEqual(got, want) {
		t.Errorf("waiting:\n got %v\nwant %v", got, want)
	}

	// An unused import, dropped for the rest of the check, is no function
	// to wait for: a caller that fails beside it has failed.
	s := stage.Stage{Slug: "secondary-resources", Num: "05", Functions: []stage.Function{{Name: "CronJobReconciler.buildJob", Specs: []string{"builds the Job"}}}}
	r := gotest.Results{
		Outcomes: []gotest.Outcome{{Name: "builds the Job", Status: "failed"}},
		Failures: []gotest.Failure{{Name: "builds the Job"}},
		Stubbed:  []gotest.CompileError{{File: "internal/controller/jobs.go", Line: 3, Function: gotest.UnusedImportName}},
		Calls:    graph,
	}
	if got := functions.Verdicts(s, ".", []gotest.Results{r}); got[0].Status != "failed" {
		t.Errorf("an unused import is no function to wait for: %+v", got[0])
	}
}

// A function whose specs failed while a function it calls ran as a stub is
// reported as waiting, not failed; one whose specs pass all the same has
// passed; and the check's hint is the function that does not compile.
func TestAFunctionThatCallsAStubWaitsForIt(t *testing.T) {
	l := i18n.English
	s := stage.Stage{Slug: "secondary-resources", Num: "05", Functions: []stage.Function{
		{Name: "JobName", Specs: []string{"TestJobName"}},
		{Name: "CronJobReconciler.buildJob", Specs: []string{"builds the Job"}},
		{Name: "CronJobReconciler.createJob", Specs: []string{"creates the Job"}},
		{Name: "CronJobReconciler.deleteJob", Specs: []string{"deletes"}},
	}, Hints: []stage.Hint{{ID: "05-adopt", When: "AlreadyExists", En: "adopt it"}, {ID: "05-1", En: "a nudge"}}}
	r := gotest.Results{
		Outcomes: []gotest.Outcome{{Name: "TestJobName", Status: "failed"}, {Name: "builds the Job", Status: "failed"}, {Name: "creates the Job", Status: "passed"}, {Name: "deletes", Status: "passed"}},
		Failures: []gotest.Failure{{Name: "TestJobName"}, {Name: "builds the Job", Message: "Job.batch \"\" is invalid; AlreadyExists"}},
		Stubbed:  []gotest.CompileError{{File: "internal/runs/runs.go", Line: 78, Function: "JobName", Message: "undefined: minute"}},
		Calls: map[string][]string{
			"CronJobReconciler.buildJob":  {"JobName"},
			"CronJobReconciler.createJob": {"CronJobReconciler.buildJob"},
		},
	}
	got := map[string]string{}
	for _, fr := range functions.Verdicts(s, ".", []gotest.Results{r}) {
		got[fr.Name] = fr.Status
	}
	want := map[string]string{"JobName": "does not compile", "CronJobReconciler.buildJob": "waiting",
		"CronJobReconciler.createJob": "passed", "CronJobReconciler.deleteJob": "passed"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("statuses:\n got %v\nwant %v", got, want)
	}
	if h := ForCheck(l, s, []gotest.Results{r}); !strings.HasPrefix(h.Text(l), "JobName does not compile (internal/runs/runs.go:78)") {
		t.Errorf("the hint sends the attendee elsewhere: %q", h.Text(l))
	}
}

// Stage 04's shape: Reconcile calls observeJobs, which calls JobFinished. A
// JobFinished that calls a running Job finished fails its own test, and
// makes the specs of the two correct callers fail too: they wait for it,
// and the hint is JobFinished's, not Reconcile's.
func TestAFunctionThatCallsAFailingOneWaitsForIt(t *testing.T) {
	l := i18n.English
	s := stage.Stage{Slug: "reconcile-loop", Num: "04", Functions: []stage.Function{
		{Name: "JobFinished", Specs: []string{"TestJobFinished"}},
		{Name: "CronJobReconciler.observeJobs", Specs: []string{"moves finished Jobs out of active"}},
		{Name: "CronJobReconciler.Reconcile", Specs: []string{"writes what it observed"}},
		{Name: "IndexJobsByOwner", Specs: []string{"through the field index"}},
	}, Hints: []stage.Hint{
		{ID: "04.1", When: "writes the status", En: "return the first error only after the status is written"},
		{ID: "04.2", En: "a nudge"},
	}}
	r := gotest.Results{
		Outcomes: []gotest.Outcome{{Name: "TestJobFinished", Status: "failed"}, {Name: "moves finished Jobs out of active", Status: "failed"},
			{Name: "writes what it observed", Status: "failed"}, {Name: "through the field index", Status: "passed"}},
		Failures: []gotest.Failure{{Name: "TestJobFinished", Message: "running Job: got finished"},
			{Name: "moves finished Jobs out of active"}, {Name: "writes what it observed", Message: "step 6 writes the status"}},
		Calls: map[string][]string{
			"CronJobReconciler.Reconcile":   {"CronJobReconciler.observeJobs"},
			"CronJobReconciler.observeJobs": {"JobFinished"},
		},
	}
	got := map[string]string{}
	for _, fr := range functions.Verdicts(s, ".", []gotest.Results{r}) {
		got[fr.Name] = fr.Status
		if fr.Status == "waiting" && !reflect.DeepEqual(fr.WaitingFor, []string{"JobFinished"}) {
			t.Errorf("%s waits for %v, want JobFinished (the root, not observeJobs)", fr.Name, fr.WaitingFor)
		}
	}
	want := map[string]string{"JobFinished": "failed", "CronJobReconciler.observeJobs": "waiting",
		"CronJobReconciler.Reconcile": "waiting", "IndexJobsByOwner": "passed"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("statuses:\n got %v\nwant %v", got, want)
	}
	h := ForCheck(l, s, []gotest.Results{r})
	if h.Text(l) != "JobFinished fails its own specs: fix it first. CronJobReconciler.observeJobs and CronJobReconciler.Reconcile call it, so those failures may be its." {
		t.Errorf("the hint sends the attendee to a caller: %q", h.Text(l))
	}
	// bin/lab hint goes on from the check, on the same grounds: Reconcile's
	// tied hint is not the next one while JobFinished fails.
	if tied := Tied(s, []gotest.Results{r}); len(tied) != 0 {
		t.Errorf("hints tied while JobFinished fails: %v, want none (they are its callers')", tied)
	}
	if next, _ := NextHint(s, progress.StageResult{Failing: Tied(s, []gotest.Results{r})}); next.ID != "04.2" {
		t.Errorf("bin/lab hint after that check: %s, want the general 04.2", next.ID)
	}

	// JobFinished right: Reconcile's own failure is its own, and its hint.
	r.Outcomes[0], r.Outcomes[1] = gotest.Outcome{Name: "TestJobFinished", Status: "passed"}, gotest.Outcome{Name: "moves finished Jobs out of active", Status: "passed"}
	r.Failures = r.Failures[2:]
	for _, fr := range functions.Verdicts(s, ".", []gotest.Results{r}) {
		if fr.Name == "CronJobReconciler.Reconcile" && fr.Status != "failed" {
			t.Errorf("Reconcile alone failing: %s", fr.Status)
		}
	}
	if h := ForCheck(l, s, []gotest.Results{r}); h.ID != "04.1" {
		t.Errorf("hint %q, want Reconcile's own (04.1)", h.ID)
	}
	if tied := Tied(s, []gotest.Results{r}); !reflect.DeepEqual(tied, []string{"04.1"}) {
		t.Errorf("hints tied with Reconcile failing alone: %v, want [04.1]", tied)
	}
}

// Stage 05 with pruneHistory unwritten: deleteJob's failing spec goes
// through it, and the hint says so, the right way round (pruneHistory
// calls deleteJob, not the other way).
func TestTheHintOfAFunctionCheckedThroughAnotherNamesTheOther(t *testing.T) {
	l := i18n.English
	s := stage.Stage{Slug: "secondary-resources", Num: "05", Functions: []stage.Function{
		{Name: "deleteJob", Specs: []string{"deletes a running Job", "deletes the oldest finished Jobs"}},
		{Name: "pruneHistory", Specs: []string{"deletes the oldest finished Jobs", "keeps every Job within its limit"}},
	}, Hints: []stage.Hint{{ID: "05.1", En: "a nudge"}}}
	r := gotest.Results{
		Outcomes: []gotest.Outcome{{Name: "deletes a running Job", Status: "passed"},
			{Name: "deletes the oldest finished Jobs", Status: "failed"}, {Name: "keeps every Job within its limit", Status: "failed"}},
		Failures: []gotest.Failure{{Name: "deletes the oldest finished Jobs"}, {Name: "keeps every Job within its limit"}},
	}
	h := ForCheck(l, s, []gotest.Results{r})
	if want := "pruneHistory fails its own specs: fix it first. The specs of deleteJob that fail go through it"; !strings.HasPrefix(h.Text(l), want) {
		t.Errorf("hint %q, want it to begin %q", h.Text(l), want)
	}
}

// Stage 06 with startDueRun not compiling: nextRunMessage's failing spec
// goes through startDueRun, which calls it. The hint names startDueRun and
// says that the spec goes through it, in both languages; it does not say
// that nextRunMessage calls it.
func TestTheHintOfAStubSaysWhichWayTheSpecsReachIt(t *testing.T) {
	s := stage.Stage{Slug: "scheduling", Num: "06", Functions: []stage.Function{
		{Name: "CronJobReconciler.startDueRun", Specs: []string{"creates the Job of a due run", "says in Ready when the next run is"}},
		{Name: "nextRunMessage", Specs: []string{"spells the next run", "says in Ready when the next run is"}},
	}, Hints: []stage.Hint{{ID: "scheduling.1", En: "a nudge", Zh: "一个提示"}}}
	r := gotest.Results{Ginkgo: true,
		Calls:   map[string][]string{"CronJobReconciler.startDueRun": {"nextRunMessage"}},
		Stubbed: []gotest.CompileError{{File: "internal/controller/status.go", Line: 180, Function: "CronJobReconciler.startDueRun", Message: "undefined: due"}},
		Outcomes: []gotest.Outcome{{Name: "creates the Job of a due run", Status: "failed"},
			{Name: "spells the next run", Status: "passed"}, {Name: "says in Ready when the next run is", Status: "failed"}},
		Failures: []gotest.Failure{{Name: "creates the Job of a due run"}, {Name: "says in Ready when the next run is"}},
	}
	want := map[i18n.Lang]string{
		i18n.English: "CronJobReconciler.startDueRun does not compile (internal/controller/status.go:180). Fix that first: the failing specs of nextRunMessage go through it",
		i18n.Chinese: "CronJobReconciler.startDueRun 无法编译（internal/controller/status.go:180）。先修好它：nextRunMessage 没有通过的测试用例要经过它",
	}
	for l, w := range want {
		if h := ForCheck(l, s, []gotest.Results{r}); !strings.HasPrefix(h.Text(l), w) {
			t.Errorf("hint %q, want it to begin %q", h.Text(l), w)
		}
	}
}

// Stage 06 with startDueRun unwritten: the hints tied to failures that ran
// into its stub (they carry its TODO) would explain code that does not
// exist yet; the check names the stub, and bin/lab hint goes on with the
// general levels.
func TestAStubGetsNoHintForAFunctionNotWrittenYet(t *testing.T) {
	l := i18n.English
	s := stage.Stage{Slug: "scheduling", Num: "06", Functions: []stage.Function{
		{Name: "Due", Specs: []string{"counts the first run"}},
		{Name: "CronJobReconciler.startDueRun", Specs: []string{"Forbid skips the run"}},
	}, Hints: []stage.Hint{
		{ID: "06.1", En: "a nudge"},
		{ID: "06.2", When: "Forbid skips", En: "return without creating a Job"},
	}}
	todo := "TODO(lab scheduling): write this (在此编写); see exercises/06-scheduling/README.md"
	r := gotest.Results{Todo: []string{"CronJobReconciler.startDueRun"},
		Outcomes: []gotest.Outcome{{Name: "counts the first run", Status: "failed"}, {Name: "Forbid skips the run", Status: "failed"}},
		Failures: []gotest.Failure{{Name: "counts the first run", Message: todo}, {Name: "Forbid skips the run", Message: todo}}}
	h := ForCheck(l, s, []gotest.Results{r})
	if want := "CronJobReconciler.startDueRun: not written yet, still the starter's stub. Write it first: the failing specs of Due ran into it, so their failures say nothing of them yet."; h.Text(l) != want {
		t.Errorf("the check's hint:\n got %q\nwant %q", h.Text(l), want)
	}
	if tied := Tied(s, []gotest.Results{r}); len(tied) != 0 {
		t.Errorf("hints tied to failures of a stub: %v, want none", tied)
	}
}

// Two functions that fail their own specs, and a caller of both that waits
// for them: the hint speaks of them in the plural, in both languages (stage
// 14 said "先修好它" of Expectations.Expect and Expectations.Satisfied).
func TestTheHintOfTwoFailingFunctionsSpeaksOfThemInThePlural(t *testing.T) {
	s := stage.Stage{Slug: "reconcile-loop", Num: "04", Functions: []stage.Function{
		{Name: "JobFinished", Specs: []string{"TestJobFinished"}},
		{Name: "ControllerOf", Specs: []string{"TestControllerOf"}},
		{Name: "CronJobReconciler.observeJobs", Specs: []string{"moves finished Jobs out of active"}},
	}, Hints: []stage.Hint{{ID: "04.1", En: "a nudge", Zh: "一个提示"}}}
	r := gotest.Results{
		Outcomes: []gotest.Outcome{{Name: "TestJobFinished", Status: "failed"}, {Name: "TestControllerOf", Status: "failed"},
			{Name: "moves finished Jobs out of active", Status: "failed"}},
		Failures: []gotest.Failure{{Name: "TestJobFinished"}, {Name: "TestControllerOf"}, {Name: "moves finished Jobs out of active"}},
		Calls:    map[string][]string{"CronJobReconciler.observeJobs": {"JobFinished", "ControllerOf"}},
	}
	for l, want := range map[i18n.Lang]string{
		i18n.English: "ControllerOf and JobFinished fail their own specs: fix them first. CronJobReconciler.observeJobs calls them, so those failures may be theirs.",
		i18n.Chinese: "ControllerOf 和 JobFinished 自己的测试用例没有通过：先修好它们。CronJobReconciler.observeJobs 调用了它们，所以那些失败可能源自它们。",
	} {
		if got := ForCheck(l, s, []gotest.Results{r}).Text(l); got != want {
			t.Errorf("%v:\n got %q\nwant %q", l, got, want)
		}
	}
}
