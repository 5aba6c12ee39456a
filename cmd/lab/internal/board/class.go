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

// The class is what the board knows, rebuilt from the stored messages: each
// attendee's checks and hands in their order. What the page shows (a
// snapshot) is computed from it at a moment, because two of the stuck
// flags are about time passing, not about a message arriving.

import (
	"slices"
	"sort"
	"time"

	"cronlab.dev/cronlab/cmd/lab/internal/classwire"
	"cronlab.dev/cronlab/cmd/lab/internal/stage"
)

// Stuck thresholds (docs/class.md): the same spec failing in RepeatChecks
// checks in a row; no check for Quiet; time on the stage above the class's
// 75th percentile, once MinSample attendees have spent time on it.
const (
	RepeatChecks = 3
	Quiet        = 10 * time.Minute
	MinSample    = 4
)

type StageInfo struct {
	ID      string `json:"id"`  // the slug, which messages name the stage by
	Num     string `json:"num"` // its number, which the page shows
	Title   string `json:"title"`
	TitleZh string `json:"titleZh"`
}

type class struct {
	stages    []StageInfo
	attendees map[int64]*attendee
	order     []int64 // in the order they joined
	version   int64   // counts changes: the page asks again when it moves
}

type attendee struct {
	id     int64
	name   string
	token  string // its hash
	joined time.Time
	left   time.Time
	// offset turns the laptop's clock into the board's: the least delay
	// seen between a message's time and its arrival. A message that waited
	// in a queue arrives late, but its own time still places it right.
	offset    time.Duration
	hasOffset bool
	checks    []check // in seq order
	hands     []hand  // raised, in seq order
	downs     []down
	seen      map[int64]bool
}

// A check's and a hand's times are the laptop's, as sent: the board's clock
// is found when they are read (attendee.at), with the offset known then,
// so that a backlog sent in one batch lands where it happened.
type check struct {
	seq      int64
	sent     time.Time // on the laptop's clock
	received time.Time
	// result is the check as sent, without its passed specs and its
	// functions, which the page does not show: a long class holds many
	// thousands of checks, and SQLite keeps them whole.
	result      classwire.Result
	passed, ran int // its specs
}

type hand struct {
	seq   int64
	sent  time.Time
	stage string
	text  string
	// byInstructor is when the instructor lowered it on the board (zero:
	// not). The attendee's own lowering and a passed stage are read from
	// the messages (lowered), in whatever order they arrived.
	byInstructor time.Time
}

// down is an attendee's bin/lab hand --down: it lowers every hand raised
// before it.
type down struct {
	seq      int64
	received time.Time
}

// lowering is who lowered a hand (classwire.LoweredBy*), and when, on the
// board's clock; by is "" while the hand is up.
type lowering struct {
	by string
	at time.Time
}

func newClass(stages []StageInfo) *class {
	return &class{stages: stages, attendees: map[int64]*attendee{}}
}

func (c *class) add(a *attendee) {
	a.seen = map[int64]bool{}
	c.attendees[a.id] = a
	c.order = append(c.order, a.id)
	c.version++
}

// apply records one message of a; a message seen before changes nothing.
func (c *class) apply(a *attendee, m classwire.Message, received time.Time) {
	if a.seen[m.Seq] {
		return
	}
	a.seen[m.Seq] = true
	m = fromLegacy(m)
	if d := received.Sub(m.At); !a.hasOffset || d < a.offset {
		a.offset, a.hasOffset = d, true
	}
	if m.Result != nil {
		c := check{seq: m.Seq, sent: m.At, received: received, result: *m.Result}
		c.passed, c.ran = m.Result.Counts()
		c.result.Specs, c.result.Functions = m.Result.Failing(), nil
		a.checks = insertBySeq(a.checks, c, func(x check) int64 { return x.seq })
	}
	if m.Hand != nil {
		if m.Hand.Down {
			a.downs = append(a.downs, down{seq: m.Seq, received: received})
		} else {
			a.hands = insertBySeq(a.hands, hand{seq: m.Seq, sent: m.At, stage: m.Hand.Stage, text: m.Hand.Text}, func(x hand) int64 { return x.seq })
		}
	}
	c.version++
}

// fromLegacy names by their slugs the stage and hints of a message that a
// lab tool from before stages had names sent with their numbers (06,
// 06.7): in a board database of that time, or from an attendee who has not
// updated yet. The database keeps what came; it is renamed each time it is
// read, as the class is rebuilt from it.
func fromLegacy(m classwire.Message) classwire.Message {
	if m.Result != nil {
		r := *m.Result
		r.Stage = stage.FromLegacy(r.Stage)
		r.Specs = slices.Clone(r.Specs)
		for i := range r.Specs {
			r.Specs[i].Hint = stage.FromLegacy(r.Specs[i].Hint)
		}
		m.Result = &r
	}
	if m.Hand != nil {
		h := *m.Hand
		h.Stage = stage.FromLegacy(h.Stage)
		m.Hand = &h
	}
	return m
}

// lowered says whether and how h came down: the first, on the board's
// clock, of the attendee lowering it, the instructor lowering it, and a
// check that passed the stage h was raised on, after h. A hand is raised
// on a stage about that stage: who passed it has moved on, and a hand left
// up would send the instructor to someone who no longer waits.
func (a *attendee) lowered(h hand) lowering {
	var l lowering
	take := func(by string, at time.Time) {
		if l.by == "" || at.Before(l.at) {
			l = lowering{by: by, at: at}
		}
	}
	for _, d := range a.downs {
		if d.seq > h.seq {
			take(classwire.LoweredByAttendee, d.received)
		}
	}
	if !h.byInstructor.IsZero() {
		take(classwire.LoweredByInstructor, h.byInstructor)
	}
	if h.stage != "" {
		for _, c := range a.checks {
			if c.seq > h.seq && c.result.Stage == h.stage && c.result.Passed {
				take(classwire.LoweredByPassing, c.received)
			}
		}
	}
	return l
}

func insertBySeq[T any](xs []T, x T, seq func(T) int64) []T {
	i := sort.Search(len(xs), func(i int) bool { return seq(xs[i]) > seq(x) })
	return slices.Insert(xs, i, x)
}

// raised is whether a's hand seq is up.
func (a *attendee) raised(seq int64) bool {
	for _, h := range a.hands {
		if h.seq == seq {
			return a.lowered(h).by == ""
		}
	}
	return false
}

// lower takes a hand down from the board at at (the instructor came by).
// Replaying the stored lowerings, it is told of each again: it records
// the time even of a hand that a message replayed before lowered later
// (a check that passed its stage), so that the first lowering stays first.
func (c *class) lower(a *attendee, seq int64, at time.Time) {
	for i := range a.hands {
		if a.hands[i].seq == seq && a.hands[i].byInstructor.IsZero() {
			a.hands[i].byInstructor = at
			c.version++
		}
	}
}

// at is a time of a's laptop on the board's clock.
func (a *attendee) at(laptop time.Time) time.Time { return laptop.Add(a.offset) }

func (a *attendee) lastSeq() int64 {
	var last int64
	if n := len(a.checks); n > 0 {
		last = a.checks[n-1].seq
	}
	if n := len(a.hands); n > 0 && a.hands[n-1].seq > last {
		last = a.hands[n-1].seq
	}
	for _, d := range a.downs {
		last = max(last, d.seq)
	}
	return last
}

// current is the stage of the attendee's latest check, or of its raised
// hand when it has not checked yet.
func (a *attendee) current() string {
	if n := len(a.checks); n > 0 {
		return a.checks[n-1].result.Stage
	}
	if n := len(a.hands); n > 0 {
		return a.hands[n-1].stage
	}
	return ""
}

// spans are the times a spent on each stage it checked: from when it
// began the stage (as bin/lab start recorded it, else its first check of
// the stage) until it first passed, else until now (or until it left the
// class). One walk over the checks serves every stage: the page asks for
// all of them, for every attendee, several times a second.
func (a *attendee) spans(now time.Time) map[string]time.Duration {
	start := map[string]time.Time{}
	for _, c := range a.checks {
		id := c.result.Stage
		if !c.result.StageStarted.IsZero() {
			start[id] = a.at(c.result.StageStarted) // the latest start wins
		} else if _, ok := start[id]; !ok {
			start[id] = a.at(c.sent)
		}
	}
	if !a.left.IsZero() && a.left.Before(now) {
		now = a.left
	}
	out := map[string]time.Duration{}
	for _, c := range a.checks {
		id := c.result.Stage
		if _, done := out[id]; !done && c.result.Passed && !a.at(c.sent).Before(start[id]) {
			out[id] = a.at(c.sent).Sub(start[id])
		}
	}
	for id, t := range start {
		if _, done := out[id]; !done {
			out[id] = now.Sub(t)
		}
	}
	return out
}

// latest is a's latest check of stage id.
func (a *attendee) latest(id string) (check, bool) {
	for i := len(a.checks) - 1; i >= 0; i-- {
		if a.checks[i].result.Stage == id {
			return a.checks[i], true
		}
	}
	return check{}, false
}

// repeated is the spec that failed in each of a's last RepeatChecks
// checks, all of the current stage, while no more specs passed at the end
// than at the start: a spec that is failing only because the attendee has
// not reached it yet fails in every check of someone making progress.
func (a *attendee) repeated() (classwire.Spec, bool) {
	n := len(a.checks)
	if n < RepeatChecks {
		return classwire.Spec{}, false
	}
	last := a.checks[n-RepeatChecks:]
	if last[len(last)-1].passed > last[0].passed {
		return classwire.Spec{}, false
	}
	for _, s := range last[len(last)-1].result.Failing() {
		everywhere := true
		for _, c := range last {
			if c.result.Stage != last[0].result.Stage || !failsIn(c.result, s) {
				everywhere = false
				break
			}
		}
		if everywhere {
			return s, true
		}
	}
	return classwire.Spec{}, false
}

func failsIn(r classwire.Result, s classwire.Spec) bool {
	return slices.ContainsFunc(r.Specs, func(x classwire.Spec) bool {
		return x.Status == "failed" && x.Name == s.Name && x.Package == s.Package
	})
}

// percentile75 of the durations, nearest rank.
func percentile75(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	rank := (75*len(s) + 99) / 100 // ceil(0.75 n)
	return s[max(rank-1, 0)]
}
