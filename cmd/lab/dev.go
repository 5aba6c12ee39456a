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
	"flag"
	"fmt"
	"time"

	"cronlab.dev/cronlab/cmd/lab/internal/verify"
)

// The maintainers' commands live apart from the attendees', under
// bin/lab dev <command>, as rustlings keeps `rustlings dev` and Exercism
// gives its maintainers configlet: what they do (a whole verify of the
// stages, an hour of mutants) is no step of the workshop, and an attendee
// who typed one by chance would wait for nothing.

// devCommands are the words of `lab dev <command>`. Each row has dev set,
// which makes its word "dev <name>" (command.word).
var devCommands = []command{
	{name: "sync", dev: true,
		run: func(c call) error { return verify.CmdSync(c.l, c.root, c.stages, verify.MutantsReport(c.root)) }},
	{name: "verify", dev: true,
		flags: referenceTested,
		run:   func(c call) error { return verify.CmdVerify(c.l, c.root, c.stages, c.args, c.referenceTested) }},
	{name: "mistakes", dev: true,
		run: func(c call) error { return verify.CmdMistakes(c.l, c.root, c.stages, c.args) }},
	{name: "mutants", dev: true,
		flags: func(fs *flag.FlagSet, c *call) {
			fs.BoolVar(&c.guarded, "guard", false, "check again only what changed since the report, and fail if a score dropped")
			fs.BoolVar(&c.fullMeasure, "full", false, "check every mutant of each row named, not only what changed since the kill matrix (docs/mutation-kills.json)")
			fs.IntVar(&c.guard.Sample, "sample", 12, "with --guard: the most mutants checked of one changed stage or package (0: all)")
			fs.DurationVar(&c.guard.Budget, "budget", 10*time.Minute, "with --guard: how long it may run")
		},
		run: func(c call) error {
			if c.guarded {
				if len(c.args) > 0 {
					return fmt.Errorf("lab dev mutants --guard takes no stage: it checks what changed since the report")
				}
				return verify.CmdMutantsGuard(c.l, c.root, c.stages, verify.MutantsReport(c.root), c.guard)
			}
			return verify.CmdMutants(c.l, c.root, c.stages, c.args, verify.MutantsReport(c.root), c.fullMeasure)
		}},
	// Started by lab dev verify itself, one process per part
	// (internal/verify); nobody types it.
	{name: "verify-part", dev: true,
		flags: referenceTested,
		run:   func(c call) error { return verify.CmdVerifyPart(c.l, c.root, c.stages, c.args, c.referenceTested) }},
}

// devUsage is what bin/lab dev prints with no command: the maintainers'
// own screen, a line each, and where the recipes are.
const devUsage = `usage: bin/lab dev <command> [stage]   (the maintainers' commands: the lab itself, not a stage of it)

  sync                 after a change to the lab, committed: every generated file again, the checks
                       it reaches, and then what is left for a person
  verify [<stage>…]    every stage holds: its starter fails, the reference passes, each mistake of
                       its catalogue is caught (--reference-tested: CI, after make test)
  mistakes [<stage>…]  only the catalogue of mistakes, each made and checked
  mutants [<stage>…]   the mistakes nobody listed, scored into docs/mutation.md (--full: every
                       mutant again; --guard: what changed since, as CI runs it)

bin/lab help dev says more of each one, bin/lab dev <command> -h of one.
Recipes for each change (a spec, a hint, a mistake, a stage): docs/maintaining.md.
`

const devUsageZh = `用法：bin/lab dev <命令> [阶段]   （维护者的命令：针对实验本身，而不是其中某个阶段）

  sync                 对实验的改动提交之后：重新生成每个生成的文件，运行改动触及的检查，
                       最后列出还需要人来做的事
  verify [<阶段>…]     验证每个阶段：起始代码的测试失败，参考实现通过，常见错误清单中的
                       每个错误都被发现（--reference-tested：CI 在 make test 之后用）
  mistakes [<阶段>…]   只运行常见错误清单：逐个制造错误并检查
  mutants [<阶段>…]    没有人列出的错误，得分写入 docs/mutation.md（--full：重新检查每个
                       变异体；--guard：只查自报告以来变了的部分，CI 这样运行）

bin/lab help dev 详细介绍每个命令，bin/lab dev <命令> -h 介绍一个命令。
每一种改动（测试用例、提示、常见错误、阶段）的操作步骤：docs/maintaining.zh-CN.md。
`

// devReference is every maintainer's command's paragraph, as reference
// is every other's (usageOf finds one by its name).
const devReference = `usage: lab dev <command> [stage]   (the maintainers' commands; recipes: docs/maintaining.md)

  sync              after a change to the lab (a spec, a hint, a mistake, a stage's code), committed: make
                    the generated files again, check the translations and the tests' two languages, run
                    lab dev verify on the stages it reaches, measure their rows of docs/mutation.md again,
                    draw the answers' pictures again if their traces may have changed; then list what is
                    left for a person (docs/maintaining.md)
  verify [<stage>…] for every stage (or those named): the starter compiles and vets, its tests fail;
                    the reference passes them, the previous stage passes on the starter, and
                    the stage's check fails on each mistake of its catalogue (stage.yaml).
                    --reference-tested: make test has just passed here, so only check that
                    the stage's tests exist on the reference (CI)
                    LAB_VERIFY_JOBS=N: N parts at once, each with its own API server
                    (default: 2, or 1 on one core)
  mistakes [<stage>…]
                    only the catalogue of mistakes: make each in a copy of the reference and
                    show whether the stage's check catches it
  mutants [<stage>…] the mistakes nobody listed: mutants made by rule from the reference (a statement
                    left out, a condition negated, a boundary moved...), each checked like a mistake;
                    the scores go to docs/mutation.json and docs/mutation.md (make mutants), which
                    specs kill each one to docs/mutation-kills.json: when only specs changed since,
                    only what they can move is checked again (--full: every mutant);
                    --guard checks again (a sample of) what changed since that report, and fails
                    when a mutant it killed survives (CI)
`

const devReferenceZh = `用法：lab dev <命令> [阶段]   （维护者的命令；操作步骤见 docs/maintaining.zh-CN.md）

  sync              对实验的改动（测试用例、提示、错误清单、阶段的代码）提交之后：重新生成生成的文件，
                    检查译文和测试的两种语言，对改动触及的阶段运行 lab dev verify，重新测量它们在
                    docs/mutation.md 中的行，如果解答的追踪记录可能变了就重画解答图；最后列出还需要
                    人来做的事（docs/maintaining.zh-CN.md）
  verify [<阶段>…]  对每个阶段（或指定的阶段）验证：起始代码能编译并通过 vet，其测试失败；
                    参考实现通过这些测试，上一阶段的测试在起始代码上通过，
                    本阶段的检查能发现常见错误清单（stage.yaml）中的每个错误。
                    --reference-tested：make test 刚在这里通过，只检查参考实现上有本阶段的测试（CI 用）
                    LAB_VERIFY_JOBS=N：同时运行 N 个部分，各用自己的 API 服务器
                    （默认 2，单核机器上为 1）
  mistakes [<阶段>…]
                    只运行常见错误清单：在参考实现的副本中逐个制造错误，看本阶段的检查能否发现
  mutants [<阶段>…]  没有人列出的错误：按规则从参考实现生成的变异体（漏掉一条语句、条件取反、边界移动一位……），
                    像错误清单一样逐个检查；得分写入 docs/mutation.json 和 docs/mutation.md（make mutants），
                    每个变异体被哪些测试用例发现写入 docs/mutation-kills.json：此后若只有测试用例变了，
                    只重新检查它们可能改变的部分（--full：检查每个变异体）；
                    --guard 只重新检查自该报告以来有变化的部分（抽样），若报告中被发现的变异体
                    如今存活则失败（CI）
`
