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

package expectations

import (
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"cronlab.dev/cronlab/test/say"
)

func TestExpectations(t *testing.T) {
	start := time.Date(2030, time.January, 7, 10, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		do   func(e *Expectations, c *clocktesting.FakeClock)
		want bool
	}{{
		name: "an owner the controller never created for is satisfied",
		do:   func(*Expectations, *clocktesting.FakeClock) {},
		want: true,
	}, {
		name: "right after a create, the cache cannot be trusted",
		do:   func(e *Expectations, _ *clocktesting.FakeClock) { e.Expect("ns/a", 1) },
		want: false,
	}, {
		name: "once the informer has seen the child, it can",
		do: func(e *Expectations, _ *clocktesting.FakeClock) {
			e.Expect("ns/a", 1)
			e.Observed("ns/a")
		},
		want: true,
	}, {
		name: "two creates need two observations",
		do: func(e *Expectations, _ *clocktesting.FakeClock) {
			e.Expect("ns/a", 2)
			e.Observed("ns/a")
		},
		want: false,
	}, {
		name: "creates add up",
		do: func(e *Expectations, _ *clocktesting.FakeClock) {
			e.Expect("ns/a", 1)
			e.Expect("ns/a", 1)
			e.Observed("ns/a")
			e.Observed("ns/a")
		},
		want: true,
	}, {
		name: "creates add up: after two, one observation is not enough",
		do: func(e *Expectations, _ *clocktesting.FakeClock) {
			e.Expect("ns/a", 1)
			e.Expect("ns/a", 1)
			e.Observed("ns/a")
		},
		want: false,
	}, {
		name: "an observation for another owner does not count",
		do: func(e *Expectations, _ *clocktesting.FakeClock) {
			e.Expect("ns/a", 1)
			e.Observed("ns/b")
		},
		want: false,
	}, {
		// The record went when its child was seen; the stray child after it
		// must not leave a debt behind.
		name: "a stray child seen after the owner's children does not pay for the next create",
		do: func(e *Expectations, c *clocktesting.FakeClock) {
			e.Expect("ns/a", 1)
			e.Observed("ns/a")
			e.Observed("ns/a")
			c.Step(time.Minute)
			e.Expect("ns/a", 1)
		},
		want: false,
	}, {
		name: "expecting no creations leaves the owner satisfied",
		do:   func(e *Expectations, _ *clocktesting.FakeClock) { e.Expect("ns/a", 0) },
		want: true,
	}, {
		name: "a record exactly as old as the TTL still holds",
		do: func(e *Expectations, c *clocktesting.FakeClock) {
			e.Expect("ns/a", 1)
			c.Step(5 * time.Minute)
		},
		want: false,
	}, {
		name: "a create adds to a record exactly as old as the TTL",
		do: func(e *Expectations, c *clocktesting.FakeClock) {
			e.Expect("ns/a", 1)
			c.Step(5 * time.Minute)
			e.Expect("ns/a", 1)
			e.Observed("ns/a")
		},
		want: false,
	}, {
		name: "an unexpected child seen earlier does not pay for a later create",
		do: func(e *Expectations, _ *clocktesting.FakeClock) {
			e.Observed("ns/a")
			e.Expect("ns/a", 1)
		},
		want: false,
	}, {
		name: "a record older than the TTL expires: an event was lost, act again",
		do: func(e *Expectations, c *clocktesting.FakeClock) {
			e.Expect("ns/a", 1)
			c.Step(5*time.Minute + time.Second)
		},
		want: true,
	}, {
		name: "an expired record is replaced, not added to: the next create needs one observation",
		do: func(e *Expectations, c *clocktesting.FakeClock) {
			e.Expect("ns/a", 1)
			c.Step(5*time.Minute + time.Second)
			e.Expect("ns/a", 1)
			e.Observed("ns/a")
		},
		want: true,
	}, {
		name: "a failed create is observed at once: its child never appears",
		do: func(e *Expectations, _ *clocktesting.FakeClock) {
			e.Expect("ns/a", 2) // before the creates
			e.Observed("ns/a")  // the first one's child, seen by the informer
			e.Observed("ns/a")  // the second create failed
		},
		want: true,
	}, {
		name: "within the TTL it holds",
		do: func(e *Expectations, c *clocktesting.FakeClock) {
			e.Expect("ns/a", 1)
			c.Step(4 * time.Minute)
		},
		want: false,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			c := clocktesting.NewFakeClock(start)
			e := New(c, 5*time.Minute)
			tc.do(e, c)
			if got := e.Satisfied("ns/a"); got != tc.want {
				t.Error(say.Both("Satisfied = %v, want %v",
					"Satisfied = %v，应为 %v", got, tc.want))
			}
			// Asking changes nothing (and leaves the lock free).
			if again := e.Satisfied("ns/a"); again != tc.want {
				t.Error(say.Both("Satisfied asked again = %v, want %v",
					"再问一次 Satisfied = %v，应为 %v", again, tc.want))
			}
		})
	}
}

// TestARecordThatReachesZeroIsRemoved: Satisfied cannot tell a record at
// zero from no record, but a manager that runs for months sees CronJobs come
// and go, and a record kept for each one it ever created for is memory that
// is never given back. So the record goes when its last child is seen, and a
// stray child's observation leaves nothing behind.
func TestARecordThatReachesZeroIsRemoved(t *testing.T) {
	e := New(clocktesting.NewFakeClock(time.Date(2030, time.January, 7, 10, 0, 0, 0, time.UTC)), 5*time.Minute)
	e.Expect("ns/a", 2)
	e.Observed("ns/a")
	if len(e.pending) != 1 {
		t.Fatal(say.Both("one child of two seen: %d records, want 1",
			"两个附属对象只看到一个：有 %d 条记录，应为 1 条", len(e.pending)))
	}
	e.Observed("ns/a")
	e.Observed("ns/stray")
	if len(e.pending) != 0 {
		t.Error(say.Both("every child seen, and one stray: %d records kept, want none: %v",
			"每个附属对象都已看到，另外还看到一个无人预期的：留下 %d 条记录，应一条不留：%v", len(e.pending), e.pending))
	}
}
