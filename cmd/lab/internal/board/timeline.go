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

package board

// One attendee's timeline, shown when the instructor clicks a row: every
// check and hand in order, and a CSV of the whole class for after the
// workshop.

import (
	"cmp"
	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
	"encoding/csv"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

type TimelineEntry struct {
	Seq   int64     `json:"seq"`
	At    time.Time `json:"at"`
	Stage string    `json:"stage"`
	Kind  string    `json:"kind"` // check or hand
	// Outcome of a check, what the page says of it: passed; nocompile (the
	// code does not compile, whatever ran with its broken functions
	// stubbed); failed; nospecs (it failed, and no spec ran).
	Outcome   string   `json:"outcome,omitempty"`
	Passed    bool     `json:"passed,omitempty"`
	Specs     int      `json:"specs,omitempty"`
	Failed    int      `json:"failed,omitempty"`
	Failing   []string `json:"failing,omitempty"`
	HintsSeen int      `json:"hintsSeen,omitempty"`
	Text      string   `json:"text,omitempty"`
	// CompileErrors of a check; Lowered: the hand is down, LoweredBy says
	// who lowered it (classwire.LoweredBy*).
	CompileErrors int    `json:"compileErrors,omitempty"`
	Lowered       bool   `json:"lowered,omitempty"`
	LoweredBy     string `json:"loweredBy,omitempty"`
}

type Timeline struct {
	Attendee int64           `json:"attendee"`
	Name     string          `json:"name"`
	Entries  []TimelineEntry `json:"entries"`
}

func (a *attendee) timeline() Timeline {
	t := Timeline{Attendee: a.id, Name: a.name, Entries: []TimelineEntry{}}
	for _, c := range a.checks {
		e := TimelineEntry{Seq: c.seq, At: a.at(c.sent), Stage: c.result.Stage, Kind: "check", Outcome: outcome(c), Passed: c.result.Passed,
			Specs: c.ran, Failed: c.ran - c.passed, HintsSeen: c.result.HintsSeen, CompileErrors: c.result.CompileErrors}
		for _, f := range c.result.Failing() {
			e.Failing = append(e.Failing, f.Name)
		}
		t.Entries = append(t.Entries, e)
	}
	for _, h := range a.hands {
		l := a.lowered(h)
		t.Entries = append(t.Entries, TimelineEntry{Seq: h.seq, At: a.at(h.sent), Stage: h.stage, Kind: "hand", Text: h.text, Lowered: l.by != "", LoweredBy: l.by})
	}
	slices.SortStableFunc(t.Entries, func(x, y TimelineEntry) int { return cmp.Compare(x.Seq, y.Seq) })
	return t
}

// outcome is what a check came to, as the matrix's cell says it: code that
// does not compile is that, even when the rest ran and passed (its broken
// functions stubbed), for that is what the attendee has to fix.
func outcome(c check) string {
	switch {
	case c.result.CompileErrors > 0:
		return "nocompile"
	case c.result.Passed:
		return "passed"
	case c.ran == 0:
		return "nospecs"
	}
	return "failed"
}

func (b *Board) serveTimeline(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	b.mu.Lock()
	a := b.class.attendees[id]
	var t Timeline
	if a != nil {
		t = a.timeline()
	}
	b.mu.Unlock()
	if err != nil || a == nil {
		fail(w, refuse(http.StatusNotFound, i18n.Errorf("no such attendee", "没有这个学员")))
		return
	}
	answer(w, t)
}

// serveCSV is the matrix as a spreadsheet: a row per attendee and stage
// checked, each with the hints seen of that stage at its latest check, and
// the stuck flags of now.
func (b *Board) serveCSV(w http.ResponseWriter, r *http.Request) {
	s := b.Snapshot()
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=\"class-%s.csv\"", s.Now.Format("2006-01-02-1504")))
	out := csv.NewWriter(w)
	_ = out.Write([]string{"attendee", "name", "left", "stage", "state", "specs passed", "specs", "compile errors", "checks", "current", "minutes on current stage", "hints seen", "stuck", "hand"})
	for _, a := range s.Attendees {
		for _, st := range s.Stages {
			c, ok := a.Cells[st.ID]
			if !ok {
				continue
			}
			current, minutes, stuck, hand := "", "", "", ""
			if st.ID == a.Current {
				current, minutes = "yes", strconv.FormatFloat(a.OnStage/60, 'f', 1, 64)
				var rs []string
				for _, x := range a.Stuck {
					rs = append(rs, x.Reason)
				}
				stuck = strings.Join(rs, " ")
				if a.Hand != nil {
					hand = a.Hand.Text
				}
			}
			left := ""
			if a.Left {
				left = "yes"
			}
			_ = out.Write([]string{strconv.FormatInt(a.ID, 10), cell(a.Name), left, st.ID, c.State, strconv.Itoa(c.Passed), strconv.Itoa(c.Ran),
				strconv.Itoa(c.CompileErrors), strconv.Itoa(c.Checks), current, minutes, strconv.Itoa(c.HintsSeen), stuck, cell(hand)})
		}
	}
	out.Flush()
}

// cell keeps an attendee's text from being read as a formula by the
// spreadsheet that opens the file.
func cell(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}
