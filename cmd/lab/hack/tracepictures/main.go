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

// Command tracepictures makes the pictures of docs/answers from real traces
// of the reference, and checks that they still show what the reference
// does (issue 41):
//
//	make trace-pictures   run the tests that record them, then -write
//	make verify-traces    -check, after make test (CI)
//
// -write copies each picture's trace to docs/answers/traces/NAME.jsonl,
// writes its outline (trace.Outline: what does not change from run to run)
// beside it, and draws docs/answers/img/NAME.svg and NAME.zh-CN.svg.
// -redraw draws the pictures again from the committed traces, when only
// the drawing changed (traceview's words or layout), not what the
// reference does. -check draws each committed trace again and compares it with the
// committed pictures, and compares the outline of the trace that the same
// test has just recorded (make test writes them in bin/lab-state/traces/)
// with the committed outline. A picture can then only change with the
// reference's behaviour, and never silently.
//
// It is beside bin/lab, not in it, because it is the maintainers' and CI's.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
	"cronlab.dev/cronlab/cmd/lab/internal/traceview"
	"cronlab.dev/cronlab/internal/trace"
)

// A picture is drawn from the trace that one test records.
type picture struct {
	name string // docs/answers/img/<name>.svg
	pkg  string // the test's package
	test string // the test's name as bin/lab check gives it: trace.FileName names its file
	// decisions: the outline compared is only the Jobs created and
	// deleted, for a trace whose other writes depend on timing (a real
	// controller, no lag forced); coalesced: at least this many cache
	// events must ask for one reconcile.
	decisions bool
	coalesced int
}

var pictures = []picture{
	{name: "stale-cache-c-lag", pkg: "exercises/stale-cache", test: "c-lag: adopts the Job its cache has not seen, and converges"},
	{name: "stale-cache-u-lag", pkg: "exercises/stale-cache", test: "u-lag: writes status over a stale copy without a conflict or a lost update, and converges"},
	{name: "stale-cache-d-lag", pkg: "exercises/stale-cache", test: "d-lag: takes NotFound on deleting a Job its cache still has as done, and converges"},
	{name: "q6-direct-reads", pkg: "exercises/q6-direct-reads", test: "TestACachedReadRightAfterAWriteIsStaleWhileTheWatchLags"},
	{name: "q5-next-reconcile", pkg: "exercises/q5-next-reconcile", test: "TestTheNextReconcileBeforeTheCacheHasSeenTheJob/random_names"},
	{name: "q4-level-based", pkg: "exercises/q4-level-based", test: "TestManyUpdatesAreCoalescedIntoFewReconciles", decisions: true, coalesced: 20},
}

func main() {
	write := flag.Bool("write", false, "copy the traces and draw the pictures into docs/answers")
	check := flag.Bool("check", false, "fail when a picture is not the drawing of its trace, or the reference no longer does what it shows")
	redraw := flag.Bool("redraw", false, "draw the pictures again from the committed traces (after a change to the drawing only)")
	from := flag.String("traces", "bin/lab-state/traces", "where the tests wrote their traces")
	flag.Parse()
	if n := btoi(*write) + btoi(*check) + btoi(*redraw); n != 1 {
		fmt.Fprintln(os.Stderr, "usage: tracepictures -write|-check|-redraw [-traces dir]")
		os.Exit(2)
	}
	failed := false
	for _, p := range pictures {
		var err error
		switch {
		case *write:
			err = p.write(*from)
		case *redraw:
			err = p.redraw()
		default:
			err = p.check(*from)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", p.name, err)
			failed = true
			continue
		}
		fmt.Printf("%s: ok\n", p.name)
	}
	if failed {
		fmt.Fprintln(os.Stderr, "\nThe pictures of docs/answers no longer match the reference: look at what changed, then make trace-pictures and commit them "+
			"(when only the drawing changed, not the reference: go run ./cmd/lab/hack/tracepictures -redraw).")
		os.Exit(1)
	}
}

func (p picture) fresh(from string) (string, *trace.Analysis, error) {
	path := filepath.Join(from, filepath.Base(p.pkg), trace.FileName(p.test))
	events, err := trace.Load(path)
	if err != nil {
		return path, nil, fmt.Errorf("%w (the test writes it: go test ./%s, or make test)", err, p.pkg)
	}
	return path, trace.Analyze(events), nil
}

func (p picture) files() (traceFile, outlineFile, svgEn, svgZh string) {
	return filepath.Join("docs", "answers", "traces", p.name+".jsonl"),
		filepath.Join("docs", "answers", "traces", p.name+".outline"),
		filepath.Join("docs", "answers", "img", p.name+".svg"),
		filepath.Join("docs", "answers", "img", p.name+".zh-CN.svg")
}

func (p picture) write(from string) error {
	path, a, err := p.fresh(from)
	if err != nil {
		return err
	}
	if err := p.holds(a); err != nil {
		return err
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	traceFile, outlineFile, svgEn, svgZh := p.files()
	for _, dir := range []string{filepath.Dir(traceFile), filepath.Dir(svgEn)} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	for file, content := range map[string]string{
		traceFile:   string(raw),
		outlineFile: p.outline(a),
		svgEn:       traceview.SVG(i18n.English, a),
		svgZh:       traceview.SVG(i18n.Chinese, a),
	} {
		if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func (p picture) check(from string) error {
	if err := p.drawn(); err != nil {
		return err
	}
	_, outlineFile, svgEn, _ := p.files()
	_, fresh, err := p.fresh(from)
	if err != nil {
		return err
	}
	if err := p.holds(fresh); err != nil {
		return err
	}
	if err := same(outlineFile, p.outline(fresh)); err != nil {
		return fmt.Errorf("the reference no longer does what %s shows: %w", svgEn, err)
	}
	return nil
}

// drawn checks that the committed pictures are the drawings of the
// committed trace (make test runs it too: main_test.go).
func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// redraw writes the pictures that drawn compares with.
func (p picture) redraw() error {
	traceFile, _, svgEn, svgZh := p.files()
	committed, err := trace.Load(traceFile)
	if err != nil {
		return err
	}
	a := trace.Analyze(committed)
	for file, l := range map[string]i18n.Lang{svgEn: i18n.English, svgZh: i18n.Chinese} {
		if err := os.WriteFile(file, []byte(traceview.SVG(l, a)), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func (p picture) drawn() error {
	traceFile, _, svgEn, svgZh := p.files()
	committed, err := trace.Load(traceFile)
	if err != nil {
		return err
	}
	a := trace.Analyze(committed)
	for file, l := range map[string]i18n.Lang{svgEn: i18n.English, svgZh: i18n.Chinese} {
		if err := same(file, traceview.SVG(l, a)); err != nil {
			return fmt.Errorf("%s is not the drawing of %s: %w", file, traceFile, err)
		}
	}
	return nil
}

// outline is what is compared of a trace (picture.decisions).
func (p picture) outline(a *trace.Analysis) string {
	out := trace.Outline(a)
	if !p.decisions {
		return out
	}
	var kept []string
	for _, line := range strings.SplitAfter(out, "\n") {
		if strings.HasPrefix(line, "reconcile: create ") || strings.HasPrefix(line, "reconcile: delete ") {
			kept = append(kept, line)
		}
	}
	return strings.Join(kept, "")
}

// holds checks what the picture is there to show, beyond its outline.
func (p picture) holds(a *trace.Analysis) error {
	most := 0
	for _, r := range a.Reconciles {
		most = max(most, len(r.Causes))
	}
	if most < p.coalesced {
		return fmt.Errorf("the picture shows events coalesced into one reconcile, but at most %d asked for one (want %d or more)", most, p.coalesced)
	}
	return nil
}

// same compares a committed file with what it should hold, and says where
// they first differ.
func same(file, want string) error {
	got, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	if string(got) == want {
		return nil
	}
	g, w := strings.Split(string(got), "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Errorf("line %d: committed %q, now %q", i+1, cut(gl), cut(wl))
		}
	}
	return fmt.Errorf("they differ")
}

func cut(s string) string {
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}
