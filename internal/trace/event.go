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

// Package trace is the course's central picture in data: what the API
// server had, what reached the controller's cache, and what each Reconcile
// read and wrote, in the order it happened (discussion questions 4 to 6 and
// the stale-cache bonus). A trace is a file of JSON lines, one Event each,
// written by package trace/record while a spec or `make run` runs.
//
// This package only reads and explains a trace: Analyze finds which read
// was stale and in which of the three ways (c-lag, u-lag, d-lag), which
// cache events each reconcile was started by, and which writes followed.
// It imports nothing from Kubernetes, so that bin/lab can draw a trace
// without linking a client.
package trace

import (
	"bufio"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"regexp"
	"strings"
	"time"
)

// The three lanes of the picture.
const (
	LaneAPI       = "api"       // what the API server had: an uncached watch, and the answers to writes
	LaneCache     = "cache"     // what reached the informers' cache: their event handlers
	LaneReconcile = "reconcile" // each Reconcile's start, reads, writes and end
)

// The kinds of events.
const (
	Added    = "added"    // api and cache lanes
	Modified = "modified" // api and cache lanes
	Deleted  = "deleted"  // api and cache lanes
	Start    = "start"    // reconcile lane: a Reconcile began
	End      = "end"      // reconcile lane: it returned
	Read     = "read"     // reconcile lane: a get or a list
	Write    = "write"    // reconcile lane (or the spec's own client, Actor "spec")
	Note     = "note"     // any lane: what a test did to the loop (bin/lab perturb), in Text
)

// Where a read was answered from.
const (
	FromCache = "cache"
	FromAPI   = "api"
)

// Event is one line of a trace.
type Event struct {
	// Seq orders the events of one trace. A read takes its number when it
	// starts, everything else when it is known (a write when the API server
	// has answered), so "before" in a trace means before the read began.
	Seq int       `json:"seq"`
	At  time.Time `json:"at"`
	// Clock is the Reconciler's clock, when a spec sets a fake one.
	Clock *time.Time `json:"clock,omitempty"`
	Lane  string     `json:"lane"`
	Kind  string     `json:"kind"`

	// Reconcile numbers the reconciles of a trace from 1; ReconcileID is
	// controller-runtime's, when the controller called Reconcile (a spec
	// that calls it directly has none).
	Reconcile   int    `json:"reconcile,omitempty"`
	ReconcileID string `json:"reconcileID,omitempty"`
	Request     string `json:"request,omitempty"` // namespace/name, on start
	Result      string `json:"result,omitempty"`  // on end: "done", "requeue after 59m0s", or the error

	Actor  string `json:"actor,omitempty"`  // a write by someone else than a Reconcile: "spec"
	Source string `json:"source,omitempty"` // a read's: FromCache or FromAPI
	Verb   string `json:"verb,omitempty"`   // get, list, create, update, patch, delete, and status-patch, status-update
	// Object is what was read or written, or what an api or cache event
	// carried. A read that found nothing has an Object without RV and
	// Error "NotFound".
	Object *Ref `json:"object,omitempty"`
	// List reads: the kind and namespace asked for, the owner a field
	// selector asked for, and what came back.
	List  *ListQuery `json:"list,omitempty"`
	Items []Ref      `json:"items,omitempty"`
	// Text is a note's.
	Text string `json:"text,omitempty"`
	// Patch is what a patch sent (a merge patch's JSON), cut at 2 KiB: what
	// the write changed.
	Patch string `json:"patch,omitempty"`
	// Error is the reason the API server (or cache) gave, such as
	// AlreadyExists, Conflict or NotFound.
	Error string `json:"error,omitempty"`
}

// Ref names one version of one object.
type Ref struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	RV        string `json:"rv,omitempty"`
	// Owner and OwnerUID name the object's controller (a Job's CronJob).
	Owner    string `json:"owner,omitempty"`
	OwnerUID string `json:"ownerUID,omitempty"`
}

// Key is kind/namespace/name.
func (r Ref) Key() string { return r.Kind + "/" + r.Namespace + "/" + r.Name }

// ListQuery is what a list asked for.
type ListQuery struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	// Owner is the value of a field selector on an owner index (the
	// reference's lists a CronJob's Jobs by its UID), matched against
	// Ref.OwnerUID and Ref.Owner.
	Owner string `json:"owner,omitempty"`
}

// Load reads a trace file.
func Load(path string) ([]Event, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Decode(f)
}

// Decode reads a trace from r. A last line cut short (the process was
// killed while writing it) is left out; any other bad line is an error.
func Decode(r io.Reader) ([]Event, error) {
	var events []Event
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 16*1024*1024)
	line, bad := 0, 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		if bad != 0 {
			return nil, fmt.Errorf("line %d of the trace is not an event", bad)
		}
		var e Event
		if err := json.Unmarshal([]byte(text), &e); err != nil {
			bad = line
			continue
		}
		events = append(events, e)
	}
	return events, sc.Err()
}

var notInAName = regexp.MustCompile(`[^a-zA-Z0-9]+`)

// FileName is the file a spec's trace is written to: the last part of the
// spec's name as bin/lab check gives it ("Container › It", or a Go test's
// name), its letters and digits, the rest as dashes; a longer name than
// 60 is cut, and told apart by a hash of the whole. bin/lab check finds a
// failed spec's trace by it.
func FileName(spec string) string {
	if i := strings.LastIndex(spec, " › "); i >= 0 {
		spec = spec[i+len(" › "):]
	}
	name := strings.Trim(notInAName.ReplaceAllString(spec, "-"), "-")
	if len(name) > 60 {
		h := fnv.New32a()
		_, _ = h.Write([]byte(spec))
		name = fmt.Sprintf("%s-%08x", strings.TrimRight(name[:51], "-"), h.Sum32())
	}
	return name + ".jsonl"
}
