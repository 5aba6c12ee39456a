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

// The verdict, from the Jobs the instructor's watch saw. Per attendee and
// scheduled minute t, as hack/chaos audits it: a t that came due after the
// CronJob was created and at least -margin before the end has exactly one
// Job (not 0: missed; not 2: started twice), told apart by the scheduled
// time the controller writes on each Job, and by UID, since a Job's name is
// the same for every attempt at one run. Every Job in a class namespace
// must be controlled by that namespace's CronJob; a Job anywhere else that
// names one of this run's CronJobs as its controller is foreign too.

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
	"k8s.io/apimachinery/pkg/types"

	batchv1 "cronlab.dev/cronlab/api/v1"
)

type verdict struct {
	expected, started, duplicated int
	missed                        []string
	foreign                       []string // Jobs where no Job of this run belongs
	unexpected                    []string // runs of a time that was not due (before creation, off the schedule)
	afterWindow                   int      // runs after the judged window, not judged
	otherCronlab                  map[string]int
	skewCreated, skewSeen         []time.Duration
	firstDue, lastDue             time.Time
	relists                       int
}

func (r *run) judge(jobs []seenJob) verdict {
	v := verdict{otherCronlab: map[string]int{}}
	runs := r.classify(jobs, &v)
	sched, _ := cron.ParseStandard("*/1 * * * *")
	judgedUntil := r.end.Add(-r.cfg.margin)
	for _, a := range r.attendees {
		created := a.cronJob.CreationTimestamp.Time
		due := map[int64]bool{}
		for t := sched.Next(created); !t.After(judgedUntil); t = sched.Next(t) {
			due[t.Unix()] = true
			v.expected++
			if v.firstDue.IsZero() || t.Before(v.firstDue) {
				v.firstDue = t
			}
			v.lastDue = maxTime(v.lastDue, t)
			started := runs[a][t.Unix()]
			if len(started) == 0 {
				v.missed = append(v.missed, fmt.Sprintf("%s at %s", a.ns, t.UTC().Format(time.TimeOnly)))
				continue
			}
			v.started++
			first := slices.MinFunc(started, func(x, y seenJob) int { return x.created.Compare(y.created) })
			v.skewCreated = append(v.skewCreated, first.created.Sub(t))
			v.skewSeen = append(v.skewSeen, first.seen.Sub(t))
		}
		for at, js := range runs[a] {
			v.duplicated += distinct(js) - 1
			t := time.Unix(at, 0)
			switch {
			case due[at]:
			case t.After(judgedUntil) && sched.Next(t.Add(-time.Second)).Equal(t):
				v.afterWindow++
			default:
				v.unexpected = append(v.unexpected, fmt.Sprintf("%s/%s for %s (%q is not a time this CronJob was due)",
					a.ns, js[0].name, t.UTC().Format(time.TimeOnly), js[0].scheduled.Format(time.RFC3339)))
			}
		}
	}
	sort.Strings(v.missed)
	sort.Strings(v.foreign)
	r.failIf(len(v.missed) > 0, "%d runs missed: %s", len(v.missed), strings.Join(v.missed, ", "))
	r.failIf(v.duplicated > 0, "%d runs started twice (two Jobs of one CronJob for one scheduled time)", v.duplicated)
	r.failIf(len(v.foreign) > 0, "%d foreign Jobs: %s", len(v.foreign), strings.Join(v.foreign, "; "))
	r.failIf(len(v.unexpected) > 0, "%d Jobs of runs that were not due: %s", len(v.unexpected), strings.Join(v.unexpected, "; "))
	r.failIf(v.expected == 0, "no run came due within the window: -for is too short")
	return v
}

// classify sorts the Jobs seen: this run's, by attendee and scheduled
// second (two time.Time of one instant are different map keys when their
// locations differ), and the foreign ones, into v.
func (r *run) classify(jobs []seenJob, v *verdict) map[*attendee]map[int64][]seenJob {
	byNS := map[string]*attendee{}
	byUID := map[types.UID]*attendee{}
	for _, a := range r.attendees {
		byNS[a.ns] = a
		byUID[a.cronJob.UID] = a
	}
	runs := map[*attendee]map[int64][]seenJob{}
	for _, j := range jobs {
		a, inClass := byNS[j.ns]
		switch {
		case inClass && j.owner != nil && j.owner.UID == a.cronJob.UID:
			if runs[a] == nil {
				runs[a] = map[int64][]seenJob{}
			}
			runs[a][j.scheduled.Unix()] = append(runs[a][j.scheduled.Unix()], j)
		case inClass:
			v.foreign = append(v.foreign, fmt.Sprintf("%s/%s in a class namespace, controlled by %s", j.ns, j.name, ownerOf(j)))
		case j.owner != nil && byUID[j.owner.UID] != nil:
			v.foreign = append(v.foreign, fmt.Sprintf("%s/%s outside the class, controlled by %s's CronJob", j.ns, j.name, byUID[j.owner.UID].name))
		case j.label != "" && !j.created.Before(r.watchFrom.Truncate(time.Second)):
			v.otherCronlab[j.ns]++ // another user's cronlab on the same cluster: not this run's
		}
	}
	return runs
}

func (r *run) failIf(cond bool, format string, args ...any) {
	if cond {
		r.failf(format, args...)
	}
}

func ownerOf(j seenJob) string {
	if j.owner == nil {
		return "nothing"
	}
	return fmt.Sprintf("%s %s (uid %s)", j.owner.Kind, j.owner.Name, j.owner.UID)
}

func distinct(js []seenJob) int {
	uids := map[types.UID]bool{}
	for _, j := range js {
		uids[j.uid] = true
	}
	return len(uids)
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// inventory checks, as the instructor, that each class namespace holds the
// CronJobs its attendee made and no other, with the UIDs they were made
// with: a CronJob deleted and made again by someone else would not be.
func (r *run) inventory(ctx context.Context) error {
	var list batchv1.CronJobList
	if err := r.adminClient.List(ctx, &list); err != nil {
		return err
	}
	found := map[string][]string{}
	for _, cj := range list.Items {
		found[cj.Namespace] = append(found[cj.Namespace], cj.Name+"@"+string(cj.UID))
	}
	total := 0
	for i, a := range r.attendees {
		want := []string{"every-minute@" + string(a.cronJob.UID)}
		if i == 1 {
			want = append(want, neighbourName+"@")
		}
		got := found[a.ns]
		sort.Strings(got)
		total += len(got)
		if !sameCronJobs(got, want) {
			r.failf("%s holds the CronJobs %v; it should hold %v", a.ns, got, want)
		}
	}
	r.cronJobsAtEnd = fmt.Sprintf("%d CronJobs in the class's namespaces: every-minute in each, and %s in %s", total, neighbourName, r.attendees[1].ns)
	return nil
}

// sameCronJobs compares name@uid lists; a want without a UID matches any.
func sameCronJobs(got, want []string) bool {
	if len(got) != len(want) {
		return false
	}
	for _, w := range want {
		if !slices.ContainsFunc(got, func(g string) bool { return g == w || strings.HasSuffix(w, "@") && strings.HasPrefix(g, w) }) {
			return false
		}
	}
	return true
}
