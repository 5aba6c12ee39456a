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

// Package expectations is how a controller that cannot name its children
// deterministically avoids creating them twice (discussion question 5). It
// is the idea of upstream's ControllerExpectations (k8s.io/kubernetes,
// pkg/controller/controller_utils.go), cut down to creations.
//
// cronlab's CronJob controller does not need it: a Job's name comes from
// its scheduled time, so a second create of the same run fails with
// AlreadyExists whatever the cache says. A ReplicaSet's pods have random
// names; its controller records "I created 3 pods for this owner" and does
// not act on that owner again until its informer has seen those 3 pods, or
// until the record expires because an event was lost.
//
// The exercise of stage 14 runs the CronJob controller with random Job
// names, with and without expectations, against a cache that lags.
package expectations

import (
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// Expectations counts, per owner key ("namespace/name"), the creations a
// controller has made and its informer has not yet seen. Safe for
// concurrent use: workers call Expect and Satisfied, informer event
// handlers call Observed.
type Expectations struct {
	mu      sync.Mutex
	clock   clock.PassiveClock
	ttl     time.Duration
	pending map[string]pending
}

type pending struct {
	adds int       // creations not yet observed
	at   time.Time // when the last expectation was set
}

// New returns Expectations whose records expire after ttl. Upstream uses
// five minutes: long enough for a slow watch, short enough that a lost
// event does not stop an owner for good.
func New(c clock.PassiveClock, ttl time.Duration) *Expectations {
	return &Expectations{clock: c, ttl: ttl, pending: map[string]pending{}}
}

// lab:begin expectations

// Expect records that the controller is about to create n children of
// key. Call it before the creates, as upstream does: the informer may see a
// child before Create returns, and its Observed must find the record then.
// For each create that fails, call Observed: that child will never appear.
// A record older than the TTL is replaced, not added to (no record is a
// zero one, set at the zero time: older than any TTL).
func (e *Expectations) Expect(key string, n int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	p := e.pending[key]
	if e.clock.Since(p.at) > e.ttl {
		p = pending{}
	}
	p.adds += n
	p.at = e.clock.Now()
	e.pending[key] = p
}

// Observed records that the informer has seen one child of key appear, or
// that a create the record expects has failed. A record that reaches zero
// is removed, so for a key without a record (a child that someone else
// created) it changes nothing.
func (e *Expectations) Observed(key string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	p := e.pending[key]
	p.adds--
	if p.adds <= 0 {
		delete(e.pending, key)
		return
	}
	e.pending[key] = p
}

// Satisfied tells whether the cache can be trusted for key: every creation
// has been observed, or the record is older than the TTL (an event was
// lost, so act again rather than wait forever).
func (e *Expectations) Satisfied(key string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	p, ok := e.pending[key]
	if !ok || p.adds <= 0 {
		return true
	}
	return e.clock.Since(p.at) > e.ttl
}

// lab:end
