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

package start

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"cronlab.dev/cronlab/cmd/lab/internal/base"
	"cronlab.dev/cronlab/cmd/lab/internal/carry"
	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
	"cronlab.dev/cronlab/cmd/lab/internal/progress"
	"cronlab.dev/cronlab/cmd/lab/internal/regions"
	"cronlab.dev/cronlab/cmd/lab/internal/run"
	"cronlab.dev/cronlab/cmd/lab/internal/stage"
	"cronlab.dev/cronlab/cmd/lab/internal/starter"
)

func CmdStart(l i18n.Lang, root string, stages []stage.Stage, s stage.Stage, fresh bool) error {
	if err := starter.EnsureControllerGen(root); err != nil {
		return err
	}
	branch := s.Branch()
	from, why := carry.From(l, root, stages, s, fresh)
	if why != "" {
		fmt.Println(why)
	}
	if err := announce(l, root, s, branch, from); err != nil {
		return err
	}
	dir, commit, cleanup, err := starter.Tree(l, root, stages, s, "")
	if err != nil {
		return err
	}
	defer cleanup()
	var c carry.Carried
	if from != "" {
		if commit, c, err = carryOnto(l, root, dir, s, from); err != nil {
			return err
		}
	} else if err := commitOtherStage(l, root); err != nil {
		return err
	}
	if err := keepEarlierBranch(l, root, branch); err != nil {
		return err
	}
	if _, err := base.Output(root, "git", "branch", "-f", branch, commit); err != nil {
		return err
	}
	_ = progress.MarkStarted(root, s.Slug) // only the class board's time on the stage needs it
	if dirty, _ := base.Output(root, "git", "status", "--porcelain", "--untracked-files=no"); strings.TrimSpace(dirty) != "" {
		notSwitched(l, root, s, branch, from, c)
		return nil
	}
	return switchTo(l, root, s, branch, c)
}

// announce commits what the attendee left uncommitted on the branch their
// code comes from, and says what the new branch will hold.
func announce(l i18n.Lang, root string, s stage.Stage, branch, from string) error {
	if from != "" {
		if committed, err := carry.CommitWork(root, from); err != nil {
			return err
		} else if committed {
			fmt.Printf(l.Tr("Committed your uncommitted changes on %s first, so that nothing is lost.\n",
				"先把你在 %s 上未提交的改动提交了，以免丢失。\n"), from)
		}
		fmt.Printf(l.Tr("Making %s: the starter of stage %s with your own code of the stages before it (from %s) ...\n",
			"正在创建 %s：第 %s 阶段的起始代码，带上你自己写的之前各阶段的代码（来自 %s）……\n"), branch, s.Num, from)
	} else {
		fmt.Printf(l.Tr("Making %s: the reference with stage %s and later stages to write ...\n",
			"正在创建 %s：参考实现，其中第 %s 阶段及之后的阶段留给你写……\n"), branch, s.Num)
	}
	return nil
}

// carryOnto carries the attendee's code from branch from into the starter
// committed in dir, and returns the commit that holds both.
func carryOnto(l i18n.Lang, root, dir string, s stage.Stage, from string) (commit string, c carry.Carried, err error) {
	ref, err := base.ReferenceCommit(root)
	if err != nil {
		return "", c, err
	}
	if c, err = carry.Into(root, dir, ref, from, s); err != nil {
		return "", c, err
	}
	if commit, err = base.Output(dir, "git", "rev-parse", "HEAD"); err != nil {
		return "", c, err
	}
	commit = strings.TrimSpace(commit)
	if len(c.Merged) > 0 { // none: nothing to name
		fmt.Printf(l.Tr("Carried your code in %s.\n", "已带入你在 %s 中的代码。\n"), strings.Join(c.Merged, ", "))
	}
	if len(c.Unwritten) > 0 {
		fmt.Printf(l.Tr("Your %s still had the stubs of %s: those come from the reference.\n",
			"你的 %s 中 %s 还是桩（stub）：这些取自参考实现。\n"), from, strings.Join(c.Unwritten, ", "))
	}
	return commit, c, nil
}

// commitOtherStage commits the attendee's work on the lab branch they are
// on, when no code comes along from it.
func commitOtherStage(l i18n.Lang, root string) error {
	current, _ := base.Output(root, "git", "branch", "--show-current")
	if !strings.HasPrefix(strings.TrimSpace(current), "lab/") {
		return nil
	}
	// Their work on another stage stays on its branch, committed, so
	// that the switch to the new branch can happen and nothing is lost.
	current = strings.TrimSpace(current)
	if committed, err := carry.CommitWork(root, current); err != nil {
		return err
	} else if committed {
		fmt.Printf(l.Tr("Committed your uncommitted changes on %s, so that nothing is lost (git switch %s goes back to them).\n",
			"已把你在 %s 上未提交的改动提交，以免丢失（git switch %s 可以回到它们）。\n"), current, current)
	}
	return nil
}

// keepEarlierBranch keeps the branch of an earlier start of the stage
// (--fresh, say) under another name, with what was not committed, instead
// of overwriting it.
func keepEarlierBranch(l i18n.Lang, root, branch string) error {
	if _, err := base.Output(root, "git", "rev-parse", "--verify", "--quiet", "refs/heads/"+branch); err != nil {
		return nil
	}
	current, _ := base.Output(root, "git", "branch", "--show-current")
	onIt := strings.TrimSpace(current) == branch
	if onIt {
		if _, err := carry.CommitWork(root, branch); err != nil {
			return err
		}
	}
	saved := fmt.Sprintf("%s-saved-%s", branch, time.Now().Format("20060102-150405"))
	if _, err := base.Output(root, "git", "branch", "-m", branch, saved); err != nil {
		return err
	}
	fmt.Printf(l.Tr("Your earlier %s is kept as %s.\n", "你之前的 %s 保留为 %s。\n"), branch, saved)
	if onIt {
		if _, err := base.Output(root, "git", "switch", "-q", "--detach", saved); err != nil {
			return err
		}
	}
	return nil
}

// notSwitched says why the attendee is not on the new branch yet: their
// checkout has changes that git switch would carry or refuse.
func notSwitched(l i18n.Lang, root string, s stage.Stage, branch, from string, c carry.Carried) {
	if len(c.Conflicted) > 0 {
		fmt.Printf(l.Tr("Your code and the starter changed the same lines in %s: %s has the starter's version of\n"+
			"those files, and yours stays on %s (git diff %s %s -- FILE shows the difference).\n",
			"你的代码和起始代码改动了 %s 中的同一些行：%s 中这些文件是起始代码的版本，\n"+
				"你的版本留在 %s 上（git diff %s %s -- 文件 可以看到差别）。\n"), strings.Join(c.Conflicted, ", "), branch, from, from, branch)
	}
	current, _ := base.Output(root, "git", "branch", "--show-current")
	fmt.Printf(l.Tr("Made branch %s, but did not switch to it: %s has uncommitted changes (git status shows them).\n"+
		"Commit or stash them, then\n  git switch %s\nand bin/lab check %s.\n",
		"已创建分支 %s，但没有切换过去：%s 有未提交的改动（git status 可以看到）。\n"+
			"先提交或 stash 它们，然后\n  git switch %s\n再运行 bin/lab check %s。\n"), branch, cmp.Or(strings.TrimSpace(current), l.Tr("this checkout", "当前工作区")), branch, s.Num)
}

// switchTo switches to the new branch, leaves the conflicts of a carry in
// the working tree, and shows the stage: what to read, write and run.
func switchTo(l i18n.Lang, root string, s stage.Stage, branch string, c carry.Carried) error {
	if _, err := base.Output(root, "git", "switch", branch); err != nil {
		return err
	}
	fmt.Printf(l.Tr("Switched to %s.\n", "已切换到 %s。\n"), branch)
	// A conflict is the attendee's to settle: the file is committed as the
	// starter has it, and the merge with its markers waits in the working
	// tree, where git diff shows it and git checkout undoes it.
	for path, merged := range c.Conflicts {
		if err := os.WriteFile(filepath.Join(root, path), merged, 0o644); err != nil {
			return err
		}
	}
	fmt.Printf(l.Tr("\nStage %s: %s\n  read:  %s\n  write: (each marked TODO(lab %s))\n",
		"\n第 %s 阶段：%s\n  阅读：%s\n  编写：（每处都标有 TODO(lab %s)）\n"), s.Num, s.TitleIn(l), s.ReadmeIn(l, root), s.Slug)
	ref, err := base.ReferenceCommit(root)
	if err != nil {
		return err
	}
	for _, w := range toWrite(l, root, ref, s) {
		fmt.Printf("           %s\n", w)
	}
	fmt.Printf(l.Tr("  check: %s   (%s shows the tests' whole output)\n",
		"  检查：%s   （%s 显示测试的全部输出）\n"), l.Cmd("bin/lab check"), l.Cmd("bin/lab check -v"))
	if conflicted := c.Conflicted; len(conflicted) > 0 {
		fmt.Printf(l.Tr("\nYour code and this stage's starter changed the same lines in: %s.\n"+
			"They are marked <<<<<<< your code ... ======= ... >>>>>>> the starter, in your working tree and not\n"+
			"committed (git diff shows them; git checkout FILE drops all your code in that file, which stays on your\n"+
			"earlier branch): keep what you mean, delete the markers, and check. (bin/lab start %s --fresh starts from the reference instead.)\n",
			"\n你的代码和本阶段的起始代码改动了这些文件中的同一些行：%s。\n"+
				"它们在你的工作区中以 <<<<<<< your code ... ======= ... >>>>>>> the starter 标出，尚未提交\n"+
				"（git diff 可以看到；git checkout 文件 会丢掉你在该文件中的全部代码，它们仍留在你之前的分支上）：\n"+
				"保留你想要的，删掉标记行，然后检查。（bin/lab start %s --fresh 则从参考实现开始。）\n"),
			strings.Join(conflicted, ", "), s.Num)
	}
	return nil
}

// toWrite lists what the attendee writes in stage s: for each file with one
// of its regions in the reference commit ref, the functions declared in the
// regions, or the region's name where it holds no function (markers, YAML,
// a template).
func toWrite(l i18n.Lang, root, ref string, s stage.Stage) []string {
	wanted := map[string]bool{}
	for _, r := range s.Regions {
		wanted[r] = true
	}
	var lines []string
	for _, path := range run.RegionFiles(root, ref, s) {
		src, err := base.Output(root, "git", "show", ref+":"+path)
		if err != nil {
			continue
		}
		found, err := regions.Parse(path, []byte(src))
		if err != nil {
			continue
		}
		var names []string
		for _, r := range found {
			if !wanted[r.Name] {
				continue
			}
			var fns []string
			for _, fn := range regions.FunctionsIn(path, src, r) {
				_, name, _ := strings.Cut(fn, ".")
				fns = append(fns, cmp.Or(name, fn))
			}
			if len(fns) == 0 {
				fns = []string{fmt.Sprintf(l.Tr("the region %s", "区域 %s"), r.Name)}
			}
			for _, fn := range fns {
				if !slices.Contains(names, fn) { // a region may come in two parts
					names = append(names, fn)
				}
			}
		}
		lines = append(lines, fmt.Sprintf("%-44s %s", path, strings.Join(names, ", ")))
	}
	return lines
}

func CmdSolution(l i18n.Lang, root string, stages []stage.Stage, s stage.Stage) error {
	if err := starter.EnsureControllerGen(root); err != nil {
		return err
	}
	_, commit, cleanup, err := starter.Tree(l, root, stages, s, "")
	if err != nil {
		return err
	}
	defer cleanup()
	// Only this stage's regions: a starter of the next stage differs from
	// this one's by exactly them.
	next, hasNext := stage.Next(stages, s)
	target, err := base.ReferenceCommit(root)
	if err != nil {
		return err
	}
	if hasNext {
		_, nextCommit, cleanupNext, err := starter.Tree(l, root, stages, next, "")
		if err != nil {
			return err
		}
		defer cleanupNext()
		target = nextCommit
	}
	out, err := base.Output(root, "git", "diff", "--stat", "-p", commit, target, "--", ".", ":!*zz_generated*", ":!config/crd/bases", ":!*zz_lab_todo.go")
	if err != nil {
		return err
	}
	// The starter holds the reference's code of the earlier stages, the
	// attendee's branch their own: where theirs imports less, a hunk of
	// the diff can use a package their file lacks (a walkthrough met
	// "undefined: slices" in stage 06).
	fmt.Printf(l.Tr("The reference solution of stage %s (%s), as a diff from its starter:\n"+
		"(the starter has the reference's code of the earlier stages; if yours imports less, add the imports the compiler names)\n\n%s",
		"第 %s 阶段（%s）的参考实现，以相对起始代码的 diff 显示：\n"+
			"（起始代码里之前各阶段是参考实现的代码；如果你的代码导入的包更少，按编译器的提示补上导入）\n\n%s"), s.Num, s.TitleIn(l), out)
	return nil
}

func CmdBranches(l i18n.Lang, root string, stages []stage.Stage) error {
	if err := starter.EnsureControllerGen(root); err != nil {
		return err
	}
	for _, s := range stages {
		_, commit, cleanup, err := starter.Tree(l, root, stages, s, "")
		if err != nil {
			return err
		}
		_, err = base.Output(root, "git", "branch", "-f", s.Branch(), commit)
		cleanup()
		if err != nil {
			return err
		}
		fmt.Printf("  %s  %s\n", s.Branch(), s.TitleIn(l))
	}
	fmt.Println(l.Tr("\nPush them to the class repository with: git push <remote> 'refs/heads/lab/*:refs/heads/lab/*'",
		"\n把它们推送到课堂仓库：git push <remote> 'refs/heads/lab/*:refs/heads/lab/*'"))
	return nil
}
