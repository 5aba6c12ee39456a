//go:build unix

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

package main

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	batchv1 "cronlab.dev/cronlab/api/v1"
)

// ten is 10:00:00; at(m, s) is m minutes and s seconds after it.
var ten = time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)

func at(m, s int) time.Time {
	return ten.Add(time.Duration(m)*time.Minute + time.Duration(s)*time.Second)
}

// runOf is the Job of cj's run at t, seen `after` later.
func runOf(cj cronJob, t time.Time, after time.Duration, n int) job {
	return job{Key: fmt.Sprintf("%s-%d-%d", cj.Key, t.Unix(), n), UID: types.UID(fmt.Sprintf("%s/%d/%d", cj.UID, t.Unix(), n)),
		Owner: cj.UID, Scheduled: t, Seen: t.Add(after), Finished: t.Add(after + 2*time.Second)}
}

func TestTheAuditorChecksEveryWordOfThePromise(t *testing.T) {
	minutely := cronJob{Key: "chaos/m", UID: "m", Schedule: "*/1 * * * *", Created: at(-1, -30)}
	every := cronJob{Key: "chaos/e", UID: "e", Schedule: "@every 20s", Created: at(0, -5)}
	always := []span{{From: at(-2, 0), To: at(10, 0)}}
	// An outage from 10:00:30 to 10:03:10: runs at 10:01, 10:02 and 10:03
	// are missed, and only 10:03 is due, as upstream starts the most recent.
	outage := []span{{From: at(-2, 0), To: at(0, 30)}, {From: at(3, 10), To: at(10, 0)}}

	tests := []struct {
		name    string
		cjs     []cronJob
		jobs    []job
		healthy []span
		to      time.Time // the window ends; it starts at 10:00 (default 10:02:30)
		want    verdict
	}{{
		name:    "every run of a healthy controller started once",
		cjs:     []cronJob{minutely},
		jobs:    []job{runOf(minutely, at(0, 0), time.Second, 0), runOf(minutely, at(1, 0), time.Second, 0), runOf(minutely, at(2, 0), time.Second, 0)},
		healthy: always,
		want:    verdict{Due: 3, Started: 3},
	}, {
		name: "a run started twice is a duplicate",
		cjs:  []cronJob{minutely},
		jobs: []job{runOf(minutely, at(0, 0), time.Second, 0), runOf(minutely, at(1, 0), time.Second, 0),
			runOf(minutely, at(1, 0), 3*time.Second, 1), runOf(minutely, at(2, 0), time.Second, 0)},
		healthy: always,
		want:    verdict{Due: 3, Started: 3, Duplicates: 1},
	}, {
		name:    "the same Job seen twice is no duplicate",
		cjs:     []cronJob{minutely},
		jobs:    []job{runOf(minutely, at(0, 0), time.Second, 0), runOf(minutely, at(0, 0), time.Second, 0), runOf(minutely, at(1, 0), time.Second, 0), runOf(minutely, at(2, 0), time.Second, 0)},
		healthy: always,
		want:    verdict{Due: 3, Started: 3},
	}, {
		name:    "a run a healthy controller did not start is lost",
		cjs:     []cronJob{minutely},
		jobs:    []job{runOf(minutely, at(0, 0), time.Second, 0), runOf(minutely, at(2, 0), time.Second, 0)},
		healthy: always,
		want:    verdict{Due: 3, Started: 2, Lost: []string{"chaos/m at 10:01:00 (a healthy controller led)"}},
	}, {
		name:    "after an outage the most recent missed run starts, the older ones are skipped",
		cjs:     []cronJob{minutely},
		jobs:    []job{runOf(minutely, at(0, 0), time.Second, 0), runOf(minutely, at(3, 0), 14*time.Second, 0)},
		healthy: outage,
		to:      at(3, 30),
		want:    verdict{Due: 2, Started: 2, Skipped: 2, Recovery: []time.Duration{4 * time.Second}},
	}, {
		name:    "after an outage a most recent run that never starts is lost",
		cjs:     []cronJob{minutely},
		jobs:    []job{runOf(minutely, at(0, 0), time.Second, 0), runOf(minutely, at(2, 0), 71*time.Second, 0)},
		healthy: outage,
		to:      at(3, 30),
		want:    verdict{Due: 2, Started: 1, Skipped: 2, Lost: []string{"chaos/m at 10:03:00 (the most recent run missed in an outage)"}},
	}, {
		name: "a missed run overtaken by the next one, which came due before the controller reached it, is skipped",
		cjs:  []cronJob{every},
		jobs: []job{runOf(every, at(0, 15), time.Second, 0), runOf(every, at(0, 55), 2*time.Second, 0)},
		// Back at 10:00:54: the controller reached this CronJob after
		// 10:00:55, when that run was the most recent.
		healthy: []span{{From: at(-2, 0), To: at(0, 20)}, {From: at(0, 54), To: at(10, 0)}},
		to:      at(1, 0),
		want:    verdict{Due: 2, Started: 2, Skipped: 1},
	}, {
		name:    "a missed run whose next run did not start either is lost",
		cjs:     []cronJob{every},
		jobs:    []job{runOf(every, at(0, 15), time.Second, 0)},
		healthy: []span{{From: at(-2, 0), To: at(0, 20)}, {From: at(0, 54), To: at(10, 0)}},
		to:      at(1, 0),
		want: verdict{Due: 3, Started: 1, Lost: []string{
			"chaos/e at 10:00:35 (the most recent run missed in an outage)", "chaos/e at 10:00:55 (a healthy controller led)",
		}},
	}, {
		name:    "a run whose controller died within the grace is the outage's",
		cjs:     []cronJob{minutely},
		jobs:    []job{runOf(minutely, at(0, 0), 8*time.Second, 0)},
		healthy: []span{{From: at(-2, 0), To: at(0, 2)}, {From: at(0, 7), To: at(0, 50)}},
		to:      at(0, 50),
		want:    verdict{Due: 1, Started: 1, Recovery: []time.Duration{time.Second}},
	}, {
		name:    "a run that started before the fault struck took no recovery",
		cjs:     []cronJob{minutely},
		jobs:    []job{runOf(minutely, at(0, 0), time.Second, 0)},
		healthy: []span{{From: at(-2, 0), To: at(0, 2)}, {From: at(0, 7), To: at(0, 50)}},
		to:      at(0, 50),
		want:    verdict{Due: 1, Started: 1},
	}, {
		name: "@every runs on a grid from the CronJob's creation",
		cjs:  []cronJob{every},
		jobs: []job{runOf(every, at(0, 15), time.Second, 0), runOf(every, at(0, 35), time.Second, 0),
			runOf(every, at(0, 55), time.Second, 0)},
		healthy: always,
		to:      at(1, 0),
		want:    verdict{Due: 3, Started: 3},
	}, {
		name:    "Forbid skips a run while the previous Job still runs",
		cjs:     []cronJob{{Key: "chaos/f", UID: "f", Schedule: "*/1 * * * *", Forbid: true, Created: at(-1, -30)}},
		jobs:    []job{{Key: "f-long", UID: "f0", Owner: "f", Scheduled: at(0, 0), Seen: at(0, 1), Finished: at(1, 30)}, {Key: "f-2", UID: "f2", Owner: "f", Scheduled: at(2, 0), Seen: at(2, 1)}},
		healthy: always,
		want:    verdict{Due: 2, Started: 2},
	}, {
		name:    "a scheduled time read from an annotation is the same run",
		cjs:     []cronJob{{Key: "chaos/l", UID: "l", Schedule: "*/1 * * * *", Created: at(0, 10).In(time.Local)}},
		jobs:    []job{parsedRun("l", "2026-11-23T10:01:00Z"), parsedRun("l", "2026-11-23T10:02:00Z")},
		healthy: always,
		want:    verdict{Due: 2, Started: 2},
	}, {
		name:    "foreign Jobs are no runs",
		cjs:     []cronJob{minutely},
		jobs:    []job{{Key: "other/x", UID: "x", Seen: at(0, 0)}, runOf(minutely, at(0, 0), time.Second, 0), runOf(minutely, at(1, 0), time.Second, 0), runOf(minutely, at(2, 0), time.Second, 0)},
		healthy: always,
		want:    verdict{Due: 3, Started: 3},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			to := tc.to
			if to.IsZero() {
				to = at(2, 30)
			}
			got, err := audit(tc.cjs, tc.jobs, tc.healthy, at(0, 0), to, 5*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// parsedRun is a Job whose scheduled time comes from its annotation, as the
// auditor's watch reads it.
func parsedRun(owner types.UID, annotation string) job {
	t, err := time.Parse(time.RFC3339, annotation)
	if err != nil {
		panic(err)
	}
	return job{Key: annotation, UID: types.UID(annotation), Owner: owner, Scheduled: t, Seen: t.Add(time.Second)}
}

func TestOnlyTheFrozenManagersWritesAfterTheTakeoverCount(t *testing.T) {
	takeover := at(1, 16).Add(600 * time.Millisecond)
	wrote := func(manager, subresource string, when time.Time) []metav1.ManagedFieldsEntry {
		return []metav1.ManagedFieldsEntry{{Manager: manager, Subresource: subresource, Time: &metav1.Time{Time: when.Truncate(time.Second)}}}
	}
	event := func(manager, reason, note string, when time.Time) eventsv1.Event {
		return eventsv1.Event{
			ObjectMeta: metav1.ObjectMeta{ManagedFields: wrote(manager, "", when)},
			Reason:     reason, Note: note, EventTime: metav1.NewMicroTime(when),
		}
	}
	cronJobWritten := func(manager string, when time.Time) batchv1.CronJob {
		return batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{ManagedFields: wrote(manager, "status", when)}}
	}
	jobs := []job{
		{Key: "chaos/early", Seen: at(1, 0)},
		{Key: "chaos/in-flight", Seen: at(1, 1)}, // created as the freeze struck; its Event came after
		{Key: "chaos/late", Seen: at(1, 29)},
		{Key: "chaos/old", Seen: at(0, 0), Gone: at(1, 1)},
		{Key: "chaos/old-late", Seen: at(0, 0), Gone: at(1, 29)},
	}
	events := []eventsv1.Event{
		event("cronlab-freeze-1", "SuccessfulCreate", "Created job early", at(1, 0)),      // before the freeze: it led
		event("cronlab-freeze-1", "SuccessfulCreate", "Created job in-flight", at(1, 21)), // answered after the freeze
		event("cronlab-freeze-1", "SuccessfulCreate", "Created job late", at(1, 29)),      // after it continued
		event("cronlab-freeze-1", "SuccessfulDelete", "Deleted job old", at(1, 21)),
		event("cronlab-freeze-1", "SuccessfulDelete", "Deleted job old-late", at(1, 29)),
		event("cronlab-freeze-1", "SuccessfulCreate", "Created job unseen", at(1, 30)), // not timed by the watch: its Event's time
		event("cronlab-freeze-1", "FailedCreate", "Error creating job: fenced", at(1, 21)),
		event("cronlab-freeze-0", "SuccessfulCreate", "Created job other", at(1, 30)), // the new leader's
	}
	cjs := []batchv1.CronJob{
		cronJobWritten("cronlab-freeze-1", at(1, 0)),
		cronJobWritten("cronlab-freeze-1", at(1, 21)),
		cronJobWritten("cronlab-freeze-0", at(1, 21)),
		cronJobWritten("cronlab-freeze-1", takeover), // its second counts: managedFields keep seconds
	}
	total, detail, each := countStaleWrites(events, cjs, jobs, "cronlab-freeze-1", takeover)
	if want := "2 SuccessfulCreate, 1 SuccessfulDelete, 2 status"; total != 5 || detail != want {
		t.Errorf("countStaleWrites = %d (%s), want 5 (%s)", total, detail, want)
	}
	if len(each) != total || !strings.Contains(strings.Join(each, "\n"), `SuccessfulCreate "Created job late" at 10:01:29.000`) {
		t.Errorf("each stale write should be named with the time it was counted by, got:\n%s", strings.Join(each, "\n"))
	}
	if total, detail, _ := countStaleWrites(events, cjs, jobs, "cronlab-freeze-1", at(2, 0)); total != 0 || detail != "" {
		t.Errorf("nothing after 10:02, got %d (%s)", total, detail)
	}
}

func TestTheTableSaysWhatAStaleLeaderWrote(t *testing.T) {
	rows := []row{
		{Fault: "kill", Due: 43, Started: 43, StaleWrites: -1, Back: 22500 * time.Millisecond, Converged: 2 * time.Second},
		{Fault: "freeze", Due: 44, Started: 44, StaleWrites: 3, StaleDetail: "2 SuccessfulCreate, 1 status", Converged: -1},
	}
	table := markdown(rows, options{n: 30, every: 4, foreign: 6})
	for _, want := range []string{
		"| kill | 43 | 43 | 0 | 0 | 0 | 0s | 0s | 2s | 22.5s | - |",
		"| freeze | 44 | 44 | 0 | 0 | 0 | 0s | 0s | never (within the watch) | 0s | 3 (2 SuccessfulCreate, 1 status) |",
	} {
		if !strings.Contains(table, want) {
			t.Errorf("the table lacks the line\n%s\nit is:\n%s", want, table)
		}
	}
}
