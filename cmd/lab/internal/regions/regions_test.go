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

// The reference of the table below: a region of two functions, one a method,
// whose doc comments speak of what the given forms do not do.
const guarded = `package demo

import (
	"errors"
	"strings"
)

// lab:begin guards

// check asks the server, which the cache may not match.
func (c *client) check(name string) (bool, error) {
	if strings.HasPrefix(name, "x") {
		return false, errors.New("asked the server")
	}
	return true, nil
}

// clean trims it.
func clean(s string) string { return strings.TrimSpace(s) }

// lab:end

type client struct{}

func use(c *client) (bool, error) { return c.check("y") }
`

// A region with forms for the earlier stages (stage.yaml's trusting:) gets
// them, doc comment and body, under the reference's signature; its own
// stage's starter marks them TODO too. A function without a form is left out
// of the earlier starters and a TODO stub in its own stage's, if only the
// region calls it; one that code outside the region calls, a form whose
// signature differs, or a file that does not parse is an error that says
// what to write.
func TestStubGoPutsTheGivenFormsInPlace(t *testing.T) {
	l := i18n.English
	const forms = `//go:build ignore

package demo

// check trusts the cache.
func (c *client) check(name string) (bool, error) {
	return true, nil
}

// clean is given.
func clean(s string) string { return s }
`
	given, err := ParseGiven("given.go", []byte(forms))
	if err != nil {
		t.Fatal(err)
	}
	const todo = "// TODO(lab later): write this (在此编写); see exercises/later/README.md (中文: exercises/later/README.zh-CN.md)"
	for _, tc := range []struct {
		name      string
		given     map[string]GivenFunc
		own       bool
		want, not []string // in the output, and not
		err       string   // in the error's English
	}{{
		name:  "an earlier stage's starter: the forms, without a TODO, and the imports only the reference used go",
		given: given,
		want: []string{
			"// check trusts the cache.\nfunc (c *client) check(name string) (bool, error) {\n\treturn true, nil\n}",
			"// clean is given.\nfunc clean(s string) string { return s }",
			"type client struct{}",
		},
		not: []string{"asks the server", "TODO", `"errors"`, `"strings"`, "labTODO"},
	}, {
		name:  "the region's own stage: the forms, each marked TODO",
		given: given,
		own:   true,
		want: []string{
			"func (c *client) check(name string) (bool, error) {\n\t" + todo + "\n\treturn true, nil\n}",
			"func clean(s string) string {\n\t" + todo + "\n\treturn s\n}",
		},
		not: []string{"asks the server", "labTODO"},
	}, {
		name:  "a region without forms: TODO stubs",
		given: nil,
		want:  []string{"// check asks the server, which the cache may not match.", `labTODO("TODO(lab later)`},
	}, {
		name:  "a function without a form, which only the region calls: left out before its stage",
		given: map[string]GivenFunc{"client.check": given["client.check"]},
		want:  []string{"// check trusts the cache.\nfunc (c *client) check(name string) (bool, error) {\n\treturn true, nil\n}\n\n// lab:end"},
		not:   []string{"clean", "TODO", `"strings"`},
	}, {
		name:  "a function without a form, in its own stage: a TODO stub",
		given: map[string]GivenFunc{"client.check": given["client.check"]},
		own:   true,
		want:  []string{"func clean(s string) string {\n\t" + todo + "\n\t_ = s\n\treturn *new(string)\n}"},
	}, {
		name:  "a function without a form that code outside the region calls",
		given: map[string]GivenFunc{"clean": given["clean"]},
		err:   "given.go leaves out client.check (demo.go), which use calls: only a function that the region's own functions alone call may be left out",
	}, {
		name:  "a form with another signature",
		given: map[string]GivenFunc{"client.check": given["client.check"], "clean": {Signature: "func clean(t string) string", Body: "{ return t }"}},
		err:   `the form of clean is declared "func clean(t string) string", and the reference "func clean(s string) string"`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			stub := Stub{Stage: "later", Readme: "exercises/later/README.md", Given: tc.given, GivenFile: "given.go", Own: tc.own}
			out, usesTODO, err := StubGo(l, "demo.go", []byte(guarded), map[string]Stub{"guards": stub})
			if tc.err != "" {
				if err == nil || !strings.Contains(i18n.Message(l, err), tc.err) {
					t.Fatalf("error %v, want one with %q", err, tc.err)
				}
				if zh := i18n.Message(i18n.Chinese, err); !strings.Contains(zh, "given.go") || zh == i18n.Message(l, err) {
					t.Errorf("the error in Chinese is %q", zh)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := string(out)
			for _, want := range tc.want {
				if !strings.Contains(got, want) {
					t.Errorf("lacks %q:\n%s", want, got)
				}
			}
			for _, not := range tc.not {
				if strings.Contains(got, not) {
					t.Errorf("still has %q:\n%s", not, got)
				}
			}
			if usesTODO != (tc.given == nil) {
				t.Errorf("usesTODO = %v: only TODO stubs return labTODO", usesTODO)
			}
		})
	}
}

func TestParseGivenRefusesAFileThatDoesNotParse(t *testing.T) {
	_, err := ParseGiven("given.go", []byte("package demo\nfunc broken( {"))
	if err == nil || !strings.Contains(i18n.Message(i18n.English, err), "given.go does not parse") {
		t.Errorf("error %v, want one that says given.go does not parse", err)
	}
}
