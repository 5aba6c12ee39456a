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

package class

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cronlab.dev/cronlab/cmd/lab/internal/classwire"
	"cronlab.dev/cronlab/cmd/lab/internal/gotest"
	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
	"cronlab.dev/cronlab/cmd/lab/internal/progress"
	"cronlab.dev/cronlab/cmd/lab/internal/report"
	"cronlab.dev/cronlab/cmd/lab/internal/stage"
)

// tableTest is what go test -json says of three Go tests, two of them
// table tests: TestJobFinished fails in two of its three rows, saying
// complaint in the first.
func tableTest(t *testing.T, complaint string) gotest.Results {
	events := strings.Join([]string{
		`{"Action":"run","Test":"TestControllerOf"}`,
		`{"Action":"pass","Test":"TestControllerOf"}`,
		`{"Action":"run","Test":"TestJobFinished"}`,
		`{"Action":"run","Test":"TestJobFinished/running"}`,
		`{"Action":"pass","Test":"TestJobFinished/running"}`,
		`{"Action":"run","Test":"TestJobFinished/complete"}`,
		`{"Action":"output","Test":"TestJobFinished/complete","Output":"    runs_test.go:120: ` + complaint + `\n"}`,
		`{"Action":"fail","Test":"TestJobFinished/complete"}`,
		`{"Action":"run","Test":"TestJobFinished/failed"}`,
		`{"Action":"output","Test":"TestJobFinished/failed","Output":"    runs_test.go:120: JobFinished = false, \"\"\n"}`,
		`{"Action":"fail","Test":"TestJobFinished/failed"}`,
		`{"Action":"output","Test":"TestJobFinished","Output":"--- FAIL: TestJobFinished (0.00s)\n"}`,
		`{"Action":"fail","Test":"TestJobFinished"}`,
		`{"Action":"run","Test":"TestDue"}`,
		`{"Action":"pass","Test":"TestDue/a_row"}`,
		`{"Action":"pass","Test":"TestDue"}`,
		`{"Action":"fail"}`,
	}, "\n")
	return gotest.ParseJSON([]byte(events), t.TempDir(), "./internal/runs", nil, false)
}

// jsonCounts is how many specs lab check --json lists, and how many of
// them passed, read from the document as a tool would.
func jsonCounts(t *testing.T, c report.Check) (passed, ran int) {
	var out strings.Builder
	if err := c.Write(&out); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tests []struct {
			Specs []struct{ Status string } `json:"specs"`
		} `json:"tests"`
	}
	if err := json.Unmarshal([]byte(out.String()), &doc); err != nil {
		t.Fatal(err)
	}
	for _, tt := range doc.Tests {
		for _, s := range tt.Specs {
			ran++
			if s.Status == "passed" {
				passed++
			}
		}
	}
	return passed, ran
}

// The terminal, lab check --json and the board count one check the same
// way: a Go test whose rows fail is one failing spec, not one per row,
// and the room fails it once. The board names the hint tied to a row's
// failure, and no hint when none is tied (not --json's fallback, the
// stage's first, general hint).
func TestTheBoardCountsACheckAsTheTerminalAndJSONDo(t *testing.T) {
	s := stage.Stage{Slug: "scheduling", Num: "06", Tests: []stage.Test{{Package: "./internal/runs"}}, Hints: []stage.Hint{
		{ID: "scheduling.1", En: "start with runs.go"},
		{ID: "scheduling.2", When: "a Complete condition finishes the Job", En: "read the conditions"},
	}}
	for _, c := range []struct {
		complaint, hint string
	}{
		{"JobFinished = false: a Complete condition finishes the Job", "scheduling.2"},
		{"JobFinished = false, \"\"", ""},
	} {
		rs := []gotest.Results{tableTest(t, c.complaint)}
		if got := report.Counts(i18n.English, rs[0]); got != "2 of 3 passed" {
			t.Errorf("the terminal says %q, want 2 of 3 passed", got)
		}
		check := report.NewCheck(t.TempDir(), s, rs, errors.New("failing: ./internal/runs"))
		passed, ran := jsonCounts(t, check)
		if passed != 2 || ran != 3 {
			t.Errorf("--json lists %d specs, %d passed; want 3 and 2, as the terminal says", ran, passed)
		}
		if spec := check.Tests[0].Specs[1]; spec.Name != "TestJobFinished" || len(spec.Subtests) != 2 || spec.Subtests[0].Name != "TestJobFinished/complete" {
			t.Errorf("--json's failing spec is %+v, want TestJobFinished with its two failing rows under it", spec)
		}

		ab := startBoard(t, "127.0.0.1:0", filepath.Join(t.TempDir(), "board.db"))
		dir := t.TempDir()
		if _, err := Join(dir, ab.url(), "CODE42", "ada"); err != nil {
			t.Fatal(err)
		}
		for range 3 { // three checks in a row fail the same way: stuck
			if _, err := Enqueue(dir, classwire.Message{At: time.Now().UTC(), Result: Sent(s, check, progress.StageResult{})}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := Flush(context.Background(), dir); err != nil {
			t.Fatal(err)
		}
		snap := ab.b.Snapshot()
		a := snap.Attendees[0]
		if cell := a.Cells["scheduling"]; cell.Passed != passed || cell.Ran != ran {
			t.Errorf("the board's cell says %d/%d, --json %d/%d", cell.Passed, cell.Ran, passed, ran)
		}
		if len(snap.Failing) != 1 || snap.Failing[0].Spec != "TestJobFinished" || snap.Failing[0].Hint != c.hint {
			t.Errorf("what the room fails: %+v, want TestJobFinished once, with hint %q", snap.Failing, c.hint)
		}
		if len(a.Stuck) != 1 || a.Stuck[0].Spec != "TestJobFinished" || a.Stuck[0].Hint != c.hint {
			t.Errorf("the stuck flag is %+v, want TestJobFinished with hint %q", a.Stuck, c.hint)
		}
	}
}
