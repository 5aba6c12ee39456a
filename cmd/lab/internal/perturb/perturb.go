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

// Package perturb is lab perturb: the scenario of test/perturb played
// against the Reconciler of this clone (the attendee's, on a lab branch)
// while the loop around it is disturbed, the trace of that run drawn, and
// its end state compared with the reference's under the same disturbance.
// docs/trace.md, "Perturbations", is the lesson plan.
//
// It is a room of its own because it is a command over two others: it runs
// a test as a check does (package run) and draws its trace (traceview).
package perturb

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
	"cronlab.dev/cronlab/cmd/lab/internal/run"
	"cronlab.dev/cronlab/cmd/lab/internal/stage"
)

// kinds are the perturbations test/perturb plays (its perturbations).
var kinds = []string{"none", "stale", "unobserved", "intermediate-1", "intermediate-2", "intermediate-3", "intermediate-4", "intermediate-5"}

// intermediate alone means its first: the manager stops after the first write.
var intermediate = regexp.MustCompile(`^intermediate$`)

// CmdPerturb is lab perturb KIND.
func CmdPerturb(l i18n.Lang, root string, args []string) error {
	kind, err := chosenKind(l, args)
	if err != nil {
		return err
	}
	if err := wholeReconciler(l, root); err != nil {
		return err
	}
	return perturb(l, root, root, kind)
}

// reconcilerStages write the Reconcile that the scenario plays: until
// their stubs are gone, a run would stop at a TODO, and the comparison
// would blame the attendee for a stage not reached yet. Later stages' stubs
// do not matter: the harness holds the cache back itself.
var reconcilerStages = []string{"reconcile-loop", "secondary-resources", "scheduling"}

// wholeReconciler refuses, before anything is built, a clone whose
// Reconciler still has stubs of those stages, saying which and where, by
// the stages' numbers of today (exercises/stages.yaml).
func wholeReconciler(l i18n.Lang, root string) error {
	num := map[string]string{}
	if stages, err := stage.Load(root); err == nil {
		for _, s := range stages {
			num[s.Slug] = s.Num
		}
	}
	called := func(slug string) string {
		if n := num[slug]; n != "" {
			return fmt.Sprintf(l.Tr("stage %s (%s)", "第 %s 阶段（%s）"), n, slug)
		}
		return fmt.Sprintf(l.Tr("stage %s", "%s 阶段"), slug)
	}
	first, last := reconcilerStages[0], reconcilerStages[len(reconcilerStages)-1]
	for _, slug := range reconcilerStages {
		if files := run.TodoFiles(root, "", slug); len(files) > 0 {
			return i18n.Errorf("the scenario needs a whole Reconcile, and this clone's still has stubs of %s (TODO(lab %s): %s): bin/lab perturb works from %s on, once %s to %s pass",
				"这个场景需要完整的 Reconcile，而本克隆里还有%s的桩（TODO(lab %s)：%s）：bin/lab perturb 从%s起可用，要等%s到%s都通过之后",
				called(slug), slug, strings.Join(files, ", "), called(last), called(first), called(last))
		}
	}
	return nil
}

// perturb plays the scenario in dir, a tree of the clone root, under kind
// and says where it ended; the error says why not, when it did not end.
func perturb(l i18n.Lang, root, dir, kind string) error {
	fmt.Printf(l.Tr("Playing the scenario under %q against this clone's Reconciler\n", "用本克隆的调和器运行这个场景，扰动：%q\n"), kind)
	p := playOf(root, dir, kind)
	if err := p.play(l); err != nil {
		return err
	}
	p.draw(l)
	switch p.outcome {
	case differed:
		p.showDifference(l)
		return i18n.Errorf("under %s, the end state is not the reference's (above: yours, then the reference's)",
			"在 %s 扰动下，结束状态与参考实现的不同（上面先是你的，然后是参考实现的）", kind)
	case broke:
		return p.whyNothingWasCompared()
	}
	fmt.Printf(l.Tr("\nUnder %s, the scenario ends where the reference's Reconciler ends.\n", "\n在 %s 扰动下，这个场景的结束状态与参考实现的调和器相同。\n"), kind)
	return nil
}

// chosenKind is the perturbation named on the command line, or the list
// of them and an error.
func chosenKind(l i18n.Lang, args []string) (string, error) {
	if len(args) != 1 {
		fmt.Print(l.Tr(`which perturbation? bin/lab perturb KIND, one of:
  none            the scenario undisturbed: an hourly CronJob's 10:00 run starts, ends at 10:01,
                  its Job goes once the status records its success (no history kept), and at
                  11:00 the next run starts
  stale           the 10:00 run is reconciled twice while the cache is held back
  unobserved      the event of the Job finishing asks for no reconcile
  intermediate-N  the manager stops right after the scenario's N-th write (1 to 5), and a new one
                  starts from what the API server has
Each plays the scenario against this clone's Reconciler, draws the trace, and compares the end state
with the reference's under the same perturbation (docs/trace.md, "Perturbations").
`, `哪一种扰动？bin/lab perturb 种类，可选：
  none            不加扰动的场景：一个每小时运行的 CronJob，10:00 的运行启动，10:01 结束，
                  状态记录了这次成功之后它的 Job 被删除（不保留历史），11:00 下一次运行启动
  stale           在缓存被扣住时，对 10:00 的运行调和两次
  unobserved      Job 结束的事件没有请求调和
  intermediate-N  管理器在场景的第 N 次写入（1 到 5）之后立即停止，一个新的管理器从 API 服务器上
                  已有的状态开始
每一种都用本克隆的调和器运行这个场景，画出追踪记录，并把结束状态与参考实现在同样扰动下的结束状态比较
（docs/trace.zh-CN.md，“扰动”）。
`))
		return "", i18n.Errorf("name one perturbation", "请指定一种扰动")
	}
	kind := args[0]
	if intermediate.MatchString(kind) {
		kind = "intermediate-1"
	}
	if !slices.Contains(kinds, kind) {
		return "", i18n.Errorf("no perturbation %q: bin/lab perturb lists them", "没有名为 %q 的扰动：运行 bin/lab perturb 查看全部", kind)
	}
	return kind, nil
}
