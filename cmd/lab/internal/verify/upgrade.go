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

// A one-time step, removed once it has run: the report's digests were made
// before the guard left the tests' sentences out and put the catalogue in.
// A row whose digest of the old kind still matches the tree has not changed
// since it was measured, and neither has its catalogue if the stage's
// mistakes are the same as in the commit that wrote that digest: its digest
// of the new kind is then what make mutants would write now. Every other
// row keeps its digest, and the guard checks it again.

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"go/parser"
	"go/printer"
	"go/token"
	"path"
	"reflect"
	"slices"
	"strings"

	"cronlab.dev/cronlab/cmd/lab/internal/base"
	"cronlab.dev/cronlab/cmd/lab/internal/regions"
	"cronlab.dev/cronlab/cmd/lab/internal/stage"
)

// UpgradeDigests rewrites, in report, the digest of each row that the old
// rule still finds unchanged.
func UpgradeDigests(root string, stages []stage.Stage, report string) error {
	ref, err := base.ReferenceCommit(root)
	if err != nil {
		return err
	}
	scores, err := readScores(report)
	if err != nil {
		return err
	}
	suites, err := mutationSuites(root, stages, nil)
	if err != nil {
		return err
	}
	for i, score := range scores {
		if score.Inputs == "" {
			continue
		}
		j := slices.IndexFunc(suites, func(s stage.Stage) bool { return s.ID == score.Stage })
		if j < 0 {
			fmt.Printf("  %-24s no such stage or package now: kept\n", score.Stage)
			continue
		}
		s := suites[j]
		old, err := oldSuiteInputs(root, ref, s)
		if err != nil {
			return err
		}
		if old != score.Inputs {
			fmt.Printf("  %-24s changed since the report: kept, the guard checks it again\n", s.ID)
			continue
		}
		if len(s.Mistakes) > 0 {
			// The commit that wrote this digest into the report.
			out, err := base.Output(root, "git", "log", "--format=%H", "-S"+score.Inputs, ref, "--", strings.TrimPrefix(report, root+"/"))
			if err != nil {
				return err
			}
			commits := strings.Fields(out)
			if len(commits) == 0 {
				fmt.Printf("  %-24s no commit wrote its digest: kept\n", s.ID)
				continue
			}
			then, err := stagesAt(root, commits[0])
			if err != nil {
				return err
			}
			k := slices.IndexFunc(then, func(t stage.Stage) bool { return t.Slug == s.Slug })
			if k < 0 || !reflect.DeepEqual(edits(then[k].Mistakes), edits(s.Mistakes)) {
				fmt.Printf("  %-24s its catalogue changed since %.10s measured it: kept, the guard checks it again\n", s.ID, commits[0])
				continue
			}
		}
		if scores[i].Inputs, err = suiteInputs(root, ref, s); err != nil {
			return err
		}
		fmt.Printf("  %-24s unchanged: %s -> %s\n", s.ID, score.Inputs, scores[i].Inputs)
	}
	return writeScores(report, scores)
}

func edits(ms []stage.Mistake) [][]stage.Edit {
	var e [][]stage.Edit
	for _, m := range ms {
		e = append(e, m.Edits)
	}
	return e
}

// stagesAt reads the stages of commit c, in a worktree of its own.
func stagesAt(root, c string) ([]stage.Stage, error) {
	dir, err := base.Output(root, "mktemp", "-d")
	if err != nil {
		return nil, err
	}
	dir = strings.TrimSpace(dir) + "/tree"
	if _, err := base.Output(root, "git", "worktree", "add", "-q", "--detach", dir, c); err != nil {
		return nil, err
	}
	defer base.Output(root, "git", "worktree", "remove", "--force", dir)
	return stage.Load(dir)
}

// oldSuiteInputs is suiteInputs as it was: comments left out, sentences
// and catalogue in.
func oldSuiteInputs(root, ref string, s stage.Stage) (string, error) {
	h := sha256.New()
	what, _ := json.Marshal(struct {
		Regions []string
		Tests   []stage.Test
	}{s.Regions, s.Tests})
	h.Write(what)
	files, err := inputFiles(root, ref, s)
	if err != nil {
		return "", err
	}
	for _, f := range files {
		src, err := base.Output(root, "git", "show", ref+":"+f)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "\x00%s\x00%s", f, oldCodeOf(f, src))
		rs, err := regions.Parse(f, []byte(src))
		if err != nil {
			return "", err
		}
		for _, r := range rs {
			if slices.Contains(s.Regions, r.Name) {
				fmt.Fprintf(h, "\x00%s %v", r.Name, regions.FunctionsIn(f, src, r))
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// oldCodeOf is codeOf with the sentences left in.
func oldCodeOf(name, src string) string {
	if path.Ext(name) != ".go" {
		return src
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, 0) // mode 0: comments are not kept
	if err != nil {
		return src
	}
	var b strings.Builder
	if err := printer.Fprint(&b, fset, f); err != nil {
		return src
	}
	return b.String()
}
