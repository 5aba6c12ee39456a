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

	"cronlab.dev/cronlab/internal/trace"
)

// drawFlows draws the lines between events: a version reaching the cache
// (informer), a cache event asking for a reconcile (cause), a write making
// a version (made), and a stale read to what it missed (missed).
func drawFlows(b *strings.Builder, a *trace.Analysis, ys []int) {
	apiOf := map[string]int{} // key@rv → the api event that showed it
	deletedAt := map[string][]int{}
	for i, e := range a.Events {
		if e.Lane != trace.LaneAPI || e.Object == nil {
			continue
		}
		if e.Kind == trace.Deleted {
			deletedAt[e.Object.Key()] = append(deletedAt[e.Object.Key()], i)
		}
		if _, ok := apiOf[e.Object.Key()+"@"+e.Object.RV]; !ok {
			apiOf[e.Object.Key()+"@"+e.Object.RV] = i
		}
	}
	line := func(class string, from, to int) {
		x1, y1 := laneX(a.Events[from]), ys[from]-4
		x2, y2 := laneX(a.Events[to]), ys[to]-4
		marker := "arrow"
		if class == "missed" {
			marker = "arrow-missed"
		}
		fmt.Fprintf(b, `<path class="flow %s" data-from="%d" data-to="%d" d="M%d,%d C%d,%d %d,%d %d,%d" marker-end="url(#%s)"/>`+"\n",
			class, a.Events[from].Seq, a.Events[to].Seq, x1, y1, x1+(x2-x1)/3, y1, x2-(x2-x1)/3, y2, x2, y2, marker)
	}
	for i, e := range a.Events {
		if e.Object == nil {
			continue
		}
		key := e.Object.Key()
		switch {
		case e.Lane == trace.LaneCache && e.Kind == trace.Deleted:
			if j, ok := lastBefore(deletedAt[key], i); ok {
				line("informer", j, i)
			}
		case e.Lane == trace.LaneCache:
			if j, ok := apiOf[key+"@"+e.Object.RV]; ok {
				line("informer", j, i)
			}
		case e.Kind == trace.Write && e.Error == "" && e.Verb == "delete":
			if j, ok := firstAfter(deletedAt[key], i); ok {
				line("made", i, j)
			}
		case e.Kind == trace.Write && e.Error == "":
			if j, ok := apiOf[key+"@"+e.Object.RV]; ok {
				line("made", i, j)
			}
		}
	}
	for _, r := range a.Reconciles {
		if a.Events[r.Start].ReconcileID == "" {
			continue // called by a spec: no event asked for it
		}
		for _, c := range r.Causes {
			line("cause", c, r.Start)
		}
	}
	for _, s := range a.Stale {
		to := s.Known
		if j, ok := apiOf[s.Object.Key()+"@"+s.ServerRV]; ok && s.Lag != trace.DLag {
			to = j
		}
		line("missed", s.Event, to)
	}
}

// lastBefore is the last of events (in order) before i, firstAfter the
// first after it, or the last one when none is after (our watch of the
// API server may show a deletion after the write that made it returned).
func lastBefore(events []int, i int) (int, bool) {
	best, ok := 0, false
	for _, j := range events {
		if j < i {
			best, ok = j, true
		}
	}
	return best, ok
}

func firstAfter(events []int, i int) (int, bool) {
	for _, j := range events {
		if j > i {
			return j, true
		}
	}
	if len(events) > 0 {
		return events[len(events)-1], true
	}
	return 0, false
}
