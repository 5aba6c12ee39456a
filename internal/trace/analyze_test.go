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
	"strings"
	"testing"
)

// Traces made by hand, one line per event, to pin down what Analyze calls
// stale. ev builds an event: lane/kind, then key=value pairs.
func ev(seq int, lane, kind string, obj *Ref, more ...func(*Event)) Event {
	e := Event{Seq: seq, Lane: lane, Kind: kind, Object: obj}
	for _, m := range more {
		m(&e)
	}
	return e
}

func cj(rv string) *Ref { return &Ref{Kind: "CronJob", Namespace: "ns", Name: "cj", RV: rv} }
func job(rv string) *Ref {
	return &Ref{Kind: "Job", Namespace: "ns", Name: "cj-1", RV: rv, Owner: "cj", OwnerUID: "u1"}
}
func inReconcile(n int) func(*Event)  { return func(e *Event) { e.Reconcile = n } }
func from(source string) func(*Event) { return func(e *Event) { e.Source = source } }
func verb(v string) func(*Event)      { return func(e *Event) { e.Verb = v } }
func failed(why string) func(*Event)  { return func(e *Event) { e.Error = why } }
func listed(items ...Ref) func(*Event) {
	return func(e *Event) {
		e.List = &ListQuery{Kind: "Job", Namespace: "ns", Owner: "u1"}
		e.Items = items
	}
}
func start(seq, n int, id string) Event {
	return Event{Seq: seq, Lane: LaneReconcile, Kind: Start, Reconcile: n, ReconcileID: id, Request: "ns/cj"}
}
func end(seq, n int, result string) Event {
	return Event{Seq: seq, Lane: LaneReconcile, Kind: End, Reconcile: n, Result: result}
}

func TestStaleReads(t *testing.T) {
	for _, tc := range []struct {
		name   string
		events []Event
		want   []string // lag object@server-rv, in order
	}{{
		name: "u-lag: the cache has v1 when a write had made v2",
		events: []Event{
			ev(1, LaneAPI, Added, cj("10")),
			ev(2, LaneReconcile, Write, cj("11"), verb("status-patch")),
			ev(3, LaneReconcile, Read, cj("10"), from(FromCache), verb("get")),
		},
		want: []string{"u-lag CronJob/ns/cj@11"},
	}, {
		name: "not stale: the read began before the API server was known to have v2",
		events: []Event{
			ev(1, LaneAPI, Added, cj("10")),
			ev(2, LaneReconcile, Read, cj("10"), from(FromCache), verb("get")),
			ev(3, LaneAPI, Modified, cj("11")),
		},
	}, {
		name: "u-lag known later: our watch showed v2 after the read, but it is numbered below what was seen before the read",
		events: []Event{
			ev(1, LaneAPI, Added, cj("10")),
			ev(2, LaneAPI, Added, job("12")),
			ev(3, LaneReconcile, Read, cj("10"), from(FromCache), verb("get")),
			ev(4, LaneAPI, Modified, cj("11")),
		},
		want: []string{"u-lag CronJob/ns/cj@11"},
	}, {
		name: "not stale: a version numbered above everything seen before the read may be newer than the read",
		events: []Event{
			ev(1, LaneAPI, Added, cj("10")),
			ev(2, LaneAPI, Added, job("12")),
			ev(3, LaneReconcile, Read, cj("10"), from(FromCache), verb("get")),
			ev(4, LaneAPI, Modified, cj("13")),
		},
	}, {
		name: "not stale: a read from the API server is never stale",
		events: []Event{
			ev(1, LaneAPI, Added, cj("10")),
			ev(2, LaneAPI, Modified, cj("11")),
			ev(3, LaneReconcile, Read, cj("10"), from(FromAPI), verb("get")),
		},
	}, {
		name: "c-lag: a get NotFound while the API server had it",
		events: []Event{
			ev(1, LaneAPI, Added, cj("10")),
			ev(2, LaneReconcile, Read, &Ref{Kind: "CronJob", Namespace: "ns", Name: "cj"}, from(FromCache), verb("get"), failed("NotFound")),
		},
		want: []string{"c-lag CronJob/ns/cj@10"},
	}, {
		name: "c-lag: a list of the owner's Jobs without the one the API server had",
		events: []Event{
			ev(1, LaneAPI, Added, job("20")),
			ev(2, LaneReconcile, Read, nil, from(FromCache), verb("list"), listed()),
		},
		want: []string{"c-lag Job/ns/cj-1@20"},
	}, {
		name: "not c-lag: a Job of another owner is not missing from this list",
		events: []Event{
			ev(1, LaneAPI, Added, &Ref{Kind: "Job", Namespace: "ns", Name: "other-1", RV: "20", Owner: "other", OwnerUID: "u2"}),
			ev(2, LaneReconcile, Read, nil, from(FromCache), verb("list"), listed()),
		},
	}, {
		name: "d-lag: the list still has a Job the API server deleted",
		events: []Event{
			ev(1, LaneAPI, Added, job("20")),
			ev(2, LaneAPI, Deleted, job("25")),
			ev(3, LaneReconcile, Read, nil, from(FromCache), verb("list"), listed(*job("20"))),
		},
		want: []string{"d-lag Job/ns/cj-1@25"},
	}, {
		name: "d-lag known from a delete that got NotFound",
		events: []Event{
			ev(1, LaneAPI, Added, job("20")),
			ev(2, LaneReconcile, Write, job(""), verb("delete"), failed("NotFound")),
			ev(3, LaneReconcile, Read, nil, from(FromCache), verb("list"), listed(*job("20"))),
		},
		want: []string{"d-lag Job/ns/cj-1@20"},
	}, {
		name: "a Job created again after its deletion is not deleted",
		events: []Event{
			ev(1, LaneAPI, Added, job("20")),
			ev(2, LaneAPI, Deleted, job("25")),
			ev(3, LaneAPI, Added, job("30")),
			ev(4, LaneReconcile, Read, nil, from(FromCache), verb("list"), listed(*job("30"))),
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			a := Analyze(tc.events)
			var got []string
			for _, s := range a.Stale {
				got = append(got, s.Lag+" "+s.Object.Key()+"@"+s.ServerRV)
			}
			if strings.Join(got, "; ") != strings.Join(tc.want, "; ") {
				t.Errorf("stale reads: got %q, want %q", got, tc.want)
			}
		})
	}
}

// The writes that followed a stale read in its reconcile, and no others.
func TestWritesThatFollowedAStaleRead(t *testing.T) {
	a := Analyze([]Event{
		ev(1, LaneAPI, Added, job("20")),
		start(2, 1, ""),
		ev(3, LaneReconcile, Write, cj("21"), verb("status-patch"), inReconcile(1)),
		ev(4, LaneReconcile, Read, nil, from(FromCache), verb("list"), listed(), inReconcile(1)),
		ev(5, LaneReconcile, Write, job(""), verb("create"), failed("AlreadyExists"), inReconcile(1)),
		end(6, 1, "done"),
		ev(7, LaneReconcile, Write, cj("22"), verb("update")), // the test's, after the reconcile
	})
	if len(a.Stale) != 1 {
		t.Fatalf("want one stale read, got %+v", a.Stale)
	}
	if f := a.Stale[0].Followed; len(f) != 1 || a.Events[f[0]].Verb != "create" {
		t.Errorf("want the create to follow the stale list, got %v", f)
	}
}

// Events that reach the cache while a reconcile runs ask for the next one:
// coalesced into it, however many. A spec's own call has no cause.
func TestCausesAreTheEventsSinceTheLastStart(t *testing.T) {
	a := Analyze([]Event{
		ev(1, LaneCache, Added, cj("10")),
		start(2, 1, "a"),
		ev(3, LaneCache, Modified, cj("11")),
		ev(4, LaneCache, Modified, cj("12")),
		ev(5, LaneCache, Added, job("13")),
		ev(6, LaneCache, Added, &Ref{Kind: "Job", Namespace: "ns", Name: "x", RV: "14", Owner: "someone-else"}),
		end(7, 1, "requeue after 1m0s"),
		start(8, 2, "b"),
		end(9, 2, "requeue after 1m0s"),
		start(10, 3, "c"),
		end(11, 3, "done"),
	})
	if len(a.Reconciles) != 3 {
		t.Fatalf("want 3 reconciles, got %d", len(a.Reconciles))
	}
	for i, want := range []int{1, 3, 0} {
		if got := len(a.Reconciles[i].Causes); got != want {
			t.Errorf("reconcile %d: %d causes, want %d", i+1, got, want)
		}
	}
	if !a.Reconciles[2].Requeued {
		t.Error("reconcile 3 had no cause after a RequeueAfter: it was requeued")
	}
}

// Our own watch of the API server may deliver a version after the cache
// did; the API server had it first, and the trace says so.
func TestAnAPIEventComesBeforeTheCacheEventOfItsVersion(t *testing.T) {
	a := Analyze([]Event{
		ev(1, LaneCache, Added, cj("10")),
		ev(2, LaneReconcile, Read, cj("10"), from(FromCache), verb("get")),
		ev(3, LaneAPI, Added, cj("10")),
	})
	if a.Events[0].Lane != LaneAPI || a.Events[0].Seq != 1 || a.Events[2].Seq != 3 {
		t.Errorf("want the api event first and the events numbered again, got %+v", a.Events)
	}
	if v := a.Version(*cj("10")); v != 1 {
		t.Errorf("rv 10 is the first version: v%d", v)
	}
}

func TestACutLastLineIsLeftOut(t *testing.T) {
	events, err := Decode(strings.NewReader(`{"seq":1,"lane":"api","kind":"added"}` + "\n" + `{"seq":2,"la`))
	if err != nil || len(events) != 1 {
		t.Errorf("got %d events, %v; want the first, and no error", len(events), err)
	}
	if _, err := Decode(strings.NewReader("nonsense\n" + `{"seq":2}`)); err == nil {
		t.Error("a bad line before the last must be an error")
	}
}

func TestFileNames(t *testing.T) {
	for spec, want := range map[string]string{
		"The Reconciler under a stale cache › c-lag: adopts the Job": "c-lag-adopts-the-Job.jsonl",
		"TestTheNext/random_names":                                   "TestTheNext-random-names.jsonl",
	} {
		if got := FileName(spec); got != want {
			t.Errorf("FileName(%q) = %q, want %q", spec, got, want)
		}
	}
	long := "TestTheNextReconcileBeforeTheCacheHasSeenTheJob/random_names_"
	if a, b := FileName(long+"one"), FileName(long+"two"); a == b || len(a) > 66 {
		t.Errorf("two long names cut to %q and %q: they must differ, each at most 60 and .jsonl", a, b)
	}
}
