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

import (
	"fmt"
	"html"
	"strings"

	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
	"cronlab.dev/cronlab/internal/trace"
)

// The picture: an SVG with the three lanes as columns and time running
// down, one row per event, as a sequence diagram. Lines show how a version
// travels: from the API server to the cache (the longer the slope, the more
// the cache lagged), from a cache event to the reconcile it asked for, from
// a write to the version it made on the API server. A stale read is red,
// with a dashed line to the newer version it did not see, and the writes
// that followed it in the same reconcile are outlined.
//
// The SVG holds its own style and nothing from the network: docs show it as
// an image, the page of lab trace inline.

const (
	rowH    = 22
	top     = 64
	sideW   = 300 // the API server's and the cache's columns
	recW    = 700
	charW   = 7.2 // monospace 12px
	svgW    = gutter + 2*sideW + recW
	gutter  = 40 // the events' numbers, right-aligned before it
	apiX    = gutter + 12
	cacheX  = apiX + sideW
	recX    = cacheX + sideW
	dotR    = 5
	textGap = 12
)

// laneX is where a lane's dots go; the Reconcile's reads and writes stand
// in from its start and end.
func laneX(e trace.Event) int {
	switch e.Lane {
	case trace.LaneAPI:
		return apiX
	case trace.LaneCache:
		return cacheX
	}
	if e.Kind == trace.Read || e.Kind == trace.Write {
		return recX + 22
	}
	return recX
}

// layout gives each event its row's y; a stale read takes a row more for
// each line of what it missed (staleLines).
func layout(l i18n.Lang, a *trace.Analysis) (ys []int, height int) {
	extra := map[int]int{}
	for _, s := range a.Stale {
		extra[s.Event] += len(staleLines(l, a, s))
	}
	y := top
	ys = make([]int, len(a.Events))
	for i := range a.Events {
		ys[i] = y
		y += rowH * (1 + extra[i])
	}
	return ys, y + 30 + rowH*len(legendLines(l))
}

// legendLines is the legend, wrapped to the picture's width.
func legendLines(l i18n.Lang) []string {
	width := float64(svgW-16) / charW
	return strings.Split(i18n.Wrap(legend(l), int(width)), "\n")
}

// staleLines is what a stale read missed, wrapped to the Reconcile lane.
func staleLines(l i18n.Lang, a *trace.Analysis, s trace.StaleRead) []string {
	x := laneX(trace.Event{Lane: trace.LaneReconcile, Kind: trace.Read})
	width := int(float64(svgW-x-2*textGap) / charW)
	return strings.Split(i18n.Wrap(staleLine(l, a, s), width), "\n")
}

// SVG draws the trace.
func SVG(l i18n.Lang, a *trace.Analysis) string {
	ys, height := layout(l, a)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="trace" width="%d" height="%d" viewBox="0 0 %d %d" font-family="ui-monospace, 'DejaVu Sans Mono', 'Noto Sans Mono CJK SC', 'WenQuanYi Zen Hei Mono', monospace" font-size="12">`+"\n",
		svgW, height, svgW, height)
	b.WriteString(svgStyle)
	fmt.Fprintf(&b, `<rect class="paper" width="%d" height="%d"/>`+"\n", svgW, height)
	for _, lane := range []string{trace.LaneAPI, trace.LaneCache, trace.LaneReconcile} {
		x := laneX(trace.Event{Lane: lane})
		fmt.Fprintf(&b, `<g class="lane" data-lane="%s"><text class="lane-name" x="%d" y="28">%s</text><line class="guide" x1="%d" y1="%d" x2="%d" y2="%d"/></g>`+"\n",
			lane, x-6, esc(laneName(l, a, lane)), x, top-20, x, height-40)
	}
	drawReconcileBars(&b, a, ys)
	drawFlows(&b, a, ys)
	stale := map[int][]trace.StaleRead{}
	followed := map[int]bool{}
	for _, s := range a.Stale {
		stale[s.Event] = append(stale[s.Event], s)
		for _, w := range s.Followed {
			followed[w] = true
		}
	}
	for i, e := range a.Events {
		drawEvent(&b, l, a, i, ys[i], stale[i], followed[i])
		_ = e
	}
	lines := legendLines(l)
	for k, line := range lines {
		fmt.Fprintf(&b, `<text class="legend" x="8" y="%d">%s</text>`+"\n", height-rowH*(len(lines)-k)+4, esc(line))
	}
	b.WriteString("</svg>\n")
	return b.String()
}

const svgStyle = `<style>
.paper{fill:#fff}
.lane-name{font-weight:bold;font-size:14px;fill:#222}
.guide{stroke:#ccc;stroke-width:1}
.bar{fill:#dbe8fb;stroke:#9bb8e6}
.dot{stroke:#333;stroke-width:1}
.api .dot{fill:#4a7bd0}.cache .dot{fill:#6ab06a}.start .dot,.end .dot{fill:#1d3f7a}.read .dot{fill:#fff}.write .dot{fill:#e0a030}
.label,.stale-line{paint-order:stroke;stroke:#fff;stroke-width:4px;stroke-linejoin:round}
.label-bg{fill:#fff;fill-opacity:.92}
.seq{fill:#999;font-size:10px;text-anchor:end}
.label{fill:#222}.spec .label{fill:#666;font-style:italic}
.failed .label{fill:#b00020}
.note .dot{fill:#8a2be2}.note .label{fill:#6a1bb2;font-weight:bold}
.stale .row{fill:#fde2e4}.stale .dot{fill:#d0203a;stroke:#800}
.stale-line{fill:#b00020}
.followed .row{fill:none;stroke:#e08a00;stroke-width:2}
.flow{fill:none;stroke:#9a9a9a;stroke-width:1}
.flow.informer{stroke:#8fc48f}
.flow.cause{stroke:#1d3f7a;stroke-dasharray:2 2}
.flow.made{stroke:#e0a030;stroke-dasharray:4 3}
.flow.missed{stroke:#d0203a;stroke-width:1.5;stroke-dasharray:6 3}
.legend{fill:#555}
</style>
<defs><marker id="arrow" viewBox="0 0 8 8" refX="7" refY="4" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L8,4 L0,8 z" fill="#777"/></marker>
<marker id="arrow-missed" viewBox="0 0 8 8" refX="7" refY="4" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L8,4 L0,8 z" fill="#d0203a"/></marker></defs>
`

func legend(l i18n.Lang) string {
	return l.Tr("+ added · ~ modified · − deleted · vN: the Nth version this trace saw · red: a stale read, its dashed line to what it missed · outlined: the writes that followed it · ✂ what the test did to the loop",
		"+ 新增 · ~ 修改 · − 删除 · vN：追踪记录中的第 N 个版本 · 红色：陈旧的读取，虚线指向它错过的版本 · 加框：随后的写入 · ✂ 测试对循环做的事")
}

// drawReconcileBars shades each reconcile from its start to its end.
func drawReconcileBars(b *strings.Builder, a *trace.Analysis, ys []int) {
	for _, r := range a.Reconciles {
		end := len(a.Events) - 1
		if r.End >= 0 {
			end = r.End
		}
		fmt.Fprintf(b, `<rect class="bar" data-reconcile="%d" x="%d" y="%d" width="10" height="%d"/>`+"\n",
			r.N, recX-5, ys[r.Start]-4, ys[end]-ys[r.Start]+8)
	}
}

func drawEvent(b *strings.Builder, l i18n.Lang, a *trace.Analysis, i, y int, stale []trace.StaleRead, followed bool) {
	e := a.Events[i]
	classes := []string{"event", e.Lane, e.Kind}
	if e.Actor != "" {
		classes = append(classes, e.Actor)
	}
	if e.Error != "" {
		classes = append(classes, "failed")
	}
	if len(stale) > 0 {
		classes = append(classes, "stale")
		for _, s := range stale {
			classes = append(classes, s.Lag)
		}
	}
	if followed {
		classes = append(classes, "followed")
	}
	x := laneX(e)
	width := sideW - 2*textGap
	if e.Lane == trace.LaneReconcile || e.Kind == trace.Note {
		// A note is alone on its row: it may run on into the next lanes.
		width = svgW - x - textGap
	}
	fmt.Fprintf(b, `<g class="%s" data-seq="%d" data-lane="%s">`, strings.Join(classes, " "), e.Seq, e.Lane)
	fmt.Fprintf(b, `<title>%s</title>`, esc(tooltip(l, e)))
	var lines []string
	for _, s := range stale {
		lines = append(lines, staleLines(l, a, s)...)
	}
	if len(stale) > 0 || followed {
		fmt.Fprintf(b, `<rect class="row" x="%d" y="%d" width="%d" height="%d" rx="3"/>`, x-10, y-14, width+14, rowH*(1+len(lines))-2)
	}
	fmt.Fprintf(b, `<text class="seq" x="%d" y="%d">%d</text>`, gutter-8, y, e.Seq)
	fmt.Fprintf(b, `<circle class="dot" cx="%d" cy="%d" r="%d"/>`, x, y-4, dotR)
	text := cut(describe(l, a, i), int(float64(width-textGap)/charW))
	if e.Lane != trace.LaneReconcile && len(stale) == 0 && !followed {
		// Lines to and from other rows cross the side lanes' labels: a
		// plain background keeps the words readable above them.
		fmt.Fprintf(b, `<rect class="label-bg" x="%d" y="%d" width="%d" height="%d"/>`,
			x+textGap-2, y-12, int(float64(i18n.Width(text))*charW)+4, 16)
	}
	fmt.Fprintf(b, `<text class="label" x="%d" y="%d">%s</text>`, x+textGap, y, esc(text))
	for k, line := range lines {
		fmt.Fprintf(b, `<text class="stale-line" x="%d" y="%d">%s</text>`, x+textGap, y+rowH*(k+1), esc(line))
	}
	b.WriteString("</g>\n")
}

// tooltip is an event's details: the wall clock, the Reconciler's, the rv.
func tooltip(l i18n.Lang, e trace.Event) string {
	s := fmt.Sprintf("#%d %s", e.Seq, e.At.Format("15:04:05.000"))
	if e.Clock != nil {
		s += l.Tr("  clock ", "  时钟 ") + e.Clock.Format("2006-01-02 15:04")
	}
	if e.Object != nil {
		s += fmt.Sprintf("  %s %s/%s", e.Object.Kind, e.Object.Namespace, e.Object.Name)
		if e.Object.RV != "" {
			s += " rv " + e.Object.RV
		}
	}
	if e.ReconcileID != "" {
		s += "  reconcileID " + e.ReconcileID
	}
	if e.Result != "" {
		s += "  " + outcome(l, e)
	}
	if e.Patch != "" {
		s += "\n" + cut(e.Patch, 400)
	}
	return s
}

func esc(s string) string { return html.EscapeString(s) }
