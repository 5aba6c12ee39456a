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

package i18n

import (
	"strings"
	"testing"
)

func TestHintsAreWrappedButTheirCodeIsNot(t *testing.T) {
	got := Wrap("Due walks the schedule from the last run to now, one time after the other:\n\tfor t := sched.Next(last); !t.After(now); t = sched.Next(t) {", 40)
	want := "Due walks the schedule from the last run\nto now, one time after the other:\n\tfor t := sched.Next(last); !t.After(now); t = sched.Next(t) {"
	if got != want {
		t.Errorf("wrap:\n%s\nwant\n%s", got, want)
	}
}

func TestWrapBreaksChineseBetweenCharacters(t *testing.T) {
	text := "每次保存本阶段的文件时重新检查，结果显示在同一屏上，并且带有进度条；按回车键可以手动重新检查。"
	got := Wrap(text, 20)
	lines := strings.Split(got, "\n")
	if len(lines) < 5 {
		t.Fatalf("one long line was not broken:\n%s", got)
	}
	for _, line := range lines {
		if Width(line) > 22 { // a closing mark may end a full line
			t.Errorf("line %q is %d columns wide, want at most 20 (+2 for a closing mark)", line, Width(line))
		}
		if strings.HasPrefix(line, "，") || strings.HasPrefix(line, "。") || strings.HasPrefix(line, "；") {
			t.Errorf("line %q starts with punctuation", line)
		}
	}
	if got := Wrap("先写 JobName；然后是 buildJob（SetControllerReference）", 26); !strings.Contains(got, "\n（") {
		t.Errorf("an opening parenthesis ends a line:\n%s", got)
	}
	if strings.Join(lines, "") != text {
		t.Errorf("wrapping changed the text:\n%s", got)
	}
	if got := Wrap("use `bin/lab check` 检查你的代码", 200); got != "use `bin/lab check` 检查你的代码" {
		t.Errorf("spaces between English words and Chinese were lost: %q", got)
	}
}
