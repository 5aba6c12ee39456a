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

// v2 is a spoke: it converts to and from v1, the hub (api/v1's Hub), and
// the conversion webhook calls these two methods whenever a client asks for
// a version other than the one stored.
//
// Conversion must lose nothing, in either direction: a client that reads
// v2, changes one field and writes it back must not erase what only v1 can
// say, and the other way round. Most fields map one to one. The schedule is
// the exception: v1's string "0  9 * * *" (two spaces) and "0 9 * * *" are the
// same cron table, so v2 cannot tell them apart. Where v2 cannot hold what
// v1 says, the converter keeps v1's text in an annotation that it owns
// (V1ScheduleAnnotation), as Kubernetes' own APIs keep fields that an older
// version lacks; it sets the annotation only when it is needed, and removes
// it on the way back. cronjob_conversion_test.go shows both ways lossless
// over random objects, and fails when a field is dropped.

import (
	"fmt"
	"slices"
	"strings"
	"unicode"

	"sigs.k8s.io/controller-runtime/pkg/conversion"

	v1 "cronlab.dev/cronlab/api/v1"
)

// V1ScheduleAnnotation holds a v1 schedule whose spelling v2 cannot keep
// (any white space other than single spaces between the fields), for as
// long as the v2 schedule is the one it spells. It belongs to the
// converter: set it by hand and it is ignored.
const V1ScheduleAnnotation = "batch.cronlab.dev/v1-schedule"

// lab:begin convert

// ConvertTo converts this v2 CronJob to the hub, v1: the schedule's fields
// become one cron string (or the spelling the annotation kept), its time
// zone becomes spec.timeZone, and history the two limits.
func (src *CronJob) ConvertTo(dstRaw conversion.Hub) error {
	dst, ok := dstRaw.(*v1.CronJob)
	if !ok {
		return fmt.Errorf("cannot convert a v2 CronJob to %T", dstRaw)
	}
	dst.ObjectMeta = *src.ObjectMeta.DeepCopy()
	dst.Spec.Schedule = scheduleToV1(src.Spec.Schedule, src.Annotations[V1ScheduleAnnotation])
	dst.Annotations = without(dst.Annotations, V1ScheduleAnnotation)
	dst.Spec.TimeZone = copyPtr(src.Spec.Schedule.TimeZone)
	dst.Spec.StartingDeadlineSeconds = copyPtr(src.Spec.StartingDeadlineSeconds)
	dst.Spec.ConcurrencyPolicy = v1.ConcurrencyPolicy(src.Spec.ConcurrencyPolicy)
	dst.Spec.Suspend = copyPtr(src.Spec.Suspend)
	dst.Spec.JobTemplate = *src.Spec.JobTemplate.DeepCopy()
	dst.Spec.SuccessfulJobsHistoryLimit = copyPtr(src.Spec.History.SuccessfulJobs)
	dst.Spec.FailedJobsHistoryLimit = copyPtr(src.Spec.History.FailedJobs)
	dst.Status = v1.CronJobStatus(*src.Status.DeepCopy())
	return nil
}

// ConvertFrom converts the hub, v1, to this v2 CronJob: the cron string is
// split into fields (kept in the annotation when its spelling would be
// lost), spec.timeZone moves into the schedule, the limits into history.
func (dst *CronJob) ConvertFrom(srcRaw conversion.Hub) error {
	src, ok := srcRaw.(*v1.CronJob)
	if !ok {
		return fmt.Errorf("cannot convert %T to a v2 CronJob", srcRaw)
	}
	schedule, err := scheduleFromV1(src.Spec.Schedule)
	if err != nil {
		return fmt.Errorf("CronJob %s/%s: %w", src.Namespace, src.Name, err)
	}
	dst.ObjectMeta = *src.ObjectMeta.DeepCopy()
	dst.Annotations = without(dst.Annotations, V1ScheduleAnnotation)
	if scheduleToV1(schedule, "") != src.Spec.Schedule {
		if dst.Annotations == nil {
			dst.Annotations = map[string]string{}
		}
		dst.Annotations[V1ScheduleAnnotation] = src.Spec.Schedule
	}
	dst.Spec.Schedule = schedule
	dst.Spec.Schedule.TimeZone = copyPtr(src.Spec.TimeZone)
	dst.Spec.StartingDeadlineSeconds = copyPtr(src.Spec.StartingDeadlineSeconds)
	dst.Spec.ConcurrencyPolicy = ConcurrencyPolicy(src.Spec.ConcurrencyPolicy)
	dst.Spec.Suspend = copyPtr(src.Spec.Suspend)
	dst.Spec.JobTemplate = *src.Spec.JobTemplate.DeepCopy()
	dst.Spec.History = JobHistory{
		SuccessfulJobs: copyPtr(src.Spec.SuccessfulJobsHistoryLimit),
		FailedJobs:     copyPtr(src.Spec.FailedJobsHistoryLimit),
	}
	dst.Status = CronJobStatus(*src.Status.DeepCopy())
	return nil
}

// lab:end

// lab:begin convert-schedule

// scheduleToV1 spells a v2 schedule as v1's string: "@every 90s",
// "@hourly", or the five cron fields separated by single spaces. spelled is
// the annotation's text, used when it is a spelling of the same schedule.
func scheduleToV1(s Schedule, spelled string) string {
	if spelled != "" {
		if same, err := scheduleFromV1(spelled); err == nil && sameWhen(same, s) {
			return spelled
		}
	}
	switch {
	case s.Every != nil:
		return "@every " + *s.Every
	case s.Period != nil:
		return "@" + string(*s.Period)
	case s.Cron != nil:
		return strings.Join([]string{
			orAny(s.Cron.Minute), orAny(s.Cron.Hour), orAny(s.Cron.DayOfMonth), orAny(s.Cron.Month), orAny(s.Cron.DayOfWeek),
		}, " ")
	}
	return "" // no way of saying when: the API server rejects such a v2 object
}

// scheduleFromV1 reads a v1 schedule string into v2's fields (the time zone
// is a field of its own in v1). It fails on strings that v1's own
// validation rejects: a converter that guessed would store the guess.
func scheduleFromV1(s string) (Schedule, error) {
	if every, ok := strings.CutPrefix(s, "@every "); ok {
		if every == "" || strings.ContainsFunc(every, isV1Space) {
			return Schedule{}, fmt.Errorf("schedule %q: @every takes one duration after one space; v1's validation rejects it", s)
		}
		return Schedule{Every: &every}, nil
	}
	if period, ok := strings.CutPrefix(s, "@"); ok {
		p := Period(period)
		if !slices.Contains(periods, p) {
			return Schedule{}, fmt.Errorf("schedule %q: no such descriptor; v1's validation rejects it", s)
		}
		return Schedule{Period: &p}, nil
	}
	fields := strings.FieldsFunc(s, isV1Space)
	if len(fields) != 5 {
		return Schedule{}, fmt.Errorf("schedule %q is neither a descriptor nor five fields: v1's validation rejects it", s)
	}
	return Schedule{Cron: &CronTable{
		Minute: CronField(fields[0]), Hour: CronField(fields[1]), DayOfMonth: CronField(fields[2]),
		Month: CronField(fields[3]), DayOfWeek: CronField(fields[4]),
	}}, nil
}

// sameWhen reports whether two schedules say the same thing. The time zone
// is not part of v1's string, so scheduleToV1 leaves it out of both.
func sameWhen(a, b Schedule) bool {
	return scheduleToV1(a, "") == scheduleToV1(b, "")
}

// lab:end

// periods are the descriptors v1 accepts, and v2's Period enum.
var periods = []Period{"yearly", "annually", "monthly", "weekly", "daily", "midnight", "hourly"}

// isV1Space tells the characters that separate the fields of a v1 schedule:
// those of v1's CEL rule (api/v1/cronjob_types.go).
func isV1Space(r rune) bool {
	return r == '\t' || r == '\n' || r == '\v' || r == '\f' || r == '\r' || r == ' ' || r == '\u0085' || unicode.Is(unicode.Z, r)
}

func orAny(f CronField) string {
	if f == "" {
		return "*"
	}
	return string(f)
}

// without returns annotations without key, nil when nothing is left, so
// that an object the converter added nothing to comes back as it was.
func without(annotations map[string]string, key string) map[string]string {
	if _, ok := annotations[key]; !ok {
		return annotations
	}
	delete(annotations, key)
	if len(annotations) == 0 {
		return nil
	}
	return annotations
}

func copyPtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
