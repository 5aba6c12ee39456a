//go:build browser

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

package traceview

// The page of lab trace in a real browser (headless Chromium, driven by
// chromedp): the two committed traces, in both languages, written to the
// disk and opened from it as a learner would, then read back from the DOM.
// It is behind the build tag "browser" because it needs Chromium:
//
//	make test-trace-browser
//	go test -tags browser -run TestTracePageInABrowser -v ./cmd/lab/internal/traceview/
//
// TRACE_SCREENSHOT=dir writes a PNG of each page there; CHROMIUM names the
// browser when it is not /usr/bin/chromium, chromium or google-chrome.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
	"cronlab.dev/cronlab/internal/trace"
)

// chromium is the browser to drive: $CHROMIUM, or the first of the usual
// names found.
func chromium(t *testing.T) string {
	const how = "install Chromium (Debian/Ubuntu: apt-get install chromium) or set CHROMIUM=/path/to/chrome"
	names := []string{"/usr/bin/chromium", "chromium", "google-chrome"}
	if p := os.Getenv("CHROMIUM"); p != "" {
		names = []string{p}
	}
	for _, p := range names {
		if found, err := exec.LookPath(p); err == nil {
			return found
		}
	}
	t.Fatalf("this test drives a browser and found none of %v: %s", names, how)
	return ""
}

// box is an SVG element's getBBox(), in the SVG's own units.
type box struct{ X, Y, W, H float64 }

func (b box) right() float64 { return b.X + b.W }

// pageView is what the browser shows of a trace's page.
type pageView struct {
	Lang     string
	SVGWidth float64 // the viewBox's
	Lanes    map[string]struct {
		Name string
		Box  box
	}
	Events []struct {
		Seq     int
		Lane    string
		Classes []string
		Label   string
		Box     box
		Stale   []struct {
			Text string
			Box  box
		}
	}
	Flows []struct {
		Classes  []string
		From, To int
	}
	Summary struct {
		Classes []string
		Text    string
	}
	StaleItems []int // the data-seq of ol.stale's items
}

const readPage = `(() => {
  const box = (el) => { const b = el.getBBox(); return {X: b.x, Y: b.y, W: b.width, H: b.height}; };
  const svg = document.querySelector('svg.trace');
  const lanes = {};
  for (const g of svg.querySelectorAll('g.lane')) {
    const name = g.querySelector('text.lane-name');
    lanes[g.dataset.lane] = {Name: name.textContent, Box: box(name)};
  }
  const events = [...svg.querySelectorAll('g.event[data-seq]')].map((g) => {
    const label = g.querySelector('text.label');
    return {Seq: +g.dataset.seq, Lane: g.dataset.lane, Classes: [...g.classList], Label: label.textContent, Box: box(label),
      Stale: [...g.querySelectorAll('text.stale-line')].map((s) => ({Text: s.textContent, Box: box(s)}))};
  });
  const summary = document.querySelector('p.summary');
  return {Lang: document.documentElement.lang, SVGWidth: svg.viewBox.baseVal.width, Lanes: lanes, Events: events,
    Flows: [...svg.querySelectorAll('path.flow')].map((p) => ({Classes: [...p.classList], From: +p.dataset.from, To: +p.dataset.to})),
    Summary: {Classes: [...summary.classList], Text: summary.textContent},
    StaleItems: [...document.querySelectorAll('ol.stale li[data-seq]')].map((li) => +li.dataset.seq)};
})()`

func TestTracePageInABrowser(t *testing.T) {
	began := time.Now()
	exe := chromium(t)
	shots := os.Getenv("TRACE_SCREENSHOT")
	if shots != "" {
		if err := os.MkdirAll(shots, 0o755); err != nil {
			t.Fatal(err)
		}
	}

	// One browser for every page, headless, talking to nothing: the page
	// must load nothing, and Chromium must not call home.
	parent, cancelAll := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancelAll()
	alloc, cancelAlloc := chromedp.NewExecAllocator(parent,
		chromedp.ExecPath(exe),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.WindowSize(1600, 1000),
		chromedp.UserDataDir(t.TempDir()),
	)
	defer cancelAlloc()
	ctx, cancelTab := chromedp.NewContext(alloc, chromedp.WithLogf(t.Logf))
	defer cancelTab()

	// Script errors, console errors and requests to anything but the disk:
	// each fails the page it happened on.
	var mu sync.Mutex
	var problems []string
	if err := chromedp.Listen(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *runtime.EventExceptionThrown:
			d := ev.ExceptionDetails
			text := d.Text
			if d.Exception != nil {
				text += " " + d.Exception.Description
			}
			problems = append(problems, fmt.Sprintf("exception: %s:%d: %s", d.URL, d.LineNumber+1, text))
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
				var args []string
				for _, a := range ev.Args {
					args = append(args, a.Description+string(a.Value))
				}
				problems = append(problems, "console."+string(ev.Type)+": "+strings.Join(args, " "))
			}
		case *log.EventEntryAdded:
			if ev.Entry.Level == log.EntryLevelError {
				problems = append(problems, fmt.Sprintf("console: %s (%s)", ev.Entry.Text, ev.Entry.URL))
			}
		case *network.EventRequestWillBeSent:
			if u := ev.Request.URL; !strings.HasPrefix(u, "file://") && !strings.HasPrefix(u, "data:") {
				problems = append(problems, "a request to the network: "+u)
			}
		}
	}); err != nil {
		t.Fatalf("starting %s: %v", exe, err)
	}
	t.Logf("Chromium started in %v", time.Since(began).Round(time.Millisecond))

	dir := t.TempDir()
	for _, name := range []string{"c-lag", "coalesced"} {
		events, err := trace.Load(filepath.Join("testdata", name+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		a := trace.Analyze(events)
		for _, l := range []i18n.Lang{i18n.English, i18n.Chinese} {
			t.Run(name+"/"+string(l), func(t *testing.T) {
				file := filepath.Join(dir, name+"."+string(l)+".html")
				if err := os.WriteFile(file, []byte(Page(l, name, a)), 0o644); err != nil {
					t.Fatal(err)
				}
				mu.Lock()
				problems = nil
				mu.Unlock()
				if err := chromedp.Do(ctx, chromedp.Navigate("file://"+file)); err != nil {
					t.Fatal(err)
				}
				raw, err := chromedp.Run(ctx, chromedp.Evaluate[json.RawMessage](readPage))
				if err != nil {
					t.Fatalf("reading the page: %v", err)
				}
				var p pageView
				if err := json.Unmarshal(raw, &p); err != nil {
					t.Fatalf("reading the page: %v in %s", err, raw)
				}
				if shots != "" {
					png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
					if err != nil {
						t.Fatal(err)
					}
					shot := filepath.Join(shots, name+"."+string(l)+".png")
					if err := os.WriteFile(shot, png, 0o644); err != nil {
						t.Fatal(err)
					}
					t.Logf("wrote %s", shot)
				}
				checkPage(t, l, name, a, &p)
				mu.Lock()
				defer mu.Unlock()
				if len(problems) > 0 {
					t.Errorf("the page reported:\n%s", strings.Join(problems, "\n"))
				}
			})
		}
	}
	t.Logf("the whole test took %v", time.Since(began).Round(time.Millisecond))
}

// checkPage compares what the browser shows with the analysis.
func checkPage(t *testing.T, l i18n.Lang, name string, a *trace.Analysis, p *pageView) {
	zh := l == i18n.Chinese
	tr := func(en, zhText string) string {
		if zh {
			return zhText
		}
		return en
	}
	if want := tr("en", "zh-CN"); p.Lang != want {
		t.Errorf("<html lang=%q>, want %q", p.Lang, want)
	}

	// The lanes, named in the page's language.
	for _, lane := range []struct{ id, name string }{
		{trace.LaneAPI, tr("API server", "API 服务器")},
		{trace.LaneCache, tr("cache (informer)", "缓存（informer）")},
		{trace.LaneReconcile, tr("Reconcile", "Reconcile（调和）")},
	} {
		got, ok := p.Lanes[lane.id]
		switch {
		case !ok:
			t.Errorf("no g.lane[data-lane=%s]", lane.id)
		case lane.id == trace.LaneReconcile && !strings.HasPrefix(got.Name, lane.name),
			lane.id != trace.LaneReconcile && got.Name != lane.name:
			t.Errorf("the %s lane is named %q, want %q", lane.id, got.Name, lane.name)
		}
	}
	if w := p.Lanes[trace.LaneReconcile].Box.W; w <= 0 {
		t.Errorf("the Reconcile lane's name is %v wide: the SVG was not laid out", w)
	}
	if api, cache, rec := p.Lanes[trace.LaneAPI].Box, p.Lanes[trace.LaneCache].Box, p.Lanes[trace.LaneReconcile].Box; api.right() > cache.X || cache.right() > rec.X {
		t.Errorf("the lanes' names overlap: api %+v, cache %+v, reconcile %+v", api, cache, rec)
	}

	// Every event, marked as the analysis says.
	stale := map[int][]string{} // event index → its lags
	followed := map[int]bool{}
	for _, s := range a.Stale {
		stale[s.Event] = append(stale[s.Event], s.Lag)
		for _, w := range s.Followed {
			followed[w] = true
		}
	}
	if len(p.Events) != len(a.Events) {
		t.Errorf("%d g.event[data-seq] in the SVG, the trace has %d events", len(p.Events), len(a.Events))
	}
	bySeq := map[int]int{}
	for k, ev := range p.Events {
		bySeq[ev.Seq] = k
	}
	markedStale := 0
	for i, e := range a.Events {
		k, ok := bySeq[e.Seq]
		if !ok {
			t.Errorf("event %d has no g.event[data-seq=%d]", i, e.Seq)
			continue
		}
		ev := p.Events[k]
		has := func(class string) bool { return slices.Contains(ev.Classes, class) }
		if ev.Lane != e.Lane || !has(e.Lane) || !has(e.Kind) {
			t.Errorf("event %d (%s %s) is drawn in lane %q with classes %v", e.Seq, e.Lane, e.Kind, ev.Lane, ev.Classes)
		}
		if ev.Box.W <= 0 || ev.Label == "" {
			t.Errorf("event %d's label %q is %v wide", e.Seq, ev.Label, ev.Box.W)
		}
		if has("failed") != (e.Error != "") {
			t.Errorf("event %d has error %q, classes %v", e.Seq, e.Error, ev.Classes)
		}
		if has("followed") != followed[i] {
			t.Errorf("event %d: classes %v, followed a stale read: %v", e.Seq, ev.Classes, followed[i])
		}
		lags := stale[i]
		var said []string // what the page should say under the read: each stale read, wrapped
		for _, s := range a.Stale {
			if s.Event == i {
				said = append(said, staleLines(l, a, s)...)
			}
		}
		var shown []string
		for _, s := range ev.Stale {
			shown = append(shown, s.Text)
		}
		if has("stale") != (len(lags) > 0) || !slices.Equal(shown, said) {
			t.Errorf("event %d: classes %v and stale lines %q, the analysis finds %d stale read(s) %v, said %q", e.Seq, ev.Classes, shown, len(lags), lags, said)
		}
		if has("stale") {
			markedStale++
		}
		for _, lag := range []string{trace.CLag, trace.ULag, trace.DLag} {
			if has(lag) != slices.Contains(lags, lag) {
				t.Errorf("event %d: classes %v, the analysis finds %v", e.Seq, ev.Classes, lags)
			}
		}
		for _, lag := range lags {
			if want := tr("stale ("+lag+")", "陈旧（"+lag+"）"); !strings.Contains(strings.Join(shown, " "), want) {
				t.Errorf("event %d: the stale lines %q do not say %q", e.Seq, shown, want)
			}
		}
		// A stale read's words are what the page is for: not cut by the SVG's edge.
		if len(lags) > 0 {
			if ev.Box.right() > p.SVGWidth {
				t.Errorf("event %d's label %q ends at x=%.1f, past the SVG's width %.0f", e.Seq, ev.Label, ev.Box.right(), p.SVGWidth)
			}
			for _, s := range ev.Stale {
				if s.Box.W <= 0 || s.Box.right() > p.SVGWidth {
					t.Errorf("event %d's stale line %q spans x=%.1f..%.1f, the SVG is %.0f wide", e.Seq, s.Text, s.Box.X, s.Box.right(), p.SVGWidth)
				}
			}
		}
	}
	if markedStale != len(stale) {
		t.Errorf("%d events marked stale, the analysis finds %d stale reads", markedStale, len(stale))
	}

	// A stale read has a dashed line from it to what it missed.
	count := func(class string, from, to int) int {
		n := 0
		for _, f := range p.Flows {
			if slices.Contains(f.Classes, class) && (from == 0 || f.From == from) && (to == 0 || f.To == to) {
				n++
			}
		}
		return n
	}
	if got := count("missed", 0, 0); got != len(a.Stale) {
		t.Errorf("%d path.flow.missed, the analysis finds %d stale reads", got, len(a.Stale))
	}
	var staleSeqs []int
	for _, s := range a.Stale {
		seq := a.Events[s.Event].Seq
		if count("missed", seq, 0) == 0 {
			t.Errorf("no path.flow.missed from the stale read %d (%s)", seq, s.Lag)
		}
		if !slices.Contains(staleSeqs, seq) {
			staleSeqs = append(staleSeqs, seq)
		}
	}
	if !slices.Equal(p.StaleItems, staleSeqs) {
		t.Errorf("ol.stale lists events %v, the stale reads are %v", p.StaleItems, staleSeqs)
	}
	// A reconcile that a cache event asked for has a line from each.
	causes := 0
	for _, r := range a.Reconciles {
		if a.Events[r.Start].ReconcileID != "" {
			causes += len(r.Causes)
		}
	}
	if got := count("cause", 0, 0); got != causes {
		t.Errorf("%d path.flow.cause, the analysis finds %d causes of reconciles", got, causes)
	}
	hasStale := slices.Contains(p.Summary.Classes, "has-stale")
	if hasStale != (len(a.Stale) > 0) {
		t.Errorf("the summary's classes are %v with %d stale reads", p.Summary.Classes, len(a.Stale))
	}

	switch name {
	case "c-lag":
		// The second reconcile reads a stale CronJob and a stale list of
		// Jobs, then its create meets the Job the first one made.
		var lags []string
		for _, s := range a.Stale {
			lags = append(lags, s.Lag)
		}
		slices.Sort(lags)
		if !slices.Equal(lags, []string{trace.CLag, trace.ULag}) || len(stale) != 2 {
			t.Fatalf("the analysis of c-lag finds stale reads %v in %d events, want one c-lag and one u-lag", lags, len(stale))
		}
		for _, lag := range []string{trace.CLag, trace.ULag} {
			n := 0
			for _, ev := range p.Events {
				if slices.Contains(ev.Classes, "stale") && slices.Contains(ev.Classes, lag) {
					n++
				}
			}
			if n != 1 {
				t.Errorf("%d events marked stale %s, want 1", n, lag)
			}
		}
		creates := 0
		for _, e := range a.Events {
			if e.Kind == trace.Write && e.Verb == "create" && e.Error == "AlreadyExists" {
				creates++
				ev := p.Events[bySeq[e.Seq]]
				if !slices.Contains(ev.Classes, "followed") || !slices.Contains(ev.Classes, "failed") {
					t.Errorf("the create that got AlreadyExists (event %d) has classes %v, want followed and failed", e.Seq, ev.Classes)
				}
			}
		}
		if creates != 1 {
			t.Errorf("%d creates got AlreadyExists in c-lag, want 1", creates)
		}
		if want := Summary(l, a); !hasStale || p.Summary.Text != want {
			t.Errorf("the summary (classes %v) says %q, want %q", p.Summary.Classes, p.Summary.Text, want)
		}
	case "coalesced":
		if len(stale) != 0 {
			t.Errorf("coalesced has stale reads: %v", a.Stale)
		}
		if want := tr("no read was stale", "没有陈旧的读取"); hasStale || !strings.HasPrefix(p.Summary.Text, want) {
			t.Errorf("the summary (classes %v) says %q, want it to start with %q", p.Summary.Classes, p.Summary.Text, want)
		}
		// The CronJob's updates reach the cache before the first reconcile
		// starts: the work queue coalesces the 31 cache events into that
		// one reconcile, and each has its line to its start.
		r := slices.MaxFunc(a.Reconciles, func(x, y trace.Reconcile) int { return len(x.Causes) - len(y.Causes) })
		start := a.Events[r.Start].Seq
		if len(r.Causes) <= 30 {
			t.Fatalf("in coalesced, reconcile %d has the most causes, %d; want more than 30", r.N, len(r.Causes))
		}
		if got := count("cause", 0, start); got != len(r.Causes) {
			t.Errorf("%d path.flow.cause end at the start of reconcile %d (event %d), want its %d causes", got, r.N, start, len(r.Causes))
		}
		if label := p.Events[bySeq[start]].Label; !strings.Contains(label, fmt.Sprint(len(r.Causes))) {
			t.Errorf("the start of reconcile %d says %q, not how many cache events it coalesced (%d)", r.N, label, len(r.Causes))
		}
	}
}
