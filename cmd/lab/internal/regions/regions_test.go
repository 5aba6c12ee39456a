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

package regions

import (
	"strings"
	"testing"

	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
)

const sample = `package demo

import (
	"fmt"
	"strings"
	"time"
)

// lab:begin greet

// Greeting is the kind of greeting.
// +kubebuilder:validation:Enum=Hello;Bye
type Greeting string

// Greet says hello.
func Greet(name string, at time.Time) (string, error) {
	return fmt.Sprintf("hello %s at %v", strings.ToUpper(name), at), nil
}

// lab:end

func keep() string { return fmt.Sprint("kept") }
`

func TestStubGoKeepsSignaturesAndDropsWhatOnlyTheBodyUsed(t *testing.T) {
	l := i18n.English
	out, usesTODO, err := StubGo(l, "demo.go", []byte(sample), map[string]Stub{"greet": {Stage: "05", Readme: "exercises/05-x/README.md"}})
	if err != nil {
		t.Fatal(err)
	}
	got := string(out)
	for _, want := range []string{
		"func Greet(name string, at time.Time) (string, error) {",
		"// TODO(lab 05): write this (在此编写); see exercises/05-x/README.md (中文: exercises/05-x/README.zh-CN.md)",
		`return *new(string), labTODO("TODO(lab 05): write this (在此编写); see exercises/05-x/README.md (中文: exercises/05-x/README.zh-CN.md)")`,
		"func keep() string { return fmt.Sprint(\"kept\") }",
		"type Greeting string",
		"\"time\"",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("stub lacks %q:\n%s", want, got)
		}
	}
	for _, gone := range []string{"+kubebuilder:validation:Enum", "\"strings\"", "strings.ToUpper"} {
		if strings.Contains(got, gone) {
			t.Errorf("stub still has %q:\n%s", gone, got)
		}
	}
	if !usesTODO {
		t.Error("the stub returns an error, so it needs labTODO")
	}
}

func TestStubGoLeavesOtherRegionsAlone(t *testing.T) {
	l := i18n.English
	out, usesTODO, err := StubGo(l, "demo.go", []byte(sample), map[string]Stub{"other": {Stage: "07", Readme: "x"}})
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != sample || usesTODO {
		t.Errorf("a file without stubbed regions must not change:\n%s", out)
	}
}

func TestFindRegionsRefusesBrokenMarkers(t *testing.T) {
	for name, src := range map[string]string{
		"unclosed":  "// lab:begin a\nx\n",
		"nested":    "// lab:begin a\n// lab:begin b\n// lab:end\n// lab:end\n",
		"stray end": "x\n// lab:end\n",
	} {
		if _, err := Parse("f.go", []byte(src)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestStubTextReplacesTheRegionWithATODO(t *testing.T) {
	l := i18n.English
	src := "a: 1\n  # lab:begin chart\n  b: 2\n  c: 3\n  # lab:end\nd: 4\n"
	out, err := StubText(l, "values.yaml", []byte(src), map[string]Stub{"chart": {Stage: "08", Readme: "exercises/08-helm/README.md"}})
	if err != nil {
		t.Fatal(err)
	}
	want := "a: 1\n  # lab:begin chart\n  # TODO(lab 08): write this (在此编写); see exercises/08-helm/README.md (中文: exercises/08-helm/README.zh-CN.md)\n  # lab:end\nd: 4\n"
	if string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

func TestStubGoDropsADotImportOnlyWhenNothingUsesItAnyMore(t *testing.T) {
	l := i18n.English
	src := `package demo

import (
	. "strings"
	. "time"
)

// lab:begin shout
func Shout(s string) string { return ToUpper(s) }
// lab:end

func Later() Duration { return Second }
`
	out, _, err := StubGo(l, "demo.go", []byte(src), map[string]Stub{"shout": {Stage: "07", Readme: "x"}})
	if err != nil {
		t.Fatal(err)
	}
	got := string(out)
	if strings.Contains(got, `"strings"`) {
		t.Errorf("the dot import of strings is unused after the stub, and must go:\n%s", got)
	}
	if !strings.Contains(got, `. "time"`) {
		t.Errorf("the dot import of time is still used, and must stay:\n%s", got)
	}
}

func TestStubTextInAHelmTemplateWritesATemplateComment(t *testing.T) {
	l := i18n.English
	src := "spec:\n  {{- /* lab:begin chart */}}\n  replicas: {{ .Values.replicas }}\n  {{- /* lab:end */}}\n"
	out, err := StubText(l, "deployment.yaml", []byte(src), map[string]Stub{"chart": {Stage: "08", Readme: "exercises/08-helm/README.md"}})
	if err != nil {
		t.Fatal(err)
	}
	want := "spec:\n  {{- /* lab:begin chart */}}\n  {{- /* TODO(lab 08): write this (在此编写); see exercises/08-helm/README.md (中文: exercises/08-helm/README.zh-CN.md) */}}\n  {{- /* lab:end */}}\n"
	if string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

func TestStubGoKeepsTheLessonsScaffolding(t *testing.T) {
	l := i18n.English
	src := `package demo

// lab:begin steps

// Reconcile does the work in steps.
//
// This second paragraph stays a paragraph.
// +kubebuilder:rbac:groups=batch,resources=jobs,verbs=get
func Reconcile(n int) (int, error) {
	// 1. Load it.
	x := n + 1 // a trailing remark about the solution

	// 2. Decide, in two
	// lines.
	if x > 2 {
		// inside the solution: goes with it
		x--
	}
	return x, nil
}

// lab:end
`
	out, _, err := StubGo(l, "demo.go", []byte(src), map[string]Stub{"steps": {Stage: "04", Readme: "exercises/04-x/README.md"}})
	if err != nil {
		t.Fatal(err)
	}
	want := `package demo

// lab:begin steps

// Reconcile does the work in steps.
//
// This second paragraph stays a paragraph.
func Reconcile(n int) (int, error) {
	// TODO(lab 04): write this (在此编写); see exercises/04-x/README.md (中文: exercises/04-x/README.zh-CN.md)

	// 1. Load it.

	// 2. Decide, in two
	// lines.

	_ = n
	return *new(int), labTODO("TODO(lab 04): write this (在此编写); see exercises/04-x/README.md (中文: exercises/04-x/README.zh-CN.md)")
}

// lab:end
`
	if string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}
