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
	"strings"
	"testing"
)

// The ratio table compares cronlab with upstream figure by figure, and
// leaves out an N that only one of them ran.
func TestMarkdownGivesARatioForEveryFigure(t *testing.T) {
	results := []result{
		{Controller: "upstream", N: 500, Expected: 1000, Started: 500, SkewP50: 30, SkewP99: 60, SkewMax: 60,
			WritesPerRun: 3, ReadsPerRun: 0, CPUSeconds: 8, PeakRSSMiB: 150},
		{Controller: "cronlab", N: 500, Expected: 1000, Started: 1000, SkewP50: 3, SkewP99: 6, SkewMax: 6.6,
			WritesPerRun: 3, ReadsPerRun: 0.5, CPUSeconds: 4, PeakRSSMiB: 75},
		{Controller: "cronlab", N: 5000, Expected: 10000, Started: 9000},
	}
	md := markdown(results)
	want := "| 500 | 2.00 | 0.10 | 0.10 | 0.11 | 1.00 | - | 0.50 | 0.50 |"
	if !strings.Contains(md, want) {
		t.Errorf("the cronlab / upstream table lacks the row\n%s\nin\n%s", want, md)
	}
	if got := strings.Count(md, "| 5000 | "); got != 1 {
		t.Errorf("N=5000 has no upstream figures, so it belongs in the results table once, and in no ratio table; it is in %d rows:\n%s", got, md)
	}
	if strings.Contains(md, "cronlab / floor") {
		t.Errorf("no floor was measured, yet there is a floor table:\n%s", md)
	}
}

// Reconciles per run are cronlab's alone: the others' rows say "-", not a
// zero that would read as measured.
func TestReconcilesNotMeasuredAreADash(t *testing.T) {
	md := markdown([]result{
		{Controller: "crfloor", N: 500, Expected: 1000, Started: 1000, WritesPerRun: 3, EventsPerRun: 1, ReconcilesPerRun: -1},
		{Controller: "cronlab", N: 500, Expected: 1000, Started: 1000, WritesPerRun: 3, EventsPerRun: 3, ReconcilesPerRun: 2.91},
	})
	for _, row := range []string{"| 500 | crfloor | 1000/1000 | 0.00s | 0.00s | 0.00s | 3.00 | 0.00 | 1.00 | - |",
		"| 500 | cronlab | 1000/1000 | 0.00s | 0.00s | 0.00s | 3.00 | 0.00 | 3.00 | 2.91 |"} {
		if !strings.Contains(md, row) {
			t.Errorf("no row starting\n%s\nin\n%s", row, md)
		}
	}
}

// Under -repeat, each pair of runs gets its ratio row, and the median of
// the pairs is the row to judge by.
func TestRepeatedRunsGiveTheMedianOfTheirRatios(t *testing.T) {
	var results []result
	for rep, p99 := range [][2]float64{{2, 3}, {2.5, 4}, {2, 2.4}} {
		results = append(results,
			result{Controller: "crfloor", N: 500, Repeat: rep + 1, Expected: 1000, Started: 1000, SkewP99: p99[0], ServerCPUSeconds: 10},
			result{Controller: "cronlab", N: 500, Repeat: rep + 1, Expected: 1000, Started: 1000, SkewP99: p99[1], ServerCPUSeconds: -1})
	}
	md := markdown(results)
	for _, row := range []string{
		"| 500 | crfloor #2 | 1000/1000 |",
		"| 500 | cronlab #3 | 1000/1000 |",
		"| 500 #1 | 1.00 | - | 1.50 |",
		"| 500 #2 | 1.00 | - | 1.60 |",
		"| 500 #3 | 1.00 | - | 1.20 |",
		// The median of 1.5, 1.6 and 1.2; the server CPU not measured for cronlab.
		"| 500, median of 3 | 1.00 | - | 1.50 | - | - | - | - | - | - |",
	} {
		if !strings.Contains(md, row) {
			t.Errorf("no row starting\n%s\nin\n%s", row, md)
		}
	}
}

// The alternative manager is compared with the floors and with cronlab
// itself, pair by pair, and the Events floor with the CR floor.
func TestTheAlternativeManagerHasItsOwnRatios(t *testing.T) {
	md := markdown([]result{
		{Controller: "crfloor", N: 500, Expected: 1000, Started: 1000, SkewP99: 2},
		{Controller: "evfloor", N: 500, Expected: 1000, Started: 1000, SkewP99: 3},
		{Controller: "cronlab", N: 500, Expected: 1000, Started: 1000, SkewP99: 2.4},
		{Controller: "cronlab-alt", N: 500, Expected: 1000, Started: 1000, SkewP99: 3.2},
	})
	for table, row := range map[string]string{
		"cronlab-alt / crfloor:": "| 500 | 1.00 | - | 1.60 |",
		"cronlab / cronlab-alt:": "| 500 | 1.00 | - | 0.75 |",
		"evfloor / crfloor:":     "| 500 | 1.00 | - | 1.50 |",
		"cronlab-alt / evfloor:": "| 500 | 1.00 | - | 1.07 |",
		"cronlab / crfloor:":     "| 500 | 1.00 | - | 1.20 |",
	} {
		at := strings.Index(md, table)
		if at < 0 {
			t.Errorf("no table %q in\n%s", table, md)
			continue
		}
		next := strings.Index(md[at+len(table):], " / ")
		if next < 0 {
			next = len(md) - at - len(table)
		}
		if !strings.Contains(md[at:at+len(table)+next], row) {
			t.Errorf("table %q has no row starting\n%s\nin\n%s", table, row, md)
		}
	}
}
