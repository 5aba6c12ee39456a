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
	"slices"
	"strings"
	"testing"
	"time"

	"cronlab.dev/cronlab/cmd/lab/internal/base"
	"cronlab.dev/cronlab/cmd/lab/internal/gotest"
	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
	"cronlab.dev/cronlab/cmd/lab/internal/labtest"
	"cronlab.dev/cronlab/cmd/lab/internal/progress"
	"cronlab.dev/cronlab/cmd/lab/internal/stage"
)

func TestAFailureGetsTheHintTiedToItAndOtherwiseTheFirstLevel(t *testing.T) {
	s := labtest.StageWithHints()
	for _, c := range []struct {
		f    gotest.Failure
		want string
	}{
		{gotest.Failure{Name: "records the warning once per problem and generation"}, "scheduling.2"},
		{gotest.Failure{Name: "creates the Job", Message: `jobs.batch "x" already exists: AlreadyExists`}, "scheduling.4"},
		{gotest.Failure{Name: "creates the Job", Panic: "AlreadyExists"}, "scheduling.4"},
		// A Chinese attendee's test printed the Chinese twin; the run found its English.
		{gotest.Failure{Name: "creates the Job", Message: "已经存在", Said: "AlreadyExists"}, "scheduling.4"},
		{gotest.Failure{Name: "something else"}, "scheduling.1"},
	} {
		if got := For(s, c.f).ID; got != c.want {
			t.Errorf("%+v: hint %s, want %s", c.f, got, c.want)
		}
	}
}

func TestLabHintShowsTheFailuresHintsFirstThenTheLevelsInOrder(t *testing.T) {
	s := labtest.StageWithHints()
	rs := []gotest.Results{{Failures: []gotest.Failure{{Name: "x", Message: "AlreadyExists"}}}}
	last := progress.StageResult{Failing: Tied(s, rs)}
	if !reflect.DeepEqual(last.Failing, []string{"scheduling.4"}) {
		t.Fatalf("tied hints of the failures: %v", last.Failing)
	}
	var order []string
	for {
		h, ok := NextHint(s, last)
		if !ok {
			break
		}
		order = append(order, h.ID)
		last.HintsShown = append(last.HintsShown, h.ID)
	}
	if want := []string{"scheduling.4", "scheduling.1", "scheduling.3", "scheduling.5"}; !reflect.DeepEqual(order, want) {
		t.Errorf("hints in the order %v, want %v (scheduling.2 is tied to a failure that did not happen)", order, want)
	}
}

// The progress file survives a new check (the hints shown are kept) and an
// upgrade of the tool (a file of version 1, without hints, still reads).
func TestTheProgressFileKeepsHintsAcrossChecksAndReadsAnOlderFile(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(base.StateDir(root), 0o755); err != nil {
		t.Fatal(err)
	}
	v1 := `{"stages": {"04": {"passed": true, "specs": 12, "failed": 0, "at": "2026-11-20T10:00:00Z", "branch": "lab/04"}}}`
	if err := os.WriteFile(progress.Path(root), []byte(v1), 0o644); err != nil {
		t.Fatal(err)
	}
	p := progress.Read(root)
	if r := p.Stages["reconcile-loop"]; !r.Passed || r.Specs != 12 || !r.At.Equal(time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)) {
		t.Fatalf("the version 1 file reads as %+v", r)
	}
	s := labtest.StageWithHints()
	p.Stages["scheduling"] = progress.StageResult{HintsShown: []string{"scheduling.1"}}
	rs := []gotest.Results{{Failed: 1, Failures: []gotest.Failure{{Name: "once per problem"}}}}
	p.Record(s, rs, os.ErrInvalid, Tied(s, rs))
	if err := p.Save(root); err != nil {
		t.Fatal(err)
	}
	again := progress.Read(root)
	if again.Version != progress.FileVersion {
		t.Errorf("version %d, want %d", again.Version, progress.FileVersion)
	}
	r := again.Stages["scheduling"]
	if !reflect.DeepEqual(r.HintsShown, []string{"scheduling.1"}) || !reflect.DeepEqual(r.Failing, []string{"scheduling.2"}) || r.Passed {
		t.Errorf("after a failing check: %+v", r)
	}
	if !again.Stages["reconcile-loop"].Passed {
		t.Error("the other stage's result was lost")
	}
	if _, err := os.Stat(filepath.Join(root, "bin", "lab-state", "progress.json")); err != nil {
		t.Error(err)
	}
}

// A hint tied to a failure must be able to meet it: its `when` is in the
// stage's tests (a spec's text or an assertion's message; Go subtests name
// their spaces as underscores).
func TestEveryTiedHintNamesSomethingInTheStagesTests(t *testing.T) {
	root := filepath.Join("..", "..", "..", "..")
	stages, err := stage.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range stages {
		var sources strings.Builder
		for _, test := range s.Tests {
			files, _ := filepath.Glob(filepath.Join(root, test.Package, "*_test.go"))
			for _, f := range files {
				raw, _ := os.ReadFile(f)
				sources.Write(raw)
			}
		}
		for _, h := range s.Hints {
			if h.When == "" {
				continue
			}
			if !strings.Contains(sources.String(), strings.ReplaceAll(h.When, "_", " ")) {
				t.Errorf("stage %s hint %s: %q is in none of its tests", s.Num, h.ID, h.When)
			}
		}
	}
}

// A hint that quotes a test's name quotes, in each language, what that
// language's check prints: the English name in en, its Chinese twin
// (testdata/names.zh-CN.yaml, which bin/lab --lang zh prints instead) in zh.
// Stage 15's zh hint once quoted "Your specs catch a Reconciler where ...",
// a line the Chinese check never prints.
func TestAHintQuotesTheNamesItsLanguagesCheckPrints(t *testing.T) {
	root := filepath.Join("..", "..", "..", "..")
	stages, err := stage.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	quoted := 0
	for _, s := range stages {
		for _, test := range s.Tests {
			for en, zh := range gotest.ChineseNames(filepath.Join(root, test.Package)) {
				for _, h := range s.Hints {
					// A short name ("records the run") may be words of a
					// sentence rather than a quotation.
					if len(strings.Fields(en)) < 4 {
						continue
					}
					if strings.Contains(h.En, en) {
						quoted++
					}
					if strings.Contains(h.Zh, en) && !strings.Contains(h.Zh, zh) {
						t.Errorf("stage %s hint %s: its Chinese text quotes the English name %q, which the Chinese check prints as %q", s.Num, h.ID, en, zh)
					}
				}
			}
		}
	}
	if quoted == 0 {
		t.Error("no hint quotes a test's name: is the scan blind? (stage 15's first hint does)")
	}
}

// A hint that explains one mistake comes only with that mistake. Stage
// 05's 05.4 ("an owner reference is not enough") was shown to an attendee
// who set no owner reference at all: both mistakes failed one assertion,
// with one sentence. Now each has its own sentence (in the Ginkgo spec and
// in TestNewJob, as their failures print them), and 05.4 is tied to the
// second only.
func TestAHintForOneMistakeComesOnlyWithThatMistake(t *testing.T) {
	stages, err := stage.Load(filepath.Join("..", "..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	s, err := stage.Find(stages, "05")
	if err != nil {
		t.Fatal(err)
	}
	const spec = "Stage 05: secondary resources › builds the Job from the template, annotated with its run and controlled by the CronJob"
	// hints are the hint the check prints, then that of each failure (lab hint).
	hints := func(ginkgo, unit string) []string {
		rs := []gotest.Results{
			{Ginkgo: true, Outcomes: []gotest.Outcome{{Name: spec, Status: "failed"}}, Failures: []gotest.Failure{{Name: spec, Message: ginkgo}}},
			{Outcomes: []gotest.Outcome{{Name: "TestNewJob", Status: "failed"}}, Failures: []gotest.Failure{{Name: "TestNewJob", Message: unit}}},
		}
		return []string{ForCheck(i18n.English, s, rs).ID, For(s, rs[0].Failures[0]).ID, For(s, rs[1].Failures[0]).ID}
	}
	var tied stage.Hint
	for _, h := range s.Hints {
		if strings.Contains(h.En, "An owner reference is not enough") {
			tied = h
		}
	}
	if tied.When == "" {
		t.Fatalf("stage 05 has no hint tied to a reference that is not the controller's: %+v", s.Hints)
	}

	none := hints("the Job has no owner reference: NewJob makes the CronJob its controller with metav1.NewControllerRef\nExpected\n    <[]v1.OwnerReference | len:0, cap:0>: nil\nnot to be empty",
		"the Job has no owner reference: NewJob makes the CronJob its controller with metav1.NewControllerRef")
	if first := s.Levels()[0].ID; !slices.Equal(none, []string{first, first, first}) {
		t.Errorf("no owner reference at all: hints %v (the check's, then each failure's), want the first level %s (%s is about a reference that is not the controller's)", none, first, tied.ID)
	}
	plain := hints("the Job's owner reference is not a controller reference (Controller: true): make it with metav1.NewControllerRef\nExpected\n    <*v1.OwnerReference | 0x0>: nil\nnot to be nil",
		"the Job's owner references [{APIVersion:batch.cronlab.dev/v1 Kind:CronJob Name:report UID:u1 Controller:<nil> BlockOwnerDeletion:<nil>}] are not a controller reference (Controller: true): make one with metav1.NewControllerRef")
	if !slices.Equal(plain, []string{tied.ID, tied.ID, tied.ID}) {
		t.Errorf("an owner reference without controller=true: hints %v (the check's, then each failure's), want %s", plain, tied.ID)
	}
}

// With every hint seen and the failure still there, `lab hint` says so and
// shows that failure's hint again, rather than nothing.
func TestLabHintRepeatsTheFailuresHintOnceAllWereSeen(t *testing.T) {
	l := i18n.English
	root := t.TempDir()
	if err := os.MkdirAll(base.StateDir(root), 0o755); err != nil {
		t.Fatal(err)
	}
	s := labtest.StageWithHints()
	p := progress.Read(root)
	p.Stages["scheduling"] = progress.StageResult{Failing: []string{"scheduling.4"}, HintsShown: []string{"scheduling.4", "scheduling.1", "scheduling.3", "scheduling.5"}}
	if err := p.Save(root); err != nil {
		t.Fatal(err)
	}
	raw := labtest.Printed(t, func() error { return CmdHint(l, root, s) })
	for _, want := range []string{"you have seen every hint", "again (scheduling.4)", "the Job exists already: adopt it"} {
		if !strings.Contains(raw, want) {
			t.Errorf("lab hint lacks %q:\n%s", want, raw)
		}
	}
}

// A hint with a snippet keeps its line breaks (i18n.Wrap leaves code as
// written), so a line of its words longer than the check's 92 columns
// would break in two on the screen, the second half a ragged line alone.
func TestTheWordsAroundASnippetFitTheScreen(t *testing.T) {
	stages, err := stage.Load(filepath.Join("..", "..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range stages {
		for _, h := range s.Hints {
			for _, l := range []i18n.Lang{i18n.English, i18n.Chinese} {
				text := h.Text(l)
				if !strings.Contains(text, "\n") {
					continue // one paragraph: wrapped to the screen
				}
				for _, line := range strings.Split(text, "\n") {
					if !strings.HasPrefix(line, " ") && i18n.Width(line) > 92 {
						t.Errorf("stage %s hint %s (%s): a line of %d columns, more than 92; break it in stage.yaml: %q",
							s.Slug, h.ID, l, i18n.Width(line), line)
					}
				}
			}
		}
	}
}
