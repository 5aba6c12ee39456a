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

package report

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cronlab.dev/cronlab/cmd/lab/internal/gotest"
	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
	"cronlab.dev/cronlab/cmd/lab/internal/labtest"
	"cronlab.dev/cronlab/cmd/lab/internal/stage"
)

// The shape of `lab check --json` is a promise to instructors' tools
// (docs/lab-json.md): this is version 1, field by field.
func TestCheckJSONKeepsItsShape(t *testing.T) {
	dir := t.TempDir()
	src := "package controller\n\ntype CronJobReconciler struct{}\n\nfunc (r *CronJobReconciler) startDueRun() {\n\tundefinedThing()\n}\n"
	if err := os.MkdirAll(filepath.Join(dir, "internal", "controller"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "internal", "controller", "status.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	s := labtest.StageWithHints()
	s.Title = "Scheduling"
	s.Tests = []stage.Test{{Package: "./internal/schedule"}, {Package: "./internal/controller"}}
	s.Functions = []stage.Function{
		{Name: "Schedule.Due", Specs: []string{"TestDue"}},
		{Name: "CronJobReconciler.startDueRun", Specs: []string{"creates the Job of a due run"}},
	}
	rs := []gotest.Results{
		{Passed: 1, Failed: 1,
			Outcomes: []gotest.Outcome{{Name: "TestDue", Status: "passed"}, {Name: "TestDueAgreesWithAWalk", Status: "failed"}},
			Failures: []gotest.Failure{
				{Name: "TestDueAgreesWithAWalk/at_midnight", Location: "internal/schedule/schedule_test.go:52", Message: "Due = 00:05, want 00:00"},
				{Name: "TestDueAgreesWithAWalk", Location: "internal/schedule/schedule_test.go:40", Message: "Due = 10:05, want 10:15"}}},
		{BuildErrors: []string{"internal/controller/status.go:6:2: undefined: undefinedThing"}},
	}
	var out strings.Builder
	if err := NewCheck(dir, s, rs, errors.New("failing: ./internal/schedule, ./internal/controller")).Write(&out); err != nil {
		t.Fatal(err)
	}
	want := `{
  "version": 1,
  "stage": "06",
  "slug": "scheduling",
  "title": "Scheduling",
  "passed": false,
  "error": "failing: ./internal/schedule, ./internal/controller",
  "tests": [
    {
      "package": "./internal/schedule",
      "specs": [
        {
          "name": "TestDue",
          "status": "passed"
        },
        {
          "name": "TestDueAgreesWithAWalk",
          "status": "failed",
          "message": "Due = 10:05, want 10:15",
          "location": "internal/schedule/schedule_test.go:40",
          "hint": "scheduling.1",
          "subtests": [
            {
              "name": "TestDueAgreesWithAWalk/at_midnight",
              "status": "failed",
              "message": "Due = 00:05, want 00:00",
              "location": "internal/schedule/schedule_test.go:52",
              "hint": "scheduling.1"
            }
          ]
        }
      ],
      "compileErrors": [],
      "vetErrors": []
    },
    {
      "package": "./internal/controller",
      "specs": [],
      "compileErrors": [
        {
          "file": "internal/controller/status.go",
          "line": 6,
          "function": "CronJobReconciler.startDueRun",
          "message": "undefined: undefinedThing"
        }
      ],
      "vetErrors": []
    }
  ],
  "functions": [
    {
      "name": "Schedule.Due",
      "status": "failed",
      "passed": 1,
      "ran": 2,
      "failing": [
        "TestDueAgreesWithAWalk"
      ]
    },
    {
      "name": "CronJobReconciler.startDueRun",
      "status": "does not compile",
      "passed": 0,
      "ran": 0,
      "compileError": "internal/controller/status.go:6: undefined: undefinedThing"
    }
  ]
}
`
	if out.String() != want {
		t.Errorf("lab check --json printed\n%s\nwant\n%s", out.String(), want)
	}
}

// A panic's frames read in the tool's language, as the rest of the
// failure does; "panic:" is Go's own word, in both.
func TestAPanicsFramesReadInTheToolsLanguage(t *testing.T) {
	f := gotest.Failure{Name: "TestDue", Panic: "runtime error: index out of range [3] with length 3",
		Frames: []string{"internal/schedule/schedule.go:88 (Schedule.dueTable)  <- your code"}, Location: "internal/schedule/schedule_test.go:40"}
	zh := labtest.Printed(t, func() error { ShowFailure(i18n.Chinese, f, "  "); return nil })
	for _, want := range []string{"panic: runtime error", "  位于 internal/schedule/schedule.go:88 (Schedule.dueTable)  <- 你的代码", "所在测试用例：internal/schedule/schedule_test.go:40"} {
		if !strings.Contains(zh, want) {
			t.Errorf("the Chinese failure lacks %q:\n%s", want, zh)
		}
	}
	if en := labtest.Printed(t, func() error { ShowFailure(i18n.English, f, "  "); return nil }); !strings.Contains(en, "  at internal/schedule/schedule.go:88") {
		t.Errorf("the English failure:\n%s", en)
	}
}
