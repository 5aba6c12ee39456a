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

package verify

// lab dev sync: the one command after a change to the lab. A spec, a hint, a
// mistake of a catalogue or a stage's code has files that follow from it
// (the generated YAML, the mutation report, the answers' pictures) and
// rules that a test holds (every sentence in two languages, every
// translation in step, every starter failing its check). Each is made again
// or checked here, in order, and what a machine cannot do (translate, write
// a spec for a survivor) is listed for a person at the end, in words.

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"cronlab.dev/cronlab/cmd/lab/internal/base"
	"cronlab.dev/cronlab/cmd/lab/internal/gosrc"
	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
	"cronlab.dev/cronlab/cmd/lab/internal/stage"
)

// CmdSync is `lab dev sync`.
func CmdSync(l i18n.Lang, root string, stages []stage.Stage, report string) error {
	// lab dev verify and lab dev mutants make their trees from the last commit: a
	// change not yet committed would be measured as if it were not there.
	if dirty, _ := base.Output(root, "git", "status", "--porcelain", "--untracked-files=no"); strings.TrimSpace(dirty) != "" {
		return fmt.Errorf(l.Tr(
			"lab dev sync reads the last commit, as lab dev verify and lab dev mutants do, and these files have changes that are not committed:\n%scommit them (you can amend the commit afterwards), then run lab dev sync again",
			"lab dev sync 读取的是最近一次提交，lab dev verify 和 lab dev mutants 也是如此；而这些文件有尚未提交的改动：\n%s请先提交（之后可以修改这次提交），再运行 lab dev sync"), dirty)
	}
	var left []string // what a person still has to do
	var times []string
	step := func(name string, do func() error) error {
		fmt.Printf("\n== %s\n", name)
		start := time.Now()
		err := do()
		times = append(times, fmt.Sprintf("%6.0fs  %s", time.Since(start).Seconds(), name))
		return err
	}

	// 1. The files a machine writes from the Go source: CRD, RBAC and
	// webhook YAML, the DeepCopy methods, the chart's copy of them, gofmt.
	if err := step(l.Tr("generated files (make manifests generate chart fmt)", "生成的文件（make manifests generate chart fmt）"), func() error {
		if out, err := base.Output(root, "make", "manifests", "generate", "chart", "fmt"); err != nil {
			return fmt.Errorf("%w\n%s", err, base.LastLines(out, 20))
		}
		changed, _ := base.Output(root, "git", "status", "--porcelain")
		if changed = strings.TrimSpace(changed); changed != "" {
			// The checks below read the commit, which lacks these.
			return fmt.Errorf(l.Tr("these files were made again:\n%s\ncommit them (git add -A; git commit --amend), then run lab dev sync again",
				"这些文件重新生成了：\n%s\n请提交它们（git add -A; git commit --amend），然后再运行一次 lab dev sync"), changed)
		}
		fmt.Println(l.Tr("all up to date", "都是最新的"))
		return nil
	}); err != nil {
		return err
	}

	// 2. Every Chinese twin translates its English source as it is now.
	if err := step(l.Tr("translations (make verify-translations)", "译文（make verify-translations）"), func() error {
		out, err := base.Output(root, "go", "run", "./hack/translations")
		if err != nil {
			fmt.Println(base.LastLines(out, 40))
			left = append(left, l.Tr("bring the Chinese twins above in step with their English (each shows what changed), then make translation-stamp FILES=\"...\"",
				"让上面的中文版跟上各自的英文原文（每项都列出了改动），然后运行 make translation-stamp FILES=\"...\""))
			return nil
		}
		fmt.Println(l.Tr("every twin in step", "每份中文版都与原文同步"))
		return nil
	}); err != nil {
		return err
	}

	// 3. Every sentence a test leads an assertion with, and every test's
	// name, in both languages (test/say).
	if err := step(l.Tr("sentences and test names in two languages (go test ./test/say/)", "两种语言的句子和测试名（go test ./test/say/）"), func() error {
		out, err := base.Output(root, "go", "test", "-count=1", "./test/say/")
		if err != nil {
			fmt.Println(base.LastLines(out, 40))
			left = append(left, l.Tr("write the Chinese of the sentences and names listed above (say.Both's second text; testdata/names.zh-CN.yaml)",
				"为上面列出的句子和名字写出中文（say.Both 的第二段文字；testdata/names.zh-CN.yaml）"))
			return nil
		}
		fmt.Println(l.Tr("every sentence and name has both", "每个句子和名字都有两种语言"))
		return nil
	}); err != nil {
		return err
	}

	// 3b. A sentence whose English was rewritten while its Chinese stayed:
	// both are there, so test/say passes, but the Chinese may no longer say
	// what the English says. Compared with what this clone's branch was
	// when it last agreed with its upstream (or the commit before this one).
	if err := step(l.Tr("sentences whose English changed alone", "只改了英文的句子"), func() error {
		since := "HEAD~1"
		if fork, err := base.Output(root, "git", "merge-base", "HEAD", "@{upstream}"); err == nil && strings.TrimSpace(fork) != "" {
			if head, _ := base.Output(root, "git", "rev-parse", "HEAD"); strings.TrimSpace(head) != strings.TrimSpace(fork) {
				since = strings.TrimSpace(fork)
			}
		}
		out, err := base.Output(root, "git", "diff", "--name-only", since, "HEAD", "--", "*_test.go")
		if err != nil {
			fmt.Println(l.Tr("no earlier commit to compare with", "没有更早的提交可以比较"))
			return nil
		}
		var alone []string
		for _, f := range strings.Fields(out) {
			was, _ := base.Output(root, "git", "show", since+":"+f)
			now, err := base.Output(root, "git", "show", "HEAD:"+f)
			if err != nil {
				continue // deleted
			}
			for _, t := range gosrc.EnglishAlone(gosrc.TwinsOf(f, []byte(was)), gosrc.TwinsOf(f, []byte(now))) {
				alone = append(alone, fmt.Sprintf("  %s: %q / %q", f, t.En, t.Zh))
			}
		}
		if len(alone) == 0 {
			fmt.Printf(l.Tr("none since %.12s\n", "自 %.12s 以来没有\n"), since)
			return nil
		}
		fmt.Println(strings.Join(alone, "\n"))
		left = append(left, fmt.Sprintf(l.Tr("read the Chinese of the %d sentences above, whose English changed since %.12s while their Chinese did not: does it still say the same?",
			"读一读上面 %d 个句子的中文：自 %.12s 以来它们的英文改了，中文却没改；中文还和英文说的一样吗？"), len(alone), since))
		return nil
	}); err != nil {
		return err
	}

	// 4. Which rows of the mutation report the change reaches: those whose
	// inputs (guard.go: regions, tests, catalogue, code without comments or
	// sentences) differ from what the report measured.
	var changed []stage.Stage
	committed, err := readScores(report)
	if err != nil {
		return err
	}
	if err := step(l.Tr("what the change reaches (the mutation report's digests)", "改动触及哪些行（变异报告的摘要）"), func() error {
		ref, err := base.ReferenceCommit(root)
		if err != nil {
			return err
		}
		suites, err := mutationSuites(root, stages, nil)
		if err != nil {
			return err
		}
		for _, s := range suites {
			if s.Dir != "" && !overlayable(s) {
				continue
			}
			was, found := findScore(committed, s.Slug)
			if !found && s.Dir == "" {
				continue
			}
			inputs, err := suiteInputs(root, ref, s)
			if err != nil {
				return err
			}
			if !found || was.Inputs != inputs {
				changed = append(changed, s)
				fmt.Printf(l.Tr("  %-24s changed (measured in %d s last time)\n", "  %-24s 有变化（上次测量用了 %d 秒）\n"), s.Slug, was.Seconds)
			}
		}
		if len(changed) == 0 {
			fmt.Println(l.Tr("no stage or package changed: nothing to verify or measure again", "没有阶段或包发生变化：不需要重新验证或测量"))
		}
		return nil
	}); err != nil {
		return err
	}

	// 5. The stages among them: each starter compiles and fails its check,
	// the reference passes it, its catalogue is caught (lab dev verify).
	var ids []string
	for _, s := range changed {
		if s.Dir != "" {
			ids = append(ids, s.Slug)
		}
	}
	if len(ids) > 0 {
		if err := step(fmt.Sprintf("lab dev verify %s", strings.Join(ids, " ")), func() error {
			if err := CmdVerify(l, root, stages, ids, false); err != nil {
				fmt.Println(err)
				left = append(left, fmt.Sprintf(l.Tr("make lab dev verify %s pass (above: what failed and how to fix it)",
					"让 lab dev verify %s 通过（上面写了什么失败以及如何修复）"), strings.Join(ids, " ")))
			}
			return nil
		}); err != nil {
			return err
		}
	}

	// 6. Their rows measured again: where only specs changed, only the
	// mutants the change can move, by the kill matrix (kills.go); a mutant
	// that now survives and was not a survivor is a spec to write, or an
	// equivalent to argue.
	if len(changed) > 0 {
		var rows []string
		for _, s := range changed {
			rows = append(rows, s.Slug)
		}
		if err := step(fmt.Sprintf("lab dev mutants %s", strings.Join(rows, " ")), func() error {
			if err := CmdMutants(l, root, stages, rows, report, false); err != nil {
				return err
			}
			now, err := readScores(report)
			if err != nil {
				return err
			}
			for _, id := range rows {
				was, _ := findScore(committed, id)
				is, _ := findScore(now, id)
				left = append(left, lostKills(l, was, is)...)
				if len(is.Unsure) > 0 {
					left = append(left, unsure(l, is))
				}
			}
			left = append(left, l.Tr("commit docs/mutation.json, docs/mutation.md and docs/mutation-kills.json", "提交 docs/mutation.json、docs/mutation.md 和 docs/mutation-kills.json"))
			return nil
		}); err != nil {
			return err
		}
	}

	// 7. The answers' pictures are drawn from traces that the specs of some
	// stages record (make trace-pictures): a change to those specs or the
	// code they run may change a picture.
	var traced []string
	for _, s := range changed {
		for _, t := range s.Tests {
			dir := strings.TrimPrefix(t.Package, "./")
			if out, _ := base.Output(root, "git", "grep", "-l", "cronlab.dev/cronlab/test/tracing", "--", dir); strings.TrimSpace(out) != "" && !slices.Contains(traced, s.Slug) {
				traced = append(traced, s.Slug)
			}
		}
	}
	if len(traced) > 0 {
		if err := step("make trace-pictures", func() error {
			if out, err := base.Output(root, "make", "trace-pictures"); err != nil {
				fmt.Println(base.LastLines(out, 30))
				left = append(left, l.Tr("make trace-pictures failed (above): the specs that record the answers' traces must pass",
					"make trace-pictures 失败了（见上）：记录解答追踪记录的测试用例必须通过"))
				return nil
			}
			if changed, _ := base.Output(root, "git", "status", "--porcelain", "docs/answers"); strings.TrimSpace(changed) != "" {
				fmt.Println(changed)
				left = append(left, l.Tr("look at the answers' pictures drawn again above, and commit them", "看一看上面重新画出的解答图，然后提交"))
			}
			return nil
		}); err != nil {
			return err
		}
	}

	// 8. Every picture drawn again from its committed trace: a change to
	// the drawing (traceview's words, its layout) changes the pictures
	// without any trace changing.
	if err := step(l.Tr("the answers' pictures drawn again from their traces (tracepictures -redraw)", "从追踪记录重画解答图（tracepictures -redraw）"), func() error {
		if out, err := base.Output(root, "go", "run", "./cmd/lab/hack/tracepictures", "-redraw"); err != nil {
			return fmt.Errorf("%w\n%s", err, base.LastLines(out, 20))
		}
		if changed, _ := base.Output(root, "git", "status", "--porcelain", "docs/answers/img"); strings.TrimSpace(changed) != "" {
			fmt.Println(changed)
			left = append(left, l.Tr("look at the pictures drawn again above (git diff docs/answers/img), and commit them",
				"看一看上面重画的图（git diff docs/answers/img），然后提交"))
		} else {
			fmt.Println(l.Tr("every picture is the drawing of its trace", "每张图都与其追踪记录画出来的一致"))
		}
		return nil
	}); err != nil {
		return err
	}

	fmt.Printf(l.Tr("\n== steps (seconds)\n%s\n", "\n== 各步用时（秒）\n%s\n"), strings.Join(times, "\n"))
	if len(left) == 0 {
		fmt.Println(l.Tr("Nothing is left for a person: every derived file is up to date and every check passed.",
			"没有需要人来做的事了：每个派生文件都是最新的，每项检查都通过了。"))
		return nil
	}
	fmt.Println(l.Tr("Left for a person:", "还需要人来做的事："))
	for i, what := range left {
		fmt.Printf("  %d. %s\n", i+1, what)
	}
	return fmt.Errorf(l.Tr("left for a person: %d (above)", "还有 %d 件事要人来做（见上）"), len(left))
}
