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

package handwritten

import (
	"context"
	"testing"
	"time"

	kbatchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubefake "k8s.io/client-go/kubernetes/fake"

	batchv1 "cronlab.dev/cronlab/api/v1"
	"cronlab.dev/cronlab/internal/runs"
	"cronlab.dev/cronlab/test/say"
)

// TestCreateJobTakesItsOwnJobThatExistsAlready: the create of a run's Job
// that an earlier sync made, and did not live to see, answers AlreadyExists;
// the Job is ours, so it counts as created. A Job of that name that another
// CronJob controls is an error. The fake clientset answers a create of a
// name that is taken as the API server does.
func TestCreateJobTakesItsOwnJobThatExistsAlready(t *testing.T) {
	run := time.Date(2030, 1, 7, 10, 0, 0, 0, time.UTC)
	cj := &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Name: "nightly", Namespace: "ns", UID: "u1"}}
	ours := runs.NewJob(cj, run)
	ours.UID = "job-1"

	c := &Controller{kube: kubefake.NewClientset(ours)}
	got, err := c.createJob(context.Background(), cj, run)
	if err != nil || got == nil || got.UID != "job-1" {
		t.Fatal(say.Both("createJob of a Job of ours that exists already = %s, %v; want that Job, no error",
			"对一个已存在且属于我们的 Job 调用 createJob = %s, %v；应返回那个 Job，且没有错误", jobName(got), err))
	}

	stranger := runs.NewJob(&batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Name: "nightly", Namespace: "ns", UID: "u0"}}, run)
	c = &Controller{kube: kubefake.NewClientset(stranger)}
	if got, err := c.createJob(context.Background(), cj, run); err == nil {
		t.Error(say.Both("createJob took a Job that another CronJob controls as its own: %s",
			"createJob 把另一个 CronJob 控制的 Job 当成了自己的：%s", jobName(got)))
	}
}

// jobName names the Job a call returned, or says that it returned none.
func jobName(job *kbatchv1.Job) string {
	if job == nil || job.Name == "" {
		return "no Job"
	}
	return job.Name
}
