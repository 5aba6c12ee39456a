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

// Invented results that weigh what a room's weigh. The board's cost is in
// the bytes it parses and stores (a spec's name is most of them), in how
// many checks it replays at start, and in what a snapshot recomputes: the
// stuck flags look for the same spec failing check after check and for time
// spent on a stage. So each simulated attendee moves through the stages at
// its own pace, gets a few specs of each wrong and fixes them one by one,
// and now and then saves a file that does not compile.

import (
	"fmt"
	"math/rand/v2"
	"time"

	"cronlab.dev/cronlab/cmd/lab/internal/classwire"
)

// specsPerStage is about what one stage's tests hold (stage 06 has 27
// controller specs and its schedule tests).
const specsPerStage = 30

// The stages the simulated room works through, by the slugs messages name
// them by: the repository's exercises from the third (exercises/stages.yaml)
// on; the board's columns are all of them.
var stageIDs = []string{"list-watch", "reconcile-loop", "secondary-resources", "scheduling", "envtest", "helm-chart",
	"q1-no-webhook", "q2-go-vs-yaml", "q3-owns-vs-watches", "q4-level-based", "q6-direct-reads", "q5-next-reconcile",
	"stale-cache", "client-go", "multiversion"}

// Spec names are put together as Ginkgo spells them, Describe, When, It,
// from the lab's own vocabulary; they come out 80 to 120 characters long.
var (
	specContexts = []string{
		"when a run is due and no Job exists yet",
		"with concurrencyPolicy Forbid, a Job running",
		"after a restart with runs missed meanwhile",
		"when the starting deadline has already passed",
		"with a history limit of one successful Job",
		"when the cache lags behind the API server",
	}
	specBehaviours = []string{
		"creates the Job of a due run", "starts only the most recent missed run",
		"skips a run that is later than the starting deadline", "does not start the same run twice",
		"records the run in its status", "says in Ready when the next run is",
		"moves finished Jobs out of active", "counts a running Job it controls as active",
		"keeps an active Job that the cache does not list yet", "deletes the oldest finished Jobs",
		"keeps every Job within its limit", "adopts a Job of its own", "labels an adopted Job",
		"returns the error of a create it cannot finish", "deletes nothing when the Job is not the one it meant",
		"starts nothing while suspended", "reports an unknown time zone", "reports a schedule that never fires",
		"records the warning once per problem", "records a missed run once", "warns once about more than 100 missed runs",
		"leaves alone a Job of the same name", "names Jobs after their scheduled time", "builds the Job from the template",
		"writes what it observed to the status", "does nothing, and no error, for a CronJob that is gone",
		"spells the next run in the CronJob's time zone", "does not replace the Job it just created",
		"keeps going after a failed delete", "does not count a Job that is already being deleted",
	}
	functionNames = []string{
		"CronJobReconciler.Reconcile", "CronJobReconciler.startDueRun", "Schedule.Due", "JobName",
		"CronJobReconciler.pruneHistory", "NewJob", "CronJobReconciler.observeJobs", "nextRunMessage",
	}
)

// functionsPerResult: a stage's functions, each checked by the specs whose
// index it is modulo this.
const functionsPerResult = 4

func specName(stage, i int) string {
	return "CronJob controller " + specContexts[(i+stage)%len(specContexts)] + " " +
		specBehaviours[(i*7+stage)%len(specBehaviours)] // 7 and 30 are coprime: every behaviour once
}

// simulated is one attendee's invented course.
type simulated struct {
	rng    *rand.Rand
	phase  time.Duration // its first check, after the run's start
	stages []simStage
}

type simStage struct {
	index      int // in stageIDs
	start, end time.Time
	wrong      []int // the specs it gets wrong at first, fixed in this order
	hints      int   // hints seen so far
}

// newSimulated plans attendee n's course from t0 for at least span: the
// same n gives the same course, so two runs load the board alike.
func newSimulated(n int, t0 time.Time, every, span time.Duration) *simulated {
	rng := rand.New(rand.NewPCG(uint64(n), 0x0b0a4d))
	s := &simulated{rng: rng, phase: time.Duration(rng.Int64N(int64(every)))}
	at, index := t0, rng.IntN(4)
	for index < len(stageIDs) && at.Before(t0.Add(span)) {
		// Eight to twenty-four checks a stage: a few minutes in a real room.
		long := every * time.Duration(8+rng.IntN(17))
		st := simStage{index: index, start: at, end: at.Add(long)}
		for _, i := range rng.Perm(specsPerStage)[:2+rng.IntN(9)] {
			st.wrong = append(st.wrong, i)
		}
		s.stages = append(s.stages, st)
		at, index = st.end, index+1
	}
	return s
}

// result is the check the attendee makes at now.
func (s *simulated) result(now time.Time) *classwire.Result {
	st := &s.stages[len(s.stages)-1] // the last one lasts: it is passed and checked again
	for i := range s.stages {
		if now.Before(s.stages[i].end) {
			st = &s.stages[i]
			break
		}
	}
	r := &classwire.Result{Stage: stageIDs[st.index], StageStarted: st.start.UTC(), Specs: []classwire.Spec{}, Functions: []classwire.Function{}}
	if s.rng.IntN(25) == 0 {
		return notCompiling(r, st.index, 1+s.rng.IntN(3))
	}
	done := min(1, float64(now.Sub(st.start))/float64(st.end.Sub(st.start)))
	wrong := map[int]bool{}
	for _, i := range st.wrong[min(len(st.wrong), int(done*float64(len(st.wrong)+1))):] {
		wrong[i] = true
	}
	if len(wrong) > 0 && s.rng.IntN(8) == 0 {
		st.hints++
	}
	r.HintsSeen, r.Passed = st.hints, len(wrong) == 0
	for i := range specsPerStage {
		sp := classwire.Spec{Package: "./internal/controller", Name: specName(st.index, i), Status: "passed"}
		if wrong[i] {
			sp.Status, sp.Hint = "failed", fmt.Sprintf("%s.%d", r.Stage, i%9+1)
		}
		r.Specs = append(r.Specs, sp)
	}
	for j := range functionsPerResult {
		f := classwire.Function{Name: functionNames[(st.index+j)%len(functionNames)], Status: "passed"}
		for i := j; i < specsPerStage; i += functionsPerResult {
			f.Ran++
			if !wrong[i] {
				f.Passed++
			}
		}
		if f.Passed < f.Ran {
			f.Status = "failed"
		}
		r.Functions = append(r.Functions, f)
	}
	return r
}

// notCompiling is a check after a save that broke the build: no spec ran,
// the function being edited does not compile, the others were not run.
func notCompiling(r *classwire.Result, stage, errors int) *classwire.Result {
	r.CompileErrors = errors
	for j := range functionsPerResult {
		status := "not run"
		if j == 0 {
			status = "does not compile"
		}
		r.Functions = append(r.Functions, classwire.Function{Name: functionNames[(stage+j)%len(functionNames)], Status: status})
	}
	return r
}
