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

package v2

// The proof that conversion loses nothing: random valid objects of each
// version, converted to the other and back, come back as they were, compared
// as the API server would serve them (JSON). The objects are made by a
// seeded generator, so a failure names the seed that reproduces it;
// TestTheRoundTripCatchesADroppedField shows that the comparison would see a
// converter that drops a field. `go test -fuzz=FuzzRoundTrip ./api/v2` looks
// further, for as long as it is let run.

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	v1 "cronlab.dev/cronlab/api/v1"
	"cronlab.dev/cronlab/test/say"
)

// roundTrips is how many random objects of each version the unit test
// converts; the fuzz target goes on from there.
const roundTrips = 5000

// converter is the pair of conversions under test: ours, or a
// broken one that shows the test would notice.
type converter struct {
	toV1   func(*CronJob) (*v1.CronJob, error)
	fromV1 func(*v1.CronJob) (*CronJob, error)
}

var ours = converter{
	toV1: func(in *CronJob) (*v1.CronJob, error) {
		out := &v1.CronJob{}
		return out, in.ConvertTo(out)
	},
	fromV1: func(in *v1.CronJob) (*CronJob, error) {
		out := &CronJob{}
		return out, out.ConvertFrom(in)
	},
}

// lossV1 converts a v1 object to v2 and back, and says what went wrong (""
// if nothing did).
func (c converter) lossV1(in *v1.CronJob) string {
	mid, err := c.fromV1(in.DeepCopy())
	if err != nil {
		return say.Both("converting the v1 CronJob to v2 failed: %v", "把 v1 的 CronJob 转换为 v2 失败：%v", err)
	}
	back, err := c.toV1(mid)
	if err != nil {
		return say.Both("converting it back to v1 failed: %v", "再把它转换回 v1 时失败：%v", err)
	}
	if d := changes(in, back); d != "" {
		return say.Both("v1 -> v2 -> v1 changed it:\n%s", "经过 v1 -> v2 -> v1，对象变了：\n%s", d)
	}
	return ""
}

// lossV2 converts a v2 object to v1 and back, and says what went wrong.
func (c converter) lossV2(in *CronJob) string {
	mid, err := c.toV1(in.DeepCopy())
	if err != nil {
		return say.Both("converting the v2 CronJob to v1 failed: %v", "把 v2 的 CronJob 转换为 v1 失败：%v", err)
	}
	back, err := c.fromV1(mid)
	if err != nil {
		return say.Both("converting it back to v2 failed: %v", "再把它转换回 v2 时失败：%v", err)
	}
	if d := changes(in, back); d != "" {
		return say.Both("v2 -> v1 -> v2 changed it:\n%s", "经过 v2 -> v1 -> v2，对象变了：\n%s", d)
	}
	return ""
}

// changes compares two objects as the API server would serve them (JSON)
// and lists each field that differs, a line each:
//
//	spec.timeZone: was "Asia/Shanghai", is gone
func changes(before, after any) string {
	var b, a any
	if err := json.Unmarshal([]byte(asJSON(before)), &b); err != nil {
		panic(err)
	}
	if err := json.Unmarshal([]byte(asJSON(after)), &a); err != nil {
		panic(err)
	}
	var lines []string
	walk("", b, a, &lines)
	return strings.Join(lines, "\n")
}

func walk(path string, b, a any, lines *[]string) {
	bm, bIsMap := b.(map[string]any)
	am, aIsMap := a.(map[string]any)
	if bIsMap && aIsMap {
		keys := slices.Sorted(maps.Keys(bm))
		for k := range am {
			if _, ok := bm[k]; !ok {
				keys = append(keys, k)
			}
		}
		for _, k := range keys {
			walk(strings.TrimPrefix(path+"."+k, "."), bm[k], am[k], lines)
		}
		return
	}
	bl, bIsList := b.([]any)
	al, aIsList := a.([]any)
	if bIsList && aIsList && len(bl) == len(al) {
		for i := range bl {
			walk(fmt.Sprintf("%s[%d]", path, i), bl[i], al[i], lines)
		}
		return
	}
	if reflect.DeepEqual(b, a) {
		return
	}
	switch {
	case a == nil:
		*lines = append(*lines, say.Both("  %s: was %s, is gone", "  %s：原为 %s，现已不存在", path, show(b)))
	case b == nil:
		*lines = append(*lines, say.Both("  %s: was not there, is %s", "  %s：原先不存在，现为 %s", path, show(a)))
	default:
		*lines = append(*lines, say.Both("  %s: was %s, is %s", "  %s：原为 %s，现为 %s", path, show(b), show(a)))
	}
}

func show(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 100 {
		return string(b[:97]) + "..."
	}
	return string(b)
}

func asJSON(obj any) string {
	b, err := json.MarshalIndent(obj, "", "  ")
	if err != nil {
		panic(err)
	}
	return string(b)
}

func TestEveryValidObjectSurvivesTheRoundTrip(t *testing.T) {
	for seed := range uint64(roundTrips) {
		r := rand.New(rand.NewPCG(seed, 1))
		if loss := ours.lossV1(randomV1(r)); loss != "" {
			t.Fatal(say.Both("seed %d: %s",
				"种子 %d：%s", seed, loss))
		}
		if loss := ours.lossV2(randomV2(r)); loss != "" {
			t.Fatal(say.Both("seed %d: %s",
				"种子 %d：%s", seed, loss))
		}
	}
	t.Logf("%d random v1 objects and %d random v2 objects came back unchanged", roundTrips, roundTrips)
}

func FuzzRoundTrip(f *testing.F) {
	for _, seed := range []uint64{0, 1, 42, roundTrips} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, seed uint64) {
		r := rand.New(rand.NewPCG(seed, 2))
		if loss := ours.lossV1(randomV1(r)); loss != "" {
			t.Fatal(loss)
		}
		if loss := ours.lossV2(randomV2(r)); loss != "" {
			t.Fatal(loss)
		}
	})
}

// TestTheRoundTripCatchesADroppedField breaks the converter in the ways a
// converter breaks (a field forgotten in one direction, the annotation not
// kept) and checks that the round trip of random objects reports each.
func TestTheRoundTripCatchesADroppedField(t *testing.T) {
	mutants := []struct {
		name string
		c    converter
		want string // a word of the difference it must show
	}{{
		name: "v1 -> v2 forgets failedJobsHistoryLimit",
		c: converter{toV1: ours.toV1, fromV1: func(in *v1.CronJob) (*CronJob, error) {
			out, err := ours.fromV1(in)
			out.Spec.History.FailedJobs = nil
			return out, err
		}},
		want: "failedJobsHistoryLimit",
	}, {
		name: "v2 -> v1 forgets status.lastSuccessfulTime",
		c: converter{fromV1: ours.fromV1, toV1: func(in *CronJob) (*v1.CronJob, error) {
			out, err := ours.toV1(in)
			out.Status.LastSuccessfulTime = nil
			return out, err
		}},
		want: "lastSuccessfulTime",
	}, {
		name: "v2 -> v1 forgets the time zone",
		c: converter{fromV1: ours.fromV1, toV1: func(in *CronJob) (*v1.CronJob, error) {
			out, err := ours.toV1(in)
			out.Spec.TimeZone = nil
			return out, err
		}},
		want: "timeZone",
	}, {
		name: "v1 -> v2 does not keep v1's spelling of the schedule",
		c: converter{toV1: ours.toV1, fromV1: func(in *v1.CronJob) (*CronJob, error) {
			out, err := ours.fromV1(in)
			delete(out.Annotations, V1ScheduleAnnotation)
			return out, err
		}},
		want: "schedule",
	}}
	for _, m := range mutants {
		t.Run(m.name, func(t *testing.T) {
			for seed := range uint64(roundTrips) {
				r := rand.New(rand.NewPCG(seed, 1))
				loss := m.c.lossV1(randomV1(r))
				if loss == "" {
					loss = m.c.lossV2(randomV2(r))
				}
				if loss != "" {
					if !strings.Contains(loss, m.want) {
						t.Fatal(say.Both("seed %d: the difference does not name %s:\n%s",
							"种子 %d：差异中没有提到 %s：\n%s", seed, m.want, loss))
					}
					t.Logf("caught at seed %d: %s", seed, loss)
					return
				}
			}
			t.Fatal(say.Both("%d round trips did not notice the broken converter",
				"%d 次往返转换都没有发现这个坏掉的转换器", roundTrips))
		})
	}
}

// The cases that need care, one by one.
func TestHardCasesOfConversion(t *testing.T) {
	t.Run("spaces that v2 cannot hold are kept in the annotation, and only then", func(t *testing.T) {
		for _, tc := range []struct{ schedule, annotation string }{
			{"0 9 * * 1-5", ""},
			{"0  9 * * 1-5", "0  9 * * 1-5"},
			{"\t0 9 * * 1-5 ", "\t0 9 * * 1-5 "},
			{"@every 90s", ""},
			{"@midnight", ""},
		} {
			in := &v1.CronJob{Spec: v1.CronJobSpec{Schedule: tc.schedule}}
			out, err := ours.fromV1(in)
			if err != nil {
				t.Fatal(err)
			}
			if got := out.Annotations[V1ScheduleAnnotation]; got != tc.annotation {
				t.Error(say.Both("%q: annotation %q, want %q",
					"%q：注解为 %q，应为 %q", tc.schedule, got, tc.annotation))
			}
			if loss := ours.lossV1(in); loss != "" {
				t.Errorf("%q: %s", tc.schedule, loss)
			}
		}
	})

	t.Run("a schedule edited in v2 is spelled anew, and the stale spelling dropped", func(t *testing.T) {
		in := &v1.CronJob{Spec: v1.CronJobSpec{Schedule: "0  9 * * *"}}
		v2obj, err := ours.fromV1(in)
		if err != nil || v2obj.Spec.Schedule.Cron == nil {
			t.Fatal(say.Both("%q converted to a v2 schedule of %+v (error %v), want a cron table",
				"%q 转换成的 v2 时间表是 %+v（错误：%v），应为一个 cron 表", in.Spec.Schedule, v2obj.Spec.Schedule, err))
		}
		v2obj.Spec.Schedule.Cron.Hour = "10"
		back, err := ours.toV1(v2obj)
		if err != nil {
			t.Fatal(err)
		}
		if back.Spec.Schedule != "0 10 * * *" {
			t.Error(say.Both("schedule %q, want %q",
				"时间表为 %q，应为 %q", back.Spec.Schedule, "0 10 * * *"))
		}
		if _, kept := back.Annotations[V1ScheduleAnnotation]; kept {
			t.Error(say.Both("the converter's annotation leaked into v1",
				"转换器的注解泄漏到了 v1 中"))
		}
	})

	t.Run("descriptors map to fields, not to cron tables", func(t *testing.T) {
		for schedule, want := range map[string]Schedule{
			"@every 1h30m": {Every: ptr.To("1h30m")},
			"@every 0.5m":  {Every: ptr.To("0.5m")},
			"@annually":    {Period: ptr.To(Period("annually"))},
			"@yearly":      {Period: ptr.To(Period("yearly"))},
			"*/5 * * * *":  {Cron: &CronTable{Minute: "*/5", Hour: "*", DayOfMonth: "*", Month: "*", DayOfWeek: "*"}},
		} {
			out, err := ours.fromV1(&v1.CronJob{Spec: v1.CronJobSpec{Schedule: schedule}})
			if err != nil {
				t.Fatal(err)
			}
			if d := changes(want, out.Spec.Schedule); d != "" {
				t.Error(say.Both("%q converted to a different schedule:\n%s",
					"%q 转换成了另一个时间表：\n%s", schedule, d))
			}
		}
	})

	t.Run("a cron field left out in v2 is *", func(t *testing.T) {
		out, err := ours.toV1(&CronJob{Spec: CronJobSpec{Schedule: Schedule{Cron: &CronTable{Minute: "0", Hour: "9"}}}})
		if err != nil {
			t.Fatal(err)
		}
		if out.Spec.Schedule != "0 9 * * *" {
			t.Error(say.Both("schedule %q, want %q",
				"时间表为 %q，应为 %q", out.Spec.Schedule, "0 9 * * *"))
		}
	})

	t.Run("a v1 schedule that v1's validation rejects is an error, not a guess", func(t *testing.T) {
		for _, bad := range []string{"0 9 * *", "@bogus", "@every", "@every  90s", "@every 90s "} {
			if _, err := ours.fromV1(&v1.CronJob{Spec: v1.CronJobSpec{Schedule: bad}}); err == nil {
				t.Error(say.Both("%q converted without an error",
					"转换 %q 时没有返回错误", bad))
			}
		}
	})

	t.Run("an annotation set by hand on v1 never changes its schedule", func(t *testing.T) {
		in := &v1.CronJob{
			ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{V1ScheduleAnnotation: "0  9 * * *"}},
			Spec:       v1.CronJobSpec{Schedule: "0 9 * * *"},
		}
		v2obj, err := ours.fromV1(in.DeepCopy())
		if err != nil {
			t.Fatal(err)
		}
		back, err := ours.toV1(v2obj)
		if err != nil {
			t.Fatal(err)
		}
		if back.Spec.Schedule != "0 9 * * *" {
			t.Error(say.Both("the schedule came back as %q: ConvertFrom must drop an annotation it did not write before deciding whether to write one",
				"时间表转换回来成了 %q：ConvertFrom 必须先丢弃不是它自己写的注解，再决定要不要写一个", back.Spec.Schedule))
		}
	})

	t.Run("the conversion never changes its input", func(t *testing.T) {
		r := rand.New(rand.NewPCG(7, 7))
		in := randomV1(r)
		before := asJSON(in)
		if _, err := ours.fromV1(in); err != nil {
			t.Fatal(err)
		}
		if after := asJSON(in); after != before {
			t.Error(say.Both("ConvertFrom changed the v1 object it converted",
				"ConvertFrom 改动了它所转换的 v1 对象"))
		}
	})
}

// The functions of the schedule, one by one: the round trip above shows
// that they fit together, these which one does not.

func TestScheduleFromV1(t *testing.T) {
	for _, tc := range []struct {
		v1   string
		want Schedule // zero: an error
	}{
		{"*/5 9-17 * * *", Schedule{Cron: &CronTable{Minute: "*/5", Hour: "9-17", DayOfMonth: "*", Month: "*", DayOfWeek: "*"}}},
		{"0\t9  1 jan  mon-fri", Schedule{Cron: &CronTable{Minute: "0", Hour: "9", DayOfMonth: "1", Month: "jan", DayOfWeek: "mon-fri"}}},
		{"0\n9\v1\fjan\rmon-fri", Schedule{Cron: &CronTable{Minute: "0", Hour: "9", DayOfMonth: "1", Month: "jan", DayOfWeek: "mon-fri"}}},
		{"0\u00859\u00a01\u3000jan mon-fri", Schedule{Cron: &CronTable{Minute: "0", Hour: "9", DayOfMonth: "1", Month: "jan", DayOfWeek: "mon-fri"}}},
		{"@every 90s", Schedule{Every: ptr.To("90s")}},
		{"@every 1.5h", Schedule{Every: ptr.To("1.5h")}},
		{"@midnight", Schedule{Period: ptr.To(Period("midnight"))}},
		{"@hourly", Schedule{Period: ptr.To(Period("hourly"))}},
		{"0 9 * *", Schedule{}},
		{"@bogus", Schedule{}},
		{"@every", Schedule{}},
		{"@every  90s", Schedule{}},
		{"@every ", Schedule{}},
	} {
		got, err := scheduleFromV1(tc.v1)
		switch {
		case tc.want == (Schedule{}) && err == nil:
			t.Error(say.Both("scheduleFromV1(%q) = %s, want an error: v1's validation rejects it",
				"scheduleFromV1(%q) = %s，应返回错误：v1 的验证会拒绝它", tc.v1, show(got)))
		case tc.want != (Schedule{}) && err != nil:
			t.Error(say.Both("scheduleFromV1(%q): %v",
				"scheduleFromV1(%q) 出错：%v", tc.v1, err))
		case tc.want != (Schedule{}) && asJSON(got) != asJSON(tc.want):
			t.Error(say.Both("scheduleFromV1(%q) = %s, want %s",
				"scheduleFromV1(%q) = %s，应为 %s", tc.v1, show(got), show(tc.want)))
		}
	}
}

func TestScheduleToV1(t *testing.T) {
	nine := Schedule{Cron: &CronTable{Minute: "0", Hour: "9", DayOfMonth: "*", Month: "*", DayOfWeek: "1-5"}}
	for _, tc := range []struct {
		v2      Schedule
		spelled string
		want    string
	}{
		{nine, "", "0 9 * * 1-5"},
		{Schedule{Cron: &CronTable{Minute: "0", Hour: "9"}}, "", "0 9 * * *"},
		{Schedule{Every: ptr.To("90s")}, "", "@every 90s"},
		{Schedule{Period: ptr.To(Period("weekly"))}, "", "@weekly"},
		{nine, "0  9 * * 1-5", "0  9 * * 1-5"},
		{nine, "0  10 * * 1-5", "0 9 * * 1-5"}, // the spelling of another schedule: v2 was edited since
		{Schedule{Cron: nine.Cron, TimeZone: ptr.To("Asia/Shanghai")}, "0  9 * * 1-5", "0  9 * * 1-5"},
	} {
		if got := scheduleToV1(tc.v2, tc.spelled); got != tc.want {
			t.Error(say.Both("scheduleToV1(%s, %q) = %q, want %q",
				"scheduleToV1(%s, %q) = %q，应为 %q", show(tc.v2), tc.spelled, got, tc.want))
		}
	}
}

func TestSameWhen(t *testing.T) {
	shanghai, berlin := ptr.To("Asia/Shanghai"), ptr.To("Europe/Berlin")
	for _, tc := range []struct {
		a, b Schedule
		want bool
	}{
		{Schedule{Every: ptr.To("90s")}, Schedule{Every: ptr.To("90s")}, true},
		{Schedule{Every: ptr.To("90s")}, Schedule{Every: ptr.To("1m30s")}, false}, // v1 would spell them apart
		{Schedule{Every: ptr.To("90s"), TimeZone: shanghai}, Schedule{Every: ptr.To("90s"), TimeZone: berlin}, true},
		{Schedule{Cron: &CronTable{Minute: "0"}}, Schedule{Cron: &CronTable{Minute: "0", Hour: "*", DayOfMonth: "*", Month: "*", DayOfWeek: "*"}}, true},
		{Schedule{Period: ptr.To(Period("daily"))}, Schedule{Period: ptr.To(Period("midnight"))}, false},
	} {
		if got := sameWhen(tc.a, tc.b); got != tc.want {
			t.Error(say.Both("sameWhen(%s, %s) = %v, want %v (the time zone aside, do they spell the same v1 schedule?)",
				"sameWhen(%s, %s) = %v，应为 %v（不看时区，两者写成的 v1 时间表是否相同？）", show(tc.a), show(tc.b), got, tc.want))
		}
	}
}

// The generator. It makes objects that the API server would accept and
// serve: defaults applied, schedules that pass each version's validation.
// apiVersion and kind are left out: the conversion webhook sets them on
// what the converter returns.

var (
	minutes     = []string{"*", "0", "*/5", "10-20", "0,30", "5-55/10", "?", "+7"}
	hours       = []string{"*", "9", "9-17", "*/2", "22,23,0-2"}
	daysOfMonth = []string{"*", "1", "1-15", "*/7", "?", "1-3"}
	months      = []string{"*", "1", "jan", "mar-may", "*/3", "JAN"}
	daysOfWeek  = []string{"*", "0", "mon-fri", "sun", "1-5", "sat,sun"}
	durations   = []string{"10s", "90s", "1h30m", "0.5m", "+10s", "1.5h", "250ms"}
	// Every separator of v1's CEL rule, plain spaces the most often.
	separators = []string{" ", " ", " ", "  ", "\t", " \t ", "\n", "\v", "\f", "\r", "\u0085", "\u00a0", "\u3000"}
	zones      = []string{"Etc/UTC", "Asia/Shanghai", "America/Argentina/Buenos_Aires", "Europe/Berlin"}
	policies   = []ConcurrencyPolicy{AllowConcurrent, ForbidConcurrent, ReplaceConcurrent}
	instant    = time.Date(2030, time.January, 7, 10, 0, 0, 0, time.UTC)
)

func pick[T any](r *rand.Rand, from []T) T { return from[r.IntN(len(from))] }

// maybe returns v or nil, half and half.
func maybe[T any](r *rand.Rand, v T) *T {
	if r.IntN(2) == 0 {
		return nil
	}
	return &v
}

func randomCron(r *rand.Rand) *CronTable {
	return &CronTable{
		Minute: CronField(pick(r, minutes)), Hour: CronField(pick(r, hours)), DayOfMonth: CronField(pick(r, daysOfMonth)),
		Month: CronField(pick(r, months)), DayOfWeek: CronField(pick(r, daysOfWeek)),
	}
}

// spell writes a cron table as a user might in v1: fields separated by any
// of v1's separators, sometimes with spaces around.
func spell(r *rand.Rand, c *CronTable) string {
	fields := []string{string(c.Minute), string(c.Hour), string(c.DayOfMonth), string(c.Month), string(c.DayOfWeek)}
	var b strings.Builder
	if r.IntN(8) == 0 {
		b.WriteString(pick(r, separators))
	}
	for i, f := range fields {
		if i > 0 {
			b.WriteString(pick(r, separators))
		}
		b.WriteString(f)
	}
	if r.IntN(8) == 0 {
		b.WriteString(pick(r, separators))
	}
	return b.String()
}

func randomV1(r *rand.Rand) *v1.CronJob {
	var schedule string
	switch r.IntN(3) {
	case 0:
		schedule = spell(r, randomCron(r))
	case 1:
		schedule = "@every " + pick(r, durations)
	default:
		schedule = "@" + string(pick(r, periods))
	}
	return &v1.CronJob{
		ObjectMeta: randomMeta(r),
		Spec: v1.CronJobSpec{
			Schedule:                   schedule,
			TimeZone:                   maybe(r, pick(r, zones)),
			StartingDeadlineSeconds:    maybe(r, r.Int64N(3600)),
			ConcurrencyPolicy:          v1.ConcurrencyPolicy(pick(r, policies)),
			Suspend:                    ptr.To(r.IntN(2) == 0),
			JobTemplate:                randomJobTemplate(r),
			SuccessfulJobsHistoryLimit: ptr.To(r.Int32N(10)),
			FailedJobsHistoryLimit:     ptr.To(r.Int32N(10)),
		},
		Status: v1.CronJobStatus(randomStatus(r)),
	}
}

func randomV2(r *rand.Rand) *CronJob {
	meta := randomMeta(r)
	var schedule Schedule
	switch r.IntN(3) {
	case 0:
		schedule.Cron = randomCron(r)
		// As the converter leaves it, when the object was written in v1
		// with a spelling that v2 cannot hold.
		// (The generator spells on its own: it must not lean on the code
		// under test.)
		c := schedule.Cron
		canonical := strings.Join([]string{string(c.Minute), string(c.Hour), string(c.DayOfMonth), string(c.Month), string(c.DayOfWeek)}, " ")
		if spelled := spell(r, c); r.IntN(3) == 0 && spelled != canonical {
			meta.Annotations = map[string]string{V1ScheduleAnnotation: spelled, "team": "lab"}
		}
	case 1:
		schedule.Every = ptr.To(pick(r, durations))
	default:
		schedule.Period = ptr.To(pick(r, periods))
	}
	schedule.TimeZone = maybe(r, pick(r, zones))
	return &CronJob{
		ObjectMeta: meta,
		Spec: CronJobSpec{
			Schedule:                schedule,
			StartingDeadlineSeconds: maybe(r, r.Int64N(3600)),
			ConcurrencyPolicy:       pick(r, policies),
			Suspend:                 ptr.To(r.IntN(2) == 0),
			JobTemplate:             randomJobTemplate(r),
			History:                 JobHistory{SuccessfulJobs: ptr.To(r.Int32N(10)), FailedJobs: ptr.To(r.Int32N(10))},
		},
		Status: randomStatus(r),
	}
}

func randomMeta(r *rand.Rand) metav1.ObjectMeta {
	meta := metav1.ObjectMeta{
		Name:              fmt.Sprintf("cj-%d", r.IntN(1000)),
		Namespace:         "lab",
		UID:               types.UID(fmt.Sprintf("uid-%d", r.Uint64())),
		ResourceVersion:   fmt.Sprint(r.IntN(100000)),
		Generation:        r.Int64N(10),
		CreationTimestamp: metav1.NewTime(instant.Add(-time.Duration(r.IntN(1e6)) * time.Second)),
	}
	if r.IntN(2) == 0 {
		meta.Labels = map[string]string{"app": fmt.Sprint("a", r.IntN(10))}
	}
	if r.IntN(2) == 0 {
		meta.Annotations = map[string]string{"team": "lab"}
	}
	if r.IntN(4) == 0 {
		meta.Finalizers = []string{"lab.cronlab.dev/keep"}
	}
	return meta
}

func randomJobTemplate(r *rand.Rand) batchv1.JobTemplateSpec {
	return batchv1.JobTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"run": fmt.Sprint(r.IntN(5))}},
		Spec: batchv1.JobSpec{
			Parallelism:  maybe(r, r.Int32N(4)),
			BackoffLimit: maybe(r, r.Int32N(6)),
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: pick(r, []corev1.RestartPolicy{corev1.RestartPolicyNever, corev1.RestartPolicyOnFailure}),
				Containers: []corev1.Container{{
					Name: "main", Image: pick(r, []string{"busybox", "alpine:3.20"}),
					Command: []string{"sh", "-c", fmt.Sprint("echo ", r.IntN(100))},
				}},
			}},
		},
	}
}

func randomStatus(r *rand.Rand) CronJobStatus {
	var s CronJobStatus
	for i := range r.IntN(3) {
		s.Active = append(s.Active, corev1.ObjectReference{
			Kind: "Job", Namespace: "lab", Name: fmt.Sprintf("cj-%d", i), UID: types.UID(fmt.Sprint(r.Uint64())), APIVersion: "batch/v1",
		})
	}
	if r.IntN(2) == 0 {
		s.LastScheduleTime = ptr.To(metav1.NewTime(instant.Add(time.Duration(r.IntN(1e5)) * time.Second)))
	}
	if r.IntN(2) == 0 {
		s.LastSuccessfulTime = ptr.To(metav1.NewTime(instant.Add(time.Duration(r.IntN(1e5)) * time.Second)))
	}
	s.ObservedGeneration = r.Int64N(10)
	if r.IntN(2) == 0 {
		s.Conditions = []metav1.Condition{{
			Type: v1.ConditionReady, Status: metav1.ConditionTrue, Reason: v1.ReasonScheduling,
			Message: "next run at 2030-01-07T10:05:00Z", ObservedGeneration: s.ObservedGeneration,
			LastTransitionTime: metav1.NewTime(instant),
		}}
	}
	return s
}

// TestConversionRefusesAnotherHub: the conversion webhook hands ConvertTo
// and ConvertFrom the hub it was built with, v1. Given any other, they
// return an error that names it, where a bare type assertion would panic in
// the middle of a request.
func TestConversionRefusesAnotherHub(t *testing.T) {
	other := &otherHub{}
	if err := (&CronJob{}).ConvertTo(other); err == nil || !strings.Contains(err.Error(), "otherHub") {
		t.Error(say.Both("ConvertTo a hub that is not v1: the error %v, want one that names *v2.otherHub",
			"用 ConvertTo 转换到一个不是 v1 的枢纽版本（Hub）：得到的错误是 %v，应为一个提到 *v2.otherHub 的错误", err))
	}
	if err := (&CronJob{}).ConvertFrom(other); err == nil || !strings.Contains(err.Error(), "otherHub") {
		t.Error(say.Both("ConvertFrom a hub that is not v1: the error %v, want one that names *v2.otherHub",
			"用 ConvertFrom 从一个不是 v1 的枢纽版本（Hub）转换：得到的错误是 %v，应为一个提到 *v2.otherHub 的错误", err))
	}
}

// otherHub is a hub of some other API: a CronJob whose Hub method says so.
type otherHub struct{ v1.CronJob }

func (*otherHub) Hub() {}
