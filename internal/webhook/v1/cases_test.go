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

package v1

import (
	"fmt"
	"strings"

	kbatchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	batchv1 "cronlab.dev/cronlab/api/v1"
)

// validCronJob is the good CronJob that each bad input spoils in one way.
func validCronJob(ns, name string) *batchv1.CronJob {
	return &batchv1.CronJob{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: batchv1.CronJobSpec{
			Schedule: "*/5 * * * *",
			TimeZone: ptr.To("Europe/Berlin"),
			JobTemplate: kbatchv1.JobTemplateSpec{Spec: kbatchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyOnFailure,
				Containers:    []corev1.Container{{Name: "hello", Image: "busybox"}},
			}}}},
		},
	}
}

// badInput is one beginner's mistake and the API server's exact answer,
// after `CronJob.batch.cronlab.dev "NAME" is invalid: `. Most are refused by
// the CRD's own schema and CEL rules, with the same message whether the
// webhooks are on or off. webhookOnly marks what only the validating webhook
// can know: without it the API server stores such a CronJob, and the
// controller reports the problem in its Ready condition. docs/validation.md
// quotes these messages; TestTheDocsQuoteWhatTheAPIServerSays keeps it so.
type badInput struct {
	name        string
	spoil       func(*batchv1.CronJob)
	want        string
	webhookOnly bool
}

// answer is the whole message the API server gives for bad.
func (bad badInput) answer(cj *batchv1.CronJob) string {
	msg := fmt.Sprintf("CronJob.batch.cronlab.dev %q is invalid: %s", cj.Name, bad.want)
	if bad.webhookOnly {
		msg = `admission webhook "vcronjob-v1.kb.io" denied the request: ` + msg
	}
	return msg
}

func withSchedule(s string) func(*batchv1.CronJob) {
	return func(cj *batchv1.CronJob) { cj.Spec.Schedule = s }
}
func withTimeZone(z string) func(*batchv1.CronJob) {
	return func(cj *batchv1.CronJob) { cj.Spec.TimeZone = &z }
}

const (
	fiveFields = `must have five fields (minute hour day-of-month month day-of-week, for example "*/5 * * * *") or be a descriptor such as @hourly or @every 10m`
	noTZ       = `must not contain TZ: set the time zone in spec.timeZone, for example timeZone: Europe/Berlin, not with TZ= or CRON_TZ= in the schedule`
	minute     = `the minute (first field) must be a comma-separated list of numbers 0-59, ranges such as 10-20, * or ?, each with an optional step of 1 or more such as */15 or 10-50/5`
	hour       = `the hour (second field) must be a comma-separated list of numbers 0-23, ranges such as 9-17, * or ?, each with an optional step of 1 or more such as */2`
	dom        = `the day of the month (third field) must be a comma-separated list of numbers 1-31, ranges such as 1-15, * or ?, each with an optional step of 1 or more such as */7`
	month      = `the month (fourth field) must be a comma-separated list of numbers 1-12 or names jan-dec, ranges such as 3-5 or mar-may, * or ?, each with an optional step of 1 or more such as */3`
	dow        = `the day of the week (fifth field) must be a comma-separated list of numbers 0-6 (0 is Sunday; 7 is not allowed) or names sun-sat, ranges such as 1-5 or mon-fri, * or ?, each with an optional step of 1 or more`
	backwards  = `a range must not run backwards: in a-b, a may not be larger than b (for a range across midnight or the weekend, list two ranges, such as 22-23,0-2 or sat,sun)`
	descriptor = `the descriptors are @yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly, and @every followed by one space and a Go duration such as 90s or 1h30m`
	zoneParts  = `each part between slashes must have at most 14 characters, not be . or .., and not start with -, as in IANA names such as America/Argentina/Buenos_Aires`
	notLocal   = `must name a time zone such as Etc/UTC or Asia/Shanghai, not Local: Local is whatever zone the controller's machine is set to`
)

func badSchedule(s string, messages ...string) string {
	return list(fmt.Sprintf("spec.schedule: Invalid value: %q: ", s), messages)
}

func badTimeZone(z string, messages ...string) string {
	return list(fmt.Sprintf("spec.timeZone: Invalid value: %q: ", z), messages)
}

// list is how the API server joins several errors: [a, b].
func list(prefix string, messages []string) string {
	if len(messages) == 1 {
		return prefix + messages[0]
	}
	parts := make([]string, len(messages))
	for i, m := range messages {
		parts[i] = prefix + m
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

var badInputs = []badInput{
	{name: "empty schedule", spoil: withSchedule(""),
		want: `[spec.schedule: Invalid value: "": spec.schedule in body should be at least 1 chars long, spec.schedule: Invalid value: "": ` + fiveFields + `]`},
	{name: "four fields", spoil: withSchedule("*/5 * * *"), want: badSchedule("*/5 * * *", fiveFields)},
	{name: "six fields (seconds are not supported)", spoil: withSchedule("0 */5 * * * *"), want: badSchedule("0 */5 * * * *", fiveFields)},
	{name: "only spaces", spoil: withSchedule("     "), want: badSchedule("     ", fiveFields)},
	{name: "TZ= prefix", spoil: withSchedule("TZ=Europe/Berlin 0 9 * * *"), want: badSchedule("TZ=Europe/Berlin 0 9 * * *", noTZ, fiveFields)},
	{name: "CRON_TZ= prefix", spoil: withSchedule("CRON_TZ=Asia/Shanghai 0 9 * * *"), want: badSchedule("CRON_TZ=Asia/Shanghai 0 9 * * *", noTZ, fiveFields)},
	{name: "TZ anywhere", spoil: withSchedule("0 9 * * TZ"), want: badSchedule("0 9 * * TZ", noTZ, dow)},
	{name: "minute 61", spoil: withSchedule("61 * * * *"), want: badSchedule("61 * * * *", minute)},
	{name: "hour 24", spoil: withSchedule("0 24 * * *"), want: badSchedule("0 24 * * *", hour)},
	{name: "day of month 0", spoil: withSchedule("0 0 0 * *"), want: badSchedule("0 0 0 * *", dom)},
	{name: "day of month 32", spoil: withSchedule("0 0 32 * *"), want: badSchedule("0 0 32 * *", dom)},
	{name: "month 13", spoil: withSchedule("0 0 1 13 *"), want: badSchedule("0 0 1 13 *", month)},
	{name: "day of week 7 (Sunday is 0)", spoil: withSchedule("0 0 * * 7"), want: badSchedule("0 0 * * 7", dow)},
	{name: "day of week 1-7", spoil: withSchedule("0 0 * * 1-7"), want: badSchedule("0 0 * * 1-7", dow)},
	{name: "unknown month name", spoil: withSchedule("0 0 1 foo *"), want: badSchedule("0 0 1 foo *", month)},
	{name: "day name in the month field", spoil: withSchedule("0 0 1 mon *"), want: badSchedule("0 0 1 mon *", month)},
	{name: "negative number", spoil: withSchedule("-5 * * * *"), want: badSchedule("-5 * * * *", minute)},
	{name: "backwards range", spoil: withSchedule("50-10 * * * *"), want: badSchedule("50-10 * * * *", backwards)},
	{name: "backwards range of days", spoil: withSchedule("0 0 * * sat-sun"), want: badSchedule("0 0 * * sat-sun", backwards)},
	{name: "too many hyphens", spoil: withSchedule("1-2-3 * * * *"), want: badSchedule("1-2-3 * * * *", minute)},
	{name: "zero step", spoil: withSchedule("*/0 * * * *"), want: badSchedule("*/0 * * * *", minute)},
	{name: "two steps", spoil: withSchedule("*/5/2 * * * *"), want: badSchedule("*/5/2 * * * *", minute)},
	{name: "unknown descriptor", spoil: withSchedule("@fortnightly"), want: badSchedule("@fortnightly", descriptor)},
	{name: "@every without a duration", spoil: withSchedule("@every banana"), want: badSchedule("@every banana", descriptor)},
	{name: "@every with a number but no unit", spoil: withSchedule("@every 10"), want: badSchedule("@every 10", descriptor)},
	{name: "a step too large for 64 bits", spoil: withSchedule("*/9223372036854775808 * * * *"), webhookOnly: true,
		want: `spec.schedule: Invalid value: "*/9223372036854775808 * * * *": not a valid cron schedule: failed to parse int from 9223372036854775808: strconv.Atoi: parsing "9223372036854775808": value out of range`},
	{name: "February 30th never comes", spoil: withSchedule("0 0 30 2 *"), webhookOnly: true,
		want: `spec.schedule: Invalid value: "0 0 30 2 *": never fires: February has no day 30`},
	{name: "the 31st of short months never comes", spoil: withSchedule("0 0 31 4,6,9,11 *"), webhookOnly: true,
		want: `spec.schedule: Invalid value: "0 0 31 4,6,9,11 *": never fires: April, June, September and November have no day 31`},
	{name: "schedule longer than 512 characters", spoil: withSchedule("0 0 1 1 " + strings.Repeat("1,", 252) + "1"),
		want: `[spec.schedule: Too long: may not be more than 512 bytes, <nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation]`},
	{name: "unknown time zone", spoil: withTimeZone("Mars/Olympus_Mons"), webhookOnly: true,
		want: `spec.timeZone: Invalid value: "Mars/Olympus_Mons": unknown time zone; use an IANA name such as "Etc/UTC", "Europe/Berlin" or "Asia/Shanghai"`},
	{name: "time zone with a space", spoil: withTimeZone("Europe Berlin"),
		want: `spec.timeZone: Invalid value: "Europe Berlin": spec.timeZone in body should match '^[A-Za-z0-9_.+-]+(/[A-Za-z0-9_.+-]+)*$'`},
	{name: "empty time zone", spoil: withTimeZone(""),
		want: `spec.timeZone: Invalid value: "": spec.timeZone in body should be at least 1 chars long`},
	{name: "time zone that climbs out of the database", spoil: withTimeZone("../../etc/passwd"), want: badTimeZone("../../etc/passwd", zoneParts)},
	{name: "time zone part longer than 14 characters", spoil: withTimeZone("Europe/Berlin_Mitte_Nord"), want: badTimeZone("Europe/Berlin_Mitte_Nord", zoneParts)},
	{name: "time zone part starting with -", spoil: withTimeZone("Etc/-5"), want: badTimeZone("Etc/-5", zoneParts)},
	{name: "time zone Local", spoil: withTimeZone("Local"), want: badTimeZone("Local", notLocal)},
	{name: "name longer than 52 characters", spoil: func(cj *batchv1.CronJob) { cj.Name = strings.Repeat("a", 53) },
		want: `<nil>: Invalid value: metadata.name must be at most 52 characters: Job names add 11 characters to it and may have at most 63`},
	{name: "negative starting deadline", spoil: func(cj *batchv1.CronJob) { cj.Spec.StartingDeadlineSeconds = ptr.To[int64](-1) },
		want: `spec.startingDeadlineSeconds: Invalid value: -1: spec.startingDeadlineSeconds in body should be greater than or equal to 0`},
	{name: "negative successful history limit", spoil: func(cj *batchv1.CronJob) { cj.Spec.SuccessfulJobsHistoryLimit = ptr.To[int32](-1) },
		want: `spec.successfulJobsHistoryLimit: Invalid value: -1: spec.successfulJobsHistoryLimit in body should be greater than or equal to 0`},
	{name: "negative failed history limit", spoil: func(cj *batchv1.CronJob) { cj.Spec.FailedJobsHistoryLimit = ptr.To[int32](-3) },
		want: `spec.failedJobsHistoryLimit: Invalid value: -3: spec.failedJobsHistoryLimit in body should be greater than or equal to 0`},
	{name: "unknown concurrency policy", spoil: func(cj *batchv1.CronJob) { cj.Spec.ConcurrencyPolicy = "Sometimes" },
		want: `[spec.concurrencyPolicy: Unsupported value: "Sometimes": supported values: "Allow", "Forbid", "Replace", <nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation]`},
	{name: "concurrency policy in lower case", spoil: func(cj *batchv1.CronJob) { cj.Spec.ConcurrencyPolicy = "forbid" },
		want: `[spec.concurrencyPolicy: Unsupported value: "forbid": supported values: "Allow", "Forbid", "Replace", <nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation]`},
	{name: "job template with a selector", spoil: func(cj *batchv1.CronJob) {
		cj.Spec.JobTemplate.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "x"}}
	},
		want: `spec.jobTemplate.spec.selector: Invalid value: must not be set: the Job controller makes a selector for every Job`},
	{name: "job template with manualSelector", spoil: func(cj *batchv1.CronJob) { cj.Spec.JobTemplate.Spec.ManualSelector = ptr.To(true) },
		want: `spec.jobTemplate.spec.manualSelector: Invalid value: must not be true: the Job controller makes a selector for every Job`},
	{name: "restartPolicy Always", spoil: func(cj *batchv1.CronJob) {
		cj.Spec.JobTemplate.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyAlways
	},
		want: `spec.jobTemplate.spec.template.spec.restartPolicy: Invalid value: must be OnFailure or Never: the pods of a Job must be able to finish`},
	{name: "restartPolicy not set", spoil: func(cj *batchv1.CronJob) { cj.Spec.JobTemplate.Spec.Template.Spec.RestartPolicy = "" },
		want: `spec.jobTemplate.spec.template.spec.restartPolicy: Invalid value: must be OnFailure or Never: the pods of a Job must be able to finish`},
}

// mayNotCreateJobs is the webhook's answer to a user who may create CronJobs
// but not Jobs (see "refuses a user who may create CronJobs but not Jobs").
func mayNotCreateJobs(user, namespace string) string {
	return fmt.Sprintf("spec.jobTemplate: Forbidden: user %q may not create Jobs in namespace %q, so may not create a CronJob that would create them", user, namespace)
}
