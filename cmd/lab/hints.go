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

// Hints, from each stage's stage.yaml, in two kinds. General hints come in
// levels, in order: a nudge, where to look (the API, the docs), a small
// snippet; `lab hint` shows the next level each time it is asked, and `lab
// status` counts how many were shown (never as a grade). A hint with `when`
// is tied to a failure: it comes first when a failing test's or spec's name
// or message contains that text, so that the failure is explained in the
// operator's terms. Every hint has an id, "06.2" (stage, position), which
// `lab check --json` names.

import (
	"fmt"
	"slices"
	"strings"
)

type hint struct {
	// When ties the hint to failures whose name or message contains it.
	When string `json:"when,omitempty"`
	En   string `json:"en"`
	// Zh is the Chinese text, which the Chinese edition adds (issue 18).
	Zh string `json:"zh,omitempty"`
	ID string `json:"-"` // set by loadStages
}

func (h hint) text() string {
	if lang == "zh" && strings.TrimSpace(h.Zh) != "" {
		return strings.TrimSpace(h.Zh)
	}
	return strings.TrimSpace(h.En)
}

// levels are the general hints, in order.
func (s stage) levels() []hint {
	var out []hint
	for _, h := range s.Hints {
		if h.When == "" {
			out = append(out, h)
		}
	}
	return out
}

// hintFor is the hint for a failure: the first tied to it, else the first
// level.
func (s stage) hintFor(f failure) hint {
	for _, h := range s.Hints {
		if h.When != "" && (strings.Contains(f.Name, h.When) || strings.Contains(f.Message, h.When) || strings.Contains(f.Panic, h.When)) {
			return h
		}
	}
	if levels := s.levels(); len(levels) > 0 {
		return levels[0]
	}
	return hint{}
}

// tiedHints are the ids of the hints tied to any of the failures, in the
// order of stage.yaml.
func (s stage) tiedHints(rs []results) []string {
	var ids []string
	for _, h := range s.Hints {
		if h.When == "" {
			continue
		}
	match:
		for _, r := range rs {
			for _, f := range r.Failures {
				if s.hintFor(f).ID == h.ID {
					ids = append(ids, h.ID)
					break match
				}
			}
		}
	}
	return ids
}

// nextHint is what `lab hint` shows: a hint tied to the last check's
// failures that was not shown yet, else the next level; ok is false when
// every hint was shown.
func (s stage) nextHint(last stageResult) (h hint, ok bool) {
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
	for _, c := range s.levels() {
		if !shown[c.ID] {
			return c, true
		}
	}
	return hint{}, false
}

// cmdHint shows the next hint of stage s and remembers that it was shown.
func cmdHint(root string, s stage) error {
	p := loadProgress(root)
	r := p.Stages[s.ID]
	h, ok := s.nextHint(r)
	if !ok {
		general := len(s.levels())
		fmt.Printf(tr("Stage %s: you have seen every hint: the %d levels, and %d for failures of your checks. Read %s, or ask the instructor.\n",
			"第 %s 阶段：所有提示你都看过了：%d 级通用提示，以及 %d 条针对你检查失败的提示。请读 %s，或者问讲师。\n"),
			s.ID, general, len(r.HintsShown)-shownLevels(s, r), s.readmeFor(root))
		// The failure of the last check is still there: its hint again.
		for _, id := range r.Failing {
			for _, again := range s.Hints {
				if again.ID == id {
					fmt.Printf(tr("\nThe hint for the failure of your last check, again (%s):\n\n%s\n", "\n针对你上次检查失败的提示，再看一遍（%s）：\n\n%s\n"),
						again.ID, indentLines(wrap(again.text(), 96), "  "))
					return nil
				}
			}
		}
		return nil
	}
	level := ""
	for i, l := range s.levels() {
		if l.ID == h.ID {
			level = fmt.Sprintf(tr(" (level %d of %d)", "（第 %d 级，共 %d 级）"), i+1, len(s.levels()))
		}
	}
	if h.When != "" {
		level = tr(" (for the failure of your last check)", "（针对你上次检查的失败）")
	}
	fmt.Printf(tr("Stage %s, hint %s%s:\n\n%s\n", "第 %s 阶段，提示 %s%s：\n\n%s\n"), s.ID, h.ID, level, indentLines(wrap(h.text(), 96), "  "))
	r.HintsShown = append(r.HintsShown, h.ID)
	p.Stages[s.ID] = r
	if _, ok := s.nextHint(r); ok {
		fmt.Printf(tr("\nAnother hint: bin/lab hint %s (in bin/lab watch: h and Enter)\n", "\n下一条提示：bin/lab hint %s（在 bin/lab watch 中：按 h 再按回车）\n"), s.ID)
	}
	return p.save(root)
}

// shownLevels is how many of the stage's general hints r has seen.
func shownLevels(s stage, r stageResult) int {
	n := 0
	for _, l := range s.levels() {
		if slices.Contains(r.HintsShown, l.ID) {
			n++
		}
	}
	return n
}

// checkHints checks the hints of a stage when it is loaded: some text, and
// at least one general level.
func checkHints(s stage) error {
	if len(s.levels()) == 0 {
		return fmt.Errorf("%s/stage.yaml: hints: no general hint (one without when)", s.Dir)
	}
	for _, h := range s.Hints {
		if strings.TrimSpace(h.En) == "" {
			return fmt.Errorf("%s/stage.yaml: hint %s has no text (en)", s.Dir, h.ID)
		}
	}
	return nil
}

// wrap breaks text into lines of at most width characters at spaces. Line
// breaks in the text are kept, and indented lines (a snippet's code) are
// left as they are.
func wrap(text string, width int) string {
	var out []string
	for _, para := range strings.Split(text, "\n") {
		if strings.HasPrefix(para, " ") || strings.HasPrefix(para, "\t") {
			out = append(out, para) // code in a snippet: as written
			continue
		}
		line := ""
		for _, t := range wrapTokens(para) {
			sep := ""
			if t.space && line != "" {
				sep = " "
			}
			// Chinese closing punctuation stays at the end of its line.
			if line != "" && displayWidth(line+sep+t.text) > width && !strings.ContainsAny(t.text, "，。；：、）！？」") {
				// ... and opening punctuation at the start of the next.
				carry := ""
				if r := []rune(line); strings.ContainsRune("（「“", r[len(r)-1]) {
					line, carry = string(r[:len(r)-1]), string(r[len(r)-1])
				}
				out = append(out, line)
				line, sep = carry, ""
			}
			line += sep + t.text
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// A wrapToken is a word, or one Chinese character: Chinese text has no
// spaces, and a line may break between any two of its characters.
type wrapToken struct {
	text  string
	space bool // a space comes before it
}

func wrapTokens(para string) []wrapToken {
	var tokens []wrapToken
	for _, field := range strings.Fields(para) {
		space := true
		word := ""
		for _, r := range field {
			if displayWidth(string(r)) == 2 {
				if word != "" {
					tokens = append(tokens, wrapToken{word, space})
					word, space = "", false
				}
				tokens = append(tokens, wrapToken{string(r), space})
				space = false
				continue
			}
			word += string(r)
		}
		if word != "" {
			tokens = append(tokens, wrapToken{word, space})
		}
	}
	return tokens
}
