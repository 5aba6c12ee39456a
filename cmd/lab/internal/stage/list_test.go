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

package stage

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
)

// lab writes a clone with the stages.yaml given and a folder per name.
func lab(t *testing.T, list string, folders ...string) string {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{ListFile: list}
	for _, f := range folders {
		files["exercises/"+f+"/stage.yaml"] = "title: " + f + "\nhints:\n- en: start here\n"
	}
	for name, text := range files {
		path := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// A field the tool does not know is either a newer stage than the tool,
// after a pull, or a typo: the error says what to do about each.
func TestAFieldTheToolDoesNotKnowSaysToBuildItAgain(t *testing.T) {
	root := lab(t, "- alpha\n", "alpha")
	path := filepath.Join(root, "exercises", "alpha", "stage.yaml")
	if err := os.WriteFile(path, []byte("title: alpha\nhints:\n- en: start here\nnewfield: {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(root)
	if err == nil {
		t.Fatal("a stage.yaml with a field the tool does not know loaded")
	}
	for l, want := range map[i18n.Lang]string{i18n.English: "build it again (make lab)", i18n.Chinese: "请重新构建它（make lab）"} {
		if got := i18n.Message(l, err); !strings.Contains(got, want) || !strings.Contains(got, "newfield") {
			t.Errorf("the error reads %q: it should name the field and say %q", got, want)
		}
	}
}

// The list orders the stages and gives their numbers; the slug, the
// folder's name, is their identity, and what hint ids begin with.
func TestTheListOrdersTheStages(t *testing.T) {
	stages, err := Load(lab(t, "# the order\n- zeta\n- alpha\n", "alpha", "zeta"))
	if err != nil {
		t.Fatal(err)
	}
	if len(stages) != 2 || stages[0].Slug != "zeta" || stages[0].Num != "01" || stages[1].Slug != "alpha" || stages[1].Num != "02" {
		t.Fatalf("stages %+v", stages)
	}
	if stages[1].Dir != filepath.Join("exercises", "alpha") || stages[1].Hints[0].ID != "alpha.1" || stages[1].Branch() != "lab/alpha" {
		t.Errorf("alpha: dir %s, hint %s, branch %s", stages[1].Dir, stages[1].Hints[0].ID, stages[1].Branch())
	}
	for _, name := range []string{"02", "2", "alpha", "02-alpha"} {
		if s, err := Find(stages, name); err != nil || s.Slug != "alpha" {
			t.Errorf("Find(%q) = %s, %v", name, s.Slug, err)
		}
	}
	_, err = Find(stages, "03")
	if err == nil || !strings.Contains(err.Error(), "01 zeta, 02 alpha") {
		t.Errorf("Find(03): %v, want both forms of every stage named", err)
	}
}

// A folder the list lacks, or a line without its folder, is an error that
// says what to do.
func TestTheListAndTheFoldersAgree(t *testing.T) {
	for _, c := range []struct {
		name, list string
		folders    []string
		want       string
	}{
		{"a folder not listed", "- one\n", []string{"one", "two"}, "exercises/two has a stage.yaml, but exercises/stages.yaml does not list it: add the line - two"},
		{"a line without a folder", "- one\n- two\n", []string{"one"}, "exercises/stages.yaml lists two, but exercises/two/stage.yaml is not there"},
		{"a line twice", "- one\n- one\n", []string{"one"}, "lists one twice"},
		{"a number for a name", "- 06-one\n", []string{"06-one"}, "a stage's name is lower-case words joined by hyphens, starting with a letter"},
		{"no list", "", nil, "lists no stage"},
	} {
		_, err := Load(lab(t, c.list, c.folders...))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// What was stored with the numbers of before (progress files, boards,
// branches) names the same stages by slug, whatever place they have now.
func TestTheLegacyNumbersNameTheirStages(t *testing.T) {
	for in, want := range map[string]string{"06": "scheduling", "06.7": "scheduling.7", "17": "multiversion", "scheduling.7": "scheduling.7", "18": "18", "": ""} {
		if got := FromLegacy(in); got != want {
			t.Errorf("FromLegacy(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{"lab/06": "lab/scheduling", "lab/04-saved-20261123-101010": "lab/reconcile-loop-saved-20261123-101010", "lab/scheduling": "", "main": "", "lab/99": ""} {
		got, ok := LegacyBranch(in)
		if got != want || ok != (want != "") {
			t.Errorf("LegacyBranch(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	stages, err := Load(filepath.Join("..", "..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if s, ok := FromBranch(stages, "lab/reconcile-loop-saved-20261123-101010"); !ok || s.Slug != "reconcile-loop" {
		t.Errorf("FromBranch of a saved branch: %s, %v", s.Slug, ok)
	}
	if _, ok := FromBranch(stages, "lab/06"); ok {
		t.Error("FromBranch took a legacy branch, which RenameLegacyBranches renames first")
	}
}
