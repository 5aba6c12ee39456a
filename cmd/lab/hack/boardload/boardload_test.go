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
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"cronlab.dev/cronlab/cmd/lab/internal/classwire"
)

// The invented results must pass the board's validation, or the board
// would refuse them and the run would measure refusals.
func TestSimulatedResultsAreValid(t *testing.T) {
	t0 := time.Now()
	for n := 1; n <= 50; n++ {
		sim := newSimulated(n, t0, 5*time.Second, 5*time.Minute)
		stages, passed := map[string]bool{}, 0
		for i := range 70 {
			at := t0.Add(time.Duration(i) * 5 * time.Second)
			r := sim.result(at)
			m := classwire.Message{Seq: int64(i + 1), At: at, Result: r}
			if err := (classwire.SendRequest{Messages: []classwire.Message{m}}).Validate(); err != nil {
				t.Fatalf("attendee %d, check %d: %v", n, i, err)
			}
			stages[r.Stage] = true
			if r.Passed {
				passed++
			}
		}
		if len(stages) < 2 || passed == 0 {
			t.Errorf("attendee %d: %d stages and %d passing checks in 5 minutes: the room would not move", n, len(stages), passed)
		}
	}
}

func TestSpecNamesAreGinkgoLength(t *testing.T) {
	for stage := range stageIDs {
		seen := map[string]bool{}
		for i := range specsPerStage {
			name := specName(stage, i)
			if len(name) < 80 || len(name) > 120 {
				t.Errorf("stage %d, spec %d: %d characters: %q", stage, i, len(name), name)
			}
			if seen[name] {
				t.Errorf("stage %d: %q twice", stage, name)
			}
			seen[name] = true
		}
	}
}

func TestDistIsNearestRank(t *testing.T) {
	var ds []time.Duration
	for i := 100; i >= 1; i-- {
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	d := distOf(ds)
	if d.n != 100 || d.p50 != 50*time.Millisecond || d.p95 != 95*time.Millisecond || d.p99 != 99*time.Millisecond || d.max != 100*time.Millisecond {
		t.Errorf("distOf(1..100 ms) = %+v", d)
	}
	if got := distOf([]time.Duration{7}); got.p99 != 7 || got.p50 != 7 {
		t.Errorf("one sample: %+v", got)
	}
	if got := distOf(nil); got.n != 0 {
		t.Errorf("no sample: %+v", got)
	}
}

// The announcement may come in pieces: a line is read once it is whole.
func TestAnnouncementFindsCodeAndKey(t *testing.T) {
	a := &announcement{log: io.Discard, done: make(chan struct{})}
	for _, chunk := range []string{"The class board is up. Class code: LOAD", "RUN\n\nYour page (...):\n    http://127.0.0.1:4", "1234/?key=00ff", "a1\n"} {
		_, _ = a.Write([]byte(chunk))
	}
	select {
	case <-a.done:
	default:
		t.Fatal("not done after both lines")
	}
	if a.code != "LOADRUN" || a.key != "00ffa1" {
		t.Errorf("code %q, key %q", a.code, a.key)
	}
}

func TestFlags(t *testing.T) {
	lab := filepath.Join(t.TempDir(), "lab")
	if err := os.WriteFile(lab, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	c, err := parseFlags([]string{"-lab", lab, "-for", "40s"})
	if err != nil || c.killAt != 20*time.Second || c.attendees != 200 || c.every != 5*time.Second {
		t.Errorf("defaults: %+v, %v", c, err)
	}
	if c, err := parseFlags([]string{"-lab", lab, "-kill-at", "0"}); err != nil || c.killAt != 0 {
		t.Errorf("-kill-at 0: %+v, %v", c, err)
	}
	for _, bad := range [][]string{{"-kill-at", "5m"}, {"-every", "1m", "-for", "30s"}, {"-attendees", "0"}, {"-down", "-1s"}} {
		if _, err := parseFlags(append([]string{"-lab", lab}, bad...)); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}
