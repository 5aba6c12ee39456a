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
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const stageREADME = "# Stage 1\n\nWrite the reconcile loop: it reads the CronJob and starts its Jobs.\n"

// edition makes a checkout with one English stage README, its translation
// stamped as up to date, and the English committed, as in a clone.
func edition(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	write(t, dir, "README.md", "# cronlab\n")
	write(t, dir, "README.zh-CN.md", "# cronlab\n")
	write(t, dir, "exercises/01-x/README.md", stageREADME)
	write(t, dir, "exercises/01-x/README.zh-CN.md", "# 第 1 阶段\n\n编写调和循环。\n")
	write(t, dir, "docs/performance.md", "# Figures\n") // English only
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if err := stampFiles(dir, []string{"README.zh-CN.md", "exercises/01-x/README.zh-CN.md"}); err != nil {
		t.Fatal(err)
	}
	return dir
}

func write(t *testing.T, dir, path, content string) {
	t.Helper()
	full := filepath.Join(dir, filepath.FromSlash(path))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestAnEditionInStepPasses(t *testing.T) {
	dir := edition(t)
	if problems := check(dir); len(problems) != 0 {
		t.Fatalf("problems: %q", problems)
	}
	// The header is git's own name for the English file.
	out, err := exec.Command("git", "-C", dir, "hash-object", "exercises/01-x/README.md").Output()
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(filepath.Join(dir, "exercises/01-x/README.zh-CN.md"))
	if want := headerLine("exercises/01-x/README.md", strings.TrimSpace(string(out))); !strings.HasPrefix(string(raw), want+"\n") {
		t.Errorf("the translation starts %q, want %q", strings.SplitN(string(raw), "\n", 2)[0], want)
	}
}

func TestAOneWordChangeToTheEnglishFailsAndShowsTheWord(t *testing.T) {
	dir := edition(t)
	write(t, dir, "exercises/01-x/README.md", strings.Replace(stageREADME, "starts its Jobs", "creates its Jobs", 1))
	problems := check(dir)
	if len(problems) != 1 {
		t.Fatalf("problems: %q, want one", problems)
	}
	for _, want := range []string{
		"exercises/01-x/README.zh-CN.md is out of date: exercises/01-x/README.md changed",
		"make translation-stamp FILES=exercises/01-x/README.zh-CN.md",
		"[-starts-]{+creates+}",
	} {
		if !strings.Contains(problems[0], want) {
			t.Errorf("the problem lacks %q:\n%s", want, problems[0])
		}
	}
	// Once the translation is brought up to date and stamped, it passes.
	if err := stampFiles(dir, []string{"exercises/01-x/README.zh-CN.md"}); err != nil {
		t.Fatal(err)
	}
	if problems := check(dir); len(problems) != 0 {
		t.Errorf("after the stamp: %q", problems)
	}
}

func TestAWindowsCheckoutIsNoChange(t *testing.T) {
	dir := edition(t)
	write(t, dir, "exercises/01-x/README.md", strings.ReplaceAll(stageREADME, "\n", "\r\n"))
	if problems := check(dir); len(problems) != 0 {
		t.Errorf("CRLF line ends alone: %q", problems)
	}
}

func TestWhatTheCheckRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(t *testing.T, dir string)
		want string
	}{
		{"a new English doc without its twin", func(t *testing.T, dir string) {
			write(t, dir, "docs/new.md", "# New\n")
		}, "docs/new.md has no Chinese twin: write docs/new.zh-CN.md"},
		{"a translation without its header", func(t *testing.T, dir string) {
			write(t, dir, "exercises/01-x/README.zh-CN.md", "# 第 1 阶段\n")
		}, "does not start with the line that says which version"},
		{"a translation whose source is gone", func(t *testing.T, dir string) {
			write(t, dir, "docs/gone.zh-CN.md", headerLine("docs/gone.md", strings.Repeat("0", 40))+"\n# 没了\n")
		}, "docs/gone.zh-CN.md translates docs/gone.md, which does not exist"},
		{"a term the glossary rules out", func(t *testing.T, dir string) {
			write(t, dir, "exercises/01-x/README.zh-CN.md", headerLine("exercises/01-x/README.md", blobHash([]byte(stageREADME)))+"\n# 第 1 阶段\n\n编写调谐循环。`调谐` 在代码里不算。\n")
		}, "exercises/01-x/README.zh-CN.md:4: 调谐: the glossary uses 调和"},
		{"a header that names another source", func(t *testing.T, dir string) {
			write(t, dir, "README.zh-CN.md", headerLine("docs/other.md", strings.Repeat("0", 40))+"\n# cronlab\n")
		}, "says it translates docs/other.md, but its source is README.md"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := edition(t)
			tc.edit(t, dir)
			problems := check(dir)
			if len(problems) != 1 || !strings.Contains(problems[0], tc.want) {
				t.Errorf("problems %q, want one saying %q", problems, tc.want)
			}
		})
	}
}

func TestStampRefusesWhatIsNoTranslation(t *testing.T) {
	dir := edition(t)
	if err := stampFiles(dir, nil); err == nil {
		t.Error("a stamp of nothing must say what to name")
	}
	if err := stampFiles(dir, []string{"README.md"}); err == nil {
		t.Error("README.md is no translation")
	}
}
