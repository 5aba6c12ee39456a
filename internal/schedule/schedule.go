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

// Package schedule is the time arithmetic of the CronJob controller, kept
// apart from everything that talks to the API server. Every function here is
// pure: it takes the current time as an argument instead of reading a clock,
// so tests can ask "what is due at 10:05 if the last run was at 09:00?"
// without waiting, and the Reconciler stays a list of decisions.
//
// Parsing is done by github.com/robfig/cron/v3 (the library the upstream
// Kubernetes CronJob controller uses too); this package adds time zones,
// clear error messages, and an exact answer to "which runs were missed".
package schedule

import (
	"fmt"
	"strings"
	"time"
	// The time zone database is compiled into the binary, so spec.timeZone
	// works the same on a laptop, in CI and in a distroless container image
	// that has no /usr/share/zoneinfo.
	_ "time/tzdata"

	"github.com/robfig/cron/v3"
)

// Schedule is a parsed cron schedule read in one time zone.
type Schedule struct {
	loc *time.Location
	// Exactly one of the two is set: a cron table ("*/5 * * * *", "@daily"),
	// or a fixed interval ("@every 90s").
	table *cron.SpecSchedule
	every time.Duration
}

// Parse reads a schedule in the standard cron format and the IANA time zone
// it is meant in. An empty timeZone means the local time zone of the process,
// which is what kube-controller-manager does for batch/v1 CronJobs.
// Errors are *InvalidError, which name the field and say how to fix it.
func Parse(spec, timeZone string) (*Schedule, error) {
	if strings.Contains(spec, "TZ=") {
		return nil, &InvalidError{"schedule", spec, "sets a time zone with TZ= or CRON_TZ=; remove it and set spec.timeZone instead"}
	}
	loc, err := LoadTimeZone(timeZone)
	if err != nil {
		return nil, err
	}
	parsed, err := parseStandard(spec)
	if err != nil {
		return nil, &InvalidError{"schedule", spec, "not a valid cron schedule: " + err.Error()}
	}
	s := &Schedule{loc: loc}
	switch p := parsed.(type) {
	case *cron.SpecSchedule:
		s.table = p
		if reason := neverFires(s); reason != "" {
			return nil, &InvalidError{"schedule", spec, "never fires: " + reason}
		}
	case cron.ConstantDelaySchedule:
		s.every = p.Delay
	default:
		// cron.ParseStandard returns only the two types above; this guards
		// against a future cron/v3 that adds one.
		return nil, &InvalidError{"schedule", spec, fmt.Sprintf("unexpected schedule type %T", parsed)}
	}
	return s, nil
}

// parseStandard is cron.ParseStandard, turning a panic of the parser into an
// error: upstream guards it the same way, because some malformed inputs have
// made it panic, and a webhook must answer every request.
func parseStandard(spec string) (s cron.Schedule, err error) {
	defer func() {
		if r := recover(); r != nil {
			s, err = nil, fmt.Errorf("the cron parser failed on it: %v", r)
		}
	}()
	return cron.ParseStandard(spec)
}

// InvalidError says which field of a CronJob is wrong, and why.
type InvalidError struct {
	Field  string // "schedule" or "timeZone"
	Value  string
	Reason string
}

func (e *InvalidError) Error() string { return fmt.Sprintf("%s %q: %s", e.Field, e.Value, e.Reason) }

// LoadTimeZone turns an IANA time zone name into a location; "" is the local
// time zone of the process.
func LoadTimeZone(name string) (*time.Location, error) {
	if name == "" {
		return time.Local, nil
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, &InvalidError{"timeZone", name, `unknown time zone; use an IANA name such as "Etc/UTC", "Europe/Berlin" or "Asia/Shanghai"`}
	}
	return loc, nil
}

// neverFires explains why a syntactically valid table can never match a
// date, such as "0 0 30 2 *" (February has no 30th), or returns "".
// cron/v3 answers such a schedule with a zero time from Next; we ask it once
// from a leap year, so that schedules for February 29 count as valid.
func neverFires(s *Schedule) string {
	if !s.Next(time.Date(2000, 1, 1, 0, 0, 0, 0, s.loc)).IsZero() {
		return ""
	}
	firstDay := 0
	for d := 1; d <= 31; d++ {
		if s.table.Dom&(1<<uint(d)) != 0 {
			firstDay = d
			break
		}
	}
	var months []string
	for i := range 12 {
		if m := time.Month(i + 1); s.table.Month&(1<<uint(m)) != 0 {
			months = append(months, m.String())
		}
	}
	switch {
	case len(months) == 0 || firstDay == 0:
		// cron/v3 never parses a table with no month or no day of the
		// month; this keeps months[0] below from panicking if it did.
		return "no date matches all of its fields"
	case len(months) == 1:
		return fmt.Sprintf("%s has no day %d", months[0], firstDay)
	}
	last := len(months) - 1
	return fmt.Sprintf("%s and %s have no day %d", strings.Join(months[:last], ", "), months[last], firstDay)
}

// Location is the time zone the schedule is read in.
func (s *Schedule) Location() *time.Location { return s.loc }

// Next returns the first scheduled time strictly after t for a cron table.
// For "@every" it returns t plus the interval: such a schedule has no fixed
// grid, so callers must say where the grid starts (see Due).
// A zero time means the schedule never fires again.
func (s *Schedule) Next(t time.Time) time.Time {
	if s.table == nil {
		return t.Truncate(time.Second).Add(s.every)
	}
	return s.table.Next(t.In(s.loc))
}

// lab:begin schedule-due

// TooManyMissed is the number of missed runs above which the controller warns
// that something is off (a clock far in the past, or a controller that was
// down for long). The run still starts; only the warning is extra. Upstream
// Kubernetes chose 100 as "more than 80 hourly runs of a long weekend".
const TooManyMissed = 100

// Due is what the schedule says at one moment.
type Due struct {
	// Run is the scheduled time of the most recent run that came due after
	// the last started one, or zero if none did. Only this run may start:
	// older missed runs are skipped, as in batch/v1.
	Run time.Time
	// TooLate is true when Run is older than the starting deadline, so it
	// must not start either.
	TooLate bool
	// Missed counts the runs that came due within the deadline window since
	// the last started one (Run included when it lies in the window). It is
	// exact up to TooManyMissed+1.
	Missed int
	// Next is the first scheduled time after now: when to look again.
	// Zero when the schedule never fires again.
	Next time.Time
}

// TooMany reports whether so many runs were missed that it deserves a warning.
func (d Due) TooMany() bool { return d.Missed > TooManyMissed }

// Due works out which run is due at now, given last, the scheduled time of
// the last run that started (or, before the first run, the time the CronJob
// was created), and an optional starting deadline.
func (s *Schedule) Due(last, now time.Time, deadline *time.Duration) Due {
	// Runs before the window cannot start anymore, so they are not counted
	// as missed (that is why a deadline silences the TooMany warning).
	windowStart := last
	if deadline != nil && now.Add(-*deadline).After(windowStart) {
		windowStart = now.Add(-*deadline)
	}
	var due Due
	if s.table == nil {
		due = s.dueEvery(last, windowStart, now)
	} else {
		due = s.dueTable(last, windowStart, now)
	}
	due.TooLate = !due.Run.IsZero() && deadline != nil && due.Run.Add(*deadline).Before(now)
	return due
}

// dueEvery handles "@every d": runs are last+d, last+2d, ... so the grid is
// anchored at the last run and never drifts, however late a reconcile runs.
func (s *Schedule) dueEvery(last, windowStart, now time.Time) Due {
	last = last.Truncate(time.Second)
	elapsed := int64(now.Sub(last) / s.every) // runs in (last, now]
	due := Due{Next: last.Add(time.Duration(elapsed+1) * s.every)}
	if elapsed < 1 {
		return due
	}
	due.Run = last.Add(time.Duration(elapsed) * s.every)
	before := int64(windowStart.Sub(last) / s.every) // runs in (last, windowStart]
	due.Missed = int(min(elapsed-before, TooManyMissed+1))
	return due
}

// dueTable handles cron tables. It asks cron/v3 for one run after another,
// but at most TooManyMissed+1 times: after a long outage (a year of
// "* * * * *" is half a million runs) it finds the most recent run by
// bisection instead of walking through every minute of the outage.
func (s *Schedule) dueTable(last, windowStart, now time.Time) Due {
	due := Due{Next: s.Next(now)}
	for t := s.Next(windowStart); !t.IsZero() && !t.After(now) && due.Missed <= TooManyMissed; t = s.Next(t) {
		due.Run = t
		due.Missed++
	}
	if due.Run.IsZero() || due.Missed > TooManyMissed {
		// Either the walk stopped early, or no run fell inside the deadline
		// window and we still want to name the one that was missed.
		due.Run = s.latestIn(last, now)
	}
	return due
}

// lab:end

// latestIn returns the last scheduled time in (from, to], or zero if there is
// none. Runs fall on whole seconds, and "the next run after x is later than
// to" holds exactly for the seconds x at or after the answer, so a bisection
// over seconds finds it in about 40 calls of Next for any gap up to centuries.
func (s *Schedule) latestIn(from, to time.Time) time.Time {
	first := s.Next(from)
	if first.IsZero() || first.After(to) {
		return time.Time{}
	}
	nextIsAfterTo := func(x int64) bool {
		n := s.Next(time.Unix(x, 0))
		return n.IsZero() || n.After(to)
	}
	lo, hi := first.Unix()-1, to.Unix() // false at lo, true at hi
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if nextIsAfterTo(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return time.Unix(hi, 0).In(s.loc)
}
