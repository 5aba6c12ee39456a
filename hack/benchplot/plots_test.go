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
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// percentiles makes 101 skews rising from low to high.
func percentiles(low, high float64) []float64 {
	var ps []float64
	for i := 0; i <= 100; i++ {
		ps = append(ps, low+(high-low)*float64(i)/100)
	}
	return ps
}

func sample() []result {
	return []result{
		{Controller: "floor", N: 100, Expected: 200, Started: 200, SkewP99: 0.5, Percentiles: percentiles(0.1, 0.5)},
		{Controller: "cronlab", N: 100, Expected: 200, Started: 200, SkewP99: 0.9, Percentiles: percentiles(0.2, 0.9)},
		{Controller: "floor", N: 500, Expected: 1000, Started: 1000, SkewP99: 1.7, Percentiles: percentiles(0.3, 1.7)},
		{Controller: "crfloor", N: 500, Expected: 1000, Started: 1000, SkewP99: 2.7, Percentiles: percentiles(0.5, 2.7)},
		{Controller: "cronlab", N: 500, Expected: 1000, Started: 1000, SkewP99: 3.8, Percentiles: percentiles(0.6, 3.8)},
		{Controller: "upstream", N: 500, Expected: 1000, Started: 503, SkewP99: 60.8, Percentiles: percentiles(1, 60.8)},
	}
}

func TestAFigureForEachNAndOneAgainstN(t *testing.T) {
	dir := t.TempDir()
	files, err := drawAll(sample(), dir, "run-", []string{"skew", "against-n"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	want := []string{"run-skew-100.svg", "run-skew-500.svg", "run-started-n.svg", "run-p99-n.svg"}
	if !slices.Equal(names, want) {
		t.Fatalf("files %v, want %v", names, want)
	}
	svg, err := os.ReadFile(filepath.Join(dir, "run-skew-500.svg"))
	if err != nil {
		t.Fatal(err)
	}
	// Each controller of N = 500 is in the legend, with its p99 and runs.
	for _, legend := range []string{"floor (p99 1.70 s, 1000/1000)", "CR floor (p99 2.70 s, 1000/1000)",
		"cronlab (p99 3.80 s, 1000/1000)", "upstream (p99 60.80 s, 503/1000)"} {
		if !strings.Contains(string(svg), legend) {
			t.Errorf("skew-500.svg has no legend %q", legend)
		}
	}
	svg, err = os.ReadFile(filepath.Join(dir, "run-skew-100.svg"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(svg), "upstream") || strings.Contains(string(svg), "CR floor") {
		t.Error("skew-100.svg names a controller that was not measured at N = 100")
	}
}

// A controller that started half the runs due has a line that ends at 50 %,
// at its largest skew, and rises from its smallest.
func TestTheLineEndsAtTheShareOfRunsStarted(t *testing.T) {
	up := sample()[5]
	points := distribution(up)
	first, last := points[0], points[len(points)-1]
	if first.X != 1 || first.Y != 0 {
		t.Errorf("first point %v, want (1, 0)", first)
	}
	if last.X != 60.8 || last.Y < 50.29 || last.Y > 50.31 {
		t.Errorf("last point %v, want (60.8, 50.3)", last)
	}
	for i := 1; i < len(points); i++ {
		if points[i].X < points[i-1].X || points[i].Y < points[i-1].Y {
			t.Fatalf("the line goes back at point %d: %v after %v", i, points[i], points[i-1])
		}
	}
}

func TestResultsWithoutPercentilesSaySo(t *testing.T) {
	old := sample()[2:] // N = 500 only: against N needs no percentiles
	for i := range old {
		old[i].Percentiles = nil
	}
	path := filepath.Join(t.TempDir(), "results.json")
	raw, _ := json.Marshal(old)
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	results, err := load(path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = drawAll(results, t.TempDir(), "", []string{"skew", "against-n"})
	if err == nil || !strings.Contains(err.Error(), "no result has skew percentiles") {
		t.Errorf("got %v, want an error saying no result has percentiles", err)
	}
	if _, err := load(filepath.Join(t.TempDir(), "none.json")); err == nil || !strings.Contains(err.Error(), "make bench writes it") {
		t.Errorf("a missing file: got %v, want an error saying make bench writes it", err)
	}
}

func TestOnlyTheFiguresAskedFor(t *testing.T) {
	files, err := drawAll(sample(), t.TempDir(), "", []string{"against-n"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	if want := []string{"started-n.svg", "p99-n.svg"}; !slices.Equal(names, want) {
		t.Errorf("files %v, want %v", names, want)
	}
}

// Degenerate runs still draw: one run started (a single skew), every skew
// zero, a controller that started nothing (no point, no line).
func TestRunsWithLittleToDraw(t *testing.T) {
	results := []result{
		{Controller: "floor", N: 100, Expected: 100, Started: 1, SkewP99: 0.5, Percentiles: percentiles(0.5, 0.5)},
		{Controller: "cronlab", N: 100, Expected: 100, Started: 100, SkewP99: 0, Percentiles: percentiles(0, 0)},
		{Controller: "upstream", N: 100, Expected: 100, Started: 0},
		{Controller: "floor", N: 500, Expected: 500, Started: 500, SkewP99: 0, Percentiles: percentiles(0, 0)},
		{Controller: "upstream", N: 500, Expected: 500, Started: 0},
	}
	dir := t.TempDir()
	files, err := drawAll(results, dir, "", []string{"skew", "against-n"})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 4 {
		t.Fatalf("files %v, want skew-100, skew-500, started-n, p99-n", files)
	}
	svg, err := os.ReadFile(filepath.Join(dir, "skew-100.svg"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(svg), "upstream") {
		t.Error("skew-100.svg draws upstream, which started no run")
	}
	_, p99, err := againstN(results)
	if err != nil {
		t.Fatal(err)
	}
	if p99.Y.Min <= 0 || p99.Y.Max <= p99.Y.Min {
		t.Errorf("p99 axis %v to %v: want positive bounds, low below high", p99.Y.Min, p99.Y.Max)
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{100: "100", 5000: "5,000", 10000: "10,000", 1234567: "1,234,567"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

// A run with -repeat has several results per controller and N; the figures
// draw the median one, not the first.
func TestRepeatsAreDrawnByTheirMedianRun(t *testing.T) {
	results := []result{
		{Controller: "cronlab", N: 500, SkewP99: 4.4},
		{Controller: "cronlab", N: 500, SkewP99: 3.1},
		{Controller: "crfloor", N: 500, SkewP99: 2.5},
		{Controller: "cronlab", N: 500, SkewP99: 3.9},
		{Controller: "cronlab", N: 500, SkewP99: 3.5},
	}
	if r, _ := find(results, "cronlab", 500); r.SkewP99 != 3.5 {
		t.Errorf("of four runs (p99 3.1, 3.5, 3.9, 4.4 s), the lower middle one (3.5 s) is drawn; got %.1f s", r.SkewP99)
	}
	if r, _ := find(results, "crfloor", 500); r.SkewP99 != 2.5 {
		t.Errorf("one run is its own median; got %.1f s", r.SkewP99)
	}
	if _, ok := find(results, "upstream", 500); ok {
		t.Error("upstream was not measured, yet find found it")
	}
	if got := count(results, "cronlab", 500); got != 4 {
		t.Errorf("cronlab ran 4 times at N = 500, and its legend must say so; count says %d", got)
	}
}
