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
	"strings"
	"time"

	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
	"cronlab.dev/cronlab/internal/trace"
)

// Lanes draws a trace for the terminal: one row per event, in time order,
// written in its lane's column (the API server, the cache, the Reconcile),
// and under each stale read what it missed. width is the terminal's. A row
// holds one event, so a long one runs on into the columns to its right
// rather than being cut.
func Lanes(l i18n.Lang, a *trace.Analysis, width int) string {
	var b strings.Builder
	fmt.Fprintln(&b, i18n.Wrap(heading(l, a), width))
	fmt.Fprintln(&b, i18n.Indent(i18n.Wrap(Summary(l, a), width-2), "  "))
	fmt.Fprintln(&b)

	side := max((width-6)/4, 22) // the API server's and the cache's columns; the Reconcile's takes the rest
	row := func(n string, lane, text string) string {
		return strings.TrimRight(fmt.Sprintf("%4s  ", n)+strings.Repeat(" ", side*laneIndex(lane))+text, " ")
	}
	heads := fmt.Sprintf("%4s  ", "") + i18n.PadRight(laneName(l, a, trace.LaneAPI), side) +
		i18n.PadRight(laneName(l, a, trace.LaneCache), side) + laneName(l, a, trace.LaneReconcile)
	fmt.Fprintln(&b, heads)
	fmt.Fprintln(&b, "      "+strings.Repeat("─", side-2)+"  "+strings.Repeat("─", side-2)+"  "+strings.Repeat("─", max(width-6-2*side, 20)))

	stale := map[int][]trace.StaleRead{}
	for _, s := range a.Stale {
		stale[s.Event] = append(stale[s.Event], s)
	}
	for i, e := range a.Events {
		fmt.Fprintln(&b, row(fmt.Sprint(e.Seq), e.Lane, indent(a, i)+describe(l, a, i)))
		for _, s := range stale[i] {
			fmt.Fprintln(&b, row("", trace.LaneReconcile, "  "+staleLine(l, a, s)))
		}
	}
	return b.String()
}

// heading is the trace's first line: what it holds, and the clock.
func heading(l i18n.Lang, a *trace.Analysis) string {
	requests := map[string]bool{}
	for _, r := range a.Reconciles {
		requests[r.Request] = true
	}
	s := fmt.Sprintf(l.Tr("%d events", "%d 个事件"), len(a.Events))
	switch len(a.Stale) {
	case 0:
		s += l.Tr(", no stale read", "，没有陈旧的读取")
	case 1:
		s += l.Tr(", 1 stale read", "，1 次陈旧的读取")
	default:
		s += fmt.Sprintf(l.Tr(", %d stale reads", "，%d 次陈旧的读取"), len(a.Stale))
	}
	switch {
	case len(a.Reconciles) == 1:
		s += l.Tr(", 1 reconcile", "，1 次调和")
	case len(requests) == 1:
		s += fmt.Sprintf(l.Tr(", %d reconciles of one CronJob", "，对同一个 CronJob 的 %d 次调和"), len(a.Reconciles))
	case len(a.Reconciles) > 1:
		s += fmt.Sprintf(l.Tr(", %d reconciles of %d CronJobs", "，%d 次调和，涉及 %d 个 CronJob"), len(a.Reconciles), len(requests))
	}
	if len(a.Events) == 0 {
		return s
	}
	var earliest, latest time.Time
	for _, e := range a.Events {
		earliest, latest = minTime(earliest, e.At), maxTime(latest, e.At)
	}
	s += fmt.Sprintf(l.Tr(", %s in all", "，共 %s"), latest.Sub(earliest).Round(time.Millisecond))
	var clockFrom, clockTo time.Time
	for _, e := range a.Events {
		if e.Clock != nil {
			clockFrom, clockTo = minTime(clockFrom, *e.Clock), maxTime(clockTo, *e.Clock)
		}
	}
	switch {
	case clockFrom.IsZero():
	case clockFrom.Equal(clockTo):
		s += fmt.Sprintf(l.Tr("; the Reconciler's clock at %s", "；调和器的时钟停在 %s"), clockFrom.Format("15:04"))
	default:
		s += fmt.Sprintf(l.Tr("; the Reconciler's clock from %s to %s", "；调和器的时钟从 %s 走到 %s"), clockFrom.Format("15:04"), clockTo.Format("15:04"))
	}
	return s
}

func minTime(a, b time.Time) time.Time {
	if a.IsZero() || b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

func laneIndex(lane string) int {
	switch lane {
	case trace.LaneAPI:
		return 0
	case trace.LaneCache:
		return 1
	}
	return 2
}

// indent sets the reads and writes of a reconcile in from its start.
func indent(a *trace.Analysis, i int) string {
	if k := a.Events[i].Kind; k == trace.Read || k == trace.Write {
		return "  "
	}
	return ""
}

// cut shortens s to width columns.
func cut(s string, width int) string {
	if i18n.Width(s) <= width {
		return s
	}
	out := ""
	for _, r := range s {
		if i18n.Width(out+string(r)) > width-1 {
			break
		}
		out += string(r)
	}
	return out + "…"
}
