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
	"path/filepath"
	"strings"

	"cronlab.dev/cronlab/cmd/lab/internal/apiserver"
	"cronlab.dev/cronlab/cmd/lab/internal/base"
	"cronlab.dev/cronlab/cmd/lab/internal/board"
	"cronlab.dev/cronlab/cmd/lab/internal/check"
	"cronlab.dev/cronlab/cmd/lab/internal/class"
	"cronlab.dev/cronlab/cmd/lab/internal/doctor"
	"cronlab.dev/cronlab/cmd/lab/internal/gotest"
	"cronlab.dev/cronlab/cmd/lab/internal/hints"
	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
	"cronlab.dev/cronlab/cmd/lab/internal/perturb"
	"cronlab.dev/cronlab/cmd/lab/internal/progress"
	"cronlab.dev/cronlab/cmd/lab/internal/roster"
	"cronlab.dev/cronlab/cmd/lab/internal/run"
	"cronlab.dev/cronlab/cmd/lab/internal/stage"
	"cronlab.dev/cronlab/cmd/lab/internal/start"
	"cronlab.dev/cronlab/cmd/lab/internal/traceview"
	"cronlab.dev/cronlab/cmd/lab/internal/verify"
	"cronlab.dev/cronlab/cmd/lab/internal/watch"
)

// A call is one run of a command: what main found (the language, the clone,
// its stages) and what the command line said (the arguments that are not
// flags, and the flags the command defines).
type call struct {
	l      i18n.Lang
	root   string
	stages []stage.Stage
	args   []string

	run, fresh, verbose, json, referenceTested bool

	guard   verify.GuardOptions // lab dev mutants --guard
	guarded bool
	// fullMeasure is lab dev mutants --full: every mutant checked again.
	fullMeasure bool

	board board.Options // lab board
	name  string        // lab join --name
	down  bool          // lab hand --down

	roster roster.Flags // lab class

	trace traceview.Options // lab trace
}

// A command is one word of `lab <command>` (or, for the maintainers', of
// `lab dev <command>`: dev.go): the flags it takes and the package that
// does it. A new command is a row here, a line in usage and usageZh and a
// paragraph in reference and referenceZh (for a maintainers' command, a row
// in devCommands and its line and paragraph in dev.go), and a Cmd function
// in the package it belongs to.
type command struct {
	name string
	// dev: a maintainers' command, typed after lab dev.
	dev   bool
	flags func(fs *flag.FlagSet, c *call)
	run   func(c call) error
	// anywhere: the command needs no clone (c.root and c.stages are
	// empty), and its file arguments are the working directory's.
	anywhere bool
}

var commands = []command{
	{name: "list",
		flags: func(fs *flag.FlagSet, c *call) { fs.BoolVar(&c.run, "run", false, "check every stage now") },
		run:   func(c call) error { return check.CmdList(c.l, c.root, c.stages, c.run) }},
	{name: "start",
		flags: func(fs *flag.FlagSet, c *call) { fs.BoolVar(&c.fresh, "fresh", false, "start from the reference") },
		run: func(c call) error {
			return c.oneStage(func(s stage.Stage) error { return start.CmdStart(c.l, c.root, c.stages, s, c.fresh) })
		}},
	{name: "check",
		flags: func(fs *flag.FlagSet, c *call) {
			fs.BoolVar(&c.verbose, "v", false, "also print the tests' whole output")
			fs.BoolVar(&c.verbose, "verbose", false, "the same as -v")
			fs.BoolVar(&c.json, "json", false, "print the result for tools (docs/lab-json.md)")
		},
		run: func(c call) error {
			return c.stageOrBranch(func(s stage.Stage) error {
				if c.json {
					return check.CmdCheckJSON(c.root, s)
				}
				v := run.Summary
				if c.verbose {
					v = run.FullText
				}
				return check.CmdCheck(c.l, c.root, c.stages, s, v)
			})
		}},
	{name: "watch", run: func(c call) error {
		follow := len(c.args) == 0 // on the branch's stage: follow the branch
		return c.stageOrBranch(func(s stage.Stage) error { return watch.CmdWatch(c.l, c.root, c.stages, s, follow) })
	}},
	{name: "hint", run: func(c call) error {
		return c.stageOrBranch(func(s stage.Stage) error { return hints.CmdHint(c.l, c.root, s) })
	}},
	{name: "status", run: func(c call) error {
		err := progress.CmdStatus(c.l, c.root, c.stages)
		class.CmdStatus(c.l, class.Dir(c.root))
		return err
	}},
	{name: "join",
		flags: func(fs *flag.FlagSet, c *call) {
			fs.StringVar(&c.name, "name", "", "the name the board shows (default: a made-up one)")
		},
		run: func(c call) error { return class.CmdJoin(c.l, class.Dir(c.root), c.args, c.name) }},
	{name: "leave", run: func(c call) error { return class.CmdLeave(c.l, class.Dir(c.root)) }},
	{name: "hand",
		flags: func(fs *flag.FlagSet, c *call) { fs.BoolVar(&c.down, "down", false, "lower the hand") },
		run: func(c call) error {
			id, _ := stageOfBranch(c.stages)
			return class.CmdHand(c.l, class.Dir(c.root), id, c.args, c.down)
		}},
	{name: "solution", run: func(c call) error {
		return c.oneStage(func(s stage.Stage) error { return start.CmdSolution(c.l, c.root, c.stages, s) })
	}},
	{name: "branches", run: func(c call) error { return start.CmdBranches(c.l, c.root, c.stages) }},
	{name: "doctor", run: func(c call) error { return doctor.CmdDoctor(c.l, c.root) }},
	{name: "board",
		flags: func(fs *flag.FlagSet, c *call) {
			fs.StringVar(&c.board.Addr, "addr", ":8080", "where the board listens (host:port)")
			fs.StringVar(&c.board.DB, "db", "", "the board's SQLite file (default bin/lab-state/board.db)")
			fs.StringVar(&c.board.Code, "code", "", "the class code (default: the stored one, or a new one)")
		},
		run: func(c call) error {
			c.board.Names = chineseSpecNames(c.root)
			return board.CmdBoard(c.l, base.StateDir(c.root), boardStages(c.stages), c.board)
		}},
	{name: "class",
		flags: func(fs *flag.FlagSet, c *call) {
			fs.StringVar(&c.roster.Class, "class", "lab", "the class's name: each attendee's namespace is <class>-<name>")
			fs.StringVar(&c.roster.Out, "out", "", "where the kubeconfigs go (default dist/class/<class>)")
			fs.Float64Var(&c.roster.Hours, "hours", 12, "how many hours the attendees' tokens last")
		},
		run: func(c call) error { return roster.CmdClass(c.l, c.root, c.args, c.roster) }},
	{name: "trace", anywhere: true,
		flags: func(fs *flag.FlagSet, c *call) {
			fs.StringVar(&c.trace.HTML, "html", "", "where the page goes (default: beside the trace, FILE.html)")
			fs.StringVar(&c.trace.SVG, "svg", "", "also write the picture alone, as SVG")
		},
		run: func(c call) error { return traceview.CmdTrace(c.l, c.args, c.trace) }},
	{name: "perturb", run: func(c call) error { return perturb.CmdPerturb(c.l, c.root, c.args) }},
	{name: "stop", run: func(c call) error { return apiserver.CmdStop(c.l, c.root) }},
	// Started by the tool itself: the class queue's sender (internal/class)
	// and the shared API server (internal/apiserver).
	{name: "class-send", run: func(c call) error {
		if len(c.args) != 1 {
			return fmt.Errorf("usage: lab class-send DIR")
		}
		return class.CmdSend(c.args[0])
	}},
	{name: "serve-apiserver", run: func(c call) error {
		if len(c.args) != 2 {
			return fmt.Errorf("usage: lab serve-apiserver DIR CRD-HASH")
		}
		return apiserver.Serve(c.args[0], c.args[1])
	}},
}

func referenceTested(fs *flag.FlagSet, c *call) {
	fs.BoolVar(&c.referenceTested, "reference-tested", false, "make test has just passed here")
}

// word is what follows bin/lab to run cmd: "check", "dev verify".
func (cmd command) word() string {
	if cmd.dev {
		return "dev " + cmd.name
	}
	return cmd.name
}

// commandNamed is the command whose word is word, among the attendees' and
// instructors' commands and the maintainers'.
func commandNamed(word string) (command, bool) {
	for _, table := range [][]command{commands, devCommands} {
		for _, cmd := range table {
			if cmd.word() == word {
				return cmd, true
			}
		}
	}
	return command{}, false
}

// oneStage runs f on the stage the command names.
func (c call) oneStage(f func(stage.Stage) error) error {
	if len(c.args) == 0 {
		return fmt.Errorf("%s", c.l.Tr("which stage? see `lab list`", "哪一个阶段？运行 `lab list` 查看"))
	}
	s, err := stage.Find(c.stages, c.args[0])
	if err != nil {
		return err
	}
	return f(s)
}

// stageOrBranch runs f on the stage the command names, or else on the
// stage of the lab/<stage> branch checked out.
func (c call) stageOrBranch(f func(stage.Stage) error) error {
	if len(c.args) == 0 {
		id, err := stageOfBranch(c.stages)
		if err != nil {
			return err
		}
		c.args = []string{id}
	}
	return c.oneStage(f)
}

// stageOfBranch is the slug of the stage whose lab branch is checked out.
func stageOfBranch(stages []stage.Stage) (string, error) {
	out, err := base.Output("", "git", "branch", "--show-current")
	if err != nil {
		return "", err
	}
	branch := strings.TrimSpace(out)
	s, ok := stage.FromBranch(stages, branch)
	if !ok {
		return "", i18n.Errorf("on branch %q, not a lab/<stage> branch: say which stage, as in `lab check 06` or `lab check scheduling`, or start one with `lab start 01`",
			"当前在分支 %q 上，它不是 lab/<阶段> 分支：请指明阶段，例如 `lab check 06` 或 `lab check scheduling`，或者用 `lab start 01` 开始一个阶段", branch)
	}
	return s.Slug, nil
}

// chineseSpecNames names the specs on the board's Chinese page from the
// names files of the clone at root, as bin/lab check names them; each
// package's file is read once.
func chineseSpecNames(root string) board.ChineseName {
	byPkg := map[string]map[string]string{}
	return func(pkg, name string) string {
		names, ok := byPkg[pkg]
		if !ok {
			names = gotest.ChineseNames(filepath.Join(root, filepath.FromSlash(pkg)))
			byPkg[pkg] = names
		}
		if zh := gotest.ChineseName(name, names); zh != name {
			return zh
		}
		return ""
	}
}

// boardStages are the columns of the class board.
func boardStages(stages []stage.Stage) []board.StageInfo {
	var out []board.StageInfo
	for _, s := range stages {
		out = append(out, board.StageInfo{ID: s.Slug, Num: s.Num, Title: s.Title, TitleZh: s.TitleZh})
	}
	return out
}
