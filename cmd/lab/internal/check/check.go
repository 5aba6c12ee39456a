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

package check

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"cronlab.dev/cronlab/cmd/lab/internal/base"
	"cronlab.dev/cronlab/cmd/lab/internal/class"
	"cronlab.dev/cronlab/cmd/lab/internal/functions"
	"cronlab.dev/cronlab/cmd/lab/internal/gotest"
	"cronlab.dev/cronlab/cmd/lab/internal/hints"
	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
	"cronlab.dev/cronlab/cmd/lab/internal/progress"
	"cronlab.dev/cronlab/cmd/lab/internal/report"
	"cronlab.dev/cronlab/cmd/lab/internal/run"
	"cronlab.dev/cronlab/cmd/lab/internal/stage"
)

// CmdList shows every stage with the result of its last check in this
// clone, from the progress file: instant. With all, it checks every stage
// first, which takes minutes.
func CmdList(l i18n.Lang, root string, stages []stage.Stage, all bool) error {
	p := progress.Read(root)
	if all {
		fmt.Println(l.Tr("Checking every stage in this checkout, one after the other (several minutes) ...",
			"正在逐个检查本克隆中的每个阶段（需要几分钟）……"))
		for _, s := range stages {
			rs, err := run.Checks(l, root, ".", s, run.Quiet)
			p.Record(s, rs, err, hints.Tied(s, rs))
			fmt.Printf("  %s  %-22s %s\n", s.Num, s.Slug, p.Stages[s.Slug].Describe(l))
		}
		return p.Save(root)
	}
	branch, _ := base.Output(root, "git", "branch", "--show-current")
	current := progress.CurrentStage(stages, branch)
	for _, s := range stages {
		state := p.Stages[s.Slug].Describe(l)
		if p.Stages[s.Slug].At.IsZero() && current != "" && s.Num < current {
			state = l.Tr("given (in the starter)", "已给出（在起始代码中）") // as bin/lab status says
		}
		fmt.Printf("  %s  %-22s %s %s\n", s.Num, s.Slug, i18n.PadRight(state, 30), s.TitleIn(l))
	}
	fmt.Println(l.Tr("\nThe results are those of each stage's last `bin/lab check` in this clone; `bin/lab list --run` checks them all now.",
		"\n结果是本克隆中每个阶段最近一次 `bin/lab check` 的结果；运行 `bin/lab list --run` 可立即重新检查所有阶段。"))
	return nil
}

func CmdCheck(l i18n.Lang, root string, stages []stage.Stage, s stage.Stage, v run.Verbosity) error {
	fmt.Printf(l.Tr("Checking stage %s: %s\n", "正在检查第 %s 阶段：%s\n"), s.Num, s.TitleIn(l))
	rs, err := run.Checks(l, root, ".", s, v)
	var setup base.SetupError
	if errors.As(err, &setup) {
		return i18n.Errorf("could not run the check of stage %s: %w", "无法运行第 %s 阶段的检查：%w", s.Num, err)
	}
	functions.ShowFunctions(l, s, rs)
	p := progress.Read(root)
	p.Record(s, rs, err, hints.Tied(s, rs))
	if saveErr := p.Save(root); saveErr != nil {
		fmt.Printf(l.Tr("  (could not save the result: %v)\n", "  （无法保存结果：%v）\n"), saveErr)
	}
	if err != nil {
		h := hints.ForCheck(l, s, rs)
		fmt.Printf(l.Tr("\nNot yet. %s\n  hint: %s\n  more: %s, and %s (the next hint, a level at a time)\n",
			"\n还没有通过。%s\n  提示：%s\n  更多：%s，以及 %s（下一条提示，一次一级）\n"),
			err, strings.TrimLeft(i18n.Indent(i18n.Wrap(h.Text(l), 92), "        "), " "), s.ReadmeIn(l, root), l.Cmd("bin/lab hint"))
		// The hint printed here counts as shown: `lab hint` goes on from it.
		if r := p.Stages[s.Slug]; h.ID != "" && !slices.Contains(r.HintsShown, h.ID) {
			r.HintsShown = append(r.HintsShown, h.ID)
			p.Stages[s.Slug] = r
			_ = p.Save(root)
		}
		toBoard(l, root, s, rs, err, p)
		if files := run.TodoFiles(".", "", s.Slug); len(files) > 0 {
			fmt.Printf(l.Tr("  still TODO(lab %s), stubs per file: %s\n", "  仍有 TODO(lab %s)，各文件中的桩数：%s\n"), s.Slug, strings.Join(files, ", "))
		}
		fmt.Println(l.Tr("  run the tests yourself:", "  自己运行这些测试："))
		for _, t := range s.Tests {
			fmt.Printf("    %s\n", t.Command())
		}
		if v != run.FullText {
			fmt.Printf(l.Tr("  all of the tests' output: %s\n", "  测试的全部输出：%s\n"), l.Cmd("bin/lab check -v "+s.Num))
		}
		os.Exit(1)
	}
	toBoard(l, root, s, rs, err, p)
	if next, ok := stage.Next(stages, s); ok {
		fmt.Printf(l.Tr("\nStage %s passes. Next: %s  (%s)\n", "\n第 %s 阶段通过。下一步：%s  （%s）\n"), s.Num, l.Cmd("bin/lab start "+next.Num), next.TitleIn(l))
	} else {
		fmt.Printf(l.Tr("\nStage %s passes: that was the last stage. bin/lab list shows where you stand.\n",
			"\n第 %s 阶段通过：这是最后一个阶段。bin/lab list 显示你的整体进度。\n"), s.Num)
	}
	return nil
}

// CmdCheckJSON is `lab check --json`: the check of CmdCheck, recorded in the
// progress file the same way, with the result as JSON on stdout and nothing
// else there: what the check prints for people goes to stderr. It exits 1
// when the stage does not pass, as go test does.
func CmdCheckJSON(root string, s stage.Stage) error {
	// The document is for tools: its text is English whatever the locale,
	// so that the same failure reads the same to them (docs/lab-json.md).
	l := i18n.English
	stdout := os.Stdout
	os.Stdout = os.Stderr
	defer func() { os.Stdout = stdout }()
	rs, err := run.Checks(l, root, ".", s, run.Quiet)
	var setup base.SetupError
	if errors.As(err, &setup) {
		return fmt.Errorf("could not run the check of stage %s: %w", s.Num, err)
	}
	p := progress.Read(root)
	p.Record(s, rs, err, hints.Tied(s, rs))
	if saveErr := p.Save(root); saveErr != nil {
		fmt.Fprintln(os.Stderr, "lab: could not save the result:", saveErr)
	}
	if werr := report.NewCheck(".", s, rs, err).Write(stdout); werr != nil {
		return werr
	}
	toBoard(l, root, s, rs, err, p)
	if err != nil {
		os.Exit(1)
	}
	return nil
}

// toBoard sends the check's result to the class board when the clone
// joined one (bin/lab join): queued on disk here, sent by a process of its
// own, so the check neither waits for the board nor fails with it.
func toBoard(l i18n.Lang, root string, s stage.Stage, rs []gotest.Results, err error, p *progress.Progress) {
	if line, queued := class.Report(l, root, s, rs, err, p); queued {
		if line != "" {
			fmt.Println(line)
		}
		class.SendInBackground(class.Dir(root))
	}
}
