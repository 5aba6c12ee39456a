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

// lab mutants: the catalogue's check, run on the mistakes nobody listed.
// Each stage's generic mutants (package mutants) are made on the tree where
// the stage is solved and the later ones are still stubs, as for the
// catalogue, and checked with the stage's own check: first all together in
// one schema build, then each one that the schema's check does not catch
// built alone, whose verdict is final. The scores go to a JSON file that
// the next run merges into (a run may name only some stages) and that the
// Markdown report is made from.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"cronlab.dev/cronlab/cmd/lab/internal/base"
	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
	"cronlab.dev/cronlab/cmd/lab/internal/mutants"
	"cronlab.dev/cronlab/cmd/lab/internal/run"
	"cronlab.dev/cronlab/cmd/lab/internal/stage"
	"cronlab.dev/cronlab/cmd/lab/internal/starter"
)

// A mutationScore is what the generic mutants of one stage came to.
type mutationScore struct {
	Stage      string   `json:"stage"`
	Slug       string   `json:"slug"`
	Mutants    int      `json:"mutants"`
	NotCompile int      `json:"notCompile"`
	Killed     int      `json:"killed"`
	Survivors  []string `json:"survivors"`
	Unmade     []string `json:"unmade,omitempty"`
	Seconds    int      `json:"seconds"`
}

// Score is the share of the mutants that compile that the check kills.
func (m mutationScore) Score() float64 {
	if n := m.Killed + len(m.Survivors); n > 0 {
		return float64(m.Killed) / float64(n)
	}
	return 1
}

// CmdMutants is `lab mutants [<stage>…]`: the generic mutants of the stages
// named (or of every stage with Go regions), checked; the scores are
// merged into report (JSON), and its Markdown twin is written beside it.
func CmdMutants(l i18n.Lang, root string, stages []stage.Stage, only []string, report string) error {
	if err := starter.EnsureControllerGen(root); err != nil {
		return err
	}
	todo, err := stage.Select(stages, only)
	if err != nil {
		return err
	}
	scores, err := readScores(report)
	if err != nil {
		return err
	}
	for _, s := range todo {
		if !overlayable(s) {
			continue // its check runs a command on the tree: no overlays
		}
		fmt.Printf(l.Tr("stage %s (%s)\n", "第 %s 阶段（%s）\n"), s.ID, s.TitleIn(l))
		score, err := mutateStage(l, root, stages, s)
		if err != nil {
			return err
		}
		if score.Mutants == 0 {
			continue
		}
		fmt.Printf(l.Tr("  stage %s: %d mutants, %d do not compile, %d killed, %d survived: %.1f%% (%ds)\n",
			"  第 %s 阶段：%d 个变异体，%d 个无法编译，%d 个被发现，%d 个存活：%.1f%%（%d 秒）\n"),
			s.ID, score.Mutants, score.NotCompile, score.Killed, len(score.Survivors), 100*score.Score(), score.Seconds)
		scores = slices.DeleteFunc(scores, func(o mutationScore) bool { return o.Stage == s.ID })
		scores = append(scores, score)
		slices.SortFunc(scores, func(a, b mutationScore) int { return strings.Compare(a.Stage, b.Stage) })
		// Written after each stage: a long run that stops keeps what it found.
		if err := writeScores(report, scores); err != nil {
			return err
		}
	}
	fmt.Printf(l.Tr("report: %s\n", "报告：%s\n"), strings.TrimSuffix(report, ".json")+".md")
	return nil
}

// mutateStage makes and checks the generic mutants of one stage.
func mutateStage(l i18n.Lang, root string, stages []stage.Stage, s stage.Stage) (mutationScore, error) {
	start := time.Now()
	score := mutationScore{Stage: s.ID, Slug: s.Slug, Survivors: []string{}}
	var dir string
	var cleanup func()
	var err error
	if next, ok := stage.Next(stages, s); ok {
		dir, _, cleanup, err = starter.Tree(l, root, stages, next, verifyTree(root, ""))
	} else {
		dir, cleanup, err = scratchTree(root, "")
	}
	if err != nil {
		return score, err
	}
	defer cleanup()

	all, err := mutants.Of(dir, s.Regions)
	if err != nil || len(all) == 0 {
		return score, err
	}
	ok, not, err := mutants.Compiling(dir, all)
	if err != nil {
		return score, err
	}
	score.Mutants, score.NotCompile = len(all), len(not)
	if rs, err := run.ChecksWith(l, root, dir, s, run.Quiet, false, run.BuildOpts{}); err != nil {
		return score, fmt.Errorf("stage %s: its check fails before any mutant is made: %s", s.ID, firstFailure(rs, err))
	}
	s.Mistakes = nil
	for _, m := range ok {
		s.Mistakes = append(s.Mistakes, m.Mistake())
	}
	c := newCatalogueRun("")
	caught := c.checkInSchema(l, root, dir, s)
	var alone []int
	for i := range s.Mistakes {
		if !caught[i] {
			alone = append(alone, i)
		}
	}
	score.Killed = len(caught)
	c.eachAlone(l, root, dir, s, alone, func(i int, o outcome) {
		name := s.Mistakes[i].Name
		switch {
		case o.unmade != nil:
			score.Unmade = append(score.Unmade, name+": "+o.unmade.Error())
		case compileErrors(o.rs) != "":
			score.NotCompile++ // the type checker let it through; the compiler did not
		case o.err == nil:
			fmt.Printf(l.Tr("  SURVIVED  %s\n", "  存活  %s\n"), name)
			score.Survivors = append(score.Survivors, name)
		case base.IsSetupError(o.err):
			score.Unmade = append(score.Unmade, name+": "+o.err.Error())
		default:
			score.Killed++
			fmt.Printf(l.Tr("  killed  %s\n        by: %s\n", "  被发现  %s\n        发现它的：%s\n"), name, firstFailure(o.rs, o.err))
		}
	})
	score.Seconds = int(time.Since(start).Seconds())
	return score, nil
}

func readScores(path string) ([]mutationScore, error) {
	raw, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var scores []mutationScore
	if err := json.Unmarshal(raw, &scores); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return scores, nil
}

func writeScores(path string, scores []mutationScore) error {
	raw, err := json.MarshalIndent(scores, "", "  ")
	if err != nil {
		return err
	}
	if err := base.WriteFileAtomic(path, append(raw, '\n')); err != nil {
		return err
	}
	return base.WriteFileAtomic(strings.TrimSuffix(path, ".json")+".md", []byte(mutationReport(scores)))
}

// mutationReport is the Markdown report of the scores.
func mutationReport(scores []mutationScore) string {
	var b strings.Builder
	b.WriteString(`# The checks against the mistakes nobody listed

Generated by ` + "`make mutants`" + ` (` + "`bin/lab mutants [<stage>…]`" + `); do not edit. Each stage's
generic mutants are made by rule from the reference, in the regions the stage asks the attendee to write
(` + "`cmd/lab/internal/mutants`" + `: a statement left out, a condition negated, a boundary moved, one side of
` + "`&&`" + ` or ` + "`||`" + ` dropped, an error swallowed, a function returning zero values), and checked with the
stage's own check, as ` + "`lab verify`" + ` checks the hand-written catalogue. A mutant that does not compile is
set aside: the compiler caught it. The score is the share of the others that the check kills.

| stage | mutants | do not compile | killed | survived | score | time |
|---|---|---|---|---|---|---|
`)
	for _, s := range scores {
		fmt.Fprintf(&b, "| %s %s | %d | %d | %d | %d | %.1f %% | %d s |\n", s.Stage, s.Slug, s.Mutants, s.NotCompile, s.Killed, len(s.Survivors), 100*s.Score(), s.Seconds)
	}
	b.WriteString("\n## Survivors\n\nEach one is a mistake that passes its stage's check: it wants a spec that catches it, or a line\nthat says why no test could (an equivalent mutant).\n")
	for _, s := range scores {
		if len(s.Survivors) == 0 && len(s.Unmade) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n### %s %s\n\n", s.Stage, s.Slug)
		for _, name := range s.Survivors {
			fmt.Fprintf(&b, "- `%s`\n", name)
		}
		for _, name := range s.Unmade {
			fmt.Fprintf(&b, "- could not be checked: %s\n", name)
		}
	}
	return b.String()
}

// MutantsReport is where make mutants keeps the scores, in the clone.
func MutantsReport(root string) string { return filepath.Join(root, "docs", "mutation.json") }
