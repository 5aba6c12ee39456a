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

// This file is stage 17 of the lab, API evolution: what a second version of
// an API that users already store looks like.
//
// v1 says when to run in one string, "*/5 * * * *" or "@every 90s", whose
// grammar only the controller knows; v2 says it in fields that the schema
// knows:
//
//	schedule:
//	  cron: {minute: "*/5", hour: "*", dayOfMonth: "*", month: "*", dayOfWeek: "*"}
//	  timeZone: Asia/Shanghai
//
// A mistake in one field is then reported at that field, `kubectl explain`
// describes each, and a tool can read the hour without parsing cron. The
// time zone moves next to the schedule it qualifies, and the two history
// limits into one `history` object: fields that belong together are
// together.
//
// What v2 does not do is as much of the lesson: it says nothing that v1
// cannot say, so every object converts both ways without loss, and it
// keeps every other field as v1 has it. A new version is a chance to fix
// the shape of an API, not a licence to rename things.

import (
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ConcurrencyPolicy says what to do when a scheduled run comes due while the
// Job of an earlier run is still running.
// +kubebuilder:validation:Enum=Allow;Forbid;Replace
type ConcurrencyPolicy string

const (
	// AllowConcurrent lets Jobs of several runs run at the same time.
	AllowConcurrent ConcurrencyPolicy = "Allow"
	// ForbidConcurrent starts no Job while the previous one still runs: the
	// run waits, and starts when that Job finishes, unless it is too late.
	ForbidConcurrent ConcurrencyPolicy = "Forbid"
	// ReplaceConcurrent deletes the running Job and starts the new run.
	ReplaceConcurrent ConcurrencyPolicy = "Replace"
)

// CronJobSpec is the desired state of a CronJob: what to run and when.
// +kubebuilder:validation:XValidation:rule="!has(self.jobTemplate.spec.selector)",message="must not be set: the Job controller makes a selector for every Job",fieldPath=".jobTemplate.spec.selector"
// +kubebuilder:validation:XValidation:rule="!has(self.jobTemplate.spec.manualSelector) || !self.jobTemplate.spec.manualSelector",message="must not be true: the Job controller makes a selector for every Job",fieldPath=".jobTemplate.spec.manualSelector"
// +kubebuilder:validation:XValidation:rule="has(self.jobTemplate.spec.template.spec.restartPolicy) && self.jobTemplate.spec.template.spec.restartPolicy in ['OnFailure', 'Never']",message="must be OnFailure or Never: the pods of a Job must be able to finish",fieldPath=".jobTemplate.spec.template.spec.restartPolicy"
type CronJobSpec struct {
	// schedule says when to run: exactly one of cron, every or period, read
	// in timeZone.
	Schedule Schedule `json:"schedule"`

	// startingDeadlineSeconds is how late, in seconds, a run may still start
	// after its scheduled time (for example because the controller was down).
	// Runs that would start later than that are counted as missed and skipped.
	// When unset, a late run starts however late it is.
	// +optional
	// +kubebuilder:validation:Minimum=0
	StartingDeadlineSeconds *int64 `json:"startingDeadlineSeconds,omitempty"`

	// concurrencyPolicy says what to do when a run comes due while the Job of
	// the previous run still runs: Allow (the default) starts it anyway,
	// Forbid starts no Job while one runs (the run waits, and starts when that
	// Job finishes if startingDeadlineSeconds allows), Replace deletes the
	// running Job first.
	// +optional
	// +kubebuilder:default=Allow
	ConcurrencyPolicy ConcurrencyPolicy `json:"concurrencyPolicy,omitempty"`

	// suspend stops new runs while true. Jobs that already run are not
	// touched. Runs that come due while suspended count as missed, subject to
	// startingDeadlineSeconds, once the CronJob is resumed.
	// +optional
	// +kubebuilder:default=false
	Suspend *bool `json:"suspend,omitempty"`

	// jobTemplate is the Job to create for each run.
	JobTemplate batchv1.JobTemplateSpec `json:"jobTemplate"`

	// history says how many finished Jobs to keep.
	// +optional
	// +kubebuilder:default={}
	History JobHistory `json:"history"`
}

// Schedule is when a CronJob runs: one of three ways of saying it, and the
// time zone it is read in.
// +kubebuilder:validation:XValidation:rule="[has(self.cron), has(self.every), has(self.period)].filter(x, x).size() == 1",message="set exactly one of cron, every and period"
type Schedule struct {
	// cron is a cron table: the minutes, hours, days and months to run at.
	// +optional
	Cron *CronTable `json:"cron,omitempty"`

	// every is a fixed interval between runs, as a Go duration such as "90s"
	// or "1h30m". The first run is one interval after the CronJob was created.
	// +optional
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:XValidation:rule=`self.matches(r'^[+-]?(0|(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$')`,message=`must be a Go duration such as 90s or 1h30m`
	Every *string `json:"every,omitempty"`

	// period runs once at the start of each: yearly (or annually), monthly,
	// weekly (Sunday), daily (or midnight), or hourly.
	// +optional
	Period *Period `json:"period,omitempty"`

	// timeZone is the IANA name of the time zone the schedule is read in,
	// for example "Etc/UTC" or "Asia/Shanghai". When unset, the schedule is
	// read in the time zone of the machine that runs the controller.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9_.+-]+(/[A-Za-z0-9_.+-]+)*$`
	// +kubebuilder:validation:XValidation:rule=`self.split('/').all(p, p.size() <= 14 && p != '.' && p != '..' && !p.startsWith('-'))`,message=`each part between slashes must have at most 14 characters, not be . or .., and not start with -, as in IANA names such as America/Argentina/Buenos_Aires`
	// +kubebuilder:validation:XValidation:rule=`self.lowerAscii() != 'local'`,message=`must name a time zone such as Etc/UTC or Asia/Shanghai, not Local: Local is whatever zone the controller's machine is set to`
	TimeZone *string `json:"timeZone,omitempty"`
}

// CronTable is the five fields of a cron schedule, each as cron writes it:
// "*", a number, a range such as "9-17", a step such as "*/15", or a
// comma-separated list of those. A field left out is "*".
type CronTable struct {
	// minute is 0-59.
	// +optional
	// +kubebuilder:default="*"
	// +kubebuilder:validation:XValidation:rule=`self.matches(r'^,*(([*?](-[^,/]*)?|\+?0*[1-5]?[0-9](-\+?0*[1-5]?[0-9])?)(/\+?0*[1-9][0-9]*)?(,+([*?](-[^,/]*)?|\+?0*[1-5]?[0-9](-\+?0*[1-5]?[0-9])?)(/\+?0*[1-9][0-9]*)?)*,*)?$')`,message=`the minute must be a comma-separated list of numbers 0-59, ranges such as 10-20, * or ?, each with an optional step of 1 or more such as */15 or 10-50/5`
	// +kubebuilder:validation:XValidation:rule=`self.findAll(r'(^|,)\+?0*[0-9]{1,2}-\+?0*[0-9]{1,2}').all(r, int(r.find(r'\+?[0-9]+')) <= int(r.find(r'\+?[0-9]+$')))`,message=`a range must not run backwards: in a-b, a may not be larger than b (for a range across midnight or the weekend, list two ranges, such as 22-23,0-2 or sat,sun)`
	Minute CronField `json:"minute,omitempty"`
	// hour is 0-23.
	// +optional
	// +kubebuilder:default="*"
	// +kubebuilder:validation:XValidation:rule=`self.matches(r'^,*(([*?](-[^,/]*)?|\+?0*(1?[0-9]|2[0-3])(-\+?0*(1?[0-9]|2[0-3]))?)(/\+?0*[1-9][0-9]*)?(,+([*?](-[^,/]*)?|\+?0*(1?[0-9]|2[0-3])(-\+?0*(1?[0-9]|2[0-3]))?)(/\+?0*[1-9][0-9]*)?)*,*)?$')`,message=`the hour must be a comma-separated list of numbers 0-23, ranges such as 9-17, * or ?, each with an optional step of 1 or more such as */2`
	// +kubebuilder:validation:XValidation:rule=`self.findAll(r'(^|,)\+?0*[0-9]{1,2}-\+?0*[0-9]{1,2}').all(r, int(r.find(r'\+?[0-9]+')) <= int(r.find(r'\+?[0-9]+$')))`,message=`a range must not run backwards: in a-b, a may not be larger than b (for a range across midnight or the weekend, list two ranges, such as 22-23,0-2 or sat,sun)`
	Hour CronField `json:"hour,omitempty"`
	// dayOfMonth is 1-31.
	// +optional
	// +kubebuilder:default="*"
	// +kubebuilder:validation:XValidation:rule=`self.matches(r'^,*(([*?](-[^,/]*)?|\+?0*([1-9]|[12][0-9]|3[01])(-\+?0*([1-9]|[12][0-9]|3[01]))?)(/\+?0*[1-9][0-9]*)?(,+([*?](-[^,/]*)?|\+?0*([1-9]|[12][0-9]|3[01])(-\+?0*([1-9]|[12][0-9]|3[01]))?)(/\+?0*[1-9][0-9]*)?)*,*)?$')`,message=`the day of the month must be a comma-separated list of numbers 1-31, ranges such as 1-15, * or ?, each with an optional step of 1 or more such as */7`
	// +kubebuilder:validation:XValidation:rule=`self.findAll(r'(^|,)\+?0*[0-9]{1,2}-\+?0*[0-9]{1,2}').all(r, int(r.find(r'\+?[0-9]+')) <= int(r.find(r'\+?[0-9]+$')))`,message=`a range must not run backwards: in a-b, a may not be larger than b (for a range across midnight or the weekend, list two ranges, such as 22-23,0-2 or sat,sun)`
	DayOfMonth CronField `json:"dayOfMonth,omitempty"`
	// month is 1-12 or jan-dec.
	// +optional
	// +kubebuilder:default="*"
	// +kubebuilder:validation:XValidation:rule=`self.lowerAscii().matches(r'^,*(([*?](-[^,/]*)?|(\+?0*([1-9]|1[0-2])|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)(-(\+?0*([1-9]|1[0-2])|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec))?)(/\+?0*[1-9][0-9]*)?(,+([*?](-[^,/]*)?|(\+?0*([1-9]|1[0-2])|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)(-(\+?0*([1-9]|1[0-2])|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec))?)(/\+?0*[1-9][0-9]*)?)*,*)?$')`,message=`the month must be a comma-separated list of numbers 1-12 or names jan-dec, ranges such as 3-5 or mar-may, * or ?, each with an optional step of 1 or more such as */3`
	// +kubebuilder:validation:XValidation:rule=`self.replace('İ', 'i').lowerAscii().replace('jan', '1').replace('feb', '2').replace('mar', '3').replace('apr', '4').replace('may', '5').replace('jun', '6').replace('jul', '7').replace('aug', '8').replace('sep', '9').replace('oct', '10').replace('nov', '11').replace('dec', '12').replace('sun', '0').replace('mon', '1').replace('tue', '2').replace('wed', '3').replace('thu', '4').replace('fri', '5').replace('sat', '6').findAll(r'(^|,)\+?0*[0-9]{1,2}-\+?0*[0-9]{1,2}').all(r, int(r.find(r'\+?[0-9]+')) <= int(r.find(r'\+?[0-9]+$')))`,message=`a range must not run backwards: in a-b, a may not be larger than b (for a range across midnight or the weekend, list two ranges, such as 22-23,0-2 or sat,sun)`
	Month CronField `json:"month,omitempty"`
	// dayOfWeek is 0-6 (0 is Sunday) or sun-sat.
	// +optional
	// +kubebuilder:default="*"
	// +kubebuilder:validation:XValidation:rule=`self.lowerAscii().matches(r'^,*(([*?](-[^,/]*)?|(\+?0*[0-6]|sun|mon|tue|wed|thu|fr[iİ]|sat)(-(\+?0*[0-6]|sun|mon|tue|wed|thu|fr[iİ]|sat))?)(/\+?0*[1-9][0-9]*)?(,+([*?](-[^,/]*)?|(\+?0*[0-6]|sun|mon|tue|wed|thu|fr[iİ]|sat)(-(\+?0*[0-6]|sun|mon|tue|wed|thu|fr[iİ]|sat))?)(/\+?0*[1-9][0-9]*)?)*,*)?$')`,message=`the day of the week must be a comma-separated list of numbers 0-6 (0 is Sunday; 7 is not allowed) or names sun-sat, ranges such as 1-5 or mon-fri, * or ?, each with an optional step of 1 or more`
	// +kubebuilder:validation:XValidation:rule=`self.replace('İ', 'i').lowerAscii().replace('jan', '1').replace('feb', '2').replace('mar', '3').replace('apr', '4').replace('may', '5').replace('jun', '6').replace('jul', '7').replace('aug', '8').replace('sep', '9').replace('oct', '10').replace('nov', '11').replace('dec', '12').replace('sun', '0').replace('mon', '1').replace('tue', '2').replace('wed', '3').replace('thu', '4').replace('fri', '5').replace('sat', '6').findAll(r'(^|,)\+?0*[0-9]{1,2}-\+?0*[0-9]{1,2}').all(r, int(r.find(r'\+?[0-9]+')) <= int(r.find(r'\+?[0-9]+$')))`,message=`a range must not run backwards: in a-b, a may not be larger than b (for a range across midnight or the weekend, list two ranges, such as 22-23,0-2 or sat,sun)`
	DayOfWeek CronField `json:"dayOfWeek,omitempty"`
}

// CronField is one field of a cron table. It has no spaces: the spaces of
// a v1 schedule separate its fields. Each field accepts what the same field
// of a v1 schedule does, with the same messages (api/v1/cronjob_types.go),
// and may be as long as a whole v1 schedule: every v1 CronJob can be written
// back as v2.
// +kubebuilder:validation:MinLength=1
// +kubebuilder:validation:MaxLength=512
// +kubebuilder:validation:Pattern=`^[^\t\n\v\f\r \x{85}\p{Z}]+$`
type CronField string

// Period is a named period of a schedule.
// +kubebuilder:validation:Enum=yearly;annually;monthly;weekly;daily;midnight;hourly
type Period string

// JobHistory is how many finished Jobs a CronJob keeps. Older ones are
// deleted, with their pods.
type JobHistory struct {
	// successfulJobs is how many successful Jobs to keep. Defaults to 3.
	// +optional
	// +kubebuilder:default=3
	// +kubebuilder:validation:Minimum=0
	SuccessfulJobs *int32 `json:"successfulJobs,omitempty"`

	// failedJobs is how many failed Jobs to keep. Defaults to 1.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=0
	FailedJobs *int32 `json:"failedJobs,omitempty"`
}

// CronJobStatus is what the controller observed and did. It is v1's, field
// for field: the controller writes it in v1, and v2 shows it as it is.
type CronJobStatus struct {
	// active lists the Jobs of this CronJob that are still running.
	// +optional
	// +listType=atomic
	Active []corev1.ObjectReference `json:"active,omitempty"`

	// lastScheduleTime is the scheduled time of the last run the controller
	// started.
	// +optional
	LastScheduleTime *metav1.Time `json:"lastScheduleTime,omitempty"`

	// lastSuccessfulTime is when the most recent successful Job completed.
	// +optional
	LastSuccessfulTime *metav1.Time `json:"lastSuccessfulTime,omitempty"`

	// observedGeneration is the metadata.generation of the spec that this
	// status was computed from.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// conditions are the latest observations of the CronJob's state: Ready
	// and Degraded, as in v1.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// unservedversion puts v2's schema in the CRD without serving it: an API
// server asked for a version that it cannot convert would hand out v1's
// fields under v2's name. config/with-webhooks serves it, with the
// conversion webhook.

// +kubebuilder:unservedversion
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Namespaced,shortName=ccj,categories=cronlab
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Minute",type=string,JSONPath=`.spec.schedule.cron.minute`
// +kubebuilder:printcolumn:name="Hour",type=string,JSONPath=`.spec.schedule.cron.hour`
// +kubebuilder:printcolumn:name="Every",type=string,JSONPath=`.spec.schedule.every`
// +kubebuilder:printcolumn:name="Period",type=string,JSONPath=`.spec.schedule.period`
// +kubebuilder:printcolumn:name="Time Zone",type=string,JSONPath=`.spec.schedule.timeZone`
// +kubebuilder:printcolumn:name="Suspend",type=boolean,JSONPath=`.spec.suspend`
// +kubebuilder:printcolumn:name="Last Schedule",type=date,JSONPath=`.status.lastScheduleTime`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="size(self.metadata.name) <= 52",message="metadata.name must be at most 52 characters: Job names add 11 characters to it and may have at most 63"

// CronJob runs a Job on a time-based schedule (version v2: a structured
// schedule).
type CronJob struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired behaviour of the CronJob.
	// +required
	Spec CronJobSpec `json:"spec"`

	// status is the observed state of the CronJob, written by the controller.
	// +optional
	Status CronJobStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// CronJobList is a list of CronJobs.
type CronJobList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []CronJob `json:"items"`
}

func init() {
	SchemeBuilder.Register(&CronJob{}, &CronJobList{})
}
