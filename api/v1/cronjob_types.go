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

// This file is stage 02 of the lab: designing a declarative API.
//
// A Kubernetes API object has two halves. The spec is what the user wants
// ("run this Job every five minutes"); the status is what the controller saw
// and did ("the last run was scheduled at 10:05, one Job is still running").
// Users write the spec, controllers write the status, and neither writes the
// other's half: status lives behind its own /status subresource.
//
// Comments on types and fields become the descriptions that `kubectl explain`
// shows, so they are written for the user of the API. Lines starting with
// `+kubebuilder:` or `+optional` are markers: controller-gen reads them and
// writes the OpenAPI schema, defaults and validation rules of the CRD in
// config/crd/bases. After changing this file run `make manifests generate`
// (discussion question 2 is about what happens if you do not).

import (
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// lab:begin api-spec

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
// Its fields and their meaning follow batch/v1 CronJob.
//
// The XValidation markers are CEL rules that the API server checks itself,
// so they hold even in a cluster where cronlab's webhooks are off. What CEL
// cannot know (is this a real time zone? does the schedule ever fire?) is
// left to the validating webhook in internal/webhook/v1.
// +kubebuilder:validation:XValidation:rule="!has(self.jobTemplate.spec.selector)",message="must not be set: the Job controller makes a selector for every Job",fieldPath=".jobTemplate.spec.selector"
// +kubebuilder:validation:XValidation:rule="!has(self.jobTemplate.spec.manualSelector) || !self.jobTemplate.spec.manualSelector",message="must not be true: the Job controller makes a selector for every Job",fieldPath=".jobTemplate.spec.manualSelector"
// +kubebuilder:validation:XValidation:rule="has(self.jobTemplate.spec.template.spec.restartPolicy) && self.jobTemplate.spec.template.spec.restartPolicy in ['OnFailure', 'Never']",message="must be OnFailure or Never: the pods of a Job must be able to finish",fieldPath=".jobTemplate.spec.template.spec.restartPolicy"
type CronJobSpec struct {
	// The schedule's rules are upstream's checks of a batch/v1 CronJob's
	// schedule, written in CEL so that the API server applies them with no
	// webhook (discussion question 1): no "TZ" anywhere, and what robfig/cron's
	// standard parser, which upstream uses, accepts. (Stage 02 asks for the
	// first two rules; the others are the reference's.) They accept all the
	// parser accepts, its oddities included: a + sign, leading zeros, empty
	// list items, anything after "*-". validation_test.go runs a table and a
	// fuzzer through them and through the parser, and fails on any
	// disagreement; docs/validation.md lists what each rule refuses.
	//
	// A field is what strings.Fields finds, a run of anything but Unicode
	// white space: [\t\n\v\f\r \x{85}\p{Z}] in RE2. Each field's rule is one
	// regular expression, item(,+item)* with empty items allowed, where an
	// item is * or ?, a number or a range, and an optional /step. Names are
	// matched after lowerAscii(), not with (?i), because (?i)s also matches
	// U+017F, which the parser refuses; fr[iİ] because Go lowers U+0130 to i.
	// A regular expression cannot compare numbers, so the last rule replaces
	// names by numbers and compares the two ends of each range with int().
	// A step or an @every duration too large for 64 bits is left to the
	// webhook: no regular expression of a sane size can tell.
	//
	// maxLength is 512 so that a list of every value of every field (391
	// characters) fits; it bounds the cost the API server estimates for each
	// rule, which it refuses above 10 million (TestTheCRDsRulesFitTheAPI...).
	// +kubebuilder:validation:XValidation:rule=`!self.contains('TZ')`,message=`must not contain TZ: set the time zone in spec.timeZone, for example timeZone: Europe/Berlin, not with TZ= or CRON_TZ= in the schedule`
	// +kubebuilder:validation:XValidation:rule=`self.startsWith('@') || self.findAll(r'[^\t\n\v\f\r \x{85}\p{Z}]+').size() == 5`,message=`must have five fields (minute hour day-of-month month day-of-week, for example "*/5 * * * *") or be a descriptor such as @hourly or @every 10m`
	// +kubebuilder:validation:XValidation:rule=`!self.startsWith('@') || self.matches(r'^@(yearly|annually|monthly|weekly|daily|midnight|hourly)$') || self.matches(r'^@every [+-]?(0|(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$')`,message=`the descriptors are @yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly, and @every followed by one space and a Go duration such as 90s or 1h30m`
	// +kubebuilder:validation:XValidation:rule=`self.startsWith('@') || self.findAll(r'[^\t\n\v\f\r \x{85}\p{Z}]+').size() != 5 || self.findAll(r'[^\t\n\v\f\r \x{85}\p{Z}]+')[0].matches(r'^,*(([*?](-[^,/]*)?|\+?0*[1-5]?[0-9](-\+?0*[1-5]?[0-9])?)(/\+?0*[1-9][0-9]*)?(,+([*?](-[^,/]*)?|\+?0*[1-5]?[0-9](-\+?0*[1-5]?[0-9])?)(/\+?0*[1-9][0-9]*)?)*,*)?$')`,message=`the minute (first field) must be a comma-separated list of numbers 0-59, ranges such as 10-20, * or ?, each with an optional step of 1 or more such as */15 or 10-50/5`
	// +kubebuilder:validation:XValidation:rule=`self.startsWith('@') || self.findAll(r'[^\t\n\v\f\r \x{85}\p{Z}]+').size() != 5 || self.findAll(r'[^\t\n\v\f\r \x{85}\p{Z}]+')[1].matches(r'^,*(([*?](-[^,/]*)?|\+?0*(1?[0-9]|2[0-3])(-\+?0*(1?[0-9]|2[0-3]))?)(/\+?0*[1-9][0-9]*)?(,+([*?](-[^,/]*)?|\+?0*(1?[0-9]|2[0-3])(-\+?0*(1?[0-9]|2[0-3]))?)(/\+?0*[1-9][0-9]*)?)*,*)?$')`,message=`the hour (second field) must be a comma-separated list of numbers 0-23, ranges such as 9-17, * or ?, each with an optional step of 1 or more such as */2`
	// +kubebuilder:validation:XValidation:rule=`self.startsWith('@') || self.findAll(r'[^\t\n\v\f\r \x{85}\p{Z}]+').size() != 5 || self.findAll(r'[^\t\n\v\f\r \x{85}\p{Z}]+')[2].matches(r'^,*(([*?](-[^,/]*)?|\+?0*([1-9]|[12][0-9]|3[01])(-\+?0*([1-9]|[12][0-9]|3[01]))?)(/\+?0*[1-9][0-9]*)?(,+([*?](-[^,/]*)?|\+?0*([1-9]|[12][0-9]|3[01])(-\+?0*([1-9]|[12][0-9]|3[01]))?)(/\+?0*[1-9][0-9]*)?)*,*)?$')`,message=`the day of the month (third field) must be a comma-separated list of numbers 1-31, ranges such as 1-15, * or ?, each with an optional step of 1 or more such as */7`
	// +kubebuilder:validation:XValidation:rule=`self.startsWith('@') || self.findAll(r'[^\t\n\v\f\r \x{85}\p{Z}]+').size() != 5 || self.findAll(r'[^\t\n\v\f\r \x{85}\p{Z}]+')[3].lowerAscii().matches(r'^,*(([*?](-[^,/]*)?|(\+?0*([1-9]|1[0-2])|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)(-(\+?0*([1-9]|1[0-2])|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec))?)(/\+?0*[1-9][0-9]*)?(,+([*?](-[^,/]*)?|(\+?0*([1-9]|1[0-2])|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)(-(\+?0*([1-9]|1[0-2])|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec))?)(/\+?0*[1-9][0-9]*)?)*,*)?$')`,message=`the month (fourth field) must be a comma-separated list of numbers 1-12 or names jan-dec, ranges such as 3-5 or mar-may, * or ?, each with an optional step of 1 or more such as */3`
	// +kubebuilder:validation:XValidation:rule=`self.startsWith('@') || self.findAll(r'[^\t\n\v\f\r \x{85}\p{Z}]+').size() != 5 || self.findAll(r'[^\t\n\v\f\r \x{85}\p{Z}]+')[4].lowerAscii().matches(r'^,*(([*?](-[^,/]*)?|(\+?0*[0-6]|sun|mon|tue|wed|thu|fr[iİ]|sat)(-(\+?0*[0-6]|sun|mon|tue|wed|thu|fr[iİ]|sat))?)(/\+?0*[1-9][0-9]*)?(,+([*?](-[^,/]*)?|(\+?0*[0-6]|sun|mon|tue|wed|thu|fr[iİ]|sat)(-(\+?0*[0-6]|sun|mon|tue|wed|thu|fr[iİ]|sat))?)(/\+?0*[1-9][0-9]*)?)*,*)?$')`,message=`the day of the week (fifth field) must be a comma-separated list of numbers 0-6 (0 is Sunday; 7 is not allowed) or names sun-sat, ranges such as 1-5 or mon-fri, * or ?, each with an optional step of 1 or more`
	// +kubebuilder:validation:XValidation:rule=`self.startsWith('@') || self.replace('İ', 'i').lowerAscii().replace('jan', '1').replace('feb', '2').replace('mar', '3').replace('apr', '4').replace('may', '5').replace('jun', '6').replace('jul', '7').replace('aug', '8').replace('sep', '9').replace('oct', '10').replace('nov', '11').replace('dec', '12').replace('sun', '0').replace('mon', '1').replace('tue', '2').replace('wed', '3').replace('thu', '4').replace('fri', '5').replace('sat', '6').findAll(r'(^|[,\t\n\v\f\r \x{85}\p{Z}])\+?0*[0-9]{1,2}-\+?0*[0-9]{1,2}').all(r, int(r.find(r'\+?[0-9]+')) <= int(r.find(r'\+?[0-9]+$')))`,message=`a range must not run backwards: in a-b, a may not be larger than b (for a range across midnight or the weekend, list two ranges, such as 22-23,0-2 or sat,sun)`

	// schedule is the time table of runs in cron format: five fields
	// (minute hour day-of-month month day-of-week, as in "*/5 * * * *"), or a
	// descriptor such as "@hourly" or "@every 90s". See
	// https://pkg.go.dev/github.com/robfig/cron/v3 for the syntax.
	// Set the time zone in spec.timeZone, not with a TZ= prefix here.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	Schedule string `json:"schedule"`

	// lab:end
	// lab:begin q2-marker

	// timeZone is the IANA name of the time zone the schedule is read in,
	// for example "Etc/UTC" or "Asia/Shanghai". When unset, the schedule is
	// read in the time zone of the machine that runs the controller. The
	// controller carries its own copy of the time zone database, so the
	// names do not depend on the machine.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9_.+-]+(/[A-Za-z0-9_.+-]+)*$`
	// +kubebuilder:validation:XValidation:rule=`self.split('/').all(p, p.size() <= 14 && p != '.' && p != '..' && !p.startsWith('-'))`,message=`each part between slashes must have at most 14 characters, not be . or .., and not start with -, as in IANA names such as America/Argentina/Buenos_Aires`
	// +kubebuilder:validation:XValidation:rule=`self.lowerAscii() != 'local'`,message=`must name a time zone such as Etc/UTC or Asia/Shanghai, not Local: Local is whatever zone the controller's machine is set to`
	TimeZone *string `json:"timeZone,omitempty"`

	// lab:end
	// lab:begin api-spec

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

	// successfulJobsHistoryLimit is how many finished, successful Jobs to keep.
	// Older ones are deleted, with their pods. Defaults to 3.
	// +optional
	// +kubebuilder:default=3
	// +kubebuilder:validation:Minimum=0
	SuccessfulJobsHistoryLimit *int32 `json:"successfulJobsHistoryLimit,omitempty"`

	// failedJobsHistoryLimit is how many failed Jobs to keep. Defaults to 1.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=0
	FailedJobsHistoryLimit *int32 `json:"failedJobsHistoryLimit,omitempty"`
}

// lab:end

// lab:begin api-status

// CronJobStatus is what the controller observed and did. Users never set it.
type CronJobStatus struct {
	// active lists the Jobs of this CronJob that are still running.
	// +optional
	// +listType=atomic
	Active []corev1.ObjectReference `json:"active,omitempty"`

	// lastScheduleTime is the scheduled time of the last run the controller
	// started. It is kept here, and not worked out from the Jobs, so that
	// deleting old Jobs never makes the controller run the same slot again.
	// +optional
	LastScheduleTime *metav1.Time `json:"lastScheduleTime,omitempty"`

	// lastSuccessfulTime is when the most recent successful Job completed.
	// +optional
	LastSuccessfulTime *metav1.Time `json:"lastSuccessfulTime,omitempty"`

	// observedGeneration is the metadata.generation of the spec that this
	// status was computed from. When it is lower than metadata.generation,
	// the controller has not yet acted on the latest change of the spec.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// conditions are the latest observations of the CronJob's state:
	// Ready (the schedule and time zone are valid; the reason says whether
	// runs start or the CronJob is suspended, the message when the next run
	// is or why the due one did not start) and
	// Degraded (the last attempt to act on the cluster failed).
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// Condition types and reasons. They are part of the API: scripts and people
// read them, so they change only as an API change would.
const (
	// ConditionReady is True while the controller can schedule the CronJob.
	ConditionReady = "Ready"
	// ConditionDegraded is True when the last reconcile failed to act on the
	// cluster, for example because a Job could not be created.
	ConditionDegraded = "Degraded"

	ReasonScheduling      = "Scheduling"
	ReasonSuspended       = "Suspended"
	ReasonInvalidSchedule = "InvalidSchedule"
	ReasonUnknownTimeZone = "UnknownTimeZone"
	ReasonReconciled      = "Reconciled"
	ReasonFailedCreate    = "FailedCreate"
	ReasonFailedDelete    = "FailedDelete"
)

// ScheduledTimeAnnotation is set on every Job the controller creates. It holds
// the run's scheduled time in RFC 3339, in the CronJob's time zone, like
// batch.kubernetes.io/cronjob-scheduled-timestamp does for batch/v1.
const ScheduledTimeAnnotation = "batch.cronlab.dev/cronjob-scheduled-timestamp"

// lab:end

// CronJobLabel is set on every Job the controller creates, to the name of its
// CronJob: `kubectl get jobs -l batch.cronlab.dev/cronjob=hello` lists one
// CronJob's runs. The manager caches only Jobs that have it, so the Jobs of
// the rest of the cluster take no memory in the controller (see
// internal/controller/cache.go). A name fits: CronJob names have at most 52
// characters, label values 63.
const CronJobLabel = "batch.cronlab.dev/cronjob"

// The markers on CronJob describe the resource as a whole: it is namespaced,
// has a short name for kubectl, keeps its status in a subresource, and adds
// columns to `kubectl get`, like `kubectl get cronjobs.batch` shows, and the
// Ready condition's status and reason, so that a CronJob that cannot run
// (InvalidSchedule, UnknownTimeZone) stands out in the list. Its message (the
// next run, or what is wrong) is in `kubectl get -o wide` (priority=1).
//
// The last marker limits the name to 52 characters, so that the Job names
// built from it fit in 63. The API server checks a rule on the whole object
// at every create and update, and an update changes the object, so the
// rule's ratcheting does not spare a longer name that predates the rule: such
// a CronJob can be deleted, not changed. The webhook checks the name on
// create only, as upstream does.

// +kubebuilder:object:root=true
// +kubebuilder:storageversion
// +kubebuilder:resource:scope=Namespaced,shortName=ccj,categories=cronlab
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Schedule",type=string,JSONPath=`.spec.schedule`
// +kubebuilder:printcolumn:name="Time Zone",type=string,JSONPath=`.spec.timeZone`
// +kubebuilder:printcolumn:name="Suspend",type=boolean,JSONPath=`.spec.suspend`
// +kubebuilder:printcolumn:name="Active",type=string,JSONPath=`.status.active[*].name`
// +kubebuilder:printcolumn:name="Last Schedule",type=date,JSONPath=`.status.lastScheduleTime`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="Message",type=string,priority=1,JSONPath=`.status.conditions[?(@.type=="Ready")].message`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="size(self.metadata.name) <= 52",message="metadata.name must be at most 52 characters: Job names add 11 characters to it and may have at most 63"

// CronJob runs a Job on a time-based schedule. It is cronlab's re-implementation
// of batch/v1 CronJob, built to learn the Operator pattern.
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
