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

package check

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
	"cronlab.dev/cronlab/cmd/lab/internal/labtest"
	"cronlab.dev/cronlab/cmd/lab/internal/progress"
	"cronlab.dev/cronlab/cmd/lab/internal/run"
)

// A stage that passes says so, names the next stage, and is remembered:
// lab list shows it, in the language of each call.
func TestAPassingCheckSaysSoAndIsRemembered(t *testing.T) {
	root, stages := labtest.TinyLab(t)
	test := "package p\n\nimport \"testing\"\n\nfunc TestOne(t *testing.T) {\n\tif One() != \"one\" {\n\t\tt.Fatal(One())\n\t}\n}\n"
	if err := os.WriteFile(filepath.Join(root, "p", "p_test.go"), []byte(test), 0o644); err != nil {
		t.Fatal(err)
	}
	labtest.Git(t, root, "add", "-A")
	labtest.Git(t, root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "the test of stage 01")
	t.Chdir(root) // lab check checks the tree it runs in

	out := labtest.Printed(t, func() error { return CmdCheck(i18n.English, root, stages, stages[0], run.Summary) })
	for _, want := range []string{"Checking stage 01: one", "PASS  ./p: 1 of 1 passed", "Stage 01 passes. Next: bin/lab start 02  (two)"} {
		if !strings.Contains(out, want) {
			t.Errorf("lab check 01 printed\n%s\nwithout %q", out, want)
		}
	}
	if r := progress.Read(root).Stages["one"]; !r.Passed || r.Specs != 1 {
		t.Errorf("the progress file has %+v for stage 01, want passed, 1 spec", r)
	}
	en := labtest.Printed(t, func() error { return CmdList(i18n.English, root, stages, false) })
	zh := labtest.Printed(t, func() error { return CmdList(i18n.Chinese, root, stages, false) })
	if !strings.Contains(en, "pass (1 / 1, just now)") || !strings.Contains(en, "not checked yet") {
		t.Errorf("lab list printed\n%s", en)
	}
	if !strings.Contains(zh, "通过（1 / 1，刚刚）") || !strings.Contains(zh, "尚未检查") {
		t.Errorf("lab list --lang zh printed\n%s", zh)
	}
}
