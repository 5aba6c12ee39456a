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

package perturb

import (
	"fmt"
	"regexp"

	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
)

// An end state is written by test/perturb (its endState) in English, one
// fact a line, and compared as text with the reference's
// (testdata/KIND.golden). stateLine says one of its lines in the run's
// language: the API's names and values (lastSuccessfulTime, Ready, True,
// Complete, the times) stay as they are, the words around them do not.
var stateLines = []struct {
	form *regexp.Regexp
	say  func(l i18n.Lang, m []string) string
}{
	{regexp.MustCompile(`^jobs:$`), func(l i18n.Lang, _ []string) string { return l.Tr("jobs:", "Job：") }},
	{regexp.MustCompile(`^status:$`), func(l i18n.Lang, _ []string) string { return l.Tr("status:", "状态：") }},
	{regexp.MustCompile(`^Jobs created:$`), func(l i18n.Lang, _ []string) string { return l.Tr("Jobs created:", "创建过的 Job：") }},
	{regexp.MustCompile(`^reconciles that returned an error: (\d+)$`), func(l i18n.Lang, m []string) string {
		return fmt.Sprintf(l.Tr("reconciles that returned an error: %s", "返回错误的调和：%s 次"), m[1])
	}},
	{regexp.MustCompile(`^  the (.+) run: running$`), func(l i18n.Lang, m []string) string {
		return fmt.Sprintf(l.Tr("  the %s run: running", "  %s 的运行：仍在运行"), runName(l, m[1]))
	}},
	{regexp.MustCompile(`^  the (.+) run: (\d+)$`), func(l i18n.Lang, m []string) string {
		return fmt.Sprintf(l.Tr("  the %s run: %s", "  %s 的运行：%s 个"), runName(l, m[1]), m[2])
	}},
	{regexp.MustCompile(`^  the (.+) run: (\w+)$`), func(l i18n.Lang, m []string) string {
		return fmt.Sprintf(l.Tr("  the %s run: %s", "  %s 的运行：已结束（%s）"), runName(l, m[1]), m[2])
	}},
	{regexp.MustCompile(`^  active: (\d+) Job\(s\)$`), func(l i18n.Lang, m []string) string {
		return fmt.Sprintf(l.Tr("  active: %s Job(s)", "  active：%s 个 Job"), m[1])
	}},
	{regexp.MustCompile(`^  (\w+): none$`), func(l i18n.Lang, m []string) string {
		return fmt.Sprintf(l.Tr("  %s: none", "  %s：无"), m[1])
	}},
	{regexp.MustCompile(`^  (\w+): (\w+) \((\w+)\)$`), func(l i18n.Lang, m []string) string {
		return fmt.Sprintf(l.Tr("  %s: %s (%s)", "  %s：%s（%s）"), m[1], m[2], m[3])
	}},
	{regexp.MustCompile(`^  (\w+): (\S+)$`), func(l i18n.Lang, m []string) string {
		return fmt.Sprintf(l.Tr("  %s: %s", "  %s：%s"), m[1], m[2])
	}},
}

// stateLine is a line of an end state in l; a line of no known form is
// left as it is.
func stateLine(l i18n.Lang, line string) string {
	for _, s := range stateLines {
		if m := s.form.FindStringSubmatch(line); m != nil {
			return s.say(l, m)
		}
	}
	return line
}

// runName is a run's scheduled time, or that a Job had none.
func runName(l i18n.Lang, run string) string {
	if run == "(no scheduled time)" {
		return l.Tr("(no scheduled time)", "（没有计划时间的 Job）")
	}
	return run
}
