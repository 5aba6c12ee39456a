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
	"maps"
	"slices"
	"testing"

	kbatchv1 "k8s.io/api/batch/v1"

	"cronlab.dev/cronlab/test/say"
)

func TestWatchNamespaceTakesTheFlagThenTheEnvironment(t *testing.T) {
	for _, tc := range []struct {
		name, flag, env, want string
	}{
		{name: "neither: every namespace"},
		{name: "the environment alone", env: "alice", want: "alice"},
		{name: "the flag alone", flag: "bob", want: "bob"},
		{name: "both: the flag wins", flag: "bob", env: "alice", want: "bob"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var asked []string
			getenv := func(key string) string {
				asked = append(asked, key)
				if key == "WATCH_NAMESPACE" {
					return tc.env
				}
				return "not-this-one"
			}
			if got := watchNamespace(tc.flag, getenv); got != tc.want {
				t.Error(say.Both("--namespace=%q and WATCH_NAMESPACE=%q: watched %q, want %q",
					"--namespace=%q、WATCH_NAMESPACE=%q：监视的是 %q，应为 %q", tc.flag, tc.env, got, tc.want))
			}
			if tc.flag == "" && !slices.Equal(asked, []string{"WATCH_NAMESPACE"}) {
				t.Error(say.Both("without the flag, only WATCH_NAMESPACE should be read; read %q",
					"没有该命令行参数时应只读取 WATCH_NAMESPACE；实际读取了 %q", asked))
			}
		})
	}
}

func TestCacheOptionsLimitEveryInformerToTheWatchedNamespace(t *testing.T) {
	if got := cacheOptions("").DefaultNamespaces; got != nil {
		t.Error(say.Both("unscoped, the cache must watch every namespace; DefaultNamespaces is %v",
			"不限定时缓存必须监视所有名字空间；DefaultNamespaces 却是 %v", got))
	}
	scoped := cacheOptions("alice")
	if got := slices.Collect(maps.Keys(scoped.DefaultNamespaces)); !slices.Equal(got, []string{"alice"}) {
		t.Error(say.Both("scoped to alice, DefaultNamespaces is %v", "限定为 alice 时 DefaultNamespaces 却是 %v", got))
	}
	// The controller's own settings stay: only its Jobs, no managedFields.
	var jobSelector string
	for obj, by := range scoped.ByObject {
		if _, ok := obj.(*kbatchv1.Job); ok && by.Label != nil {
			jobSelector = by.Label.String()
		}
	}
	if jobSelector == "" || scoped.DefaultTransform == nil {
		t.Error(say.Both("scoping lost controller.CacheOptions' Job label selector (%q) or its transform",
			"限定名字空间后丢掉了 controller.CacheOptions 的 Job 标签选择算符（%q）或转换函数", jobSelector))
	}
}
