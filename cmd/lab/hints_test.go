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
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func stageWithHints() stage {
	s := stage{ID: "06", Dir: "exercises/06-scheduling", Hints: []hint{
		{En: "nudge"},
		{When: "once per problem", En: "call reportUnschedulable"},
		{En: "where to look"},
		{When: "AlreadyExists", En: "the Job exists already: adopt it"},
		{En: "a snippet"},
	}}
	for i := range s.Hints {
		s.Hints[i].ID = "06." + string(rune('1'+i))
	}
	return s
}

func TestAFailureGetsTheHintTiedToItAndOtherwiseTheFirstLevel(t *testing.T) {
	s := stageWithHints()
	for _, c := range []struct {
		f    failure
		want string
	}{
		{failure{Name: "records the warning once per problem and generation"}, "06.2"},
		{failure{Name: "creates the Job", Message: `jobs.batch "x" already exists: AlreadyExists`}, "06.4"},
		{failure{Name: "creates the Job", Panic: "AlreadyExists"}, "06.4"},
		{failure{Name: "something else"}, "06.1"},
	} {
		if got := s.hintFor(c.f).ID; got != c.want {
			t.Errorf("%+v: hint %s, want %s", c.f, got, c.want)
		}
	}
}

func TestLabHintShowsTheFailuresHintsFirstThenTheLevelsInOrder(t *testing.T) {
	s := stageWithHints()
	rs := []results{{Failures: []failure{{Name: "x", Message: "AlreadyExists"}}}}
	last := stageResult{Failing: s.tiedHints(rs)}
	if !reflect.DeepEqual(last.Failing, []string{"06.4"}) {
		t.Fatalf("tied hints of the failures: %v", last.Failing)
	}
	var order []string
	for {
		h, ok := s.nextHint(last)
		if !ok {
			break
		}
		order = append(order, h.ID)
		last.HintsShown = append(last.HintsShown, h.ID)
	}
	if want := []string{"06.4", "06.1", "06.3", "06.5"}; !reflect.DeepEqual(order, want) {
		t.Errorf("hints in the order %v, want %v (06.2 is tied to a failure that did not happen)", order, want)
	}
}

// The progress file survives a new check (the hints shown are kept) and an
// upgrade of the tool (a file of version 1, without hints, still reads).
func TestTheProgressFileKeepsHintsAcrossChecksAndReadsAnOlderFile(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(stateDir(root), 0o755); err != nil {
		t.Fatal(err)
	}
	v1 := `{"stages": {"04": {"passed": true, "specs": 12, "failed": 0, "at": "2026-11-20T10:00:00Z", "branch": "lab/04"}}}`
	if err := os.WriteFile(progressPath(root), []byte(v1), 0o644); err != nil {
		t.Fatal(err)
	}
	p := loadProgress(root)
	if r := p.Stages["04"]; !r.Passed || r.Specs != 12 || !r.At.Equal(time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)) {
		t.Fatalf("the version 1 file reads as %+v", r)
	}
	s := stageWithHints()
	p.Stages["06"] = stageResult{HintsShown: []string{"06.1"}}
	p.record(s, []results{{Failed: 1, Failures: []failure{{Name: "once per problem"}}}}, os.ErrInvalid)
	if err := p.save(root); err != nil {
		t.Fatal(err)
	}
	again := loadProgress(root)
	if again.Version != progressVersion {
		t.Errorf("version %d, want %d", again.Version, progressVersion)
	}
	r := again.Stages["06"]
	if !reflect.DeepEqual(r.HintsShown, []string{"06.1"}) || !reflect.DeepEqual(r.Failing, []string{"06.2"}) || r.Passed {
		t.Errorf("after a failing check: %+v", r)
	}
	if !again.Stages["04"].Passed {
		t.Error("the other stage's result was lost")
	}
	if _, err := os.Stat(filepath.Join(root, "bin", "lab-state", "progress.json")); err != nil {
		t.Error(err)
	}
}

func TestEveryStageHasAGeneralHint(t *testing.T) {
	stages, err := loadStages(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err) // loadStages refuses a stage without one (checkHints)
	}
	for _, s := range stages {
		if s.levels()[0].ID != s.ID+".1" && s.Hints[0].When == "" {
			t.Errorf("stage %s: the first hint's id is %s", s.ID, s.levels()[0].ID)
		}
	}
}

func TestTheStatusBar(t *testing.T) {
	for _, c := range []struct {
		done, all int
		want      string
	}{{0, 16, "[----------------]"}, {3, 16, "[###-------------]"}, {16, 16, "[################]"}, {0, 0, "[----------------]"},
		{1, 17, "[#---------------]"}} { // one of 17 passed shows {
		if got := bar(c.done, c.all, 16); got != c.want {
			t.Errorf("bar(%d, %d) = %s, want %s", c.done, c.all, got, c.want)
		}
	}
}

func TestHintsAreWrappedButTheirCodeIsNot(t *testing.T) {
	got := wrap("Due walks the schedule from the last run to now, one time after the other:\n\tfor t := sched.Next(last); !t.After(now); t = sched.Next(t) {", 40)
	want := "Due walks the schedule from the last run\nto now, one time after the other:\n\tfor t := sched.Next(last); !t.After(now); t = sched.Next(t) {"
	if got != want {
		t.Errorf("wrap:\n%s\nwant\n%s", got, want)
	}
}

// A hint tied to a failure must be able to meet it: its `when` is in the
// stage's tests (a spec's text or an assertion's message; Go subtests name
// their spaces as underscores).
func TestEveryTiedHintNamesSomethingInTheStagesTests(t *testing.T) {
	root := filepath.Join("..", "..")
	stages, err := loadStages(root)
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
				t.Errorf("stage %s hint %s: %q is in none of its tests", s.ID, h.ID, h.When)
			}
		}
	}
}

// With every hint seen and the failure still there, `lab hint` says so and
// shows that failure's hint again, rather than nothing.
func TestLabHintRepeatsTheFailuresHintOnceAllWereSeen(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(stateDir(root), 0o755); err != nil {
		t.Fatal(err)
	}
	s := stageWithHints()
	p := loadProgress(root)
	p.Stages["06"] = stageResult{Failing: []string{"06.4"}, HintsShown: []string{"06.4", "06.1", "06.3", "06.5"}}
	if err := p.save(root); err != nil {
		t.Fatal(err)
	}
	raw := printed(t, func() error { return cmdHint(root, s) })
	for _, want := range []string{"you have seen every hint", "again (06.4)", "the Job exists already: adopt it"} {
		if !strings.Contains(raw, want) {
			t.Errorf("lab hint lacks %q:\n%s", want, raw)
		}
	}
}
