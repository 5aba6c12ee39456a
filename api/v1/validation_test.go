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

package v1_test

// Does the CRD refuse exactly what upstream refuses? Upstream's API server
// checks a batch/v1 CronJob's schedule with robfig/cron's ParseStandard and
// refuses any "TZ" in it; it checks a time zone name's parts before it looks
// the name up. These tests run the same inputs through that and through the
// CRD's rules, which test/crdrules runs in this process with the API
// server's own code, and fail on any disagreement that is not listed with
// its reason.

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/robfig/cron/v3"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"cronlab.dev/cronlab/test/crdrules"
)

const crdFile = "../../config/crd/bases/batch.cronlab.dev_cronjobs.yaml"

// loadFieldRules reads the rules of one field of v1's schema.
func loadFieldRules(t testing.TB, path ...string) *crdrules.Rules {
	t.Helper()
	return crdrules.Load(t, crdFile, "v1", path...)
}

// upstreamSchedule is what kube-apiserver says about a new CronJob's schedule
// (pkg/apis/batch/validation): nil if it accepts it.
func upstreamSchedule(s string) (err error) {
	if s == "" {
		return fmt.Errorf("required")
	}
	if strings.Contains(s, "TZ") {
		return fmt.Errorf("cannot use TZ or CRON_TZ in schedule")
	}
	defer func() { // upstream recovers from the parser's panics too
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	_, err = cron.ParseStandard(s)
	return err
}

// tooLargeFor64Bits says whether upstream refuses s only because a number in
// it does not fit in 64 bits: a step (strconv's range error), or an @every
// duration that parses once its digits are zeros. CEL's regular expressions
// cannot see a number's size; the webhook refuses these.
func tooLargeFor64Bits(s string, err error) bool {
	if strings.Contains(err.Error(), "value out of range") {
		return true
	}
	d, ok := strings.CutPrefix(s, "@every ")
	if !ok {
		return false
	}
	_, err = time.ParseDuration(regexp.MustCompile(`[0-9]`).ReplaceAllString(d, "0"))
	return err == nil
}

// scheduleCases are the rules one by one, and the parser's oddities, which
// the CRD must accept as upstream does.
var scheduleCases = []string{
	// five fields, any white space between them
	"*/5 * * * *", "0 0 * * *", " 0 0 * * * ", "0\t0\n*\v*\f*", "0\u00a00\u30001 1 1", "0\u00850 1 1 1",
	"0\u200b0 1 1 1", "*/5 * * *", "0 */5 * * * *", "", "     ", "*", "0 0 1 1 1 1",
	// ranges of each field, at both ends and one past them
	"0 0 1 1 0", "59 23 31 12 6", "60 * * * *", "61 * * * *", "* 24 * * *", "* * 0 * *", "* * 32 * *",
	"* * * 0 *", "* * * 13 *", "* * * * 7", "* * * * 8", "-1 * * * *", "0-59 0-23 1-31 1-12 0-6",
	// names: months and days, any case, in ranges; not in other fields
	"0 0 1 jan-dec sun-sat", "0 0 1 JAN,Feb,mAR * ", "0 0 * * MON-FRI", "0 0 * * fri", "0 0 * * frİ",
	"0 0 * * ſun", "0 0 * * sunday", "0 0 * jan-3 *", "0 0 * 1-mar *", "jan * * * *", "0 0 * * jan",
	"0 0 * sun *", "0 0 * * mon-fri/2", "0 0 * * \u212aon",
	// lists, empty items included
	"0,15,30,45 * * * *", "0,,30 * * * *", ",0 * * * *", "0, * * * *", ", * * * *", "0 0 1 , 0", ",,,, * * * *",
	// ranges, their order, too many hyphens
	"10-20 * * * *", "20-10 * * * *", "5-5 * * * *", "1-2-3 * * * *", "0 22-2 * * *", "0 0 * * sat-sun",
	"0 0 * * 6-0", "0 0 * dec-jan *", "10- * * * *", "-10 * * * *",
	// steps
	"*/15 * * * *", "*/0 * * * *", "0-59/0 * * * *", "5/15 * * * *", "5/0 * * * *", "*/ * * * *",
	"*/+5 * * * *", "*/-5 * * * *", "*/-0 * * * *", "*/5/2 * * * *", "*/99 * * * *", "*/0005 * * * *",
	"*/99999999999999999999 * * * *", "*/9223372036854775807 * * * *", "*/9223372036854775808 * * * *",
	// * and ?, and what the parser ignores after "*-"
	"? ? ? ? ?", "*-5 * * * *", "*- * * * *", "*-x-y/2 * * * *", "?-anything * * * *", "*x * * * *",
	"** * * * *", "*/2-3 * * * *", "*,? * * * *",
	// signs and zeros
	"+5 * * * *", "+05 +1 +1 +1 +0", "++5 * * * *", "00000000000000000000000059 * * * *", "005-010/002 * * * *",
	"+ * * * *", "0x10 * * * *", "1_0 * * * *", "١ * * * *", "1.5 * * * *",
	// descriptors
	"@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly", "@Hourly",
	"@hourly ", " @hourly", "@fortnightly", "@", "@every", "@every ", "@every 10s", "@every 1h30m",
	"@every 0", "@every 00", "@every -5m", "@every +5m", "@every .5h", "@every 1.h", "@every .h",
	"@every 10", "@every 10x", "@every 1µs", "@every 1μs", "@every 1us", "@every  10s", "@every\t10s",
	"@every 10s ", "@every banana", "@every 9999999999h", "@every 2562047h", "@every 2562048h",
	"@every 99999999999999999999ns", "@every 1h-5m",
	// time zones in the schedule, anywhere
	"TZ=Europe/Berlin 0 9 * * *", "CRON_TZ=Asia/Shanghai 0 9 * * *", "0 9 * * * TZ", "tz=Europe/Berlin 0 9 * * *",
	"TZ=", "TZ=Europe/Berlin",
	// long lists: every value of every field is 391 characters
	fullLists(),
}

func fullLists() string {
	list := func(from, to int) string {
		var s []string
		for i := from; i <= to; i++ {
			s = append(s, fmt.Sprint(i))
		}
		return strings.Join(s, ",")
	}
	return strings.Join([]string{list(0, 59), list(0, 23), list(1, 31),
		"jan,feb,mar,apr,may,jun,jul,aug,sep,oct,nov,dec", "sun,mon,tue,wed,thu,fri,sat"}, " ")
}

func TestTheCRDRefusesTheSchedulesUpstreamRefuses(t *testing.T) {
	rules := loadFieldRules(t, "spec", "schedule")
	for _, s := range scheduleCases {
		compareSchedule(t, rules, s)
	}
	if len(fullLists()) != 391 {
		t.Errorf("every value of every field should be 391 characters, is %d", len(fullLists()))
	}
}

func compareSchedule(t *testing.T, rules *crdrules.Rules, s string) {
	t.Helper()
	crd := rules.Check(s)
	up := upstreamSchedule(s)
	switch {
	case up == nil && len(crd) > 0:
		t.Errorf("%q: upstream accepts it, the CRD refuses it: %v", s, crd.ToAggregate())
	case up != nil && len(crd) == 0 && !tooLargeFor64Bits(s, up):
		t.Errorf("%q: upstream refuses it (%v), the CRD accepts it", s, up)
	}
}

// FuzzTheCRDAgreesWithUpstreamOnSchedules: go test -fuzz=FuzzTheCRDAgreesWithUpstreamOnSchedules ./api/v1
func FuzzTheCRDAgreesWithUpstreamOnSchedules(f *testing.F) {
	for _, s := range scheduleCases {
		f.Add(s)
	}
	rules := loadFieldRules(f, "spec", "schedule")
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 512 || !utf8.ValidString(s) {
			t.Skip("longer than the CRD's maxLength, or not UTF-8 (JSON cannot carry it)")
		}
		compareSchedule(t, rules, s)
	})
}

// upstreamTimeZoneParts is upstream's check of a time zone name before it
// looks the name up in tzdata (which only Go can do: the webhook's part).
func upstreamTimeZoneParts(z string) bool {
	if z == "" || strings.EqualFold(z, "Local") {
		return false
	}
	for _, part := range strings.Split(z, "/") {
		if part == "." || part == ".." || strings.HasPrefix(part, "-") ||
			!regexp.MustCompile(`^[A-Za-z\.\-_0-9+]{1,14}$`).MatchString(part) {
			return false
		}
	}
	return true
}

var timeZoneCases = []string{
	"Etc/UTC", "UTC", "Europe/Berlin", "Asia/Shanghai", "America/Argentina/Buenos_Aires", "America/Port-au-Prince",
	"Etc/GMT+8", "Etc/GMT-14", "America/Argentina/ComodRivadavia", "Mars/Base", "Mars/Olympus_Mons",
	"Local", "local", "LOCAL", "Local/Berlin", "", "/", "Europe/", "/Europe", "Europe//Berlin", "Europe Berlin",
	".", "..", "../../etc/passwd", "./UTC", "Europe/.", "...", ".a", "..a", "-UTC", "Etc/-UTC", "Etc/GMT-",
	"ABCDEFGHIJKLMN", "ABCDEFGHIJKLMNO", "Europe/ABCDEFGHIJKLMNO", "Europe/Berlin\n", "Európe/Berlin",
	strings.Repeat("A/", 32) + "B", strings.Repeat("Ab/", 22),
}

func TestTheCRDRefusesTheTimeZonesUpstreamRefusesByTheirName(t *testing.T) {
	rules := loadFieldRules(t, "spec", "timeZone")
	for _, z := range timeZoneCases {
		compareTimeZone(t, rules, z)
	}
}

func compareTimeZone(t *testing.T, rules *crdrules.Rules, z string) {
	t.Helper()
	crd := rules.Check(z)
	up := upstreamTimeZoneParts(z)
	switch {
	case up && len(crd) > 0 && len(z) <= 64:
		t.Errorf("%q: upstream's name check accepts it, the CRD refuses it: %v", z, crd.ToAggregate())
	case !up && len(crd) == 0:
		t.Errorf("%q: upstream refuses it by its name, the CRD accepts it", z)
	}
}

// TestATimeZoneHasAtMost64Characters: a bound of the CRD's own, which
// upstream does not have; the API server estimates the cost of the rule
// over the name's parts from it (TestTheCRDsRulesFitTheAPIServersCostBudget).
// Each part below has 13 characters, so that only the length can refuse.
func TestATimeZoneHasAtMost64Characters(t *testing.T) {
	rules := loadFieldRules(t, "spec", "timeZone")
	longest := strings.Repeat("Abcdefghijklm/", 4) + "Abcdefgh"
	if len(longest) != 64 {
		t.Fatalf("the longest name should have 64 characters, has %d", len(longest))
	}
	if errs := rules.Check(longest); len(errs) > 0 {
		t.Errorf("a name of 64 characters is refused: %v", errs.ToAggregate())
	}
	errs := rules.Check(longest + "i")
	if len(errs) == 0 || errs[0].Type != field.ErrorTypeTooLong {
		t.Errorf("a name of 65 characters should be refused as too long, is: %v", errs.ToAggregate())
	}
}

// FuzzTheCRDAgreesWithUpstreamOnTimeZones: go test -fuzz=FuzzTheCRDAgreesWithUpstreamOnTimeZones ./api/v1
func FuzzTheCRDAgreesWithUpstreamOnTimeZones(f *testing.F) {
	for _, z := range timeZoneCases {
		f.Add(z)
	}
	rules := loadFieldRules(f, "spec", "timeZone")
	f.Fuzz(func(t *testing.T, z string) {
		if !utf8.ValidString(z) {
			t.Skip("not UTF-8")
		}
		compareTimeZone(t, rules, z)
	})
}

// TestTheCRDsRulesFitTheAPIServersCostBudget: the API server refuses a CRD
// whose rules might cost more than this each, estimated from maxLength.
func TestTheCRDsRulesFitTheAPIServersCostBudget(t *testing.T) {
	const limit = 10_000_000     // apiextensions validation's StaticEstimatedCostLimit
	const crdLimit = 100_000_000 // and StaticEstimatedCRDCostLimit, for all rules together
	var total uint64
	for _, f := range []string{"schedule", "timeZone"} {
		for i, c := range loadFieldRules(t, "spec", f).MaxCost {
			t.Logf("spec.%s rule %d: estimated cost at most %d", f, i, c)
			if c > limit {
				t.Errorf("spec.%s rule %d: estimated cost %d is over the limit %d", f, i, c, limit)
			}
			total += c
		}
	}
	if total > crdLimit {
		t.Errorf("the rules together may cost %d, over the CRD's limit %d", total, crdLimit)
	}
}
