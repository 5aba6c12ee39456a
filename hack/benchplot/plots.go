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
	"cmp"
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The same controller has the same name, colour and dashes in every figure.
var controllers = []struct {
	key, name string
	color     color.RGBA
	dashes    []vg.Length
}{
	{"floor", "floor", color.RGBA{R: 120, G: 120, B: 120, A: 255}, []vg.Length{vg.Points(2), vg.Points(2)}},
	{"crfloor", "CR floor", color.RGBA{R: 31, G: 119, B: 180, A: 255}, []vg.Length{vg.Points(6), vg.Points(3)}},
	{"evfloor", "Events floor", color.RGBA{R: 148, G: 103, B: 189, A: 255}, []vg.Length{vg.Points(6), vg.Points(2), vg.Points(2), vg.Points(2)}},
	{"evsinkfloor", "Events floor, one writer", color.RGBA{R: 227, G: 119, B: 194, A: 255}, []vg.Length{vg.Points(3), vg.Points(3)}},
	{"watchfloor", "watch floor", color.RGBA{R: 140, G: 86, B: 75, A: 255}, []vg.Length{vg.Points(4), vg.Points(2), vg.Points(1), vg.Points(2)}},
	{"cronlab", "cronlab", color.RGBA{R: 44, G: 160, B: 44, A: 255}, nil},
	{"cronlab-alt", "cronlab (other flags)", color.RGBA{R: 255, G: 127, B: 14, A: 255}, []vg.Length{vg.Points(1), vg.Points(2)}},
	{"upstream", "upstream", color.RGBA{R: 214, G: 39, B: 40, A: 255}, nil},
}

// drawAll writes the figures asked for (skew, against-n) that results allow
// into dir and returns the files written.
func drawAll(results []result, dir, prefix string, figures []string) ([]string, error) {
	var files []string
	save := func(p *plot.Plot, name string) error {
		path := filepath.Join(dir, prefix+name)
		if err := p.Save(6*vg.Inch, 3.6*vg.Inch, path); err != nil {
			return err
		}
		files = append(files, path)
		return nil
	}
	var skewSizes []int
	if slices.Contains(figures, "skew") {
		skewSizes = sizes(results)
	}
	for _, n := range skewSizes {
		p, err := skewDistribution(results, n)
		if err != nil {
			return files, err
		}
		if p == nil {
			continue
		}
		if err := save(p, fmt.Sprintf("skew-%d.svg", n)); err != nil {
			return files, err
		}
	}
	if len(sizes(results)) > 1 && slices.Contains(figures, "against-n") {
		started, p99, err := againstN(results)
		if err != nil {
			return files, err
		}
		if err := save(started, "started-n.svg"); err != nil {
			return files, err
		}
		if err := save(p99, "p99-n.svg"); err != nil {
			return files, err
		}
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("nothing to draw: no result has skew percentiles (results.json from a bench before they were recorded?), or one N only for -figures against-n")
	}
	return files, nil
}

func sizes(results []result) []int {
	var ns []int
	for _, r := range results {
		if !slices.Contains(ns, r.N) {
			ns = append(ns, r.N)
		}
	}
	slices.Sort(ns)
	return ns
}

// skewDistribution draws, for one N, the share of the runs due that had
// started by each skew: the p-th percentile of the runs started is the
// point (skew, p × started / due). nil when no result of that N has
// percentiles.
func skewDistribution(results []result, n int) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("When the runs of %s CronJobs started", thousands(n))
	p.X.Label.Text = "seconds after the scheduled time (log scale)"
	p.Y.Label.Text = "runs started (% of runs due)"
	// Room above 100 % for the legend, out of the lines' way.
	p.Y.Min, p.Y.Max = 0, 140
	p.Y.Tick.Marker = percentTicks
	// Skews run from tenths of a second to a minute: on a log scale the
	// controllers that start every run within seconds do not crowd into
	// the left edge.
	p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
	p.Legend.Top, p.Legend.Left = true, true
	p.Add(plotter.NewGrid())
	// A log axis needs positive bounds, and gonum widens a range of one
	// value below zero: the bounds are set here, not left to the data.
	p.X.Min, p.X.Max = math.Inf(1), 0
	drawn := 0
	for _, c := range controllers {
		r, ok := find(results, c.key, n)
		if !ok || len(r.Percentiles) == 0 || r.Expected == 0 || r.Started == 0 {
			continue
		}
		points := distribution(r)
		p.X.Min, p.X.Max = min(p.X.Min, points[0].X), max(p.X.Max, points[len(points)-1].X)
		line, err := plotter.NewLine(points)
		if err != nil {
			return nil, fmt.Errorf("%s, N=%d: %w", c.key, n, err)
		}
		style(line, c.color, c.dashes)
		p.Add(line)
		label := fmt.Sprintf("%s (p99 %.2f s, %d/%d)", c.name, r.SkewP99, r.Started, r.Expected)
		switch runs := count(results, c.key, n); {
		case runs > 1 && runs%2 == 1:
			label = fmt.Sprintf("%s (p99 %.2f s, %d/%d; the median of %d runs)", c.name, r.SkewP99, r.Started, r.Expected, runs)
		case runs > 1:
			label = fmt.Sprintf("%s (p99 %.2f s, %d/%d; the lower middle of %d runs)", c.name, r.SkewP99, r.Started, r.Expected, runs)
		}
		p.Legend.Add(label, line)
		drawn++
	}
	if drawn == 0 {
		return nil, nil
	}
	p.X.Min, p.X.Max = logBounds(p.X.Min, p.X.Max)
	return p, nil
}

// logBounds widens [low, high] to a range a log axis can draw: from the
// power of ten at or below low to at least ten times that.
func logBounds(low, high float64) (float64, float64) {
	low = math.Pow(10, math.Floor(math.Log10(max(low, 0.01))))
	return low, max(high, 10*low)
}

// distribution is one controller's line: the i-th of the percentiles is
// the skew by which i % of the runs started had started, and the runs
// started are a share of those due.
func distribution(r result) plotter.XYs {
	share := 100 * float64(r.Started) / float64(r.Expected)
	points := make(plotter.XYs, len(r.Percentiles))
	for i, skew := range r.Percentiles {
		// A log scale has no 0; no run starts within 10 ms anyway.
		points[i] = plotter.XY{X: max(skew, 0.01), Y: share * float64(i) / float64(len(r.Percentiles)-1)}
	}
	return points
}

// againstN draws one figure of each controller's runs started (% of runs
// due) against N, and one of its p99 skew.
func againstN(results []result) (started, p99 *plot.Plot, err error) {
	started, p99 = plot.New(), plot.New()
	started.Title.Text = "Runs started, against the number of CronJobs"
	started.Y.Label.Text = "runs started (% of runs due)"
	started.Y.Min, started.Y.Max = 0, 105
	started.Y.Tick.Marker = percentTicks
	started.Legend.Top, started.Legend.Left = false, true
	p99.Title.Text = "p99 skew, against the number of CronJobs"
	p99.Y.Label.Text = "p99 skew, seconds (log scale)"
	p99.Y.Scale, p99.Y.Tick.Marker = plot.LogScale{}, secondTicks
	p99.Legend.Top, p99.Legend.Left = true, true
	// The ticks of N are the N measured.
	var measured plot.ConstantTicks
	for _, n := range sizes(results) {
		measured = append(measured, plot.Tick{Value: float64(n), Label: thousands(n)})
	}
	lowP99, highP99 := math.Inf(1), 0.0
	for _, r := range results {
		if r.Started > 0 {
			lowP99, highP99 = min(lowP99, max(r.SkewP99, 0.01)), max(highP99, r.SkewP99)
		}
	}
	p99.Y.Min, p99.Y.Max = logBounds(lowP99, highP99)
	// Room above the lines for the legend.
	p99.Y.Max *= 8
	ns := sizes(results)
	for _, p := range []*plot.Plot{started, p99} {
		p.X.Min, p.X.Max = float64(ns[0])/1.3, float64(ns[len(ns)-1])*1.3
		p.X.Label.Text = "CronJobs, all on one schedule (log scale)"
		p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, measured
		p.Add(plotter.NewGrid())
	}
	for _, c := range controllers {
		var shares, p99s plotter.XYs
		for _, n := range sizes(results) {
			if r, ok := find(results, c.key, n); ok && r.Expected > 0 {
				shares = append(shares, plotter.XY{X: float64(n), Y: 100 * float64(r.Started) / float64(r.Expected)})
				// A controller that started nothing has no skew: no point,
				// rather than one drawn as the best p99.
				if r.Started > 0 {
					p99s = append(p99s, plotter.XY{X: float64(n), Y: max(r.SkewP99, 0.01)})
				}
			}
		}
		if len(shares) == 0 {
			continue
		}
		for _, a := range []struct {
			p      *plot.Plot
			points plotter.XYs
		}{{started, shares}, {p99, p99s}} {
			if len(a.points) == 0 {
				continue
			}
			line, dots, err := plotter.NewLinePoints(a.points)
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %w", c.key, err)
			}
			style(line, c.color, c.dashes)
			dots.Color, dots.Shape = c.color, draw.CircleGlyph{}
			a.p.Add(line, dots)
			a.p.Legend.Add(c.name, line, dots)
		}
	}
	return started, p99, nil
}

var percentTicks = plot.ConstantTicks{{Value: 0, Label: "0"}, {Value: 25, Label: "25"},
	{Value: 50, Label: "50"}, {Value: 75, Label: "75"}, {Value: 100, Label: "100"}}

var secondTicks = plot.ConstantTicks{{Value: 0.01, Label: "0.01"}, {Value: 0.1, Label: "0.1"}, {Value: 0.3, Label: "0.3"}, {Value: 1, Label: "1"},
	{Value: 3, Label: "3"}, {Value: 10, Label: "10"}, {Value: 30, Label: "30"}, {Value: 60, Label: "60"}}

// thousands writes 5000 as 5,000, as docs/performance.md does.
func thousands(n int) string {
	if n < 1000 {
		return fmt.Sprint(n)
	}
	return fmt.Sprintf("%s,%03d", thousands(n/1000), n%1000)
}

func style(l *plotter.Line, c color.RGBA, dashes []vg.Length) {
	l.Color = c
	l.Width = vg.Points(1.6)
	l.Dashes = dashes
}

// find is a controller's result for n. A bench run with -repeat has
// several; the figures draw the one with the median p99 (the lower middle
// one of an even number), so that one lucky or unlucky run does not stand
// for the controller.
func find(results []result, controller string, n int) (result, bool) {
	var runs []result
	for _, r := range results {
		if r.Controller == controller && r.N == n {
			runs = append(runs, r)
		}
	}
	if len(runs) == 0 {
		return result{}, false
	}
	slices.SortStableFunc(runs, func(a, b result) int { return cmp.Compare(a.SkewP99, b.SkewP99) })
	return runs[(len(runs)-1)/2], true
}

// count is how many runs of a controller at n the results hold.
func count(results []result, controller string, n int) int {
	runs := 0
	for _, r := range results {
		if r.Controller == controller && r.N == n {
			runs++
		}
	}
	return runs
}
