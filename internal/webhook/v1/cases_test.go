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

// badInput is one beginner's mistake and the API server's exact answer.
// Most are refused by the CRD's own schema and CEL rules, with the same
// message whether the webhooks are on or off. webhookOnly marks what only
// the validating webhook can know: without it the API server stores such a
// CronJob, and the controller reports the problem in its Ready condition.
type badInput struct {
	name        string
	spoil       func(*batchv1.CronJob)
	want        string
	webhookOnly bool
}

func withSchedule(s string) func(*batchv1.CronJob) {
	return func(cj *batchv1.CronJob) { cj.Spec.Schedule = s }
}
func withTimeZone(z string) func(*batchv1.CronJob) {
	return func(cj *batchv1.CronJob) { cj.Spec.TimeZone = &z }
}

var badInputs = []badInput{
	{name: "empty schedule", spoil: withSchedule(""),
		want: `CronJob.batch.cronlab.dev "bad-0" is invalid: [spec.schedule: Invalid value: "": spec.schedule in body should be at least 1 chars long, spec.schedule: Invalid value: "": must have five fields (minute hour day-of-month month day-of-week, for example "*/5 * * * *") or be a descriptor such as @hourly or @every 10m]`,
	},
	{name: "four fields", spoil: withSchedule("*/5 * * *"),
		want: `CronJob.batch.cronlab.dev "bad-1" is invalid: spec.schedule: Invalid value: "*/5 * * *": must have five fields (minute hour day-of-month month day-of-week, for example "*/5 * * * *") or be a descriptor such as @hourly or @every 10m`,
	},
	{name: "six fields (seconds are not supported)", spoil: withSchedule("0 */5 * * * *"),
		want: `CronJob.batch.cronlab.dev "bad-2" is invalid: spec.schedule: Invalid value: "0 */5 * * * *": must have five fields (minute hour day-of-month month day-of-week, for example "*/5 * * * *") or be a descriptor such as @hourly or @every 10m`,
	},
	{name: "only spaces", spoil: withSchedule("     "),
		want: `CronJob.batch.cronlab.dev "bad-3" is invalid: spec.schedule: Invalid value: "     ": must have five fields (minute hour day-of-month month day-of-week, for example "*/5 * * * *") or be a descriptor such as @hourly or @every 10m`,
	},
	{name: "TZ= prefix", spoil: withSchedule("TZ=Europe/Berlin 0 9 * * *"),
		want: `CronJob.batch.cronlab.dev "bad-4" is invalid: spec.schedule: Invalid value: "TZ=Europe/Berlin 0 9 * * *": must not set a time zone with TZ= or CRON_TZ=: remove it and set spec.timeZone instead, for example timeZone: Europe/Berlin`,
	},
	{name: "CRON_TZ= prefix", spoil: withSchedule("CRON_TZ=Asia/Shanghai 0 9 * * *"),
		want: `CronJob.batch.cronlab.dev "bad-5" is invalid: spec.schedule: Invalid value: "CRON_TZ=Asia/Shanghai 0 9 * * *": must not set a time zone with TZ= or CRON_TZ=: remove it and set spec.timeZone instead, for example timeZone: Europe/Berlin`,
	},
	{name: "minute 61", spoil: withSchedule("61 * * * *"),
		want:        `admission webhook "vcronjob-v1.kb.io" denied the request: CronJob.batch.cronlab.dev "bad-6" is invalid: spec.schedule: Invalid value: "61 * * * *": not a valid cron schedule: end of range (61) above maximum (59): 61`,
		webhookOnly: true,
	},
	{name: "hour 25", spoil: withSchedule("0 25 * * *"),
		want:        `admission webhook "vcronjob-v1.kb.io" denied the request: CronJob.batch.cronlab.dev "bad-7" is invalid: spec.schedule: Invalid value: "0 25 * * *": not a valid cron schedule: end of range (25) above maximum (23): 25`,
		webhookOnly: true,
	},
	{name: "day of month 32", spoil: withSchedule("0 0 32 * *"),
		want:        `admission webhook "vcronjob-v1.kb.io" denied the request: CronJob.batch.cronlab.dev "bad-8" is invalid: spec.schedule: Invalid value: "0 0 32 * *": not a valid cron schedule: end of range (32) above maximum (31): 32`,
		webhookOnly: true,
	},
	{name: "month 13", spoil: withSchedule("0 0 1 13 *"),
		want:        `admission webhook "vcronjob-v1.kb.io" denied the request: CronJob.batch.cronlab.dev "bad-9" is invalid: spec.schedule: Invalid value: "0 0 1 13 *": not a valid cron schedule: end of range (13) above maximum (12): 13`,
		webhookOnly: true,
	},
	{name: "day of week 8", spoil: withSchedule("0 0 * * 8"),
		want:        `admission webhook "vcronjob-v1.kb.io" denied the request: CronJob.batch.cronlab.dev "bad-10" is invalid: spec.schedule: Invalid value: "0 0 * * 8": not a valid cron schedule: end of range (8) above maximum (6): 8`,
		webhookOnly: true,
	},
	{name: "backwards range", spoil: withSchedule("50-10 * * * *"),
		want:        `admission webhook "vcronjob-v1.kb.io" denied the request: CronJob.batch.cronlab.dev "bad-11" is invalid: spec.schedule: Invalid value: "50-10 * * * *": not a valid cron schedule: beginning of range (50) beyond end of range (10): 50-10`,
		webhookOnly: true,
	},
	{name: "zero step", spoil: withSchedule("*/0 * * * *"),
		want:        `admission webhook "vcronjob-v1.kb.io" denied the request: CronJob.batch.cronlab.dev "bad-12" is invalid: spec.schedule: Invalid value: "*/0 * * * *": not a valid cron schedule: step of range should be a positive number: */0`,
		webhookOnly: true,
	},
	{name: "unknown month name", spoil: withSchedule("0 0 1 foo *"),
		want:        `admission webhook "vcronjob-v1.kb.io" denied the request: CronJob.batch.cronlab.dev "bad-13" is invalid: spec.schedule: Invalid value: "0 0 1 foo *": not a valid cron schedule: failed to parse int from foo: strconv.Atoi: parsing "foo": invalid syntax`,
		webhookOnly: true,
	},
	{name: "unknown descriptor", spoil: withSchedule("@fortnightly"),
		want:        `admission webhook "vcronjob-v1.kb.io" denied the request: CronJob.batch.cronlab.dev "bad-14" is invalid: spec.schedule: Invalid value: "@fortnightly": not a valid cron schedule: unrecognized descriptor: @fortnightly`,
		webhookOnly: true,
	},
	{name: "@every without a duration", spoil: withSchedule("@every banana"),
		want:        `admission webhook "vcronjob-v1.kb.io" denied the request: CronJob.batch.cronlab.dev "bad-15" is invalid: spec.schedule: Invalid value: "@every banana": not a valid cron schedule: failed to parse duration @every banana: time: invalid duration "banana"`,
		webhookOnly: true,
	},
	{name: "February 30th never comes", spoil: withSchedule("0 0 30 2 *"),
		want:        `admission webhook "vcronjob-v1.kb.io" denied the request: CronJob.batch.cronlab.dev "bad-16" is invalid: spec.schedule: Invalid value: "0 0 30 2 *": never fires: February has no day 30`,
		webhookOnly: true,
	},
	{name: "the 31st of short months never comes", spoil: withSchedule("0 0 31 4,6,9,11 *"),
		want:        `admission webhook "vcronjob-v1.kb.io" denied the request: CronJob.batch.cronlab.dev "bad-17" is invalid: spec.schedule: Invalid value: "0 0 31 4,6,9,11 *": never fires: April, June, September and November have no day 31`,
		webhookOnly: true,
	},
	{name: "schedule longer than 128 characters", spoil: withSchedule("0 0 1 1 " + strings.Repeat("1,", 70) + "1"),
		want: `CronJob.batch.cronlab.dev "bad-18" is invalid: [spec.schedule: Too long: may not be more than 128 bytes, <nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation]`,
	},
	{name: "unknown time zone", spoil: withTimeZone("Mars/Olympus_Mons"),
		want:        `admission webhook "vcronjob-v1.kb.io" denied the request: CronJob.batch.cronlab.dev "bad-19" is invalid: spec.timeZone: Invalid value: "Mars/Olympus_Mons": unknown time zone; use an IANA name such as "Etc/UTC", "Europe/Berlin" or "Asia/Shanghai"`,
		webhookOnly: true,
	},
	{name: "time zone with a space", spoil: withTimeZone("Europe Berlin"),
		want: `CronJob.batch.cronlab.dev "bad-20" is invalid: spec.timeZone: Invalid value: "Europe Berlin": spec.timeZone in body should match '^[A-Za-z0-9_.+-]+(/[A-Za-z0-9_.+-]+)*$'`,
	},
	{name: "empty time zone", spoil: withTimeZone(""),
		want: `CronJob.batch.cronlab.dev "bad-21" is invalid: spec.timeZone: Invalid value: "": spec.timeZone in body should be at least 1 chars long`,
	},
	{name: "time zone that climbs out of the database", spoil: withTimeZone("../../etc/passwd"),
		want:        `admission webhook "vcronjob-v1.kb.io" denied the request: CronJob.batch.cronlab.dev "bad-22" is invalid: spec.timeZone: Invalid value: "../../etc/passwd": unknown time zone; use an IANA name such as "Etc/UTC", "Europe/Berlin" or "Asia/Shanghai"`,
		webhookOnly: true,
	},
	{name: "name longer than 52 characters", spoil: func(cj *batchv1.CronJob) { cj.Name = strings.Repeat("a", 53) },
		want: `CronJob.batch.cronlab.dev "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" is invalid: <nil>: Invalid value: metadata.name must be at most 52 characters: Job names add 11 characters to it and may have at most 63`,
	},
	{name: "negative starting deadline", spoil: func(cj *batchv1.CronJob) { cj.Spec.StartingDeadlineSeconds = ptr.To[int64](-1) },
		want: `CronJob.batch.cronlab.dev "bad-24" is invalid: spec.startingDeadlineSeconds: Invalid value: -1: spec.startingDeadlineSeconds in body should be greater than or equal to 0`,
	},
	{name: "negative successful history limit", spoil: func(cj *batchv1.CronJob) { cj.Spec.SuccessfulJobsHistoryLimit = ptr.To[int32](-1) },
		want: `CronJob.batch.cronlab.dev "bad-25" is invalid: spec.successfulJobsHistoryLimit: Invalid value: -1: spec.successfulJobsHistoryLimit in body should be greater than or equal to 0`,
	},
	{name: "negative failed history limit", spoil: func(cj *batchv1.CronJob) { cj.Spec.FailedJobsHistoryLimit = ptr.To[int32](-3) },
		want: `CronJob.batch.cronlab.dev "bad-26" is invalid: spec.failedJobsHistoryLimit: Invalid value: -3: spec.failedJobsHistoryLimit in body should be greater than or equal to 0`,
	},
	{name: "unknown concurrency policy", spoil: func(cj *batchv1.CronJob) { cj.Spec.ConcurrencyPolicy = "Sometimes" },
		want: `CronJob.batch.cronlab.dev "bad-27" is invalid: [spec.concurrencyPolicy: Unsupported value: "Sometimes": supported values: "Allow", "Forbid", "Replace", <nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation]`,
	},
	{name: "concurrency policy in lower case", spoil: func(cj *batchv1.CronJob) { cj.Spec.ConcurrencyPolicy = "forbid" },
		want: `CronJob.batch.cronlab.dev "bad-28" is invalid: [spec.concurrencyPolicy: Unsupported value: "forbid": supported values: "Allow", "Forbid", "Replace", <nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation]`,
	},
	{name: "job template with a selector", spoil: func(cj *batchv1.CronJob) {
		cj.Spec.JobTemplate.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "x"}}
	},
		want: `CronJob.batch.cronlab.dev "bad-29" is invalid: spec.jobTemplate.spec.selector: Invalid value: must not be set: the Job controller makes a selector for every Job`,
	},
	{name: "job template with manualSelector", spoil: func(cj *batchv1.CronJob) { cj.Spec.JobTemplate.Spec.ManualSelector = ptr.To(true) },
		want: `CronJob.batch.cronlab.dev "bad-30" is invalid: spec.jobTemplate.spec.manualSelector: Invalid value: must not be true: the Job controller makes a selector for every Job`,
	},
	{name: "restartPolicy Always", spoil: func(cj *batchv1.CronJob) {
		cj.Spec.JobTemplate.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyAlways
	},
		want: `CronJob.batch.cronlab.dev "bad-31" is invalid: spec.jobTemplate.spec.template.spec.restartPolicy: Invalid value: must be OnFailure or Never: the pods of a Job must be able to finish`,
	},
	{name: "restartPolicy not set", spoil: func(cj *batchv1.CronJob) { cj.Spec.JobTemplate.Spec.Template.Spec.RestartPolicy = "" },
		want: `CronJob.batch.cronlab.dev "bad-32" is invalid: spec.jobTemplate.spec.template.spec.restartPolicy: Invalid value: must be OnFailure or Never: the pods of a Job must be able to finish`,
	},
}
