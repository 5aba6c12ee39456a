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

package schedule

import (
	"strings"
	"testing"
	"time"

	"cronlab.dev/cronlab/test/say"
)

// at reads an RFC 3339 time; tests state every instant with its offset, so
// they do not depend on the time zone of the machine that runs them.
func at(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(say.Both("bad time %q in test: %v",
			"测试里的时间 %q 有误：%v", s, err))
	}
	return v
}

func seconds(n int) *time.Duration {
	d := time.Duration(n) * time.Second
	return &d
}

func TestParseRefusesWithAReason(t *testing.T) {
	cases := []struct {
		name, spec, zone, want string
	}{
		{"four fields", "*/5 * * *", "", `schedule "*/5 * * *": not a valid cron schedule: expected exactly 5 fields, found 4: [*/5 * * *]`},
		{"minute out of range", "61 * * * *", "", `schedule "61 * * * *": not a valid cron schedule: end of range (61) above maximum (59): 61`},
		{"unknown descriptor", "@fortnightly", "", `schedule "@fortnightly": not a valid cron schedule: unrecognized descriptor: @fortnightly`},
		{"TZ prefix", "TZ=Europe/Berlin 0 9 * * *", "", `schedule "TZ=Europe/Berlin 0 9 * * *": sets a time zone with TZ= or CRON_TZ=; remove it and set spec.timeZone instead`},
		{"CRON_TZ prefix", "CRON_TZ=UTC 0 9 * * *", "", `schedule "CRON_TZ=UTC 0 9 * * *": sets a time zone with TZ= or CRON_TZ=; remove it and set spec.timeZone instead`},
		{"unknown time zone", "0 9 * * *", "Mars/Olympus", `timeZone "Mars/Olympus": unknown time zone; use an IANA name such as "Etc/UTC", "Europe/Berlin" or "Asia/Shanghai"`},
		{"February 30th never comes", "0 0 30 2 *", "Etc/UTC", `schedule "0 0 30 2 *": never fires: February has no day 30`},
		{"the 31st of short months never comes", "0 0 31 4,6 *", "Etc/UTC", `schedule "0 0 31 4,6 *": never fires: April and June have no day 31`},
		{"three short months", "0 0 31 4,6,9 *", "Etc/UTC", `schedule "0 0 31 4,6,9 *": never fires: April, June and September have no day 31`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse(c.spec, c.zone)
			if err == nil || err.Error() != c.want {
				t.Error(say.Both("Parse(%q, %q) error\n got: %v\nwant: %s",
					"Parse(%q, %q) 的错误\n得到：%v\n应为：%s", c.spec, c.zone, err, c.want))
			}
		})
	}
}

// TestParseStandardTurnsAPanicIntoAnError: cron/v3 panics on some input
// ("TZ=" without a schedule slices out of range); Parse refuses that one
// before, but the webhook must answer every request, so the parser's own
// guard is tested on it directly.
func TestParseStandardTurnsAPanicIntoAnError(t *testing.T) {
	s, err := parseStandard("TZ=")
	if s != nil || err == nil || !strings.Contains(err.Error(), "the cron parser failed on it") {
		t.Error(say.Both(`parseStandard("TZ=") = %v, %v; want no schedule and the parser's failure`,
			"parseStandard(\"TZ=\") = %v, %v；应为没有时间表，以及解析器失败的错误", s, err))
	}
}

func TestLoadTimeZone(t *testing.T) {
	if loc, err := LoadTimeZone(""); loc != time.Local || err != nil {
		t.Error(say.Both(`LoadTimeZone("") = %v, %v; want the process's local time zone`,
			"LoadTimeZone(\"\") = %v, %v；应为进程的本地时区", loc, err))
	}
	if loc, err := LoadTimeZone("Asia/Shanghai"); err != nil || loc.String() != "Asia/Shanghai" {
		t.Error(say.Both(`LoadTimeZone("Asia/Shanghai") = %v, %v`,
			"LoadTimeZone(\"Asia/Shanghai\") 返回 %v, %v", loc, err))
	}
}

// TestNext: a table's next run is read in its time zone; @every has no
// grid of its own, so the next run is the interval after the whole second.
func TestNext(t *testing.T) {
	cases := []struct{ spec, zone, after, want string }{
		{"0 9 * * *", "Asia/Shanghai", "2026-11-22T02:00:00Z", "2026-11-23T09:00:00+08:00"},
		{"*/5 * * * *", "Etc/UTC", "2026-11-22T10:05:00Z", "2026-11-22T10:10:00Z"},
		{"@every 90s", "Etc/UTC", "2026-11-22T10:00:00.7Z", "2026-11-22T10:01:30Z"},
	}
	for _, c := range cases {
		s, err := Parse(c.spec, c.zone)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Next(at(t, c.after)); !got.Equal(at(t, c.want)) {
			t.Error(say.Both("%q: Next(%s) = %v, want %s",
				"%q：Next(%s) = %v，应为 %s", c.spec, c.after, got, c.want))
		}
	}
}

// TestLatestIn: the bisection's answer lies in (from, to], both ends
// included as the interval says.
func TestLatestIn(t *testing.T) {
	s, err := Parse("*/5 * * * *", "Etc/UTC")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ name, from, to, want string }{
		{say.Both("the only run is at to", "唯一的一次运行正好在 to"), "2026-11-22T10:00:00Z", "2026-11-22T10:05:00Z", "2026-11-22T10:05:00Z"},
		{say.Both("a run at from is not in the interval", "正好在 from 的运行不在区间内"), "2026-11-22T10:05:00Z", "2026-11-22T10:09:59Z", ""},
		{say.Both("the last of many", "多次运行中的最后一次"), "2026-11-22T10:00:00Z", "2026-11-23T10:04:00Z", "2026-11-23T10:00:00Z"},
	}
	for _, c := range cases {
		got := s.latestIn(at(t, c.from), at(t, c.to))
		if (c.want == "" && !got.IsZero()) || (c.want != "" && !got.Equal(at(t, c.want))) {
			t.Error(say.Both("%s: latestIn(%s, %s) = %v, want %q",
				"%s：latestIn(%s, %s) = %v，应为 %q", c.name, c.from, c.to, got, c.want))
		}
	}
}

func TestParseAccepts(t *testing.T) {
	for _, spec := range []string{"*/5 * * * *", "0 0 29 2 *", "@hourly", "@daily", "@every 10s", "30 10,11,12 * * 1-5", "0 0 31 2 1"} {
		if _, err := Parse(spec, "Etc/UTC"); err != nil {
			t.Error(say.Both("Parse(%q) = %v, want no error",
				"Parse(%q) = %v，应没有错误", spec, err))
		}
	}
}

// TestDue is the heart of the scheduling lesson: one row per situation the
// controller can find itself in, each named as a sentence.
func TestDue(t *testing.T) {
	cases := []struct {
		name     string
		spec     string
		zone     string
		last     string // last started run, or the CronJob's creation time
		now      string
		deadline *time.Duration

		wantRun     string // "" for no run
		wantTooLate bool
		wantMissed  int
		wantNext    string
	}{
		{
			name: "nothing due before the first slot",
			spec: "*/5 * * * *", last: "2026-11-22T10:00:00Z", now: "2026-11-22T10:04:59Z",
			wantNext: "2026-11-22T10:05:00Z",
		},
		{
			name: "a run is due exactly at its slot",
			spec: "*/5 * * * *", last: "2026-11-22T10:00:00Z", now: "2026-11-22T10:05:00Z",
			wantRun: "2026-11-22T10:05:00Z", wantMissed: 1, wantNext: "2026-11-22T10:10:00Z",
		},
		{
			name: "only the most recent of several missed runs starts",
			spec: "*/5 * * * *", last: "2026-11-22T10:00:00Z", now: "2026-11-22T10:17:30Z",
			wantRun: "2026-11-22T10:15:00Z", wantMissed: 3, wantNext: "2026-11-22T10:20:00Z",
		},
		{
			name: "a run older than the starting deadline is too late",
			spec: "*/5 * * * *", last: "2026-11-22T10:00:00Z", now: "2026-11-22T10:17:30Z", deadline: seconds(60),
			wantRun: "2026-11-22T10:15:00Z", wantTooLate: true, wantMissed: 0, wantNext: "2026-11-22T10:20:00Z",
		},
		{
			// As upstream: too late is strictly after the deadline, and the
			// window (now-deadline, now] leaves out its first instant, so
			// the run starts without counting as missed.
			name: "a run exactly at the starting deadline still starts",
			spec: "*/5 * * * *", last: "2026-11-22T10:00:00Z", now: "2026-11-22T10:16:00Z", deadline: seconds(60),
			wantRun: "2026-11-22T10:15:00Z", wantMissed: 0, wantNext: "2026-11-22T10:20:00Z",
		},
		{
			name: "a deadline longer than the gap counts only the runs since the last one",
			spec: "*/5 * * * *", last: "2026-11-22T10:00:00Z", now: "2026-11-22T10:07:30Z", deadline: seconds(3600),
			wantRun: "2026-11-22T10:05:00Z", wantMissed: 1, wantNext: "2026-11-22T10:10:00Z",
		},
		{
			name: "nothing due is never too late",
			spec: "*/5 * * * *", last: "2026-11-22T10:00:00Z", now: "2026-11-22T10:04:59Z", deadline: seconds(60),
			wantNext: "2026-11-22T10:05:00Z",
		},
		{
			name: "a run within the starting deadline still starts, and only runs in the window count as missed",
			spec: "*/5 * * * *", last: "2026-11-22T10:00:00Z", now: "2026-11-22T10:17:30Z", deadline: seconds(180),
			wantRun: "2026-11-22T10:15:00Z", wantMissed: 1, wantNext: "2026-11-22T10:20:00Z",
		},
		{
			// Upstream estimates the gap between runs from the first two
			// (one hour here) and so misses Friday 12:30 entirely.
			name: "an irregular schedule finds the right run across a weekend",
			spec: "30 10,11,12 * * 1-5", last: "2026-11-19T12:30:00Z", now: "2026-11-21T09:00:00Z",
			wantRun: "2026-11-20T12:30:00Z", wantMissed: 3, wantNext: "2026-11-23T10:30:00Z",
		},
		{
			name: "exactly 100 missed runs is not too many",
			spec: "* * * * *", last: "2026-11-22T10:00:00Z", now: "2026-11-22T11:40:00Z",
			wantRun: "2026-11-22T11:40:00Z", wantMissed: 100, wantNext: "2026-11-22T11:41:00Z",
		},
		{
			name: "101 missed runs is too many, and the most recent still starts",
			spec: "* * * * *", last: "2026-11-22T10:00:00Z", now: "2026-11-22T11:41:00Z",
			wantRun: "2026-11-22T11:41:00Z", wantMissed: 101, wantNext: "2026-11-22T11:42:00Z",
		},
		{
			name: "ten years of missed minutes are found without walking through them",
			spec: "* * * * *", last: "2016-11-22T10:00:00Z", now: "2026-11-22T10:17:42Z",
			wantRun: "2026-11-22T10:17:00Z", wantMissed: 101, wantNext: "2026-11-22T10:18:00Z",
		},
		{
			name: "an irregular schedule after a long outage is found by bisection",
			spec: "30 10,11,12 * * 1-5", last: "2025-01-01T00:00:00Z", now: "2026-11-21T09:00:00Z",
			wantRun: "2026-11-20T12:30:00Z", wantMissed: 101, wantNext: "2026-11-23T10:30:00Z",
		},
		{
			name: "a starting deadline keeps a long outage from counting as too many",
			spec: "* * * * *", last: "2016-11-22T10:00:00Z", now: "2026-11-22T10:17:42Z", deadline: seconds(120),
			wantRun: "2026-11-22T10:17:00Z", wantMissed: 2, wantNext: "2026-11-22T10:18:00Z",
		},
		{
			name: "@every counts from the last run, not from the clock",
			spec: "@every 10s", last: "2026-11-22T10:00:00Z", now: "2026-11-22T10:00:35Z",
			wantRun: "2026-11-22T10:00:30Z", wantMissed: 3, wantNext: "2026-11-22T10:00:40Z",
		},
		{
			name: "@every a run is due exactly one interval after the last",
			spec: "@every 90s", last: "2026-11-22T10:00:00Z", now: "2026-11-22T10:01:30Z",
			wantRun: "2026-11-22T10:01:30Z", wantMissed: 1, wantNext: "2026-11-22T10:03:00Z",
		},
		{
			// Runs fall on whole seconds: the fraction of a last time kept in
			// memory must not move the grid.
			name: "@every counts from the whole second of the last run",
			spec: "@every 10s", last: "2026-11-22T10:00:00.5Z", now: "2026-11-22T10:00:10.2Z",
			wantRun: "2026-11-22T10:00:10Z", wantMissed: 1, wantNext: "2026-11-22T10:00:20Z",
		},
		{
			name: "@every nothing due before one interval has passed",
			spec: "@every 90s", last: "2026-11-22T10:00:00Z", now: "2026-11-22T10:01:29Z",
			wantNext: "2026-11-22T10:01:30Z",
		},
		{
			// Upstream restarts the grid at now-deadline, so the runs drift.
			name: "@every with a deadline stays on the grid of the last run",
			spec: "@every 90s", last: "2026-11-22T10:00:00Z", now: "2026-11-22T10:07:40Z", deadline: seconds(30),
			wantRun: "2026-11-22T10:07:30Z", wantMissed: 1, wantNext: "2026-11-22T10:09:00Z",
		},
		{
			name: "@every too late for the deadline",
			spec: "@every 90s", last: "2026-11-22T10:00:00Z", now: "2026-11-22T10:08:50Z", deadline: seconds(30),
			wantRun: "2026-11-22T10:07:30Z", wantTooLate: true, wantNext: "2026-11-22T10:09:00Z",
		},
		{
			name: "@every after a long outage is too many",
			spec: "@every 1m", last: "2026-11-21T10:00:00Z", now: "2026-11-22T10:00:30Z",
			wantRun: "2026-11-22T10:00:00Z", wantMissed: 101, wantNext: "2026-11-22T10:01:00Z",
		},
		{
			name: "@hourly is on the hour",
			spec: "@hourly", last: "2026-11-22T10:00:00Z", now: "2026-11-22T11:00:01Z",
			wantRun: "2026-11-22T11:00:00Z", wantMissed: 1, wantNext: "2026-11-22T12:00:00Z",
		},
		{
			name: "a leap-day schedule waits four years",
			spec: "0 0 29 2 *", zone: "Etc/UTC", last: "2024-02-29T00:00:00Z", now: "2028-02-29T00:00:30Z",
			wantRun: "2028-02-29T00:00:00Z", wantMissed: 1, wantNext: "2032-02-29T00:00:00Z",
		},
		{
			// 2100 is not a leap year, so cron/v3 finds no February 29 within
			// the five years it searches from 2096: no run is due, none was
			// missed, and the next one is in 2104.
			name: "a leap-day schedule has no run in a century year that is not a leap year",
			spec: "0 0 29 2 *", zone: "Etc/UTC", last: "2096-02-29T00:00:00Z", now: "2100-03-01T00:00:00Z",
			wantNext: "2104-02-29T00:00:00Z",
		},
		{
			name: "the time zone decides which instant 09:00 is",
			spec: "0 9 * * *", zone: "Asia/Shanghai", last: "2026-11-21T01:00:00Z", now: "2026-11-22T01:00:05Z",
			wantRun: "2026-11-22T09:00:00+08:00", wantMissed: 1, wantNext: "2026-11-23T09:00:00+08:00",
		},
		{
			// cron/v3, and so upstream, skips a run whose local time does not exist.
			name: "spring forward skips a run in the hour that does not exist",
			spec: "30 2 * * *", zone: "Europe/Berlin", last: "2026-03-28T02:30:00+01:00", now: "2026-03-29T12:00:00+02:00",
			wantNext: "2026-03-30T02:30:00+02:00",
		},
		{
			// ... and runs twice in an hour that happens twice.
			name: "fall back runs again in the repeated hour",
			spec: "30 2 * * *", zone: "Europe/Berlin", last: "2026-10-25T02:30:00+02:00", now: "2026-10-25T02:45:00+01:00",
			wantRun: "2026-10-25T02:30:00+01:00", wantMissed: 1, wantNext: "2026-10-26T02:30:00+01:00",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			zone := c.zone
			if zone == "" {
				zone = "Etc/UTC"
			}
			s, err := Parse(c.spec, zone)
			if err != nil {
				t.Fatal(say.Both("Parse(%q): %v",
					"Parse(%q) 出错：%v", c.spec, err))
			}
			if s.Location().String() != zone {
				t.Error(say.Both("Location() = %v, want %s",
					"Location() = %v，应为 %s", s.Location(), zone))
			}
			got := s.Due(at(t, c.last), at(t, c.now), c.deadline)

			if c.wantRun == "" {
				if !got.Run.IsZero() {
					t.Error(say.Both("Run = %v, want none",
						"Run = %v，应没有运行", got.Run))
				}
			} else if !got.Run.Equal(at(t, c.wantRun)) {
				t.Error(say.Both("Run = %v, want %v",
					"Run = %v，应为 %v", got.Run, c.wantRun))
			}
			if got.TooLate != c.wantTooLate {
				t.Error(say.Both("TooLate = %v, want %v",
					"TooLate = %v，应为 %v", got.TooLate, c.wantTooLate))
			}
			if got.Missed != c.wantMissed {
				t.Error(say.Both("Missed = %d, want %d",
					"Missed = %d，应为 %d", got.Missed, c.wantMissed))
			}
			if got.TooMany() != (c.wantMissed > TooManyMissed) {
				t.Error(say.Both("TooMany() = %v with Missed %d",
					"Missed 为 %[2]d 时 TooMany() = %[1]v", got.TooMany(), got.Missed))
			}
			if c.wantNext == "" {
				if !got.Next.IsZero() {
					t.Error(say.Both("Next = %v, want none",
						"Next = %v，应没有下一次运行", got.Next))
				}
			} else if !got.Next.Equal(at(t, c.wantNext)) {
				t.Error(say.Both("Next = %v, want %v",
					"Next = %v，应为 %v", got.Next, c.wantNext))
			}
		})
	}
}

// TestDueAgreesWithAWalk checks the bisection against the obvious, slow
// answer (walk every run from last to now) over many gaps and schedules.
func TestDueAgreesWithAWalk(t *testing.T) {
	specs := []string{"* * * * *", "*/7 * * * *", "30 10,11,12 * * 1-5", "0 6-16/4 * * 1-5", "15 3 1,15 * *", "0 0 * * 0"}
	last := at(t, "2026-01-01T00:00:00Z")
	for _, spec := range specs {
		s, err := Parse(spec, "Europe/Berlin")
		if err != nil {
			t.Fatal(err)
		}
		for gap := time.Minute; gap < 40*24*time.Hour; gap = gap*3/2 + 17*time.Second {
			now := last.Add(gap)
			var want time.Time
			count := 0
			for r := s.Next(last); !r.After(now); r = s.Next(r) {
				want = r
				count++
			}
			got := s.Due(last, now, nil)
			if !got.Run.Equal(want) || got.Missed != min(count, TooManyMissed+1) {
				t.Fatal(say.Both("%q after %v: Due = (%v, %d), walk = (%v, %d)",
					"%q 过了 %v 之后：Due 得到 (%v, %d)，逐个遍历得到 (%v, %d)", spec, gap, got.Run, got.Missed, want, count))
			}
		}
	}
}

func BenchmarkDueAfterAYearOfMinutes(b *testing.B) {
	s, err := Parse("* * * * *", "Etc/UTC")
	if err != nil {
		b.Fatal(err)
	}
	last := time.Date(2025, 11, 22, 10, 0, 0, 0, time.UTC)
	now := last.Add(365 * 24 * time.Hour)
	for b.Loop() {
		s.Due(last, now, nil)
	}
}
