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

package perturb

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"cronlab.dev/cronlab/cmd/lab/internal/gotest"
	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
	"cronlab.dev/cronlab/cmd/lab/internal/labtest"
	"cronlab.dev/cronlab/cmd/lab/internal/traceview"
	"cronlab.dev/cronlab/internal/trace"
)

// The kinds lab perturb offers are the ones test/perturb plays: each has
// the reference's end state there, and nothing else has one.
func TestEveryKindHasTheReferencesEndState(t *testing.T) {
	goldens, err := filepath.Glob(filepath.Join("..", "..", "..", "..", "test", "perturb", "testdata", "*.golden"))
	if err != nil {
		t.Fatal(err)
	}
	var played []string
	for _, g := range goldens {
		played = append(played, strings.TrimSuffix(filepath.Base(g), ".golden"))
	}
	slices.Sort(played)
	offered := slices.Sorted(slices.Values(kinds))
	if !slices.Equal(played, offered) {
		t.Errorf("lab perturb offers %v; test/perturb has the reference's end state of %v", offered, played)
	}
}

func TestAnUnknownKindIsRefusedWithTheList(t *testing.T) {
	err := CmdPerturb(i18n.English, ".", []string{"sideways"})
	if err == nil || !strings.Contains(err.Error(), `no perturbation "sideways"`) {
		t.Errorf("got %v", err)
	}
	if err := CmdPerturb(i18n.Chinese, ".", nil); err == nil || !strings.Contains(i18n.Message(i18n.Chinese, err), "请指定一种扰动") {
		t.Errorf("without a kind: got %v", err)
	}
}

// Only a run that played the scenario to its end and ended elsewhere is
// the attendee's difference; a run that stopped on the way compared
// nothing (issue 57: a stub of stage 13 broke every run on lab/06, and the
// tool said the attendee's end state was wrong).
func TestOnlyARunThatPlayedToItsEndCanDiffer(t *testing.T) {
	failed := errors.New("1 failing")
	for _, c := range []struct {
		name          string
		r             gotest.Results
		runErr        error
		reached, same bool
		want          outcome
	}{
		{"the reference's end", gotest.Results{Passed: 1}, nil, true, true, matched},
		{"another end", gotest.Results{Failed: 1}, failed, true, false, differed},
		{"stopped on the way (an error, a panic, a Fatal)", gotest.Results{Failed: 1}, failed, false, false, broke},
		{"skipped before its end", gotest.Results{Passed: 1}, nil, false, false, broke},
		{"the reference's end, then a failure", gotest.Results{Failed: 1}, failed, true, true, broke},
		{"does not compile", gotest.Results{BuildErrors: []string{"x.go:1: syntax error"}}, failed, false, false, broke},
		{"a function stubbed so that the rest could run", gotest.Results{Stubbed: []gotest.CompileError{{Function: "Reconcile"}}, Passed: 1},
			failed, true, false, broke},
	} {
		if got := classify(c.r, c.runErr, c.reached, c.same); got != c.want {
			t.Errorf("%s: classified %d, want %d", c.name, got, c.want)
		}
	}
}

// What a broken run says, in both languages: what failed and how to go
// on, never that the end state is not the reference's.
func TestABrokenRunSaysWhatFailedNotThatItDiffers(t *testing.T) {
	failed := errors.New("1 failing")
	for name, p := range map[string]*play{
		"stopped":        {kind: "none", runErr: failed, results: gotest.Results{Failed: 1}},
		"does not build": {kind: "stale", runErr: failed, results: gotest.Results{BuildErrors: []string{"x.go:1: syntax error"}}},
		"skipped":        {kind: "intermediate-5", results: gotest.Results{Passed: 1, Output: "    perturb_test.go:120: the scenario made 4 writes\n--- SKIP"}},
		"failed after":   {kind: "none", runErr: failed, reached: true, results: gotest.Results{Failed: 1}},
	} {
		err := p.whyNothingWasCompared()
		en, zh := i18n.Message(i18n.English, err), i18n.Message(i18n.Chinese, err)
		if strings.Contains(en, "is not the reference's") || strings.Contains(zh, "不同") {
			t.Errorf("%s: a broken run is called a difference: %q / %q", name, en, zh)
		}
		if !strings.Contains(en, "under "+p.kind) || !strings.Contains(zh, p.kind) {
			t.Errorf("%s: the message does not name the perturbation: %q / %q", name, en, zh)
		}
	}
}

// The tool tells the harness where to write the end state by a name both
// must spell alike; the tool cannot import a test package to share it.
func TestTheHarnessWritesTheEndStateWhereTheToolLooks(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "test", "perturb", "perturb_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("const endStateFile = %q", endStateFile); !strings.Contains(string(src), want) {
		t.Errorf("test/perturb/perturb_test.go does not say %s", want)
	}
}

// Every line of every reference end state reads in English as the
// harness wrote it, and in Chinese with no English word left but the API's
// names and values.
func TestAnEndStateReadsInBothLanguages(t *testing.T) {
	goldens, err := filepath.Glob(filepath.Join("..", "..", "..", "..", "test", "perturb", "testdata", "*.golden"))
	if err != nil || len(goldens) == 0 {
		t.Fatalf("no golden end state: %v", err)
	}
	lines := []string{"  the (no scheduled time) run: Failed", "  the 2030-01-07T10:00:00Z run: Complete"}
	for _, g := range goldens {
		raw, err := os.ReadFile(g)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, strings.Split(strings.TrimRight(string(raw), "\n"), "\n")...)
	}
	apiWords := map[string]bool{"Job": true, "active": true, "lastScheduleTime": true, "lastSuccessfulTime": true, "Ready": true,
		"Degraded": true, "True": true, "False": true, "Scheduling": true, "Reconciled": true, "Complete": true, "Failed": true}
	word := regexp.MustCompile(`[A-Za-z]{2,}`)
	for _, line := range lines {
		if got := stateLine(i18n.English, line); got != line {
			t.Errorf("in English %q reads %q", line, got)
		}
		zh := stateLine(i18n.Chinese, line)
		for _, w := range word.FindAllString(zh, -1) {
			if !apiWords[w] {
				t.Errorf("in Chinese %q reads %q: %q is left in English", line, zh, w)
			}
		}
	}
}

// A Chinese run of perturb prints no English but names: the trace of a
// real run under intermediate-3 in Chinese (testdata, recorded by bin/lab
// perturb intermediate-3 --lang zh: its notes and the harness's error speak
// the run's language), and a difference of end states that loses the
// success (as the reference once did under intermediate-3).
func TestAChineseRunLeavesNoEnglishWords(t *testing.T) {
	events, err := trace.Load(filepath.Join("testdata", "intermediate-3.zh.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	a := trace.Analyze(events)
	root := filepath.Join("..", "..", "..", "..")
	none, err := os.ReadFile(filepath.Join(root, "test", "perturb", "testdata", "none.golden"))
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Replace(string(none), "  active: 1 Job(s)", "  active: 0 Job(s)", 1)
	got = regexp.MustCompile(`lastSuccessfulTime: .*`).ReplaceAllString(got, "lastSuccessfulTime: none")
	p := &play{kind: "intermediate-3", want: string(none), got: got}
	printed := labtest.Printed(t, func() error {
		p.showDifference(i18n.Chinese)
		return nil
	})
	said := traceview.Lanes(i18n.Chinese, a, 120) + traceview.Summary(i18n.Chinese, a) + printed
	page := traceview.Page(i18n.Chinese, fmt.Sprintf(i18n.Chinese.Tr("the scenario under %s", "扰动 %s 下的场景"), "intermediate-3"), a)
	// What the page says, without its style sheet (fill:none) and the
	// classes of its markup (class="event reconcile end").
	page = regexp.MustCompile(`(?s)<style>.*?</style>|class="[^"]*"`).ReplaceAllString(page, "")
	for _, english := range []string{"create ", "status-patch", "delete ", "the manager stopped here", "stopped after write", "none",
		"reconcile ", "error:", "again in", "the scenario under", "yours", "the reference's", " run:", "jobs:", "status:", "Jobs created"} {
		if strings.Contains(said, english) {
			t.Errorf("a Chinese run prints %q:\n%s", english, said)
		}
		if english != "reconcile " && strings.Contains(page, english) {
			t.Errorf("the Chinese page says %q", english)
		}
	}
	for _, name := range []string{"intermediate-3：", "lastSuccessfulTime：无", "active：0 个 Job", "删除 Job", "修补 CronJob hourly 的状态"} {
		if !strings.Contains(said, name) {
			t.Errorf("a Chinese run does not say %q:\n%s", name, said)
		}
	}
}

// A clone whose Reconcile still has a stub of stages 04 to 06 is refused
// before anything is built, with the stage and the files: playing it would
// stop at the TODO, and nothing would be compared.
func TestAReconcilerWithStubsOfItsStagesIsRefused(t *testing.T) {
	dir := t.TempDir()
	labtest.Git(t, dir, "init", "-q")
	write := func(text string) {
		if err := os.MkdirAll(filepath.Join(dir, "internal", "runs"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "internal", "runs", "runs.go"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		labtest.Git(t, dir, "add", "-A")
	}
	write("package runs\n\nfunc JobName() string {\n\t// TODO(lab secondary-resources): write this\n\treturn \"\"\n}\n")
	err := CmdPerturb(i18n.English, dir, []string{"none"})
	if err == nil || !strings.Contains(err.Error(), "stubs of stage secondary-resources (TODO(lab secondary-resources): internal/runs/runs.go (1))") ||
		!strings.Contains(err.Error(), "works from stage scheduling on") {
		t.Errorf("a stub of stage secondary-resources left: got %v", err)
	}
	// A later stage's stub is no reason to refuse (the harness holds the
	// cache itself): the refusal check passes it.
	write("package runs\n\nfunc lagGate() {\n\t// TODO(lab q6-direct-reads): write this\n}\n")
	if err := wholeReconciler(i18n.English, dir); err != nil {
		t.Errorf("a stub of a later stage alone: got %v, want no refusal", err)
	}
}
