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

package v2_test

// v2's rules at their edges. Its markers (cronjob_types.go) become the CRD's
// schema and CEL rules, and these tests run a whole v2 CronJob through them
// in this process with the API server's own code (test/crdrules), as
// kube-apiserver validates an object on a create. v2 is served only with the
// webhooks, and the webhook's suite sends an API server just two v2
// CronJobs that its schema refuses (internal/webhook/v1/conversion_test.go).
// The API server fills in the defaults before it validates; they are tested
// apart (TestTheAPIServerFillsTheDefaults), and each case here sets what
// its rule reads.
//
// Each rule is tried with values it allows and values just outside it, so
// that a rule made looser or stricter by one step fails a case: a bound
// moved by one, an && made ||, an enum value or a whole marker dropped.
// Those are the mutants of row config/crd in docs/mutation.md.

import (
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"cronlab.dev/cronlab/test/crdrules"
	"cronlab.dev/cronlab/test/say"
)

const crdFile = "../../config/crd/bases/batch.cronlab.dev_cronjobs.yaml"

// aCronJob is a v2 CronJob that the CRD accepts; each case changes it.
func aCronJob(t *testing.T) map[string]any {
	t.Helper()
	var obj map[string]any
	err := yaml.Unmarshal([]byte(`
apiVersion: batch.cronlab.dev/v2
kind: CronJob
metadata: {name: backup, namespace: default}
spec:
  schedule:
    cron: {minute: "*/5", hour: "*", dayOfMonth: "*", month: "*", dayOfWeek: "*"}
    timeZone: Etc/UTC
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers: [{name: backup, image: busybox}]
`), &obj)
	if err != nil {
		t.Fatal(err)
	}
	return obj
}

// An edit changes one field of a CronJob, named by its path from the top.
type edit func(t *testing.T, obj map[string]any)

func set(path string, value any) edit {
	return func(t *testing.T, obj map[string]any) {
		t.Helper()
		if err := unstructured.SetNestedField(obj, value, strings.Split(path, ".")...); err != nil {
			t.Fatal(err)
		}
	}
}

func unset(path string) edit {
	return func(_ *testing.T, obj map[string]any) {
		unstructured.RemoveNestedField(obj, strings.Split(path, ".")...)
	}
}

// A ruleCase is a CronJob changed by edits, and what the API server says:
// nothing (stored), or an error at field that says says.
type ruleCase struct {
	name  string
	edits []edit
	field string // "": stored
	says  string
}

// theObject is the field of an error of a rule of the whole object.
const theObject = "<nil>"

func checkCases(t *testing.T, cases []ruleCase) {
	t.Helper()
	rules := crdrules.Load(t, crdFile, "v2")
	for _, c := range cases {
		obj := aCronJob(t)
		for _, e := range c.edits {
			e(t, obj)
		}
		errs := rules.Check(obj)
		switch {
		case c.field == "" && len(errs) > 0:
			t.Error(say.Both("%s: should be stored, is refused: %v", "%s：应当被存下，却被拒绝：%v", c.name, errs.ToAggregate()))
		case c.field != "" && !saysAt(errs, c.field, c.says):
			t.Error(say.Both("%s: should be refused at %s with %q, the API server says: %v", "%s：应当在 %s 处以 %q 被拒绝，API 服务器说的是：%v", c.name, c.field, c.says, errs.ToAggregate()))
		}
	}
}

// saysAt tells whether one of errs is at field and says says.
func saysAt(errs field.ErrorList, at, says string) bool {
	for _, e := range errs {
		if e.Field == at && strings.Contains(e.Error(), says) {
			return true
		}
	}
	return false
}

// everyAlone and periodAlone leave the schedule one way of saying it.
func everyAlone(every string) []edit {
	return []edit{unset("spec.schedule.cron"), set("spec.schedule.every", every)}
}

func periodAlone(period string) []edit {
	return []edit{unset("spec.schedule.cron"), set("spec.schedule.period", period)}
}

func TestTheScheduleIsSaidOneWay(t *testing.T) {
	const one = "set exactly one of cron, every and period"
	checkCases(t, []ruleCase{
		{name: "cron alone"},
		{name: "every alone", edits: everyAlone("90s")},
		{name: "period alone", edits: periodAlone("daily")},
		{name: "none of them", edits: []edit{unset("spec.schedule.cron")}, field: "spec.schedule", says: one},
		{name: "cron and every", edits: []edit{set("spec.schedule.every", "90s")}, field: "spec.schedule", says: one},
		{name: "all three", edits: []edit{set("spec.schedule.every", "90s"), set("spec.schedule.period", "daily")}, field: "spec.schedule", says: one},
	})
}

func TestEveryIsAGoDurationOfAtMost64Characters(t *testing.T) {
	longest := strings.Repeat("0", 62) + "1s"
	checkCases(t, []ruleCase{
		{name: "1h30m", edits: everyAlone("1h30m")},
		{name: "64 characters", edits: everyAlone(longest)},
		{name: "65 characters", edits: everyAlone("0" + longest), field: "spec.schedule.every", says: "may not be more than 64 bytes"},
		{name: "words", edits: everyAlone("90 seconds"), field: "spec.schedule.every", says: "must be a Go duration"},
	})
}

// TestTheTimeZoneHasTheShapeOfAnIANAName: the CRD checks a name's shape,
// as upstream does before it looks the name up (api/v1's tests compare the
// two); whether the zone exists only the webhook can say, from tzdata. So a
// name of one character passes the CRD.
func TestTheTimeZoneHasTheShapeOfAnIANAName(t *testing.T) {
	const tz = "spec.schedule.timeZone"
	const part = "each part between slashes must have at most 14 characters"
	zone := func(name string) []edit { return []edit{set(tz, name)} }
	longest := strings.Repeat("Abcdefghijklm/", 4) + "Abcdefgh" // parts of 13: only the length can refuse it
	checkCases(t, []ruleCase{
		{name: "three parts", edits: zone("America/Argentina/Buenos_Aires")},
		{name: "a - inside a part", edits: zone("Etc/GMT-14")},
		{name: "one character", edits: zone("Z")},
		{name: "empty", edits: zone(""), field: tz, says: "should be at least 1 chars long"},
		{name: "64 characters", edits: zone(longest)},
		{name: "65 characters", edits: zone(longest + "i"), field: tz, says: "may not be more than 64 bytes"},
		{name: "a part of 14 characters", edits: zone("America/Abcdefghijklmn")},
		{name: "a part of 15 characters", edits: zone("America/Abcdefghijklmno"), field: tz, says: part},
		{name: "a part that is .", edits: zone("Europe/."), field: tz, says: part},
		{name: "a part that is ..", edits: zone("../etc"), field: tz, says: part},
		{name: "a part that starts with -", edits: zone("Etc/-UTC"), field: tz, says: part},
		{name: "a space", edits: zone("Europe Berlin"), field: tz, says: "should match"},
		{name: "Local", edits: zone("Local"), field: tz, says: "not Local"},
		{name: "local", edits: zone("local"), field: tz, says: "not Local"},
	})
}

func TestEachCronFieldHasItsRangeAndNoRangeBackwards(t *testing.T) {
	const backwards = "a range must not run backwards"
	var cases []ruleCase
	for _, f := range []struct {
		field, says               string
		outside, backwards, equal string
	}{
		{"minute", "the minute must be", "60", "5-3", "5-5"},
		{"hour", "the hour must be", "24", "17-9", "9-9"},
		{"dayOfMonth", "the day of the month must be", "32", "15-1", "1-1"},
		{"month", "the month must be", "13", "mar-jan", "mar-3"},
		{"dayOfWeek", "the day of the week must be", "7", "fri-mon", "mon-1"},
	} {
		path := "spec.schedule.cron." + f.field
		cases = append(cases,
			ruleCase{name: f.field + " " + f.outside, edits: []edit{set(path, f.outside)}, field: path, says: f.says},
			ruleCase{name: f.field + " " + f.backwards, edits: []edit{set(path, f.backwards)}, field: path, says: backwards},
			ruleCase{name: f.field + " " + f.equal, edits: []edit{set(path, f.equal)}})
	}
	checkCases(t, cases)
}

// TestACronFieldHasNoSpaceAndAtMost512Characters: a field's bounds come
// from v1, whose schedule joins the five fields with spaces and may have
// 512 characters, so that every v1 CronJob converts to v2.
func TestACronFieldHasNoSpaceAndAtMost512Characters(t *testing.T) {
	const minute = "spec.schedule.cron.minute"
	longest := strings.Repeat("0,", 256)
	checkCases(t, []ruleCase{
		{name: "one character", edits: []edit{set(minute, "5")}},
		{name: "empty", edits: []edit{set(minute, "")}, field: minute, says: "should be at least 1 chars long"},
		{name: "512 characters", edits: []edit{set(minute, longest)}},
		{name: "513 characters", edits: []edit{set(minute, longest+"0")}, field: minute, says: "may not be more than 512 bytes"},
		{name: "a v1 schedule in one field", edits: []edit{set(minute, "*/5 *")}, field: minute, says: "should match"},
	})
}

func TestTheJobTemplateLeavesSelectorsToTheJobController(t *testing.T) {
	const pod = "spec.jobTemplate.spec.template.spec.restartPolicy"
	checkCases(t, []ruleCase{
		{name: "a selector", edits: []edit{set("spec.jobTemplate.spec.selector", map[string]any{"matchLabels": map[string]any{"app": "backup"}})},
			field: "spec.jobTemplate.spec.selector", says: "must not be set"},
		{name: "manualSelector false", edits: []edit{set("spec.jobTemplate.spec.manualSelector", false)}},
		{name: "manualSelector true", edits: []edit{set("spec.jobTemplate.spec.manualSelector", true)},
			field: "spec.jobTemplate.spec.manualSelector", says: "must not be true"},
		{name: "restartPolicy Never", edits: []edit{set(pod, "Never")}},
		{name: "restartPolicy Always", edits: []edit{set(pod, "Always")}, field: pod, says: "must be OnFailure or Never"},
		{name: "no restartPolicy", edits: []edit{unset(pod)}, field: pod, says: "must be OnFailure or Never"},
	})
}

func TestTheEnumsAndTheBounds(t *testing.T) {
	cases := []ruleCase{
		{name: "concurrencyPolicy forbid", edits: []edit{set("spec.concurrencyPolicy", "forbid")}, field: "spec.concurrencyPolicy", says: "Unsupported value"},
		{name: "period fortnightly", edits: periodAlone("fortnightly"), field: "spec.schedule.period", says: "Unsupported value"},
		{name: "a name of 52 characters", edits: []edit{set("metadata.name", strings.Repeat("a", 52))}},
		{name: "a name of 53 characters", edits: []edit{set("metadata.name", strings.Repeat("a", 53))}, field: theObject, says: "at most 52 characters"},
	}
	for _, p := range []string{"Allow", "Forbid", "Replace"} {
		cases = append(cases, ruleCase{name: "concurrencyPolicy " + p, edits: []edit{set("spec.concurrencyPolicy", p)}})
	}
	for _, p := range []string{"yearly", "annually", "monthly", "weekly", "daily", "midnight", "hourly"} {
		cases = append(cases, ruleCase{name: "period " + p, edits: periodAlone(p)})
	}
	for _, n := range []string{"spec.startingDeadlineSeconds", "spec.history.successfulJobs", "spec.history.failedJobs"} {
		cases = append(cases,
			ruleCase{name: n + " 0", edits: []edit{set(n, int64(0))}},
			ruleCase{name: n + " -1", edits: []edit{set(n, int64(-1))}, field: n, says: "should be greater than or equal to 0"})
	}
	checkCases(t, cases)
}

// TestTheAPIServerFillsTheDefaults: a field left out is filled in by the
// API server when it decodes the object, before any webhook sees it. A
// cron table's fields default to "*"; a schedule said another way gets no
// cron table.
func TestTheAPIServerFillsTheDefaults(t *testing.T) {
	rules := crdrules.Load(t, crdFile, "v2")
	defaulted := func(edits ...edit) map[string]any {
		obj := aCronJob(t)
		for _, e := range edits {
			e(t, obj)
		}
		rules.Default(obj)
		return obj
	}
	minute := defaulted(set("spec.schedule.cron", map[string]any{"minute": "5"}))
	hour := defaulted(set("spec.schedule.cron", map[string]any{"hour": "3"}))
	every := defaulted(everyAlone("90s")...)
	for _, c := range []struct {
		obj        map[string]any
		path, want string
	}{
		{minute, "spec.concurrencyPolicy", "Allow"},
		{minute, "spec.suspend", "false"},
		{minute, "spec.history.successfulJobs", "3"},
		{minute, "spec.history.failedJobs", "1"},
		{minute, "spec.schedule.cron.minute", "5"},
		{minute, "spec.schedule.cron.hour", "*"},
		{minute, "spec.schedule.cron.dayOfMonth", "*"},
		{minute, "spec.schedule.cron.month", "*"},
		{minute, "spec.schedule.cron.dayOfWeek", "*"},
		{hour, "spec.schedule.cron.minute", "*"},
		{hour, "spec.schedule.cron.hour", "3"},
		{every, "spec.schedule.cron", "not set"},
	} {
		got, found, err := unstructured.NestedFieldNoCopy(c.obj, strings.Split(c.path, ".")...)
		if err != nil {
			t.Fatal(err)
		}
		s := "not set"
		if found {
			s = fmt.Sprint(got)
		}
		if s != c.want {
			t.Error(say.Both("%s: should be %s after defaulting, is %s", "%s：填入默认值后应为 %s，实为 %s", c.path, c.want, s))
		}
	}
}
