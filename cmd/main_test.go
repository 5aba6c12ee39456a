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

package main

import (
	"testing"

	kbatchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	batchv1 "cronlab.dev/cronlab/api/v1"
	"cronlab.dev/cronlab/test/say"
)

// TestTheSchemeKnowsEveryKindTheManagerUses is stage 01's check: the manager
// reads and writes CronJobs, Jobs and Events, so its scheme must map each to
// its Go type, or the first Get fails with "no kind is registered".
func TestTheSchemeKnowsEveryKindTheManagerUses(t *testing.T) {
	for _, gvk := range []struct{ what, group, version, kind string }{
		{say.Both("our CronJob", "我们的 CronJob"), batchv1.GroupVersion.Group, "v1", "CronJob"},
		{say.Both("our CronJobList", "我们的 CronJobList"), batchv1.GroupVersion.Group, "v1", "CronJobList"},
		{say.Both("the built-in Job", "内置的 Job"), kbatchv1.GroupName, "v1", "Job"},
		{say.Both("the built-in Event", "内置的 Event"), "events.k8s.io", "v1", "Event"},
	} {
		if !scheme.Recognizes(schemaGVK(gvk.group, gvk.version, gvk.kind)) {
			t.Error(say.Both("the scheme does not know %s (%s/%s %s): add its group's AddToScheme in init()",
				"scheme 不认识%s（%s/%s %s）：在 init() 里加上它所属 API 组的 AddToScheme", gvk.what, gvk.group, gvk.version, gvk.kind))
		}
	}
}

func schemaGVK(group, version, kind string) schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: group, Version: version, Kind: kind}
}
