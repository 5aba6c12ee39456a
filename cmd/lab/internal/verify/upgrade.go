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

// A one-time step, removed once it has run: rows measured, at commit
// measured, by a lab mutants older than the guard's new digest (which
// leaves the tests' sentences out and takes the catalogue in). A row whose
// stored digest is the old rule's at measured was measured there; if the new
// rule finds nothing changed between measured and the reference (only
// sentences, comments or hints did), its digest of the new kind is what make
// mutants would write now. Every other row keeps its digest, and the guard
// checks it again.

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"go/parser"
	"go/printer"
	"go/token"
	"path"
	"slices"
	"strings"

	"cronlab.dev/cronlab/cmd/lab/internal/base"
	"cronlab.dev/cronlab/cmd/lab/internal/regions"
	"cronlab.dev/cronlab/cmd/lab/internal/stage"
)

// UpgradeDigestsFrom rewrites, in report, the digest of each row measured
// at commit measured whose inputs the new rule finds unchanged since.
func UpgradeDigestsFrom(root string, stages []stage.Stage, report, measured string) error {
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
	then, err := stagesAt(root, measured)
	if err != nil {
		return err
	}
	suitesThen, err := mutationSuites(root, then, nil)
	if err != nil {
		return err
	}
	for i, score := range scores {
		if score.Inputs == "" {
			continue
		}
		j := slices.IndexFunc(suites, func(s stage.Stage) bool { return s.ID == score.Stage })
		k := slices.IndexFunc(suitesThen, func(s stage.Stage) bool { return s.ID == score.Stage })
		if j < 0 || k < 0 {
			fmt.Printf("  %-24s not a stage or package then and now: kept\n", score.Stage)
			continue
		}
		old, err := oldSuiteInputs(root, measured, suitesThen[k])
		if err != nil {
			return err
		}
		if old != score.Inputs {
			fmt.Printf("  %-24s not measured at %.10s: kept\n", score.Stage, measured)
			continue
		}
		newThen, err := suiteInputs(root, measured, suitesThen[k])
		if err != nil {
			return err
		}
		newNow, err := suiteInputs(root, ref, suites[j])
		if err != nil {
			return err
		}
		if newThen != newNow {
			fmt.Printf("  %-24s changed since %.10s measured it: kept, the guard checks it again\n", score.Stage, measured)
			continue
		}
		scores[i].Inputs = newNow
		fmt.Printf("  %-24s measured at %.10s, unchanged since: %s -> %s\n", score.Stage, measured, score.Inputs, newNow)
	}
	return writeScores(report, scores)
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
