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

package progress

// The progress file remembers the last check of every stage in this clone,
// so that `lab list` answers at once instead of running every stage's tests.
// It lives in bin/lab-state/ (ignored by git, so switching lab/ branches
// keeps it) and is written whole, through a temporary file, so a check that
// is interrupted never leaves half a file.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"cronlab.dev/cronlab/cmd/lab/internal/base"
	"cronlab.dev/cronlab/cmd/lab/internal/gotest"
	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
	"cronlab.dev/cronlab/cmd/lab/internal/stage"
)

// Progress is the file's content. Its fields are only ever added, so that a
// newer lab tool reads the file an older one wrote (after `git pull` and
// `make lab`, say); Version says which version of the file wrote it last.
type Progress struct {
	Version int                    `json:"version"`
	Stages  map[string]StageResult `json:"stages"`
}

// FileVersion is the version of the file this tool writes: 1 before
// hints, 2 with them, 3 since stages and hints are keyed by the stage's
// slug ("scheduling", "scheduling.2") instead of its number ("06", "06.2").
const FileVersion = 3

type StageResult struct {
	Passed bool      `json:"passed"`
	Specs  int       `json:"specs"` // tests or specs that ran
	Failed int       `json:"failed"`
	Why    string    `json:"why,omitempty"` // the failure in a line
	At     time.Time `json:"at"`
	Branch string    `json:"branch,omitempty"`
	// Failing are the hints tied to the last check's failures; HintsShown
	// the hints `lab hint` showed, which a new check keeps.
	Failing    []string `json:"failing,omitempty"`
	HintsShown []string `json:"hintsShown,omitempty"`
	// Started is when bin/lab start last began the stage in this clone: the
	// class board counts time on a stage from it.
	Started time.Time `json:"started,omitzero"`
}

func Path(root string) string { return filepath.Join(base.StateDir(root), "progress.json") }

// Read reads the progress file; a missing or unreadable one is an
// empty progress, never an error: it only remembers.
func Read(root string) *Progress {
	p := &Progress{Stages: map[string]StageResult{}}
	if raw, err := os.ReadFile(Path(root)); err == nil {
		_ = json.Unmarshal(raw, p)
	}
	if p.Stages == nil {
		p.Stages = map[string]StageResult{}
	}
	p.fromLegacy()
	return p
}

// fromLegacy renames what a file of version 2 or older keyed by a stage's
// number to its slug, by the fixed table of those numbers (stage.Legacy),
// so that the stages passed and the hints seen before the stages had names
// are still theirs, whatever place the stages have now. It is done on every
// read (a slug is never two digits, so it does nothing twice); the next
// write keeps it.
func (p *Progress) fromLegacy() {
	for key, r := range p.Stages {
		slug := stage.FromLegacy(key)
		if slug == key {
			continue
		}
		for i, id := range r.Failing {
			r.Failing[i] = stage.FromLegacy(id)
		}
		for i, id := range r.HintsShown {
			r.HintsShown[i] = stage.FromLegacy(id)
		}
		if b, ok := stage.LegacyBranch(r.Branch); ok {
			r.Branch = b
		}
		delete(p.Stages, key)
		if _, kept := p.Stages[slug]; !kept {
			p.Stages[slug] = r
		}
	}
}

func (p *Progress) Record(s stage.Stage, rs []gotest.Results, err error, failing []string) {
	r := StageResult{Passed: err == nil, At: time.Now().UTC()}
	for _, one := range rs {
		passed, counted := one.Counts() // as the check, --json and the class board count
		r.Specs += counted
		r.Failed += counted - passed
	}
	if err != nil {
		r.Why = err.Error()
	}
	if branch, berr := base.Output("", "git", "branch", "--show-current"); berr == nil {
		r.Branch = strings.TrimSpace(branch)
	}
	r.Failing = failing
	r.HintsShown = p.Stages[s.Slug].HintsShown
	r.Started = p.Stages[s.Slug].Started
	p.Stages[s.Slug] = r
}

// MarkStarted records that bin/lab start began the stage of that slug now. A stage
// started twice is timed from the first start: the time spent before the
// second counts as time on it.
func MarkStarted(root, slug string) error {
	p := Read(root)
	r := p.Stages[slug]
	if !r.Started.IsZero() {
		return nil
	}
	r.Started = time.Now().UTC()
	p.Stages[slug] = r
	return p.Save(root)
}

func (p *Progress) Save(root string) error {
	if err := os.MkdirAll(base.StateDir(root), 0o755); err != nil {
		return err
	}
	p.Version = FileVersion
	raw, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	return base.WriteFileAtomic(Path(root), raw)
}

// Describe is the stage's line in `lab list`.
func (r StageResult) Describe(l i18n.Lang) string {
	switch {
	case r.At.IsZero():
		return l.Tr("not checked yet", "尚未检查")
	case r.Passed:
		return fmt.Sprintf(l.Tr("pass (%d / %d, %s)", "通过（%d / %d，%s）"), r.Specs-r.Failed, r.Specs, ago(l, r.At))
	default:
		return fmt.Sprintf(l.Tr("FAIL (%d / %d, %s)", "失败（%d / %d，%s）"), r.Specs-r.Failed, r.Specs, ago(l, r.At))
	}
}

func ago(l i18n.Lang, t time.Time) string {
	d := time.Since(t)
	switch {
	case d < time.Minute:
		return l.Tr("just now", "刚刚")
	case d < time.Hour:
		return fmt.Sprintf(l.Tr("%d min ago", "%d 分钟前"), int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf(l.Tr("%d h ago", "%d 小时前"), int(d.Hours()))
	default:
		return t.Local().Format(l.Tr("Jan 2", "1月2日"))
	}
}

// CmdStatus shows where the attendee stands in the whole workshop: every
// stage passed, in progress (checked, not passing yet, or the current lab/
// branch) or not started, with its last check and the hints shown.
func CmdStatus(l i18n.Lang, root string, stages []stage.Stage) error {
	p := Read(root)
	branch, _ := base.Output(root, "git", "branch", "--show-current")
	current := CurrentStage(stages, branch)
	passed, given := 0, false
	for _, s := range stages {
		r := p.Stages[s.Slug]
		state := l.Tr("not started", "未开始")
		switch {
		case r.Passed:
			state, passed = l.Tr("passed", "已通过"), passed+1
		case !r.At.IsZero() || s.Num == current:
			state = l.Tr("in progress", "进行中")
		case current != "" && s.Num < current:
			// On a stage's lab branch the stages before it are solved by the starter.
			state, given = l.Tr("given", "已给出"), true
		}
		last := ""
		if !r.At.IsZero() {
			last = fmt.Sprintf(l.Tr("checked %s", "%s检查过"), ago(l, r.At))
		}
		hints := ""
		if n := len(r.HintsShown); n == 1 {
			hints = l.Tr("1 hint shown", "看过 1 条提示")
		} else if n > 1 {
			hints = fmt.Sprintf(l.Tr("%d hints shown", "看过 %d 条提示"), n)
		}
		mark := "  "
		if s.Num == current {
			mark = "> "
		}
		fmt.Printf("%s%s  %-22s %s %s %s\n", mark, s.Num, s.Slug, i18n.PadRight(state, 12), i18n.PadRight(last, 18), hints)
	}
	fmt.Printf(l.Tr("\n%s %d of %d stages passed\n", "\n%s 已通过 %d / %d 个阶段\n"), Bar(passed, len(stages), 16), passed, len(stages))
	if given {
		fmt.Printf(l.Tr("given: not checked here, and solved in the starter of %s (the reference's code, or yours if bin/lab start carried it)\n",
			"已给出：这里没有检查，%s 的起始代码中已写好（参考实现的代码，或者 bin/lab start 带入的你自己的代码）\n"), strings.TrimSpace(branch))
	}
	return nil
}

// CurrentStage is the number of the stage whose lab branch this is ("06" on
// lab/scheduling, or on lab/scheduling-saved-...), or "" off the lab
// branches.
func CurrentStage(stages []stage.Stage, branch string) string {
	s, ok := stage.FromBranch(stages, branch)
	if !ok {
		return ""
	}
	return s.Num
}

// Bar draws done of all as [#####-----], width characters inside.
func Bar(done, all, width int) string {
	if all == 0 {
		return "[" + strings.Repeat("-", width) + "]"
	}
	n := done * width / all
	if done > 0 && n == 0 {
		n = 1 // something passed: the bar shows it
	}
	return "[" + strings.Repeat("#", n) + strings.Repeat("-", width-n) + "]"
}
