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

// Command lab runs the cronlab workshop: it lists the stages, makes a
// starter branch for a stage from the reference code, checks an attendee's
// work with the stage's tests, gives hints, shows the reference solution,
// and, for its maintainers, verifies that every stage works. The operator
// never imports it.
//
//	bin/lab list [--run]
//	bin/lab start [--fresh] <stage>
//	bin/lab check [-v] [--json] [<stage>]
//	bin/lab watch [<stage>]
//	bin/lab hint [<stage>]
//	bin/lab status
//	bin/lab solution <stage>
//	bin/lab branches
//	bin/lab doctor
//	bin/lab join <board-url> <class-code> [--name <pseudonym>]
//	bin/lab hand [--down] "<text>"
//	bin/lab leave
//	bin/lab board [--addr host:port] [--db file] [--code code]
//	bin/lab class setup <roster> [--class lab] [--out dir] [--hours 12]
//	bin/lab class teardown [--class lab]
//	bin/lab trace [--html file] [--svg file] <trace>
//	bin/lab perturb <kind>
//	bin/lab stop
//
// and, for the lab's maintainers and CI (dev.go):
//
//	bin/lab dev sync
//	bin/lab dev verify [--reference-tested] [<stage>...]
//	bin/lab dev mistakes [<stage>...]
//	bin/lab dev mutants [--full] [<stage>...]
//	bin/lab dev mutants --guard [--sample N] [--budget D]
//
// (make lab builds bin/lab.) This package is only the command line: it
// chooses the language, finds the clone, parses each command's flags and
// hands the command to the package that owns it (commands.go);
// cmd/lab/README.md draws those packages and the way their imports run.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	"cronlab.dev/cronlab/cmd/lab/internal/base"
	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
	"cronlab.dev/cronlab/cmd/lab/internal/stage"
	"cronlab.dev/cronlab/cmd/lab/internal/start"
)

// usage is what bin/lab prints with no command: what an attendee types, on
// one screen. The instructors' commands are named in a line, and the
// maintainers' bin/lab dev in another (dev.go); every command's whole
// paragraph is in reference (the maintainers' in devReference), for
// bin/lab help <command>, <command> -h, and the help topics.
const usage = `usage: bin/lab <command> [stage]   (--lang zh, or a Chinese locale such as LANG=zh_CN.UTF-8: 中文)

Work through the stages:
  start <stage>     make branch lab/<stage>, with this stage for you to write
  check [<stage>]   run the stage's tests and explain each failure (-v: their output; --json)
  watch [<stage>]   check again on every save
  hint [<stage>]    the next hint: first for your last failure, then the general ones
  status            every stage: passed, in progress or not started; the hints you saw
  list [--run]      the stages, with each one's last check here
  solution <stage>  the reference code of the stage, as a diff
  doctor            what this machine lacks for the workshop, and how to fix it
  stop              stop the API server that the checks share

Look inside the reconcile loop:
  trace <trace>     draw a trace that a spec or make run TRACE= recorded
  perturb <kind>    play a scenario against your Reconciler with its loop disturbed

In a class:
  join <board-url> <class-code>   send each check's result to the instructor's board
  hand "<text>"     raise your hand on the board (--down lowers it)
  leave             stop sending results to the board

New here? bin/lab doctor, then bin/lab start 01 (exercises/README.md; docs/workshop.md).
bin/lab help <command> says more of one command; bin/lab help all, of every one.
Instructors: board, class, branches (bin/lab help instructor; docs/class.md).
Maintainers: bin/lab dev (docs/maintaining.md).
`

const usageZh = `用法：bin/lab <命令> [阶段]   （--lang en 显示英文；--lang zh 或 LANG=zh_CN.UTF-8 显示中文）

逐个阶段完成练习：
  start <阶段>      创建分支 lab/<阶段>，本阶段留给你写
  check [<阶段>]    运行本阶段的测试并解释每个失败（-v：测试的全部输出；--json）
  watch [<阶段>]    每次保存时重新检查
  hint [<阶段>]     下一条提示：先针对你上次的失败，再给通用提示
  status            每个阶段：已通过、进行中或未开始；你看过的提示
  list [--run]      各阶段，以及每个阶段在这里最近一次检查的结果
  solution <阶段>   本阶段的参考代码（diff）
  doctor            本机还缺工作坊所需的什么，以及如何补上
  stop              停止各次检查共用的 API 服务器

看看调和循环的内部：
  trace <追踪记录>  画出测试用例或 make run TRACE= 记录的追踪记录
  perturb <种类>    在调和循环受到扰动时，用你的调和器运行一个场景

在课堂上：
  join <看板网址> <班级代码>   把每次检查的结果发送到讲师的看板
  hand "<文字>"     在看板上举手（--down 放下）
  leave             不再向看板发送结果

第一次来？先运行 bin/lab doctor，再运行 bin/lab start 01（docs/workshop.zh-CN.md）。
bin/lab help <命令> 详细介绍一个命令；bin/lab help all 介绍全部命令。
讲师：board、class、branches（bin/lab help instructor；docs/class.zh-CN.md）。
维护者：bin/lab dev（docs/maintaining.zh-CN.md）。
`

// reference is every attendee's and instructor's command's paragraph,
// each begun by two spaces and the command's name (usageOf finds one by
// it); the maintainers' are in devReference (dev.go).
const reference = `usage: lab <command> [stage]   (--lang zh, or a Chinese locale such as LANG=zh_CN.UTF-8: 中文)
a stage is its number or its name: bin/lab start 05 is bin/lab start secondary-resources

  list [--run]      the stages, with the result of each one's last check in this clone
                    (--run: check every stage now, which takes minutes)
  start <stage>     make branch lab/<stage>: the reference with this stage (and later ones) to write;
                    on lab/<previous stage> after it passed, your own code of it comes along
                    (--fresh: the reference; LAB_CARRY=always|never|passing sets the rule)
  check [-v] [--json] [<stage>]
                    run the stage's tests (default: the stage of the current lab/ branch) and
                    explain each failure; -v also prints the tests' whole output; --json prints
                    the result for tools instead (docs/lab-json.md)
  watch [<stage>]   check again on every save of the stage's files, on one screen, with a
                    progress line; without a stage it follows the branch, to the next stage
                    after bin/lab start (LAB_WATCH_POLL=1: poll, where file events do not arrive)
  hint [<stage>]    the next hint of the stage: first one for your last check's failure, then
                    the general ones, a level at a time (a nudge, where to look, a snippet)
  status            every stage: passed, in progress or not started, its last check and the
                    hints shown, and a bar for the whole workshop
  solution <stage>  show the reference code of the stage, as a diff against its starter
  branches          make every lab/<stage> branch, for an instructor to push
  doctor            check what the workshop needs on this machine, and say how to fix what is missing
  join <board-url> <class-code> [--name <pseudonym>]
                    join the instructor's class board: from then on every check and watch sends its
                    result there in the background (what is sent: docs/class.md); bin/lab status
                    says how many results wait when the board cannot be reached
  hand [--down] "<text>"
                    raise your hand on the class board, saying what you are stuck on (--down: lower it)
  leave             stop sending results to the class board
  board [--addr host:port] [--db file] [--code code]
                    for the instructor: serve the class board (default :8080), a live page of who is on
                    which stage, who is stuck and why, what the room fails, raised hands; kept in
                    bin/lab-state/board.db across restarts (docs/class.md)
  class setup <roster> [--class lab] [--out dir] [--hours 12]
  class teardown [--class lab]
                    for the instructor, on the current kubeconfig's cluster: the CRD once, and for each name
                    of the roster (one per line) a namespace <class>-<name>, a ServiceAccount, a Role with
                    what the lab needs there, a RoleBinding, and a kubeconfig with a time-bound token
                    (dist/class/<class>/<name>.kubeconfig) to hand out; teardown removes what setup made
                    (docs/class.md)
  trace [--html file] [--svg file] <trace>
                    draw a trace of the reconcile loop (one spec of each of stages 12 to 14 records one, and
                    each of stage 15's three, in bin/lab-state/traces/; make run TRACE=file records the
                    manager's): three lanes, the API server, the cache and the Reconcile, with every stale
                    read marked; and a page with the picture, beside the trace (--html elsewhere; --svg the
                    picture alone)
  perturb <kind>    play a CronJob's scenario against your Reconciler while its loop is disturbed (stale:
                    the cache held back; unobserved: an event dropped; intermediate-N: the manager stops
                    after the N-th write), draw the trace, and compare the end state with the reference's
                    under the same disturbance (docs/trace.md); without a kind, the list
  stop              stop the API server that checks share (it also stops itself after 30 idle minutes;
                    LAB_SHARED_APISERVER=off makes every test start its own)

The maintainers' commands (sync, verify, mistakes, mutants) are bin/lab dev's: bin/lab help dev.
`

const referenceZh = `用法：lab <命令> [阶段]   （--lang en 显示英文；--lang zh 或 LANG=zh_CN.UTF-8 显示中文）
阶段可以用编号，也可以用名字：bin/lab start 05 就是 bin/lab start secondary-resources

  list [--run]      列出各阶段，以及每个阶段在本克隆中最近一次检查的结果
                    （--run：现在逐个检查所有阶段，需要几分钟）
  start <阶段>      创建分支 lab/<阶段>：参考实现中本阶段（及之后各阶段）留给你写；
                    如果你在 lab/<上一阶段> 上的代码已通过检查，会把你自己的代码带过来
                    （--fresh：从参考实现开始；LAB_CARRY=always|never|passing 设定规则）
  check [-v] [--json] [<阶段>]
                    运行本阶段的测试（默认是当前 lab/ 分支对应的阶段），并解释每个失败；
                    -v 同时打印测试的全部输出；--json 改为输出给工具读取的结果（docs/lab-json.md）
  watch [<阶段>]    每次保存本阶段的文件时重新检查，结果显示在同一屏上，带进度条；不指定阶段时
                    它跟随当前分支，bin/lab start 之后改为检查下一阶段
                    （LAB_WATCH_POLL=1：在收不到文件事件的环境中改用轮询）
  hint [<阶段>]     本阶段的下一条提示：先是针对你上次检查失败的提示，再按级别给出通用提示
                    （点拨、该看哪里、一小段代码）
  status            每个阶段的状态：已通过、进行中或未开始，最近一次检查的时间、已看过的提示，
                    以及整个工作坊的进度条
  solution <阶段>   显示本阶段的参考代码（相对起始代码的 diff）
  branches          创建所有 lab/<阶段> 分支，供讲师推送
  doctor            检查本机是否具备工作坊所需的一切，并说明如何补上缺少的部分
  join <看板网址> <班级代码> [--name <化名>]
                    加入讲师的班级看板：从此每次 check 和 watch 都在后台把结果发送到那里
                    （发送的内容见 docs/class.zh-CN.md）；看板连不上时，bin/lab status 会说有多少结果在等待
  hand [--down] "<说明>"
                    在班级看板上举手，说明你卡在哪里（--down：放下手）
  leave             停止向班级看板发送结果
  board [--addr 主机:端口] [--db 文件] [--code 代码]
                    讲师用：启动班级看板（默认 :8080），实时显示谁在哪个阶段、谁卡住了以及原因、
                    全班在哪些测试用例上失败、谁举了手；内容保存在 bin/lab-state/board.db，重启不丢失
                    （docs/class.zh-CN.md）
  class setup <名单> [--class lab] [--out 目录] [--hours 12]
  class teardown [--class lab]
                    讲师用，作用于当前 kubeconfig 的集群：安装一次 CRD，并为名单（每行一个名字）中的每个人
                    创建名字空间 <class>-<名字>、ServiceAccount、一个只含实验所需权限的 Role、RoleBinding，
                    以及带有限时令牌的 kubeconfig（dist/class/<class>/<名字>.kubeconfig），供分发给学员；
                    teardown 移除 setup 创建的一切（docs/class.zh-CN.md）
  trace [--html 文件] [--svg 文件] <追踪记录>
                    画出调和循环的追踪记录（第 12 至 14 阶段各有一个测试用例、第 15 阶段的三个测试用例
                    各记录一份，存于 bin/lab-state/traces/；make run TRACE=文件 记录管理器的）：API 服务器、
                    缓存和 Reconcile 三条泳道，标出每次陈旧的读取；并在追踪记录旁写一个带图的页面（--html
                    指定别处；--svg 单独写出图）
  perturb <种类>    在调和循环受到扰动时（stale：缓存被扣住；unobserved：丢掉一个事件；intermediate-N：
                    管理器在第 N 次写入之后停止），用你的调和器运行一个 CronJob 的场景，画出追踪记录，
                    并把结束状态与参考实现在同样扰动下的结束状态比较（docs/trace.zh-CN.md）；不指定种类时列出全部
  stop              停止各次检查共用的 API 服务器（空闲 30 分钟后它也会自行停止；
                    LAB_SHARED_APISERVER=off 让每个测试各自启动自己的 API 服务器）

维护者的命令（sync、verify、mistakes、mutants）属于 bin/lab dev：见 bin/lab help dev。
`

func main() {
	l, args, err := i18n.Choose(os.Args[1:], os.Getenv)
	if err != nil {
		// Which language to speak is what failed: both.
		fmt.Fprintf(os.Stderr, "lab: %s\nlab：%s\n", i18n.Message(i18n.English, err), i18n.Message(i18n.Chinese, err))
		os.Exit(2)
	}
	cmd, rest, status, ok := route(l, args, os.Stdout, os.Stderr)
	if !ok {
		os.Exit(status)
	}
	c := call{l: l}
	fs := flag.NewFlagSet("lab "+cmd.word(), flag.ContinueOnError)
	if cmd.flags != nil {
		cmd.flags(fs, &c)
	}
	fs.SetOutput(io.Discard) // its messages are English only: ours follow
	c.args, err = parseInterspersed(fs, rest)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Print(usageOf(l, cmd.word()))
		return
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "lab %s: %s\n%s", cmd.word(), flagError(l, err), usageOf(l, cmd.word()))
		os.Exit(2)
	}
	if cmd.anywhere {
		if err := cmd.run(c); err != nil {
			base.Fail(l, err)
		}
		return
	}
	root, err := base.RepoRoot(l)
	if err == nil {
		err = os.Chdir(root)
	}
	if err != nil {
		base.Fail(l, err)
	}
	c.root = root
	if c.stages, err = stage.Load(root); err != nil {
		base.Fail(l, err)
	}
	start.RenameLegacyBranches(l, root)
	if err := cmd.run(c); err != nil {
		base.Fail(l, err)
	}
}

// route finds what args ask for. When it is a command to run, route
// returns it with the arguments after its word (bin/lab check 04, bin/lab
// dev verify 04), and ok. Otherwise it has printed what was asked (help,
// exit status 0) or the screen that says what to type instead (2): a word
// that is a maintainer's command now, typed without dev, is told its new
// form, so that old habits and scripts learn it.
func route(l i18n.Lang, args []string, stdout, stderr io.Writer) (cmd command, rest []string, status int, ok bool) {
	isHelp := func(word string) bool { return word == "-h" || word == "--help" || word == "help" }
	fail := func(format string, a ...any) (command, []string, int, bool) {
		fmt.Fprintf(stderr, format, a...)
		return command{}, nil, 2, false
	}
	switch {
	case len(args) == 0:
		return fail("%s", l.Tr(usage, usageZh))
	case isHelp(args[0]):
		text, known := help(l, args[1:])
		if !known {
			return fail(l.Tr("lab help: no command or topic %q\n\n%s", "lab help：没有 %q 这个命令或主题\n\n%s"),
				strings.Join(args[1:], " "), text)
		}
		fmt.Fprint(stdout, text)
		return command{}, nil, 0, false
	case args[0] == "dev" && len(args) == 1: // as bin/lab alone
		return fail("%s", l.Tr(devUsage, devUsageZh))
	case args[0] == "dev" && isHelp(args[1]):
		fmt.Fprint(stdout, l.Tr(devUsage, devUsageZh))
		return command{}, nil, 0, false
	case args[0] == "dev":
		if cmd, found := commandNamed("dev " + args[1]); found {
			return cmd, args[2:], 0, true
		}
		return fail(l.Tr("lab dev: no command %q\n\n%s", "lab dev：没有命令 %q\n\n%s"), args[1], l.Tr(devUsage, devUsageZh))
	}
	if cmd, found := commandNamed(args[0]); found {
		return cmd, args[1:], 0, true
	}
	if cmd, found := commandNamed("dev " + args[0]); found {
		return fail(l.Tr("lab: %s is a maintainer's command now: %s\n", "lab：%s 现在是维护者的命令：%s\n"),
			cmd.name, l.Cmd(shellWords(append([]string{"bin/lab", "dev"}, args...))))
	}
	return fail(l.Tr("lab: no command %q\n\n%s", "lab：没有命令 %q\n\n%s"), args[0], l.Tr(usage, usageZh))
}

// plainWord is a word that a shell reads as it is written.
var plainWord = regexp.MustCompile(`^[A-Za-z0-9_./:=@%+,-]+$`)

// shellWords is a command line that a shell reads back as words: a word
// with a character a shell would read otherwise is single-quoted.
func shellWords(words []string) string {
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = w
		if !plainWord.MatchString(w) {
			quoted[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
	}
	return strings.Join(quoted, " ")
}

// parseInterspersed parses fs's flags wherever they are among args, before
// or after the stage (lab check -v 04, lab check 04 -v), and returns the
// arguments that are not flags. The flag package stops at the first one that
// is not a flag; this goes on after it. After "--" nothing is a flag.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		if len(rest) < len(args) && args[len(args)-len(rest)-1] == "--" {
			return append(positional, rest...), nil
		}
		positional, args = append(positional, rest[0]), rest[1:]
	}
}

// flagError says in l what the flag package found wrong.
func flagError(l i18n.Lang, err error) string {
	if name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: "); ok {
		return fmt.Sprintf(l.Tr("there is no flag %s", "没有 %s 这个命令行参数"), name)
	}
	return err.Error()
}

// topics are the groups of commands that bin/lab help names, for the
// readers the attendees' screen leaves out: the instructors, and the
// maintainers (bin/lab help dev; maintainer is its name of before).
var topics = map[string][]string{
	"instructor": {"board", "class", "branches"},
}

// help is what bin/lab help [<command>|<topic>|all|dev [<command>]]
// prints, and whether it knew what it was asked.
func help(l i18n.Lang, args []string) (string, bool) {
	if len(args) == 0 {
		return l.Tr(usage, usageZh), true
	}
	switch args[0] {
	case "all":
		return l.Tr(reference, referenceZh), true
	case "dev", "maintainer":
		if len(args) == 1 {
			return l.Tr(devReference, devReferenceZh), true
		}
		if cmd, ok := commandNamed("dev " + args[1]); ok {
			return usageOf(l, cmd.word()), true
		}
		return l.Tr(devUsage, devUsageZh), false
	}
	if names, ok := topics[args[0]]; ok {
		var b strings.Builder
		for i, name := range names {
			text := usageOf(l, name)
			if i > 0 { // one heading for the topic
				_, text, _ = strings.Cut(text, "\n")
			}
			b.WriteString(text)
		}
		return b.String(), true
	}
	// A maintainer's command named as before (bin/lab help verify) is
	// shown in its new form.
	for _, word := range []string{args[0], "dev " + args[0]} {
		if cmd, ok := commandNamed(word); ok {
			return usageOf(l, cmd.word()), true
		}
	}
	return l.Tr(usage, usageZh), false
}

// usageOf is the paragraph of the reference that is about one command,
// named by its word (check, dev verify).
func usageOf(l i18n.Lang, word string) string {
	text, name, prefix := l.Tr(reference, referenceZh), word, "lab "
	if n, ok := strings.CutPrefix(word, "dev "); ok {
		text, name, prefix = l.Tr(devReference, devReferenceZh), n, "lab dev "
	}
	var out []string
	in := false
	for _, line := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(line, "  "+name+" ") || line == "  "+name:
			in = true
		case !strings.HasPrefix(line, "   "): // another paragraph, or none
			in = false
		}
		if in {
			out = append(out, line)
		}
	}
	if len(out) == 0 {
		return fmt.Sprintf(l.Tr("usage: lab %s\n", "用法：lab %s\n"), word)
	}
	out[0] = "  " + prefix + strings.TrimPrefix(out[0], "  ")
	return l.Tr("usage:\n", "用法：\n") + strings.Join(out, "\n") + "\n"
}
