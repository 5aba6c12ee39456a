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

// A snapshot is the board at one moment, as the page draws it: the matrix
// of attendees × stages, the stuck flags with their reasons, the specs the
// room fails right now, and the raised hands. GET /api/v1/board serves it;
// the page asks again whenever the class changes (events.go) and every few
// seconds, because time alone can make someone stuck.

import (
	"cmp"
	"slices"
	"time"
)

type Snapshot struct {
	Version   int64          `json:"version"` // the class's change counter
	Now       time.Time      `json:"now"`
	Code      string         `json:"code,omitempty"`
	Stages    []StageInfo    `json:"stages"`
	Attendees []AttendeeView `json:"attendees"`
	Failing   []FailingSpec  `json:"failing"`
	Hands     []HandView     `json:"hands"`
}

type AttendeeView struct {
	ID        int64           `json:"id"`
	Name      string          `json:"name"`
	Left      bool            `json:"left,omitempty"`
	Current   string          `json:"current,omitempty"` // the stage of the latest check
	OnStage   float64         `json:"onStage,omitempty"` // seconds on the current stage
	LastCheck *time.Time      `json:"lastCheck,omitempty"`
	LastSeq   int64           `json:"lastSeq"`
	Checks    int             `json:"checks"`
	HintsSeen int             `json:"hintsSeen"`
	Cells     map[string]Cell `json:"cells"` // by stage id; a stage never checked is absent
	Stuck     []Stuck         `json:"stuck,omitempty"`
	Hand      *HandView       `json:"hand,omitempty"`
}

// Cell is one attendee's latest check of one stage.
type Cell struct {
	State         string `json:"state"` // passed, failing
	Passed        int    `json:"passed"`
	Ran           int    `json:"ran"`
	CompileErrors int    `json:"compileErrors,omitempty"`
	Checks        int    `json:"checks"`
	HintsSeen     int    `json:"hintsSeen"` // of this stage, at that check
}

// Stuck is one reason to go and see an attendee: repeat (Spec failed in
// the last RepeatChecks checks), slow (Minutes on the stage, above the
// class's 75th percentile P75), quiet (no check for Minutes).
type Stuck struct {
	Reason  string  `json:"reason"`
	Spec    string  `json:"spec,omitempty"`
	Package string  `json:"package,omitempty"` // the spec's
	SpecZh  string  `json:"specZh,omitempty"`  // the spec's name in Chinese (names.go)
	Hint    string  `json:"hint,omitempty"`
	Minutes float64 `json:"minutes,omitempty"`
	P75     float64 `json:"p75,omitempty"`
}

type FailingSpec struct {
	Stage     string   `json:"stage"`
	Package   string   `json:"package"`
	Spec      string   `json:"spec"`
	SpecZh    string   `json:"specZh,omitempty"` // its name in Chinese (names.go)
	Hint      string   `json:"hint,omitempty"`
	Attendees int      `json:"attendees"` // how many fail it in their latest check
	Of        int      `json:"of"`        // how many are on that stage
	Names     []string `json:"names"`
}

type HandView struct {
	Attendee int64     `json:"attendee"`
	Name     string    `json:"name"`
	Seq      int64     `json:"seq"`
	Stage    string    `json:"stage,omitempty"`
	Text     string    `json:"text"`
	At       time.Time `json:"at"`
}

// MostFailing is how many specs the snapshot lists that the room fails.
const MostFailing = 10

func (c *class) snapshot(now time.Time) Snapshot {
	s := Snapshot{Version: c.version, Now: now, Stages: c.stages, Attendees: []AttendeeView{}, Failing: []FailingSpec{}, Hands: []HandView{}}
	p75 := c.percentiles(now)
	failing := map[[3]string]*FailingSpec{}
	onStage := map[string]int{}
	for _, id := range c.order {
		a := c.attendees[id]
		v := a.view(now, p75)
		s.Attendees = append(s.Attendees, v)
		if v.Hand != nil {
			s.Hands = append(s.Hands, *v.Hand)
		}
		if !a.present() || v.Current == "" {
			continue
		}
		onStage[v.Current]++
		last, _ := a.latest(v.Current)
		for _, f := range last.result.Failing() {
			k := [3]string{v.Current, f.Package, f.Name}
			if failing[k] == nil {
				failing[k] = &FailingSpec{Stage: v.Current, Package: f.Package, Spec: f.Name, Hint: f.Hint}
			}
			failing[k].Attendees++
			failing[k].Names = append(failing[k].Names, a.name)
		}
	}
	for _, f := range failing {
		f.Of = onStage[f.Stage]
		s.Failing = append(s.Failing, *f)
	}
	slices.SortFunc(s.Failing, func(x, y FailingSpec) int {
		return cmp.Or(cmp.Compare(y.Attendees, x.Attendees), cmp.Compare(x.Stage, y.Stage), cmp.Compare(x.Spec, y.Spec))
	})
	if len(s.Failing) > MostFailing {
		s.Failing = s.Failing[:MostFailing]
	}
	slices.SortFunc(s.Hands, func(x, y HandView) int { return x.At.Compare(y.At) })
	return s
}

func (a *attendee) present() bool { return a.left.IsZero() }

// percentiles is the class's 75th percentile of time on each stage, for
// the stages where at least MinSample attendees spent time.
func (c *class) percentiles(now time.Time) map[string]time.Duration {
	times := map[string][]time.Duration{}
	for _, a := range c.attendees {
		for id, d := range a.spans(now) {
			times[id] = append(times[id], d)
		}
	}
	p75 := map[string]time.Duration{}
	for id, ds := range times {
		if len(ds) >= MinSample {
			p75[id] = percentile75(ds)
		}
	}
	return p75
}

func (a *attendee) view(now time.Time, p75 map[string]time.Duration) AttendeeView {
	v := AttendeeView{ID: a.id, Name: a.name, Left: !a.present(), Current: a.current(), LastSeq: a.lastSeq(),
		Checks: len(a.checks), Cells: map[string]Cell{}}
	for _, c := range a.checks {
		cell := v.Cells[c.result.Stage]
		cell = Cell{State: "failing", Passed: c.passed, Ran: c.ran, CompileErrors: c.result.CompileErrors, Checks: cell.Checks + 1, HintsSeen: c.result.HintsSeen}
		if c.result.Passed {
			cell.State = "passed"
		}
		v.Cells[c.result.Stage] = cell
		v.HintsSeen = c.result.HintsSeen // the latest check's, of its stage
	}
	if n := len(a.checks); n > 0 {
		t := a.at(a.checks[n-1].sent)
		v.LastCheck = &t
	}
	if n := len(a.hands); n > 0 && a.lowered(a.hands[n-1]).by == "" {
		h := a.hands[n-1]
		v.Hand = &HandView{Attendee: a.id, Name: a.name, Seq: h.seq, Stage: h.stage, Text: h.text, At: a.at(h.sent)}
	}
	if v.Current != "" {
		if d, ok := a.spans(now)[v.Current]; ok {
			v.OnStage = d.Seconds()
		}
	}
	if v.Left {
		v.Hand = nil
		return v
	}
	v.Stuck = a.stuck(now, v, p75)
	return v
}

// stuck gives the reasons to go and see a, on a stage it has not passed.
func (a *attendee) stuck(now time.Time, v AttendeeView, p75 map[string]time.Duration) []Stuck {
	if v.Current == "" || v.Cells[v.Current].State == "passed" {
		return nil
	}
	var out []Stuck
	if spec, ok := a.repeated(); ok {
		out = append(out, Stuck{Reason: "repeat", Spec: spec.Name, Package: spec.Package, Hint: spec.Hint})
	}
	on := time.Duration(v.OnStage * float64(time.Second))
	if p, ok := p75[v.Current]; ok && on > p {
		out = append(out, Stuck{Reason: "slow", Minutes: minutes(on), P75: minutes(p)})
	}
	if v.LastCheck != nil && now.Sub(*v.LastCheck) > Quiet {
		out = append(out, Stuck{Reason: "quiet", Minutes: minutes(now.Sub(*v.LastCheck))})
	}
	return out
}

func minutes(d time.Duration) float64 { return float64(d.Round(6*time.Second)) / float64(time.Minute) }
