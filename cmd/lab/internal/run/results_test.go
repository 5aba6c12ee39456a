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

package run

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cronlab.dev/cronlab/cmd/lab/internal/gotest"
	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
	"cronlab.dev/cronlab/cmd/lab/internal/stage"
)

// The fixtures in testdata/results are small packages with an attendee's
// kinds of mistakes; these tests run them with go test, as `lab check`
// does, and check what it would show.

func fixture(t *testing.T, name string) (dir string, test stage.Test) {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", "..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root, stage.Test{Package: "./cmd/lab/internal/run/testdata/results/" + name}
}

func TestResultsOfGoTests(t *testing.T) {
	l := i18n.English
	dir, test := fixture(t, "plain")
	owned := map[string]bool{"cmd/lab/internal/run/testdata/results/plain/code.go": true}
	r, err := runTest(l, dir, nil, test, buildTest(dir, test, BuildOpts{}), owned, false)
	if err == nil {
		t.Fatal("the fixture's tests passed")
	}
	if r.Passed != 1 || r.Failed != 2 {
		t.Errorf("passed %d, failed %d; want 1 and 2", r.Passed, r.Failed)
	}
	byName := failuresByName(r)
	double := byName["TestDouble"]
	if double.Location != "cmd/lab/internal/run/testdata/results/plain/code_test.go:14" || double.Message != "Double(2) = 5, want 4" {
		t.Errorf("TestDouble: at %q, message %q; want code_test.go:14 and the values", double.Location, double.Message)
	}
	owner := byName["TestOwner"]
	if !strings.Contains(owner.Panic, "nil pointer dereference") {
		t.Errorf("TestOwner: panic %q, want the runtime error", owner.Panic)
	}
	if len(owner.Frames) == 0 || !strings.HasPrefix(owner.Frames[0], "cmd/lab/internal/run/testdata/results/plain/code.go:9 (plain.Owner)") ||
		!strings.HasSuffix(owner.Frames[0], "your code") {
		t.Errorf("TestOwner: frames %q, want the attendee's line first", owner.Frames)
	}
}

func TestATestSpeaksTheLanguageOfTheToolAndItsEnglishIsFound(t *testing.T) {
	dir, test := fixture(t, "plain")
	owned := map[string]bool{"cmd/lab/internal/run/testdata/results/plain/code.go": true}
	r, _ := runTest(i18n.Chinese, dir, []string{"LAB_LANG=zh"}, test, buildTest(dir, test, BuildOpts{}), owned, false)
	inBothLanguages(i18n.Chinese, dir, test, &r)
	double := failuresByName(r)["TestDouble"]
	if double.Message != "Double(2) = 5，应为 4" || double.Said != "Double(2) = %d, want 4" {
		t.Errorf("TestDouble said %q (in English %q); want the Chinese sentence, and the English format beside it", double.Message, double.Said)
	}
}

func TestResultsOfGinkgoSpecs(t *testing.T) {
	l := i18n.English
	dir, test := fixture(t, "suite")
	owned := map[string]bool{"cmd/lab/internal/run/testdata/results/suite/code.go": true}
	r, err := runTest(l, dir, nil, test, buildTest(dir, test, BuildOpts{}), owned, false)
	if err == nil {
		t.Fatal("the fixture's specs passed")
	}
	if r.Passed != 1 || r.Failed != 2 {
		t.Errorf("passed %d, failed %d; want 1 and 2 (specs, not the Go test that runs them)", r.Passed, r.Failed)
	}
	byName := failuresByName(r)
	label := byName["Stage 99 › labels Jobs with their CronJob"]
	if label.Location != "cmd/lab/internal/run/testdata/results/suite/suite_test.go:17" ||
		!strings.Contains(label.Message, "<string>: cronjob\n") || !strings.Contains(label.Message, "<string>: batch.cronlab.dev/cronjob") {
		t.Errorf("label spec: at %q, message %q; want the line and both values", label.Location, label.Message)
	}
	status := byName["Stage 99 › writes the status"]
	if !strings.Contains(status.Panic, "nil pointer dereference") || len(status.Frames) == 0 ||
		!strings.HasPrefix(status.Frames[0], "cmd/lab/internal/run/testdata/results/suite/suite_test.go:20") {
		t.Errorf("status spec: panic %q, frames %q; want the panic and the spec's line", status.Panic, status.Frames)
	}
}

func TestResultsOfCodeThatDoesNotCompile(t *testing.T) {
	l := i18n.English
	dir, test := fixture(t, "broken")
	r, err := runTest(l, dir, nil, test, buildTest(dir, test, BuildOpts{}), nil, false)
	if err == nil || err.Error() != "does not compile" {
		t.Fatalf("error %v, want: does not compile", err)
	}
	want := "cmd/lab/internal/run/testdata/results/broken/code.go:6:26: undefined: nextRun"
	if !strings.Contains(strings.Join(r.BuildErrors, "\n"), want) {
		t.Errorf("compile errors %q, want %q", r.BuildErrors, want)
	}
}

func failuresByName(r gotest.Results) map[string]gotest.Failure {
	m := map[string]gotest.Failure{}
	for _, f := range r.Failures {
		m[f.Name] = f
	}
	return m
}

// lab dev verify builds a mistake as a build overlay: the test binary has the
// edit, the file on disk does not, so the next mistake can build meanwhile.
func TestAMistakeBuildsAsAnOverlayAndLeavesTheTreeAlone(t *testing.T) {
	l := i18n.English
	dir, test := fixture(t, "plain")
	file := filepath.Join(dir, "cmd/lab/internal/run/testdata/results/plain/code.go")
	before, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	// The "mistake" here corrects the fixture's Double, so that the test
	// that failed passes: the overlay is what was built.
	m := stage.Mistake{Name: "doubles right", Edits: []stage.Edit{{File: "cmd/lab/internal/run/testdata/results/plain/code.go", Replace: "return 2*n + 1", With: "return 2 * n"}}}
	at := t.TempDir()
	overlay, err := m.Overlay(dir, at)
	if err != nil {
		t.Fatal(err)
	}
	o := BuildOpts{Overlay: overlay, Out: filepath.Join(at, "tests")}
	test.Run = "^TestDouble$"
	r, err := runTest(l, dir, nil, test, buildTest(dir, test, o), nil, false)
	if err != nil || r.Passed != 1 {
		t.Errorf("with the overlay, TestDouble must pass; passed %d, error %v", r.Passed, err)
	}
	if after, err := os.ReadFile(file); err != nil || !bytes.Equal(after, before) {
		t.Errorf("the overlay changed %s on disk", file)
	}
	if _, err := (stage.Mistake{Name: "gone", Edits: []stage.Edit{{File: "cmd/lab/internal/run/testdata/results/plain/code.go", Replace: "no such text", With: ""}}}).Overlay(dir, at); err == nil {
		t.Error("a mistake whose text is not in the file must not be made")
	}
}
