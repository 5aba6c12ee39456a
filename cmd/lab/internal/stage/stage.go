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

package stage

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"sigs.k8s.io/yaml"

	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
)

// A stage is one step of the workshop: exercises/<slug>/ holds its
// README.md (what to do) and stage.yaml (what the tool needs to know).
type Stage struct {
	// Slug is the stage's identity ("scheduling"): its folder's name, and
	// what everything stored or sent names it by.
	Slug string `json:"-"`
	// Num is its place in exercises/stages.yaml, two digits from "01": what
	// people type and read, never stored, for it changes when a stage is
	// inserted before it.
	Num string `json:"-"`
	Dir string `json:"-"` // "exercises/scheduling"

	Title string `json:"title"`
	// TitleZh is the title in Chinese (TitleIn chooses).
	TitleZh string `json:"titleZh"`
	// Regions are the lab:begin names the attendee writes in this stage.
	Regions []string `json:"regions"`
	// Trusting names, for a region of Regions, a Go file of the stage's
	// folder (a build tag keeps it out of builds) with a simpler form of
	// each of the region's functions, which the starters up to this stage
	// have instead of TODO stubs: the stages before it then run on code
	// that works, only not in the cases this stage teaches. Its own starter
	// marks the forms TODO too (regions.Stub's Given).
	Trusting map[string]string `json:"trusting,omitempty"`
	// Before are commands `lab check` runs first, such as make manifests.
	Before []string `json:"before,omitempty"`
	// Tests say which tests show that the stage is done.
	Tests []Test `json:"tests"`
	// Hints help an attendee who is stuck (package hints).
	Hints []Hint `json:"hints"`
	// Hint is the one hint of a stage.yaml older than Hints, read as the
	// first level, so that a newer lab tool still reads a lab/ branch made
	// before it.
	Hint string `json:"hint,omitempty"`
	// Functions say which specs check each function the attendee writes
	// (package functions).
	Functions []Function `json:"functions"`
	// Mistakes are what an attendee might write instead of the reference,
	// each of which the stage's check must fail on (package verify).
	Mistakes []Mistake `json:"mistakes,omitempty"`
}

type Test struct {
	Package string `json:"package"`
	// Run is a go test -run pattern; Labels a Ginkgo label filter.
	Run    string `json:"run,omitempty"`
	Labels string `json:"labels,omitempty"`
	// Timeout, when set, replaces the test binary's ten minutes: lab
	// mutants gives a few times the tests' own time, for a mutant that
	// loops forever is caught by it, and need not wait ten minutes.
	Timeout time.Duration `json:"-"`
}

func (t Test) Args() []string {
	args := []string{"test", "-count=1", t.Package}
	if t.Run != "" {
		args = append(args, "-run", t.Run)
	}
	if t.Labels != "" {
		// fail-on-empty: a filter that matches no test must not count as a pass.
		args = append(args, "-ginkgo.label-filter="+t.Labels, "-ginkgo.fail-on-empty")
	}
	return args
}

// Command is the go test command that runs the test by hand, as `lab check`
// does.
func (t Test) Command() string {
	args := t.Args()
	for i, a := range args {
		if strings.ContainsAny(a, " *|()^$&!") {
			args[i] = "'" + a + "'"
		}
	}
	return "go " + strings.Join(args, " ")
}

// ListArgs are go test arguments that only show that the tests exist: they
// list the matching Go tests, or walk the matching Ginkgo specs without
// running them (dry run, which also skips BeforeSuite). A filter that matches
// nothing fails, as in args.
func (t Test) ListArgs() []string {
	args := []string{"test", "-count=1", t.Package}
	switch {
	case t.Labels != "":
		return append(args, "-ginkgo.label-filter="+t.Labels, "-ginkgo.fail-on-empty", "-ginkgo.dry-run")
	case t.Run != "":
		return append(args, "-list", t.Run)
	default:
		return append(args, "-list", ".")
	}
}

func (s Stage) Readme() string { return filepath.Join(s.Dir, "README.md") }

// Load reads the stages in the order of exercises/stages.yaml (list.go),
// each from exercises/<slug>/stage.yaml.
func Load(root string) ([]Stage, error) {
	slugs, err := readList(root)
	if err != nil {
		return nil, err
	}
	seen := map[string]string{}
	var stages []Stage
	for i, slug := range slugs {
		dir := filepath.Join(root, "exercises", slug)
		raw, err := os.ReadFile(filepath.Join(dir, "stage.yaml"))
		if err != nil {
			return nil, err
		}
		var s Stage
		if err := yaml.UnmarshalStrict(raw, &s); err != nil {
			if strings.Contains(err.Error(), "unknown field") {
				// A bin/lab built before a pull meets the fields of newer stages.
				return nil, i18n.Errorf("%s/stage.yaml: %v: this bin/lab does not know that field. If you pulled new stages, build it again (make lab); if you wrote the field, check its name in exercises/README.md",
					"%s/stage.yaml：%v：这个 bin/lab 不认识这个字段。如果你刚拉取了新的阶段，请重新构建它（make lab）；如果这个字段是你写的，请对照 exercises/README.md 检查它的名字", dir, err)
			}
			return nil, fmt.Errorf("%s/stage.yaml: %w", dir, err)
		}
		s.Slug, s.Num = slug, fmt.Sprintf("%02d", i+1)
		s.Dir, _ = filepath.Rel(root, dir)
		if s.Hint != "" && len(s.Hints) == 0 {
			s.Hints = []Hint{{En: s.Hint}}
		}
		for i := range s.Hints {
			s.Hints[i].ID = HintID(s.Slug, i+1)
		}
		if err := checkHints(s); err != nil {
			return nil, err
		}
		for _, r := range s.Regions {
			if other, ok := seen[r]; ok {
				return nil, fmt.Errorf("region %s is in stage %s and stage %s", r, other, s.Slug)
			}
			seen[r] = s.Slug
		}
		stages = append(stages, s)
	}
	return stages, nil
}

// Find accepts a stage's number ("06" or "6"), its slug ("scheduling"), or
// both as a folder was named before stages had names ("06-scheduling").
func Find(stages []Stage, name string) (Stage, error) {
	for _, s := range stages {
		if name == s.Num || name == strings.TrimLeft(s.Num, "0") || name == s.Num+"-"+s.Slug || name == s.Slug {
			return s, nil
		}
	}
	var names []string
	for _, s := range stages {
		names = append(names, s.Num+" "+s.Slug)
	}
	return Stage{}, i18n.Errorf("no stage %q; name one by its number or its name: %s", "没有阶段 %q；请用编号或名字指定阶段：%s", name, strings.Join(names, ", "))
}

// TitleIn is the stage's title in l.
func (s Stage) TitleIn(l i18n.Lang) string {
	if l == i18n.Chinese && s.TitleZh != "" {
		return s.TitleZh
	}
	return s.Title
}

// ReadmeIn is the stage's README in l: README.zh-CN.md beside README.md,
// when it is there.
func (s Stage) ReadmeIn(l i18n.Lang, root string) string {
	if l == i18n.Chinese {
		zh := filepath.ToSlash(filepath.Join(s.Dir, "README.zh-CN.md"))
		if _, err := os.Stat(filepath.Join(root, zh)); err == nil {
			return zh
		}
	}
	return s.Readme()
}

// BinaryArgs are the test binary's flags for what t.args gives go test;
// failFast stops the tests at the first failure.
func (t Test) BinaryArgs(failFast bool) []string {
	timeout := 10 * time.Minute
	if t.Timeout > 0 {
		timeout = t.Timeout
	}
	args := []string{"-test.v=test2json", "-test.timeout=" + timeout.String()}
	if failFast {
		args = append(args, "-test.failfast")
	}
	if t.Run != "" {
		args = append(args, "-test.run="+t.Run)
	}
	if t.Labels != "" {
		args = append(args, "-ginkgo.label-filter="+t.Labels, "-ginkgo.fail-on-empty")
	}
	return args
}

// Select returns the stages named, or all of them.
func Select(stages []Stage, names []string) ([]Stage, error) {
	if len(names) == 0 {
		return stages, nil
	}
	var out []Stage
	for _, name := range names {
		s, err := Find(stages, name)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

func Selected(todo []Stage, s Stage) bool {
	for _, t := range todo {
		if t.Slug == s.Slug {
			return true
		}
	}
	return false
}

func Next(stages []Stage, s Stage) (Stage, bool) {
	for i := range stages {
		if stages[i].Slug == s.Slug && i+1 < len(stages) {
			return stages[i+1], true
		}
	}
	return Stage{}, false
}

func Previous(stages []Stage, s Stage) (Stage, bool) {
	for i := range stages {
		if stages[i].Slug == s.Slug && i > 0 {
			return stages[i-1], true
		}
	}
	return Stage{}, false
}
