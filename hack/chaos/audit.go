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

// The auditor checks the promise of docs/reliability.md from what it saw,
// not from what the controller says: every Job of the run (by its own watch),
// the CronJobs as created, and the spans of time during which a healthy
// manager led. It is pure: the tests feed it made-up histories.
//
// The promise, per CronJob and scheduled time t:
//   - no run starts twice: at most one Job for (CronJob, t);
//   - no run is lost while the controller could have started it: a t inside
//     a healthy span (with grace to act) has its Job;
//   - after an outage the most recent missed run starts, as upstream: a t
//     outside the healthy spans must have its Job when it is the last
//     scheduled time before the controller was healthy again, unless the
//     next run came due while the controller, back, worked through the
//     other CronJobs, and started instead; older missed runs are skipped on
//     purpose (upstream records MissSchedule).
// A run that Forbid skips, because the CronJob's previous Job still ran at
// t, is not due.

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
	"k8s.io/apimachinery/pkg/types"
)

// cronJob is what the auditor knows of one CronJob: what it was created with.
type cronJob struct {
	Key      string // namespace/name
	UID      types.UID
	Schedule string // a cron table or "@every <duration>"
	Forbid   bool   // concurrencyPolicy: Forbid
	Created  time.Time
}

// job is one Job that the auditor's watch saw.
type job struct {
	Key       string    // namespace/name
	UID       types.UID // the Job's
	Owner     types.UID // the UID of its controller (a CronJob), "" for none
	Scheduled time.Time // its scheduled-time annotation; zero for a foreign Job
	Seen      time.Time // when the watch first saw it
	Finished  time.Time // when it was first seen Complete or Failed; zero while it runs
	Gone      time.Time // when it was seen deleted; zero while it is there
}

// span is a time during which a manager led and could reach the API server.
type span struct{ From, To time.Time }

// verdict is the audit of one window of scheduled times.
type verdict struct {
	Due        int // runs that had to start
	Started    int // of those, the ones with a Job
	Duplicates int // Jobs beyond the first for one (CronJob, scheduled time)
	Lost       []string
	Skipped    int // older missed runs of an outage, skipped on purpose
	// Recovery is, for each run that an outage kept from starting, how long
	// after the controller was healthy again its Job appeared.
	Recovery []time.Duration
}

// audit checks the scheduled times in [from, to) of every CronJob. grace is
// how long a healthy controller may take to start a run (hundreds of
// CronJobs due at the same second take seconds to create).
func audit(cjs []cronJob, jobs []job, healthy []span, from, to time.Time, grace time.Duration) (verdict, error) {
	var v verdict
	// Runs by owner and scheduled time in Unix seconds: two time.Time of
	// one instant are different map keys when their locations differ (a
	// parsed annotation is UTC, the schedule's times are not).
	byRun := map[types.UID]map[int64][]job{}
	byOwner := map[types.UID][]job{}
	for _, j := range jobs {
		if j.Owner == "" {
			continue
		}
		if byRun[j.Owner] == nil {
			byRun[j.Owner] = map[int64][]job{}
		}
		byRun[j.Owner][j.Scheduled.Unix()] = append(byRun[j.Owner][j.Scheduled.Unix()], j)
		byOwner[j.Owner] = append(byOwner[j.Owner], j)
	}
	for _, cj := range cjs {
		times, err := scheduledTimes(cj, from, to)
		if err != nil {
			return v, err
		}
		for i, t := range times {
			started := byRun[cj.UID][t.Unix()]
			if n := distinctJobs(started); n > 1 {
				v.Duplicates += n - 1
			}
			if cj.Forbid && stillRunning(byOwner[cj.UID], t, grace) {
				continue // Forbid skips it: not due
			}
			if covered(healthy, t, grace) {
				v.Due++
				if len(started) > 0 {
					v.Started++
				} else {
					v.Lost = append(v.Lost, fmt.Sprintf("%s at %s (a healthy controller led)", cj.Key, t.UTC().Format(time.TimeOnly)))
				}
				continue
			}
			// Missed in an outage: due only when it is the last scheduled
			// time before the controller was healthy again.
			back, ok := healthyAgain(healthy, t)
			if !ok {
				continue // the window ends before the controller is back: not judged
			}
			if i+1 < len(times) && !times[i+1].After(back) {
				v.Skipped++
				continue
			}
			// The controller, back, reaches each CronJob in turn: if the
			// next run came due before it reached this one, that run is
			// now the most recent, and starts instead (as upstream's does).
			if i+1 < len(times) && len(started) == 0 && times[i+1].Before(back.Add(grace)) && len(byRun[cj.UID][times[i+1].Unix()]) > 0 {
				v.Skipped++
				continue
			}
			v.Due++
			if len(started) == 0 {
				v.Lost = append(v.Lost, fmt.Sprintf("%s at %s (the most recent run missed in an outage)", cj.Key, t.UTC().Format(time.TimeOnly)))
				continue
			}
			v.Started++
			// Its recovery time, if the outage delayed it: a Job made
			// before the fault struck was not.
			if seen := firstSeen(started); seen.After(back) {
				v.Recovery = append(v.Recovery, seen.Sub(back))
			}
		}
	}
	sort.Strings(v.Lost)
	return v, nil
}

// scheduledTimes lists the scheduled times of cj in [from, to). "@every d"
// runs on a grid from the CronJob's creation, as the controller counts it
// (the first run is one period after creation); a cron table runs when the
// table says.
func scheduledTimes(cj cronJob, from, to time.Time) ([]time.Time, error) {
	var times []time.Time
	if every, ok := strings.CutPrefix(cj.Schedule, "@every "); ok {
		d, err := time.ParseDuration(every)
		if err != nil || d <= 0 {
			return nil, fmt.Errorf("%s: schedule %q: %v", cj.Key, cj.Schedule, err)
		}
		for t := cj.Created.Add(d); t.Before(to); t = t.Add(d) {
			if !t.Before(from) {
				times = append(times, t)
			}
		}
		return times, nil
	}
	sched, err := cron.ParseStandard(cj.Schedule)
	if err != nil {
		return nil, fmt.Errorf("%s: schedule %q: %v", cj.Key, cj.Schedule, err)
	}
	start := from
	if cj.Created.After(start) {
		start = cj.Created
	}
	for t := sched.Next(start.Add(-time.Nanosecond)); t.Before(to); t = sched.Next(t) {
		times = append(times, t)
	}
	return times, nil
}

// covered tells whether a healthy manager led from t until grace after it.
func covered(healthy []span, t time.Time, grace time.Duration) bool {
	for _, s := range healthy {
		if !t.Before(s.From) && !s.To.Before(t.Add(grace)) {
			return true
		}
	}
	return false
}

// healthyAgain is the start of the first healthy span after t, when the
// controller could act on the runs it missed.
func healthyAgain(healthy []span, t time.Time) (time.Time, bool) {
	var back time.Time
	for _, s := range healthy {
		if s.From.After(t) && (back.IsZero() || s.From.Before(back)) {
			back = s.From
		}
	}
	return back, !back.IsZero()
}

// stillRunning tells whether a Job of the CronJob had started before t and
// not finished by t, or finished so shortly before (within grace) that the
// controller's cache may not have seen it finish: Forbid then skips t, rightly.
func stillRunning(jobs []job, t time.Time, grace time.Duration) bool {
	for _, j := range jobs {
		if j.Scheduled.Before(t) && (j.Finished.IsZero() || j.Finished.After(t.Add(-grace))) {
			return true
		}
	}
	return false
}

func distinctJobs(jobs []job) int {
	uids := map[types.UID]bool{}
	for _, j := range jobs {
		uids[j.UID] = true
	}
	return len(uids)
}

func firstSeen(jobs []job) time.Time {
	first := jobs[0].Seen
	for _, j := range jobs[1:] {
		if j.Seen.Before(first) {
			first = j.Seen
		}
	}
	return first
}
