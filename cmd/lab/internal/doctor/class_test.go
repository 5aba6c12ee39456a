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

package doctor

import (
	"errors"
	"strings"
	"testing"

	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
)

func TestAClassKubeconfigIsCheckedForWhatTheLabNeeds(t *testing.T) {
	all := func(string, ...string) (bool, error) { return true, nil }
	if _, ok := classFinding(i18n.English, "kwok-cronlab", "default", all); ok {
		t.Error("a context that is not a class's was checked as one")
	}
	f, ok := classFinding(i18n.English, "cronlab-class-lab-ada", "lab-ada", all)
	if !ok || f.err != nil || !strings.Contains(f.what, "lab-ada") {
		t.Errorf("a class kubeconfig that may do everything: %+v %v", f, ok)
	}
	noJobs := func(ns string, args ...string) (bool, error) {
		if ns != "lab-ada" {
			t.Errorf("asked about namespace %s", ns)
		}
		return !strings.HasSuffix(args[1], "jobs.batch"), nil
	}
	f, _ = classFinding(i18n.Chinese, "cronlab-class-lab-ada", "lab-ada", noJobs)
	if f.err == nil || !strings.Contains(i18n.Message(i18n.Chinese, f.err), "不允许：create jobs.batch; delete jobs.batch") || !strings.Contains(f.fix, "bin/lab class setup") {
		t.Errorf("a Role without Jobs: %+v", f)
	}
	down := func(string, ...string) (bool, error) { return false, errors.New("Unauthorized") }
	f, _ = classFinding(i18n.English, "cronlab-class-lab-ada", "lab-ada", down)
	if f.err == nil || !strings.Contains(f.err.Error(), "Unauthorized") || !strings.Contains(f.fix, "expired") {
		t.Errorf("an expired token: %+v", f)
	}
}
