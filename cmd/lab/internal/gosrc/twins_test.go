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

package gosrc

import (
	"os"
	"path/filepath"
	"testing"
)

func TestTheEnglishOfAChineseFailureIsFoundInTheTests(t *testing.T) {
	dir := t.TempDir()
	src := `package p

func TestX(t *testing.T) {
	t.Error(say.Both("%s: createJob must return that error", "%s：createJob 必须返回这个错误", name))
	Expect(x).To(BeEmpty(), say.Both("status.active after "+"observeJobs",
		"observeJobs 之后的 "+"status.active"))
	Expect(y).To(Equal(1), say.Both("100%% of %[1]d runs", "%[1]d 次运行的 100%%", n))
	t.Error(notSay.Both("never", "从不"))
	Expect(ConsistOf("a", "b"), len(x)) // a call of a plain function, with two arguments
	t.Error(w.say.Both("never", "从不"))
}
`
	if err := os.WriteFile(filepath.Join(dir, "x_test.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	twins := Twins(dir)
	if len(twins) != 3 {
		t.Fatalf("found %d twins, want the 3 of say.Both: %q", len(twins), twins)
	}
	for _, tc := range []struct{ msg, want string }{
		{"refused：createJob 必须返回这个错误\nExpected\n    <error>: ...", "%s: createJob must return that error"},
		{"observeJobs 之后的 status.active\nExpected\n    <[]string | len:1>", "status.active after observeJobs"},
		{"3 次运行的 100%", "100%% of %[1]d runs"},
		{"status.active 之后的 observeJobs", ""},
		{"something else entirely", ""},
	} {
		if got := English(tc.msg, twins); got != tc.want {
			t.Errorf("English(%q) = %q, want %q", tc.msg, got, tc.want)
		}
	}
}

// TestEnglishAloneFindsASentenceWhoseChineseStayed: the English of a
// sentence rewritten while its Chinese stayed as it was is found; a pair
// rewritten together, a Chinese mended alone, and a new pair are not.
func TestEnglishAloneFindsASentenceWhoseChineseStayed(t *testing.T) {
	was := []Twin{{"a run waits", "运行要等"}, {"b", "乙"}, {"c", "丙"}}
	now := []Twin{
		{"a run waits under Forbid", "运行要等"}, // the English alone
		{"b, said better", "乙，说得更好"},         // both
		{"c", "丙，改好了"},                       // the Chinese alone
		{"d", "丁"},                           // new
	}
	got := EnglishAlone(was, now)
	if len(got) != 1 || got[0].En != "a run waits under Forbid" {
		t.Errorf("EnglishAlone: %q", got)
	}
}
