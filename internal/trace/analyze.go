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

package trace

import (
	"sort"
	"strconv"
	"strings"
)

// The three ways a cache read can be stale (docs/answers/stale-cache.md).
const (
	CLag = "c-lag" // the API server had the object, the cache did not
	ULag = "u-lag" // the cache had an older version than the API server
	DLag = "d-lag" // the cache still had an object the API server had deleted
)

// Analysis is a trace explained.
type Analysis struct {
	Events     []Event
	Reconciles []Reconcile
	// Stale lists the cache reads that were stale, in order.
	Stale []StaleRead
	// versions numbers each object's versions as the trace saw them, from
	// 1: rv 812 of a CronJob may be its v2. Pictures and golden files show
	// these, which do not change from run to run as resourceVersions do.
	versions map[string][]uint64
	hwm      []uint64 // highWater, by event
}

// Reconcile is one call of Reconcile: indexes into Analysis.Events.
type Reconcile struct {
	N       int
	Request string
	Start   int
	End     int // -1 while it had not returned when the trace stopped
	// Causes are the cache events that asked for it since the request's
	// previous reconcile began: more than one were coalesced into this one
	// reconcile by the work queue.
	Causes []int
	// Requeued: no event asked for it, and the previous reconcile of the
	// same request returned RequeueAfter.
	Requeued bool
	Reads    []int
	Writes   []int
}

// StaleRead is a read from the cache that returned less than the API server
// had when the read began.
type StaleRead struct {
	Event int    // the read, an index into Analysis.Events
	Lag   string // CLag, ULag or DLag
	// Object is the object as the cache gave it (u-lag, d-lag) or as the
	// API server had it (c-lag: the cache did not have it).
	Object Ref
	// ServerRV is the API server's version (c-lag, u-lag) or, for d-lag,
	// the last version before the deletion.
	ServerRV string
	// Known is the event that showed the API server had ServerRV (or had
	// deleted the object): a watch event, the answer to a write, a direct read.
	Known int
	// Reconcile is the reconcile the read was part of (its N), 0 for none;
	// Followed are the writes that reconcile made after the read.
	Reconcile int
	Followed  []int
}

// fact is what an event tells about the API server's copy of one object.
type fact struct {
	seq     int
	event   int
	rv      uint64
	deleted bool
}

// Analyze explains a trace.
func Analyze(events []Event) *Analysis {
	a := &Analysis{Events: inOrder(events), versions: map[string][]uint64{}}
	facts := a.serverFacts()
	a.findReconciles()
	a.findStaleReads(facts)
	return a
}

// inOrder sorts a copy of the events by Seq, and then numbers them again
// from 1, after moving each event of the api lane up to the first event
// that shows its version elsewhere (the cache got it, or a write was
// answered with it): our own watch of the API server can deliver a version
// later than the cache's does, but the API server had it first.
func inOrder(events []Event) []Event {
	out := append([]Event(nil), events...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Seq < out[j].Seq })
	first := map[string]int{} // key@rv → the first seq of a cache event or a write with it
	for _, e := range out {
		if e.Object != nil && e.Object.RV != "" && (e.Lane == LaneCache || e.Kind == Write) {
			k := e.Object.Key() + "@" + e.Object.RV
			if _, ok := first[k]; !ok {
				first[k] = e.Seq
			}
		}
	}
	at := make([]float64, len(out))
	for i, e := range out {
		at[i] = float64(e.Seq)
		if e.Lane == LaneAPI && e.Object != nil {
			if s, ok := first[e.Object.Key()+"@"+e.Object.RV]; ok && s < e.Seq {
				at[i] = float64(s) - 0.5
			}
		}
	}
	idx := make([]int, len(out))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(i, j int) bool { return at[idx[i]] < at[idx[j]] })
	sorted := make([]Event, len(out))
	for n, i := range idx {
		sorted[n] = out[i]
		sorted[n].Seq = n + 1
	}
	return sorted
}

// serverFacts collects, per object, what the API server was shown to have,
// and numbers each object's versions.
func (a *Analysis) serverFacts() map[string][]fact {
	facts := map[string][]fact{}
	seen := map[string]map[uint64]bool{}
	note := func(r Ref) uint64 {
		rv, err := strconv.ParseUint(r.RV, 10, 64)
		if err != nil {
			return 0
		}
		if seen[r.Key()] == nil {
			seen[r.Key()] = map[uint64]bool{}
		}
		seen[r.Key()][rv] = true
		return rv
	}
	for i, e := range a.Events {
		for _, item := range e.Items {
			note(item)
		}
		if e.Object == nil {
			continue
		}
		rv := note(*e.Object)
		key := e.Object.Key()
		switch {
		case e.Lane == LaneAPI:
			facts[key] = append(facts[key], fact{e.Seq, i, rv, e.Kind == Deleted})
		case e.Kind == Write && e.Verb == "delete" && (e.Error == "" || e.Error == "NotFound"):
			facts[key] = append(facts[key], fact{e.Seq, i, 0, true})
		case e.Kind == Write && e.Error == "" && rv != 0:
			facts[key] = append(facts[key], fact{e.Seq, i, rv, false})
		case e.Kind == Read && e.Source == FromAPI && e.Error == "" && rv != 0:
			facts[key] = append(facts[key], fact{e.Seq, i, rv, false})
		}
	}
	for key, rvs := range seen {
		for rv := range rvs {
			a.versions[key] = append(a.versions[key], rv)
		}
		sort.Slice(a.versions[key], func(i, j int) bool { return a.versions[key][i] < a.versions[key][j] })
	}
	return facts
}

// Version is the object's version number in this trace (1 for the first
// the trace saw), 0 when rv is not one of them.
func (a *Analysis) Version(r Ref) int {
	rv, err := strconv.ParseUint(r.RV, 10, 64)
	if err != nil {
		return 0
	}
	vs := a.versions[r.Key()]
	i := sort.Search(len(vs), func(i int) bool { return vs[i] >= rv })
	if i < len(vs) && vs[i] == rv {
		return i + 1
	}
	return 0
}

// serverAt is what the API server had of one object when the event seq
// began: its newest version among those the trace was shown before seq,
// and those shown later whose resourceVersion is at most hwm, the highest
// the trace had seen before seq. The API server numbers every write of
// its etcd in one sequence, so a version numbered below one already seen
// was written before it, even when our own watch delivered it later. A
// deletion without a version of its own comes after every version known
// by then.
func serverAt(facts []fact, seq int, hwm uint64) (best fact, ok bool) {
	for _, f := range facts {
		if f.seq >= seq && (f.rv == 0 || f.rv > hwm) {
			continue
		}
		rv := f.rv
		if f.deleted && rv == 0 {
			rv = best.rv
		}
		if !ok || rv > best.rv || (rv == best.rv && f.deleted && !best.deleted) {
			best, ok = fact{f.seq, f.event, rv, f.deleted}, true
		}
	}
	return best, ok
}

// highWater is, for each event, the highest resourceVersion the trace had
// seen before it (serverAt).
func highWater(events []Event) []uint64 {
	out := make([]uint64, len(events))
	var most uint64
	for i, e := range events {
		out[i] = most
		refs := e.Items
		if e.Object != nil {
			refs = append(refs[:len(refs):len(refs)], *e.Object)
		}
		for _, r := range refs {
			if rv, err := strconv.ParseUint(r.RV, 10, 64); err == nil {
				most = max(most, rv)
			}
		}
	}
	return out
}

// findReconciles pairs each start with its end and gathers its reads,
// writes and causes.
func (a *Analysis) findReconciles() {
	byN := map[int]int{} // reconcile number → index in a.Reconciles
	lastStart := map[string]int{}
	lastResult := map[string]string{}
	for i, e := range a.Events {
		if e.Lane != LaneReconcile {
			continue
		}
		if e.Kind == Start {
			r := Reconcile{N: e.Reconcile, Request: e.Request, Start: i, End: -1}
			from := lastStart[e.Request]
			for j := from; j < i; j++ {
				if a.Events[j].Lane == LaneCache && causes(a.Events[j], e.Request) {
					r.Causes = append(r.Causes, j)
				}
			}
			r.Requeued = len(r.Causes) == 0 && strings.HasPrefix(lastResult[e.Request], "requeue")
			lastStart[e.Request] = i + 1
			byN[e.Reconcile] = len(a.Reconciles)
			a.Reconciles = append(a.Reconciles, r)
			continue
		}
		k, ok := byN[e.Reconcile]
		if !ok {
			continue
		}
		r := &a.Reconciles[k]
		switch e.Kind {
		case End:
			r.End = i
			lastResult[r.Request] = e.Result
		case Read:
			r.Reads = append(r.Reads, i)
		case Write:
			r.Writes = append(r.Writes, i)
		}
	}
}

// causes says whether a cache event asks for a reconcile of request, as
// the controller's wiring does: For(CronJob) by its own name, Owns(Job) by
// its controller's.
func causes(e Event, request string) bool {
	if e.Object == nil {
		return false
	}
	ns, name, _ := strings.Cut(request, "/")
	if e.Object.Namespace != ns {
		return false
	}
	switch e.Object.Kind {
	case "CronJob":
		return e.Object.Name == name
	case "Job":
		return e.Object.Owner == name
	}
	return false
}

// findStaleReads compares each cache read with what the API server was
// shown to have when the read began.
func (a *Analysis) findStaleReads(facts map[string][]fact) {
	a.hwm = highWater(a.Events)
	for i, e := range a.Events {
		if e.Kind != Read || e.Source != FromCache {
			continue
		}
		var found []StaleRead
		switch {
		case e.List != nil:
			found = a.staleList(e, facts)
		case e.Object != nil:
			if s, ok := a.staleObject(e, *e.Object, e.Error == "NotFound", facts); ok {
				found = append(found, s)
			}
		}
		for _, s := range found {
			s.Event = i
			s.Reconcile = e.Reconcile
			if k := a.reconcileIndex(e.Reconcile); k >= 0 {
				for _, w := range a.Reconciles[k].Writes {
					if w > i {
						s.Followed = append(s.Followed, w)
					}
				}
			}
			a.Stale = append(a.Stale, s)
		}
	}
}

func (a *Analysis) reconcileIndex(n int) int {
	for k, r := range a.Reconciles {
		if n != 0 && r.N == n {
			return k
		}
	}
	return -1
}

// staleObject: one object as the cache gave it (or did not: missing).
func (a *Analysis) staleObject(e Event, got Ref, missing bool, facts map[string][]fact) (StaleRead, bool) {
	server, ok := serverAt(facts[got.Key()], e.Seq, a.hwm[e.Seq-1])
	if !ok {
		return StaleRead{}, false
	}
	serverRef := got
	serverRef.RV = strconv.FormatUint(server.rv, 10)
	switch {
	case missing && !server.deleted:
		return StaleRead{Lag: CLag, Object: a.ownerOf(serverRef, server.event), ServerRV: serverRef.RV, Known: server.event}, true
	case missing:
		return StaleRead{}, false
	case server.deleted:
		return StaleRead{Lag: DLag, Object: got, ServerRV: serverRef.RV, Known: server.event}, true
	}
	rv, err := strconv.ParseUint(got.RV, 10, 64)
	if err == nil && server.rv > rv {
		return StaleRead{Lag: ULag, Object: got, ServerRV: serverRef.RV, Known: server.event}, true
	}
	return StaleRead{}, false
}

// ownerOf completes a Ref with the owner the event that made it known named.
func (a *Analysis) ownerOf(r Ref, event int) Ref {
	if o := a.Events[event].Object; o != nil && r.Owner == "" {
		r.Owner = o.Owner
	}
	return r
}

// staleList: each item as for a get, and each object the API server had
// that the list asked for and did not get (c-lag).
func (a *Analysis) staleList(e Event, facts map[string][]fact) []StaleRead {
	var out []StaleRead
	got := map[string]bool{}
	for _, item := range e.Items {
		got[item.Key()] = true
		if s, ok := a.staleObject(e, item, false, facts); ok {
			out = append(out, s)
		}
	}
	keys := make([]string, 0, len(facts))
	for key := range facts {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	for _, key := range keys {
		if got[key] {
			continue
		}
		server, ok := serverAt(facts[key], e.Seq, a.hwm[e.Seq-1])
		if !ok || server.deleted {
			continue
		}
		ref := a.ownerOf(*a.Events[server.event].Object, server.event)
		if ref.Kind != e.List.Kind || (e.List.Namespace != "" && ref.Namespace != e.List.Namespace) ||
			(e.List.Owner != "" && ref.OwnerUID != e.List.Owner && ref.Owner != e.List.Owner) {
			continue
		}
		ref.RV = strconv.FormatUint(server.rv, 10)
		out = append(out, StaleRead{Lag: CLag, Object: ref, ServerRV: ref.RV, Known: server.event})
	}
	return out
}
