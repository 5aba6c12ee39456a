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

package hints

// Hints, from each stage's stage.yaml, in two kinds. General hints come in
// levels, in order: a nudge, where to look (the API, the docs), a small
// snippet; `lab hint` shows the next level each time it is asked, and `lab
// status` counts how many were shown (never as a grade). A hint with `when`
// is tied to a failure: it comes first when a failing test's or spec's name
// or message contains that text (for a Chinese attendee, the English twin of
// the message: gotest.Failure.Said), so that the failure is explained in the
// operator's terms. Every hint has an id, "scheduling.2" (the stage's slug,
// the position), which `lab check --json` names.

import (
	"fmt"
	"slices"
	"strings"

	"cronlab.dev/cronlab/cmd/lab/internal/functions"
	"cronlab.dev/cronlab/cmd/lab/internal/gotest"
	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
	"cronlab.dev/cronlab/cmd/lab/internal/progress"
	"cronlab.dev/cronlab/cmd/lab/internal/regions"
	"cronlab.dev/cronlab/cmd/lab/internal/stage"
)

// For is the hint for a failure: the first tied to it, else the first
// level.
func For(s stage.Stage, f gotest.Failure) stage.Hint {
	for _, h := range s.Hints {
		if h.When != "" && (strings.Contains(f.Name, h.When) || strings.Contains(f.Message, h.When) ||
			strings.Contains(f.Said, h.When) || strings.Contains(f.Panic, h.When)) {
			return h
		}
	}
	if levels := s.Levels(); len(levels) > 0 {
		return levels[0]
	}
	return stage.Hint{}
}

// Tied are the ids of the hints tied to the failures that the check blames
// (blamed), in the order of stage.yaml: what `lab hint` shows first, and
// what the board flags. A failure that blamed leaves out gets no hint here,
// as it gets none from ForCheck.
func Tied(s stage.Stage, rs []gotest.Results) []string {
	var ids []string
	blame := blamed(s, rs)
	for _, h := range s.Hints {
		if h.When == "" {
			continue
		}
	match:
		for _, r := range rs {
			for _, f := range r.Failures {
				if blame(f) && For(s, f).ID == h.ID {
					ids = append(ids, h.ID)
					break match
				}
			}
		}
	}
	return ids
}

// blamed says which failures are the attendee's to explain by a hint. Not
// a failure that only ran into the starter's stubs (its spec is checked by
// no function written yet, or it carries a stub's TODO): it says that
// something is not written, which the check already says. And when some
// functions fail that others wait for (package functions), only the
// failures of those functions' specs, because the callers' failures may be
// theirs, and a hint tied to one of those would send the attendee to code
// that is right.
func blamed(s stage.Stage, rs []gotest.Results) func(gotest.Failure) bool {
	var waited []stage.Function
	written := map[string]bool{}
	for _, fr := range functions.Verdicts(s, ".", rs) {
		written[fr.Name] = !fr.Stub
		if fr.Status != "waiting" {
			continue
		}
		for _, w := range fr.WaitingFor {
			for _, f := range s.Functions {
				if f.Name == w && !slices.ContainsFunc(waited, func(g stage.Function) bool { return g.Name == w }) {
					waited = append(waited, f)
				}
			}
		}
	}
	marker := regions.TodoMarker(s.Slug)
	return func(fail gotest.Failure) bool {
		if strings.Contains(fail.Message+fail.Panic, marker) {
			return false
		}
		checked, byWritten := false, false
		for _, f := range s.Functions {
			if f.Checks(fail.Name) {
				checked, byWritten = true, byWritten || written[f.Name]
			}
		}
		if checked && !byWritten {
			return false
		}
		if len(waited) == 0 {
			return true
		}
		return slices.ContainsFunc(waited, func(f stage.Function) bool { return f.Checks(fail.Name) })
	}
}

// NextHint is what `lab hint` shows: a hint tied to the last check's
// failures that was not shown yet, else the next level; ok is false when
// every hint was shown.
func NextHint(s stage.Stage, last progress.StageResult) (h stage.Hint, ok bool) {
	shown := map[string]bool{}
	for _, id := range last.HintsShown {
		shown[id] = true
	}
	for _, id := range last.Failing {
		for _, c := range s.Hints {
			if c.ID == id && !shown[id] {
				return c, true
			}
		}
	}
	for _, c := range s.Levels() {
		if !shown[c.ID] {
			return c, true
		}
	}
	return stage.Hint{}, false
}

// CmdHint shows the next hint of stage s and remembers that it was shown.
func CmdHint(l i18n.Lang, root string, s stage.Stage) error {
	p := progress.Read(root)
	r := p.Stages[s.Slug]
	h, ok := NextHint(s, r)
	if !ok {
		general := len(s.Levels())
		fmt.Printf(l.Tr("Stage %s: you have seen every hint: the %d levels, and %d for failures of your checks. Read %s, or ask the instructor.\n",
			"第 %s 阶段：所有提示你都看过了：%d 级通用提示，以及 %d 条针对你检查失败的提示。请读 %s，或者问讲师。\n"),
			s.Num, general, len(r.HintsShown)-shownLevels(s, r), s.ReadmeIn(l, root))
		// The failure of the last check is still there: its hint again.
		for _, id := range r.Failing {
			for _, again := range s.Hints {
				if again.ID == id {
					fmt.Printf(l.Tr("\nThe hint for the failure of your last check, again (%s):\n\n%s\n", "\n针对你上次检查失败的提示，再看一遍（%s）：\n\n%s\n"),
						again.ID, i18n.Indent(i18n.Wrap(again.Text(l), 96), "  "))
					return nil
				}
			}
		}
		return nil
	}
	level := ""
	for i, lv := range s.Levels() {
		if lv.ID == h.ID {
			level = fmt.Sprintf(l.Tr(" (level %d of %d)", "（第 %d 级，共 %d 级）"), i+1, len(s.Levels()))
		}
	}
	if h.When != "" {
		level = l.Tr(" (for the failure of your last check)", "（针对你上次检查的失败）")
	}
	fmt.Printf(l.Tr("Stage %s, hint %s%s:\n\n%s\n", "第 %s 阶段，提示 %s%s：\n\n%s\n"), s.Num, h.ID, level, i18n.Indent(i18n.Wrap(h.Text(l), 96), "  "))
	r.HintsShown = append(r.HintsShown, h.ID)
	p.Stages[s.Slug] = r
	if _, ok := NextHint(s, r); ok {
		fmt.Printf(l.Tr("\nAnother hint: %s (in bin/lab watch: h and Enter)\n", "\n下一条提示：%s（在 bin/lab watch 中：按 h 再按回车）\n"), l.Cmd("bin/lab hint "+s.Num))
	}
	return p.Save(root)
}

// shownLevels is how many of the stage's general hints r has seen.
func shownLevels(s stage.Stage, r progress.StageResult) int {
	n := 0
	for _, l := range s.Levels() {
		if slices.Contains(r.HintsShown, l.ID) {
			n++
		}
	}
	return n
}

// ForCheck is the hint that a failed check prints: the first tied to
// one of its failures (a failure explained in the operator's terms beats a
// general nudge), else the stage's first level.
func ForCheck(l i18n.Lang, s stage.Stage, rs []gotest.Results) stage.Hint {
	// The functions that others wait for (package functions) come first: the
	// failures of their callers may be theirs, and a hint tied to one of
	// those would send the attendee to code that is right. A function that
	// does not compile is named; one that fails its own specs gets the hint
	// of its own failure, else one that names it.
	var waited, waiting []string
	through := ""
	// Who waits for each one, and how: a caller, or a function whose specs
	// go through it (stage 06's nextRunMessage through startDueRun, which
	// calls it, not the other way round).
	byCall, bySpecs := map[string][]string{}, map[string][]string{}
	for _, fr := range functions.Verdicts(s, ".", rs) {
		if fr.Status == "waiting" {
			waiting = append(waiting, fr.Name)
			if through == "" {
				through = fr.Through
			}
			for _, w := range fr.WaitingFor {
				if !slices.Contains(waited, w) {
					waited = append(waited, w)
				}
				if fr.Through == "specs" {
					bySpecs[w] = append(bySpecs[w], fr.Name)
				} else {
					byCall[w] = append(byCall[w], fr.Name)
				}
			}
		}
	}
	for _, r := range rs {
		for _, c := range r.Stubbed {
			if slices.Contains(waited, c.Function) {
				return stubbedHint(l, c, byCall[c.Function], bySpecs[c.Function])
			}
		}
	}
	blame := blamed(s, rs)
	for _, name := range waited {
		for _, f := range s.Functions {
			if f.Name != name {
				continue
			}
			for _, r := range rs {
				for _, fail := range r.Failures {
					if h := For(s, fail); h.When != "" && f.Checks(fail.Name) && blame(fail) {
						return h
					}
				}
			}
		}
	}
	// English agrees in number; Chinese needs no such care.
	fails, it, its := "fails its own specs", "it", "its"
	if len(waited) > 1 {
		fails, it, its = "fail their own specs", "them", "theirs"
	}
	calls := "calls"
	if len(waiting) > 1 {
		calls = "call"
	}
	if len(waited) > 0 && through == "stub" {
		return stage.Hint{
			En: fmt.Sprintf("%s: not written yet, still the starter's stub. Write %s first: the failing specs of %s ran into %s, so their failures say nothing of them yet.",
				functions.JoinNames(l, waited), it, functions.JoinNames(l, waiting), it),
			Zh: fmt.Sprintf("%s 还没有编写，仍是起始代码里的桩。先写它：%s 没有通过的测试用例碰到了它，所以那些失败还说明不了它们自己的问题。",
				functions.JoinNames(l, waited), functions.JoinNames(l, waiting))}
	}
	if len(waited) > 0 && through == "specs" {
		return stage.Hint{
			En: fmt.Sprintf("%s %s: fix %s first. The specs of %s that fail go through %s, so their failures may be %s.",
				functions.JoinNames(l, waited), fails, it, functions.JoinNames(l, waiting), it, its),
			Zh: fmt.Sprintf("%s 自己的测试用例没有通过：先修好%s。%s 没有通过的测试用例要经过%s，所以那些失败可能源自%s。",
				functions.JoinNames(l, waited), zhIt(waited), functions.JoinNames(l, waiting), zhIt(waited), zhIt(waited))}
	}
	if len(waited) > 0 {
		return stage.Hint{
			En: fmt.Sprintf("%s %s: fix %s first. %s %s %s, so those failures may be %s.",
				functions.JoinNames(l, waited), fails, it, functions.JoinNames(l, waiting), calls, it, its),
			Zh: fmt.Sprintf("%s 自己的测试用例没有通过：先修好%s。%s 调用了%s，所以那些失败可能源自%s。",
				functions.JoinNames(l, waited), zhIt(waited), functions.JoinNames(l, waiting), zhIt(waited), zhIt(waited))}
	}
	for _, r := range rs {
		for _, f := range r.Failures {
			if h := For(s, f); h.When != "" && blame(f) {
				return h
			}
		}
	}
	if levels := s.Levels(); len(levels) > 0 {
		return levels[0]
	}
	return stage.Hint{}
}

// stubbedHint sends the attendee to a function that does not compile,
// saying how the functions that wait for it met its stub: they call it, or
// their failing specs go through it.
func stubbedHint(l i18n.Lang, c gotest.CompileError, callers, checkedThrough []string) stage.Hint {
	if len(callers) == 0 && len(checkedThrough) > 0 {
		return stage.Hint{
			En: fmt.Sprintf("%s does not compile (%s:%d). Fix that first: the failing specs of %s go through it, and ran with its stub, so those failures may not be %s's own.",
				c.Function, c.File, c.Line, functions.JoinNames(l, checkedThrough), functions.JoinNames(l, checkedThrough)),
			Zh: fmt.Sprintf("%s 无法编译（%s:%d）。先修好它：%s 没有通过的测试用例要经过它，检查时用的是它的桩，所以那些失败未必是 %s 自己的问题。",
				c.Function, c.File, c.Line, functions.JoinNames(l, checkedThrough), functions.JoinNames(l, checkedThrough))}
	}
	return stage.Hint{
		En: fmt.Sprintf("%s does not compile (%s:%d). Fix that first: the functions that call it ran with its stub, so their failures may not be theirs.",
			c.Function, c.File, c.Line),
		Zh: fmt.Sprintf("%s 无法编译（%s:%d）。先修好它：调用它的函数在检查时用的是它的桩，它们的失败未必是它们自己的问题。",
			c.Function, c.File, c.Line)}
}

// zhIt is the Chinese pronoun for the functions that others wait for: 它
// for one, 它们 for more (the English of those messages agrees in number
// through it and them).
func zhIt(waited []string) string {
	if len(waited) > 1 {
		return "它们"
	}
	return "它"
}
