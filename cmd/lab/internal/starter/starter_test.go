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

package starter

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
	"cronlab.dev/cronlab/cmd/lab/internal/regions"
	"cronlab.dev/cronlab/cmd/lab/internal/stage"
)

// A starter stubs the regions of its stage and of every later one; the
// stages before it stay solved.
func TestAStarterStubsItsStageAndTheLaterOnes(t *testing.T) {
	stages := []stage.Stage{
		{Slug: "one", Num: "01", Dir: "exercises/01-one", Regions: []string{"one"}},
		{Slug: "two", Num: "02", Dir: "exercises/02-two", Regions: []string{"two", "two-b"}},
		{Slug: "three", Num: "03", Dir: "exercises/03-three", Regions: []string{"three"}},
	}
	want := map[string]regions.Stub{
		"two":   {Stage: "two", Readme: "exercises/02-two/README.md"},
		"two-b": {Stage: "two", Readme: "exercises/02-two/README.md"},
		"three": {Stage: "three", Readme: "exercises/03-three/README.md"},
	}
	if got := StubsFrom(stages, stages[1]); !reflect.DeepEqual(got, want) {
		t.Errorf("the starter of 02 stubs %v, want %v", got, want)
	}
}

// A region with forms for the earlier stages (stage.yaml's trusting:) is
// given them in every starter up to its stage's, marked TODO only in its
// own; the starters after it have the reference.
func TestARegionWithTrustingFormsGetsThemUpToItsStage(t *testing.T) {
	stages := []stage.Stage{
		{Slug: "one", Num: "01", Dir: "exercises/one", Regions: []string{"one"}},
		{Slug: "two", Num: "02", Dir: "exercises/two", Regions: []string{"two", "guards"}, Trusting: map[string]string{"guards": "trusting/g.go"}},
		{Slug: "three", Num: "03", Dir: "exercises/three", Regions: []string{"three"}},
	}
	want := regions.Stub{Stage: "two", Readme: "exercises/two/README.md", GivenFile: "exercises/two/trusting/g.go"}
	if got := StubsFrom(stages, stages[0])["guards"]; !reflect.DeepEqual(got, want) {
		t.Errorf("the starter of 01 has %+v for guards, want %+v", got, want)
	}
	want.Own = true
	if got := StubsFrom(stages, stages[1])["guards"]; !reflect.DeepEqual(got, want) {
		t.Errorf("the starter of 02 has %+v for guards, want %+v", got, want)
	}
	if got, ok := StubsFrom(stages, stages[2])["guards"]; ok {
		t.Errorf("the starter of 03 stubs guards (%+v); it has the reference", got)
	}
	if got := StubsFrom(stages, stages[0])["two"]; got.GivenFile != "" {
		t.Errorf("region two has no trusting forms, and gets %q", got.GivenFile)
	}
}

// Make reads the forms from the tree it makes the starter in, and says so
// when the file is not there.
func TestMakeReadsTheTrustingFormsFromTheTree(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, text string) {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, rel)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, rel), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("pkg/a.go", "package pkg\n\n// lab:begin guards\n\n// ok asks.\nfunc ok() bool { return len(\"x\") > 2 }\n\n// lab:end\n")
	stubs := map[string]regions.Stub{"guards": {Stage: "two", Readme: "exercises/two/README.md", GivenFile: "exercises/two/trusting/g.go"}}
	if _, err := Make(i18n.English, dir, stubs); err == nil || !strings.Contains(i18n.Message(i18n.English, err), "restore exercises/two/trusting/g.go") {
		t.Fatalf("without the file: error %v, want one that says to restore it", err)
	}
	write("exercises/two/trusting/g.go", "//go:build ignore\n\npackage pkg\n\n// ok trusts.\nfunc ok() bool { return true }\n")
	if _, err := Make(i18n.English, dir, stubs); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "pkg/a.go"))
	if !strings.Contains(string(got), "// ok trusts.\nfunc ok() bool { return true }") {
		t.Errorf("the starter's file is\n%s", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "pkg/zz_lab_todo.go")); err == nil {
		t.Error("a package with only trusting forms needs no labTODO")
	}
}
