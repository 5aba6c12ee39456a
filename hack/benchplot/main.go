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

// Command benchplot draws the figures of a `make bench` run
// (bench-results/results.json) as SVG, for docs/performance.md: people
// compare controllers by looking at them, not by reading rows.
//
//   - skew-N.svg, one for each N: the share of the runs that had started
//     by each number of seconds after their scheduled time, one line per
//     controller. A line that ends below 100 % is a controller that did
//     not start every run.
//   - started-n.svg and p99-n.svg, when the run measured more than one N:
//     runs started and the p99 skew against N.
//
// Like docs/performance.md, the figures are in English. It is a module of
// its own (see go.mod) and reads only the JSON, so it needs no
// cluster: `make bench-plots` draws the committed results again.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	in := flag.String("in", "bench-results/results.json", "the results of make bench")
	out := flag.String("out", "", "the directory for the SVG files (default: the directory of -in)")
	prefix := flag.String("prefix", "", "a prefix for the names of the files, e.g. the date of the run")
	figures := flag.String("figures", "skew,against-n", "which figures: skew (one per N), against-n, or both")
	flag.Parse()
	if *out == "" {
		*out = filepath.Dir(*in)
	}
	results, err := load(*in)
	for _, f := range strings.Split(*figures, ",") {
		if err == nil && f != "skew" && f != "against-n" {
			err = fmt.Errorf("-figures: %q is neither skew nor against-n", f)
		}
	}
	if err == nil {
		err = os.MkdirAll(*out, 0o755)
	}
	if err == nil {
		var files []string
		files, err = drawAll(results, *out, *prefix, strings.Split(*figures, ","))
		for _, f := range files {
			fmt.Println(f)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchplot:", err)
		os.Exit(1)
	}
}

// result holds the fields of hack/bench's result that the figures use.
type result struct {
	Controller  string    `json:"controller"`
	N           int       `json:"n"`
	Expected    int       `json:"expectedRuns"`
	Started     int       `json:"startedRuns"`
	SkewP99     float64   `json:"skewP99Seconds"`
	Percentiles []float64 `json:"skewPercentilesSeconds"`
}

func load(path string) ([]result, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w (make bench writes it)", err)
	}
	var results []result
	if err := json.Unmarshal(raw, &results); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(results) == 0 {
		return nil, fmt.Errorf("%s holds no result", path)
	}
	return results, nil
}
