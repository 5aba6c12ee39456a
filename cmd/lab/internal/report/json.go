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

package report

// `lab check --json`: the result of a check for an instructor's tools, in a
// shape that stays stable (docs/lab-json.md; version 1). Human output is for
// people and may change; this may only gain fields.

import (
	"encoding/json"
	"io"
	"strings"

	"cronlab.dev/cronlab/cmd/lab/internal/functions"
	"cronlab.dev/cronlab/cmd/lab/internal/gotest"
	"cronlab.dev/cronlab/cmd/lab/internal/hints"
	"cronlab.dev/cronlab/cmd/lab/internal/stage"
)

type Check struct {
	Version int `json:"version"` // 1
	// Stage is the stage's number ("06"), its place in the list today;
	// Slug its name ("scheduling"), which stays when stages are added
	// before it, and which hint ids begin with.
	Stage  string `json:"stage"`
	Slug   string `json:"slug"`
	Title  string `json:"title"`
	Passed bool   `json:"passed"`
	// Error says in a line why the stage does not pass; "" when it does.
	Error string        `json:"error,omitempty"`
	Tests []checkedTest `json:"tests"`
	// Functions is the result per function the stage asks for (package functions).
	Functions []functions.Result `json:"functions"`
}

// checkedTest is one package of the stage's tests (stage.yaml's tests).
type checkedTest struct {
	Package       string                `json:"package"`
	Specs         []checkedSpec         `json:"specs"`
	CompileErrors []gotest.CompileError `json:"compileErrors"`
	VetErrors     []string              `json:"vetErrors"`
	// ConflictMarkers are merge conflict markers left in the code (file:line);
	// NotChecked says why the rest was not checked when the code does not
	// compile and its broken functions could not be stubbed.
	ConflictMarkers []string `json:"conflictMarkers,omitempty"`
	NotChecked      string   `json:"notChecked,omitempty"`
}

type checkedSpec struct {
	Name     string `json:"name"`
	Status   string `json:"status"` // passed or failed
	Message  string `json:"message,omitempty"`
	Location string `json:"location,omitempty"` // file:line of the failing assertion
	Panic    string `json:"panic,omitempty"`
	Hint     string `json:"hint,omitempty"` // the id of the hint for this failure: lab hint shows it
	// Subtests are a failed Go test's failing subtests, which say what
	// failed: they are part of the test, not specs of their own.
	Subtests []checkedSpec `json:"subtests,omitempty"`
}

func NewCheck(dir string, s stage.Stage, rs []gotest.Results, err error) Check {
	r := Check{Version: 1, Stage: s.Num, Slug: s.Slug, Title: s.Title, Passed: err == nil, Tests: []checkedTest{},
		Functions: append([]functions.Result{}, functions.Verdicts(s, dir, rs)...)}
	if err != nil {
		r.Error = err.Error()
	}
	for i, res := range rs {
		t := checkedTest{Package: s.Tests[i].Package, Specs: []checkedSpec{}, CompileErrors: []gotest.CompileError{}, VetErrors: []string{}}
		failures := map[string]gotest.Failure{}
		for _, f := range res.Failures {
			failures[f.Name] = f
		}
		// The specs are what the check counts (gotest.Results.Counts): the
		// terminal, this and the class board say the same numbers.
		for _, o := range res.Outcomes {
			spec := checkedSpec{Name: o.Name, Status: o.Status}
			if f, ok := failures[o.Name]; ok {
				spec.Message, spec.Location, spec.Panic = f.Message, f.Location, f.Panic
				hint := hints.For(s, f)
				for _, sub := range res.Failures {
					if !res.IsSubtest(sub.Name) || !strings.HasPrefix(sub.Name, o.Name+"/") {
						continue
					}
					h := hints.For(s, sub)
					spec.Subtests = append(spec.Subtests, checkedSpec{Name: sub.Name, Status: "failed", Message: sub.Message,
						Location: sub.Location, Panic: sub.Panic, Hint: h.ID})
					// A test says nothing of its own when a subtest failed:
					// the hint tied to a subtest is the test's.
					if hint.When == "" && h.When != "" {
						hint = h
					}
				}
				spec.Hint = hint.ID
			}
			t.Specs = append(t.Specs, spec)
		}
		// A failure of a suite's setup (BeforeSuite) is no spec, but it is
		// why none ran: it is reported as one.
		for _, f := range res.NodeFailures() {
			t.Specs = append(t.Specs, checkedSpec{Name: f.Name, Status: "failed", Message: f.Message,
				Location: f.Location, Panic: f.Panic, Hint: hints.For(s, f).ID})
		}
		for _, e := range res.BuildErrors {
			t.CompileErrors = append(t.CompileErrors, gotest.PlaceCompileError(dir, e))
		}
		t.VetErrors = append(t.VetErrors, res.VetErrors...)
		t.ConflictMarkers, t.NotChecked = res.Markers, res.NoRest
		r.Tests = append(r.Tests, t)
	}
	return r
}

func (r Check) Write(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
