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
	"testing"

	kbatchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"

	batchv1 "cronlab.dev/cronlab/api/v1"
	"cronlab.dev/cronlab/test/say"
)

// TestEnqueueOwner is the part of Owns(&Job{}) that stage 16 writes by
// hand: which events of a Job enqueue which CronJob. No API server needed.
func TestEnqueueOwner(t *testing.T) {
	cronJob := metav1.OwnerReference{APIVersion: batchv1.GroupVersion.String(), Kind: "CronJob", Name: "report", UID: "u1"}
	job := func(refs ...metav1.OwnerReference) *kbatchv1.Job {
		return &kbatchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "report-1", OwnerReferences: refs}}
	}
	controller := func(ref metav1.OwnerReference) metav1.OwnerReference {
		ref.Controller = ptr.To(true)
		return ref
	}
	for _, tc := range []struct {
		name string
		obj  any
		want []string
	}{
		{"a Job that our CronJob controls", job(controller(cronJob)), []string{"team/report"}},
		{"the same Job, deleted while the watch was down (a tombstone)",
			cache.DeletedFinalStateUnknown{Key: "team/report-1", Obj: job(controller(cronJob))}, []string{"team/report"}},
		{"a Job that only points at our CronJob, controlled by nothing", job(cronJob), nil},
		{"a Job controlled by upstream's CronJob", job(controller(metav1.OwnerReference{APIVersion: "batch/v1", Kind: "CronJob", Name: "report", UID: "u2"})), nil},
		{"a Job of nobody", job(), nil},
		{"not a Job: the tombstone of a CronJob", cache.DeletedFinalStateUnknown{Key: "team/report", Obj: &batchv1.CronJob{}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &Controller{queue: workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]())}
			defer c.queue.ShutDown()
			c.enqueueOwner(tc.obj)
			var got []string
			for c.queue.Len() > 0 {
				key, _ := c.queue.Get()
				got = append(got, key)
				c.queue.Done(key)
			}
			if len(got) != len(tc.want) || (len(got) == 1 && got[0] != tc.want[0]) {
				t.Error(say.Both("enqueued %q, want %q",
					"入队的是 %q，应为 %q", got, tc.want))
			}
		})
	}
}
