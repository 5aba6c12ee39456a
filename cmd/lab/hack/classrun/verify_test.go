//go:build linux

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

// The verdict on made-up histories: a judge that passes everything would
// pass the real run too, so each way of failing is shown to be caught.

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	batchv1 "cronlab.dev/cronlab/api/v1"
)

var t0 = time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)

// history is a class of two created at 10:00:30 that ran until 10:03:30:
// the runs of 10:01, 10:02 and 10:03 are due (10:03 is 30 s before the end).
func history() *run {
	r := &run{cfg: config{margin: 20 * time.Second}, watchFrom: t0, end: t0.Add(3*time.Minute + 30*time.Second)}
	for _, name := range []string{"ada", "alan"} {
		cj := &batchv1.CronJob{}
		cj.Namespace, cj.Name, cj.UID = "c-"+name, "every-minute", types.UID("uid-"+name)
		cj.CreationTimestamp = metav1.NewTime(t0.Add(30 * time.Second))
		r.attendees = append(r.attendees, &attendee{name: name, ns: cj.Namespace, cronJob: cj})
	}
	return r
}

func runOf(a *attendee, minute int, uid string) seenJob {
	t := t0.Add(time.Duration(minute) * time.Minute)
	return seenJob{ns: a.ns, name: "every-minute-" + uid, uid: types.UID(uid), scheduled: t,
		owner:   &metav1.OwnerReference{Kind: "CronJob", Name: a.cronJob.Name, UID: a.cronJob.UID},
		created: t.Add(time.Second), seen: t.Add(1500 * time.Millisecond)}
}

func allRuns(r *run) []seenJob {
	var jobs []seenJob
	for _, a := range r.attendees {
		for m := 1; m <= 3; m++ {
			jobs = append(jobs, runOf(a, m, a.name+string(rune('0'+m))))
		}
	}
	return jobs
}

func TestEveryRunOnceIsAPass(t *testing.T) {
	r := history()
	v := r.judge(allRuns(r))
	if v.expected != 6 || v.started != 6 || v.duplicated != 0 || len(r.failures) > 0 {
		t.Fatalf("expected 6 runs, all started once; got %+v, failures %v", v, r.failures)
	}
	if d := distOf(v.skewCreated); d.max != time.Second {
		t.Errorf("skew max %v, want 1s", d.max)
	}
}

func TestEachWayOfFailingIsCaught(t *testing.T) {
	cases := map[string]func(r *run, jobs []seenJob) []seenJob{
		"a run missed": func(r *run, jobs []seenJob) []seenJob { return jobs[1:] },
		"a run started twice": func(r *run, jobs []seenJob) []seenJob {
			return append(jobs, runOf(r.attendees[0], 2, "second-attempt"))
		},
		"a Job of no CronJob in a class namespace": func(r *run, jobs []seenJob) []seenJob {
			return append(jobs, seenJob{ns: r.attendees[1].ns, name: "stray", uid: "stray"})
		},
		"a Job of alan's CronJob in ada's namespace": func(r *run, jobs []seenJob) []seenJob {
			j := runOf(r.attendees[1], 2, "misplaced")
			j.ns = r.attendees[0].ns
			return append(jobs, j)
		},
		"a Job of ada's CronJob outside the class": func(r *run, jobs []seenJob) []seenJob {
			j := runOf(r.attendees[0], 2, "escaped")
			j.ns = "default"
			return append(jobs, j)
		},
		"a run before the CronJob existed": func(r *run, jobs []seenJob) []seenJob {
			return append(jobs, runOf(r.attendees[0], 0, "too-early"))
		},
	}
	for name, change := range cases {
		t.Run(name, func(t *testing.T) {
			r := history()
			r.judge(change(r, allRuns(r)))
			if len(r.failures) == 0 {
				t.Errorf("not caught")
			}
		})
	}
}

func TestARunAfterTheWindowIsNotJudged(t *testing.T) {
	r := history()
	r.end = t0.Add(3*time.Minute + 10*time.Second) // 10:03 is now within the margin
	jobs := allRuns(r)
	v := r.judge(jobs)
	if v.expected != 4 || v.afterWindow != 2 || len(r.failures) > 0 {
		t.Fatalf("expected 4 runs judged and 2 after the window; got %+v, failures %v", v, r.failures)
	}
	r = history()
	r.end = t0.Add(3*time.Minute + 10*time.Second)
	var withoutLast []seenJob
	for _, j := range jobs {
		if j.scheduled.Before(t0.Add(3 * time.Minute)) {
			withoutLast = append(withoutLast, j)
		}
	}
	if r.judge(withoutLast); len(r.failures) > 0 {
		t.Fatalf("a run within the margin has no Job yet, which is no failure; got %v", r.failures)
	}
}

func TestTheLeaseIsFoundInEitherLogFormat(t *testing.T) {
	for line, want := range map[string]string{
		`I1126 03:04:56.158789    6399 leaderelection.go:272] "Successfully acquired lease" lock="classrun-ada/cronlab.batch.cronlab.dev"`: "classrun-ada/cronlab.batch.cronlab.dev",
		`I1126 03:04:56.158789    6399 leaderelection.go:258] successfully acquired lease classrun-ada/cronlab.batch.cronlab.dev`:          "classrun-ada/cronlab.batch.cronlab.dev",
	} {
		if got, ok := leaseOf(line); !ok || got != want {
			t.Errorf("leaseOf(%q) = %q, %v; want %q", line, got, ok, want)
		}
	}
	v := logVerdict{leases: []string{"classrun-ada/cronlab.batch.cronlab.dev"}}
	if !v.leaseIn("classrun-ada") || v.leaseIn("classrun-alan") || (logVerdict{}).leaseIn("classrun-ada") {
		t.Error("leaseIn must accept only Leases of the namespace, and at least one")
	}
}
