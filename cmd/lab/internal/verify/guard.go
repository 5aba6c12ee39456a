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

// lab dev mutants --guard: what CI runs instead of the whole mutation run, which
// takes about 100 minutes on two cores (exercises/README.md). Each row of
// the committed report keeps a digest of what its score depends on (the
// stage's regions, tests and catalogue of mistakes, the Go code of the files
// that hold those regions and of the test packages, comments and the tests'
// sentences left out); a row whose digest still matches the tree is trusted
// as it is. A row whose
// inputs changed is checked again, on a bounded sample of its mutants (of
// those the kill matrix sends back, when only its specs changed: kills.go),
// and the guard fails when a mutant survives that the report does not
// already list as a survivor: that is how a score drops.

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"cronlab.dev/cronlab/cmd/lab/internal/base"
	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
	"cronlab.dev/cronlab/cmd/lab/internal/mutants"
	"cronlab.dev/cronlab/cmd/lab/internal/regions"
	"cronlab.dev/cronlab/cmd/lab/internal/stage"
)

// GuardOptions bound what the guard may spend.
type GuardOptions struct {
	// Sample is the most mutants checked of one row whose inputs changed
	// (0: all of them).
	Sample int
	// Budget is how long the guard may run; a changed row left when it is
	// spent fails the guard, saying which command refreshes the report.
	Budget time.Duration
}

// CmdMutantsGuard is `lab dev mutants --guard`: every row of the committed
// report whose inputs changed since it was written is checked again; it
// fails when one of them lost a mutant it used to kill.
func CmdMutantsGuard(l i18n.Lang, root string, stages []stage.Stage, report string, o GuardOptions) error {
	start := time.Now()
	ref, err := base.ReferenceCommit(root)
	if err != nil {
		return err
	}
	committed, err := readScores(report)
	if err != nil {
		return err
	}
	matrix, err := readKills(KillsFile(report))
	if err != nil {
		return err
	}
	suites, err := mutationSuites(root, stages, nil)
	if err != nil {
		return err
	}
	var problems, stale, behind []string
	behindSeconds := 0
	for _, s := range suites {
		if s.Dir != "" && !overlayable(s) {
			continue // its check runs a command on the tree: no mutant can be checked in it
		}
		was, found := findScore(committed, s.Slug)
		if !found && s.Dir == "" {
			continue // a package the report has never measured: make mutants does, when asked
		}
		inputs, err := suiteInputs(root, ref, s)
		if err != nil {
			return err
		}
		// A row measured before some of today's operators existed has
		// mutants that the report does not know: its digest cannot say so
		// (the operators are the tool's, in no row's inputs), so it is
		// named here, and its new mutants' survivors fail nothing.
		missing := []string{}
		if found {
			if missing, err = missingThatMutate(root, s, missingOperators(was)); err != nil {
				return err
			}
		}
		if len(missing) > 0 {
			behind = append(behind, s.Slug)
			behindSeconds += was.Seconds
		}
		if found && was.Inputs == inputs {
			if len(missing) > 0 {
				fmt.Printf(l.Tr("  %-24s unchanged since the report, but measured before the operators %s, which make mutants of it now: the report lacks those\n",
					"  %-24s 自报告以来没有变化，但测量它时还没有变异算子 %s，而它们现在会生成它的变异体：报告里没有这些变异体\n"), s.Slug, strings.Join(missing, ", "))
				continue
			}
			fmt.Printf(l.Tr("  %-24s unchanged since the report\n", "  %-24s 自报告以来没有变化\n"), s.Slug)
			continue
		}
		if o.Budget > 0 && time.Since(start) > o.Budget {
			problems = append(problems, fmt.Sprintf(l.Tr("%s changed and the guard's %s are spent: run `make mutants MUTANTS_STAGES=%s` and commit docs/mutation.*",
				"%s 变了，而守卫的 %s 已用完：运行 `make mutants MUTANTS_STAGES=%s` 并提交 docs/mutation.*"), s.Slug, o.Budget, s.Slug))
			continue
		}
		fmt.Printf(l.Tr("  %-24s changed since the report: checking up to %d of its mutants\n",
			"  %-24s 自报告以来有变化：检查它最多 %d 个变异体\n"), s.Slug, o.Sample)
		// With the row's kill matrix, the sample is drawn from the mutants
		// that the change can have moved (kills.go), not from all of them.
		var mr *measure
		if prior := findKills(matrix, rowOf(s)); prior != nil {
			mr = &measure{ref: ref, prior: prior, guard: true}
		}
		if len(missing) > 0 {
			if mr == nil {
				mr = &measure{ref: ref, guard: true}
			}
			ops := allOperators()
			if isSchemaRow(s) {
				ops = schemaOperators()
			}
			mr.only = slices.DeleteFunc(ops, func(op string) bool { return slices.Contains(missing, op) })
			fmt.Printf(l.Tr("  %-24s was measured before the operators %s: only the mutants of the others are checked\n",
				"  %-24s 测量时还没有变异算子 %s：只检查其他变异算子生成的变异体\n"), s.Slug, strings.Join(missing, ", "))
		}
		score, err := mutateSuite(l, root, stages, s, o.Sample, mr)
		if err != nil {
			return err
		}
		problems = append(problems, lostKills(l, was, score)...)
		for _, name := range newOperatorSurvivors(was, score) {
			fmt.Printf(l.Tr("  survives, made by an operator newer than the report (not counted against it): %s\n",
				"  存活，由比报告新的变异算子生成（不算作得分下降）：%s\n"), name)
		}
		stale = append(stale, s.Slug)
	}
	fmt.Printf(l.Tr("guard: %d s\n", "守卫：%d 秒\n"), int(time.Since(start).Seconds()))
	if len(behind) > 0 {
		fmt.Printf(l.Tr("the report's rows %s were measured before some of today's mutation operators existed (named above): the report lacks their mutants, and the guard holds those rows only to the mutants they had; make mutants MUTANTS_STAGES=\"%s\" measures them with every operator (their last measures took %d s in all)\n",
			"报告中 %s 这些行测量时，今天的某些变异算子还不存在（见上）：报告里没有它们生成的变异体，守卫也只按这些行原有的变异体来检查；运行 make mutants MUTANTS_STAGES=\"%s\" 用所有变异算子重新测量（它们上次测量共用了 %d 秒）\n"),
			strings.Join(behind, ", "), strings.Join(behind, " "), behindSeconds)
	}
	if len(stale) > 0 && len(problems) == 0 {
		fmt.Printf(l.Tr("their samples kept their scores, but the report is older than the code of %s: make mutants MUTANTS_STAGES=\"%s\" refreshes it\n",
			"抽样没有让得分下降，但报告比 %s 的代码旧：运行 make mutants MUTANTS_STAGES=\"%s\" 来更新它\n"),
			strings.Join(stale, ", "), strings.Join(stale, " "))
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s", strings.Join(problems, "\n"))
	}
	return nil
}

// lostKills are the survivors of now that the report did not list as
// survivors: mutants the check used to kill, or new ones it does not. A
// mutant of an operator that the report's row was not measured with is
// not one of them (newOperatorSurvivors): the report never had it.
func lostKills(l i18n.Lang, was, now mutationScore) []string {
	listed := map[string]bool{}
	for _, name := range was.Survivors {
		listed[keyOf(name)] = true
	}
	newer := newOperatorSurvivors(was, now)
	var out []string
	for _, name := range now.Survivors {
		if !listed[keyOf(name)] && !slices.Contains(newer, name) {
			out = append(out, fmt.Sprintf(l.Tr("%s: this mutant survives its check, and the report does not list it: %s\n  give it a spec that fails, or list it in test/mutation/equivalents.yaml with the reason; then make mutants MUTANTS_STAGES=%s",
				"%s：这个变异体通过了检查，而报告里没有列出它：%s\n  为它写一个会失败的测试用例，或把它连同理由列入 test/mutation/equivalents.yaml；然后运行 make mutants MUTANTS_STAGES=%s"),
				now.Stage, name, now.Stage))
		}
	}
	return out
}

// missingThatMutate are the operators of missing that make a mutant of
// row s in the reference: an operator whose rule matches nothing there
// leaves the row as it was measured. Making mutants reads the source
// alone, so this takes milliseconds.
func missingThatMutate(root string, s stage.Stage, missing []string) ([]string, error) {
	if len(missing) == 0 {
		return nil, nil
	}
	var ms []mutants.Mutant
	var err error
	switch {
	case isSchemaRow(s):
		ms, err = mutants.Markers(root, markerFiles)
	case s.Dir == "":
		ms, err = mutants.InPackage(root, s.Slug)
	default:
		ms, err = mutants.Of(root, s.Regions)
	}
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(slices.Clone(missing), func(op string) bool {
		return !slices.ContainsFunc(ms, func(m mutants.Mutant) bool { return string(m.Op) == op })
	}), nil
}

// newOperatorSurvivors are the survivors of now made by an operator that
// the report's row was not measured with (a row the report does not hold
// has none: all of its survivors are new).
func newOperatorSurvivors(was, now mutationScore) []string {
	if was.Stage == "" {
		return nil
	}
	missing := missingOperators(was)
	var out []string
	for _, name := range now.Survivors {
		if slices.Contains(missing, string(opOf(name))) {
			out = append(out, name)
		}
	}
	return out
}

func findScore(scores []mutationScore, id string) (mutationScore, bool) {
	i := slices.IndexFunc(scores, func(s mutationScore) bool { return s.Stage == id })
	if i < 0 {
		return mutationScore{}, false
	}
	return scores[i], true
}

// lineOf is the ":line" after a mutant's file in its name.
var lineOf = regexp.MustCompile(`^(\S+?):\d+ `)

// keyOf is the key of a mutant from its name: the name without the line,
// as mutants.Mutant.Key makes it, for a line moves when code above changes.
func keyOf(name string) string {
	return lineOf.ReplaceAllString(name, "$1 ")
}

// sample keeps at most n of the items, spread evenly over them, so that a
// sample of a stage reaches every function of it; n <= 0 keeps all.
func sample[T any](items []T, n int) []T {
	if n <= 0 || len(items) <= n {
		return items
	}
	out := make([]T, 0, n)
	for i := range n {
		out = append(out, items[i*len(items)/n])
	}
	return out
}

// suiteInputs is the digest of what a row's score depends on, read from
// the commit ref: the regions and tests the stage names, the edits of its
// catalogue of mistakes (every spec runs with each mistake made, and the row
// lists the specs that none of them fails; a mistake's names are not in
// it), and the Go code of every file that holds
// one of its regions and of every package its tests run, without comments
// or the sentences the tests lead their assertions with (codeOf). A
// comment, a hint or a sentence that changes leaves it as it was; the
// mutation tool itself is not in it (a change there is re-measured with make
// mutants).
func suiteInputs(root, ref string, s stage.Stage) (string, error) {
	h := sha256.New()
	var mistakes [][]stage.Edit
	for _, m := range s.Mistakes {
		mistakes = append(mistakes, m.Edits)
	}
	what, _ := json.Marshal(struct {
		Regions  []string
		Tests    []stage.Test
		Mistakes [][]stage.Edit `json:",omitempty"`
	}{s.Regions, s.Tests, mistakes})
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
		fmt.Fprintf(h, "\x00%s\x00%s", f, codeOf(f, src))
		// Where a region begins and ends is a comment too, and decides
		// which functions are mutated.
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

// inputFiles are the files of ref that hold one of s's regions, the Go
// files of the packages its tests run, and the given forms that a later
// stage has for a region of one of those files (stage.yaml's trusting:):
// in s's tree they stand where the region's code is, so a change to them
// can move a kill as a change to that code can. The row of the markers has
// the CRD besides: the markers are comments, which codeOf leaves out, and
// the CRD that controller-gen makes of them (CI fails when it is stale)
// stands for them. Sorted.
func inputFiles(root, ref string, s stage.Stage) ([]string, error) {
	var files []string
	regionFile := map[string]string{} // every region of ref, and its file
	out, err := base.Output(root, "git", "grep", "-l", "lab:begin", ref, "--", ".", ":!cmd/lab")
	if err != nil {
		return nil, err
	}
	for _, line := range strings.Fields(out) {
		f := strings.TrimPrefix(line, ref+":")
		src, err := base.Output(root, "git", "show", ref+":"+f)
		if err != nil {
			return nil, err
		}
		rs, err := regions.Parse(f, []byte(src))
		if err != nil {
			return nil, err
		}
		for _, r := range rs {
			regionFile[r.Name] = f
		}
		if slices.ContainsFunc(rs, func(r regions.Region) bool { return slices.Contains(s.Regions, r.Name) }) {
			files = append(files, f)
		}
	}
	for _, t := range s.Tests {
		dir := strings.TrimPrefix(t.Package, "./")
		out, err := base.Output(root, "git", "ls-tree", "--name-only", ref, dir+"/")
		if err != nil {
			return nil, err
		}
		for _, f := range strings.Fields(out) {
			if path.Ext(f) == ".go" {
				files = append(files, f)
			}
		}
	}
	if stages, err := stage.Load(root); err == nil {
		later := false
		for _, t := range stages {
			if later {
				for region, given := range t.Trusting {
					if slices.Contains(files, regionFile[region]) {
						files = append(files, path.Join(filepath.ToSlash(t.Dir), given))
					}
				}
			}
			later = later || t.Slug == s.Slug
		}
	}
	if isSchemaRow(s) {
		files = append(files, filepath.ToSlash(crdFile))
	}
	slices.Sort(files)
	return slices.Compact(files), nil
}

// codeOf is a Go file's code as gofmt prints it with its comments dropped,
// and with every say.Both(...) taken out (test/say: the sentence, in two
// languages, that a failing assertion leads with); any other file as it is.
// A sentence is printed only once the assertion has failed, so rewording
// it, translating it, or giving an assertion one it lacked cannot change
// which mutant a spec kills: it should not send a row of an hour's
// measuring back to be measured.
func codeOf(name, src string) string {
	if path.Ext(name) != ".go" {
		return src
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, 0) // mode 0: comments are not kept
	if err != nil {
		return src
	}
	withoutSentences(f)
	var b strings.Builder
	if err := printer.Fprint(&b, fset, f); err != nil {
		return src
	}
	return b.String()
}

// withoutSentences takes the say.Both calls out of f: out of the arguments
// of the call they are passed to (Expect(...).To(m, say.Both(...)) reads as
// Expect(...).To(m), as it did before it had a sentence), and, anywhere
// else, down to say.Both() with no arguments. The package is known by its
// import path, whatever name the file gives it.
func withoutSentences(f *ast.File) {
	name := ""
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == "cronlab.dev/cronlab/test/say" {
			name = "say"
			if imp.Name != nil {
				name = imp.Name.Name
			}
		}
	}
	if name == "" {
		return
	}
	isSentence := func(e ast.Expr) bool {
		call, ok := e.(*ast.CallExpr)
		if !ok {
			return false
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok || sel.Sel.Name != "Both" {
			return false
		}
		pkg, ok := sel.X.(*ast.Ident)
		return ok && pkg.Name == name
	}
	ast.Inspect(f, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok {
			if isSentence(call) {
				call.Args = nil
				call.Ellipsis = token.NoPos
				return false
			}
			call.Args = slices.DeleteFunc(call.Args, isSentence)
		}
		return true
	})
}
