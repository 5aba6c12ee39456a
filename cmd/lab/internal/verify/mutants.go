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

// lab dev mutants: the catalogue's check, run on the mistakes nobody listed.
// Each stage's mutants (package mutants: the generic operators' and the
// Kubernetes operators') are made on the tree where
// the stage is solved and the later ones are still stubs, as for the
// catalogue, and checked with the stage's own check: first all together in
// one schema build, then each one that the schema's check does not catch
// built alone, whose verdict is final. The catalogue's own mistakes go with
// them, and every spec runs with each one made: a spec that neither a
// catalogue mistake nor a mutant makes fail is listed, for it cannot fail.
// The packages of the reference are judged the same way, with mutants of
// all of their functions and all of their tests, for the specs that no
// stage runs. The scores go to a JSON file that the next run merges into
// (a run may name only some stages) and that the Markdown report is made
// from.

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"sigs.k8s.io/yaml"

	"cronlab.dev/cronlab/cmd/lab/internal/base"
	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
	"cronlab.dev/cronlab/cmd/lab/internal/mutants"
	"cronlab.dev/cronlab/cmd/lab/internal/run"
	"cronlab.dev/cronlab/cmd/lab/internal/stage"
	"cronlab.dev/cronlab/cmd/lab/internal/starter"
)

// A mutationScore is what the mutants of one stage, or of one
// package of the reference, came to.
type mutationScore struct {
	Stage      string   `json:"stage"` // a stage's slug, or a package's directory
	Mutants    int      `json:"mutants"`
	NotCompile int      `json:"notCompile"`
	Killed     int      `json:"killed"`
	Survivors  []string `json:"survivors"`
	// Equivalent are the keys of the mutants set aside as equivalent
	// (test/mutation/equivalents.yaml): they count in neither.
	Equivalent []string `json:"equivalent,omitempty"`
	Unmade     []string `json:"unmade,omitempty"`
	// Specs is how many specs the check runs; Unfailed are those that no
	// mistake of the catalogue and no mutant made fail.
	Specs    int      `json:"specs"`
	Unfailed []string `json:"unfailed"`
	// Unsure are the specs that a measure of part of the row (kills.go)
	// saw fail nothing, but that changed since the matrix: they may fail a
	// mutant whose kill was kept without checking it again.
	Unsure  []string `json:"unsure,omitempty"`
	Seconds int      `json:"seconds"`
	// Inputs is the digest of what the score depends on (suiteInputs),
	// by which lab dev mutants --guard knows a row that is out of date.
	Inputs string `json:"inputs,omitempty"`
	// Sampled is how many of the mutants that compile were checked, when
	// not all of them were (the guard's sample).
	Sampled int `json:"sampled,omitempty"`
	// CaughtLater are the mutants that the stage's own check cannot catch,
	// for the code they change runs only once a later stage is written, and
	// that the check of that later stage catches (later.go): its slug, by
	// name. For a package's row, those that its own tests miss and the tests
	// of another package that builds it catch (catchElsewhere): that
	// package's path.
	CaughtLater map[string]string `json:"caughtLater,omitempty"`

	// KubeMutants and KubeNotCompile are how many of Mutants and
	// NotCompile the Kubernetes operators made (mutants.Kubernetes); the
	// report shows them apart (family). Operators are the operators the
	// row was measured with (none: a row older than the Kubernetes ones,
	// measured with the generic ones): adding one leaves a row behind.
	KubeMutants    int      `json:"kubeMutants,omitempty"`
	KubeNotCompile int      `json:"kubeNotCompile,omitempty"`
	Operators      []string `json:"operators,omitempty"`

	// Failed, in the row of the CRD's markers alone, are the specs that one
	// of its mutants made fail: the report takes them out of the specs that
	// never fail in the rows of their packages (failedByMarkers).
	Failed []string `json:"failed,omitempty"`

	// NotMeasured says why the stage has no score.
	NotMeasured string `json:"notMeasured,omitempty"`

	survivors []stage.Mistake // the survivors' edits, for catchLater and catchElsewhere
}

// Score is the share of the mutants that compile, equivalent ones aside,
// that the stage's check kills, or a later stage's check where the code
// they change runs only then.
func (m mutationScore) Score() float64 {
	if n := m.Killed + len(m.CaughtLater) + len(m.Survivors); n > 0 {
		return float64(m.Killed+len(m.CaughtLater)) / float64(n)
	}
	return 1
}

// OwnScore is the share that the stage's own check kills.
func (m mutationScore) OwnScore() float64 {
	if n := m.Killed + len(m.CaughtLater) + len(m.Survivors); n > 0 {
		return float64(m.Killed) / float64(n)
	}
	return 1
}

// Name is the stage's slug, or the package's directory: a row keeps its
// name when stages are added, moved or removed around it.
func (m mutationScore) Name() string {
	return m.Stage
}

// sortScores puts the stages' rows in the order of the stages, and the
// packages' after them, by directory; the row of a stage that is no longer
// in exercises/stages.yaml goes.
func sortScores(scores []mutationScore, stages []stage.Stage) []mutationScore {
	scores = slices.DeleteFunc(scores, func(m mutationScore) bool {
		return !strings.Contains(m.Stage, "/") && !slices.ContainsFunc(stages, func(s stage.Stage) bool { return s.Slug == m.Stage })
	})
	place := func(m mutationScore) int {
		if i := slices.IndexFunc(stages, func(s stage.Stage) bool { return s.Slug == m.Stage }); i >= 0 {
			return i
		}
		return len(stages)
	}
	slices.SortStableFunc(scores, func(a, b mutationScore) int {
		return cmp.Or(cmp.Compare(place(a), place(b)), strings.Compare(a.Stage, b.Stage))
	})
	return scores
}

// CmdMutants is `lab dev mutants [<stage>|<package>…]`: the mutants of
// the stages and packages named (or of every stage with Go regions and
// every package of the reference with tests), checked; the scores are
// merged into report (JSON), and its Markdown twin is written beside it.
//
// A row that the kill matrix (kills.go) holds, and whose code apart from
// its specs is as it was, has only what a change of specs can move checked
// again; full checks every mutant of every row named.
func CmdMutants(l i18n.Lang, root string, stages []stage.Stage, only []string, report string, full bool) error {
	if err := starter.EnsureControllerGen(root); err != nil {
		return err
	}
	todo, err := mutationSuites(root, stages, only)
	if err != nil {
		return err
	}
	scores, err := readScores(report)
	if err != nil {
		return err
	}
	ref, err := base.ReferenceCommit(root)
	if err != nil {
		return err
	}
	matrix, err := readKills(KillsFile(report))
	if err != nil {
		return err
	}
	for _, s := range todo {
		var score mutationScore
		mr := &measure{ref: ref, prior: findKills(matrix, rowOf(s)), full: full}
		start := time.Now()
		if s.Dir != "" && !overlayable(s) {
			// Its check runs a command on the tree (make manifests, helm):
			// build overlays cannot feed it, so its catalogue, which lab
			// verify makes in the tree, is its only check.
			score = mutationScore{Stage: s.Slug, NotMeasured: "its check runs " + strings.Join(s.Before, ", ") + " on the tree first"}
		} else if score, err = mutateSuite(l, root, stages, s, 0, mr); err != nil {
			return err
		}
		if mr.now.Stage != "" {
			matrix = putKills(matrix, mr.now)
		}
		if mr.partial {
			// The report's time is what measuring the row whole takes.
			was, _ := findScore(scores, s.Slug)
			score.Seconds = was.Seconds
			fmt.Printf(l.Tr("  %s: measured in %d s (mutants checked again: %d; kills kept: %d); measured whole, it took %d s\n",
				"  %s：用 %d 秒测完（重新检查的变异体：%d 个；沿用的发现：%d 个）；整行测量要 %d 秒\n"),
				score.Name(), int(time.Since(start).Seconds()), mr.checked, mr.kept, was.Seconds)
		}
		if score.Inputs, err = suiteInputs(root, ref, s); err != nil {
			return err
		}
		fmt.Printf(l.Tr("  %s: %d mutants, %d do not compile, %d killed, %d caught later, %d survived: %.1f%%; %d of %d specs never fail (%ds)\n",
			"  %s：%d 个变异体，%d 个无法编译，%d 个被发现，%d 个在后面的阶段被发现，%d 个存活：%.1f%%；%d / %d 个测试用例从未失败（%d 秒）\n"),
			score.Name(), score.Mutants, score.NotCompile, score.Killed, len(score.CaughtLater), len(score.Survivors), 100*score.Score(),
			len(score.Unfailed), score.Specs, score.Seconds)
		if k := score.family(true); k.Mutants > 0 {
			fmt.Printf(l.Tr("  of them, by the Kubernetes operators: %d mutants, %d do not compile, %d killed, %d caught later, %d survived: %.1f%%\n",
				"  其中 Kubernetes 变异算子生成的：%d 个变异体，%d 个无法编译，%d 个被发现，%d 个在后面的阶段被发现，%d 个存活：%.1f%%\n"),
				k.Mutants, k.NotCompile, k.Killed, len(k.CaughtLater), len(k.Survivors), 100*k.Score())
		}
		if len(score.Unsure) > 0 {
			fmt.Printf(l.Tr("  not sure: %s\n", "  不确定：%s\n"), unsure(l, score))
		}
		scores = slices.DeleteFunc(scores, func(o mutationScore) bool { return o.Stage == s.Slug })
		scores = append(scores, score)
		scores = sortScores(scores, stages)
		// Written after each stage: a long run that stops keeps what it found.
		if err := writeScores(root, report, scores); err != nil {
			return err
		}
		if err := writeKills(KillsFile(report), matrix); err != nil {
			return err
		}
	}
	fmt.Printf(l.Tr("report: %s\n", "报告：%s\n"), strings.TrimSuffix(report, ".json")+".md")
	return nil
}

// mutationSuites are the stages and packages named, or all of them. A
// package is a stage of its own making: its directory for an ID, its whole
// test for the check, no Dir (it has no exercise).
func mutationSuites(root string, stages []stage.Stage, only []string) ([]stage.Stage, error) {
	pkgs, err := testedPackages(root)
	if err != nil {
		return nil, err
	}
	var names []string
	var suites []stage.Stage
	for _, name := range only {
		name = strings.Trim(filepath.ToSlash(name), "./")
		if name == schemaRow {
			suites = append(suites, schemaSuite())
			continue
		}
		if !strings.Contains(name, "/") {
			names = append(names, name)
			continue
		}
		if !slices.Contains(pkgs, name) {
			return nil, fmt.Errorf("%s is not a package of the reference with tests; those are: %s", name, strings.Join(pkgs, ", "))
		}
		suites = append(suites, packageSuite(name))
	}
	if len(only) > 0 && len(names) == 0 {
		return suites, nil
	}
	picked, err := stage.Select(stages, names)
	if err != nil {
		return nil, err
	}
	if len(only) == 0 {
		for _, p := range pkgs {
			suites = append(suites, packageSuite(p))
		}
		suites = append(suites, schemaSuite())
	}
	return append(picked, suites...), nil
}

func packageSuite(pkg string) stage.Stage {
	return stage.Stage{Slug: pkg, Num: pkg, Tests: []stage.Test{{Package: "./" + pkg}}} // Num: the screen names a package by its path
}

// testedPackages are the directories under api/ and internal/ that have
// both code and tests.
func testedPackages(root string) ([]string, error) {
	var out []string
	for _, top := range []string{"api", "internal"} {
		err := filepath.WalkDir(filepath.Join(root, top), func(path string, d os.DirEntry, err error) error {
			if err != nil || !d.IsDir() {
				return err
			}
			var code, tests bool
			entries, err := os.ReadDir(path)
			if err != nil {
				return err
			}
			for _, e := range entries {
				name := e.Name()
				tests = tests || strings.HasSuffix(name, "_test.go")
				code = code || (strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") && !strings.HasPrefix(name, "zz_generated"))
			}
			if code && tests {
				rel, _ := filepath.Rel(root, path)
				out = append(out, filepath.ToSlash(rel))
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// mutateSuite makes and checks the mutants of a stage or a package, at most
// limit of those that compile (0: all).
func mutateSuite(l i18n.Lang, root string, stages []stage.Stage, s stage.Stage, limit int, mr *measure) (mutationScore, error) {
	start := time.Now()
	var score mutationScore
	var err error
	if isSchemaRow(s) {
		return mutateSchema(l, root, s, limit, mr)
	}
	if s.Dir == "" {
		fmt.Printf(l.Tr("package %s\n", "包 %s\n"), s.Slug)
		score, err = mutatePackage(l, root, s, limit, mr)
	} else {
		fmt.Printf(l.Tr("stage %s (%s)\n", "第 %s 阶段（%s）\n"), s.Num, s.TitleIn(l))
		score, err = mutateStage(l, root, stages, s, limit, mr)
	}
	if err != nil || len(score.survivors) == 0 {
		return score, err
	}
	if s.Dir == "" {
		score.CaughtLater, err = catchElsewhere(l, root, s, score.survivors)
	} else {
		score.CaughtLater, err = catchLater(l, root, stages, s, score.survivors)
	}
	if err != nil {
		return score, err
	}
	score.Survivors = slices.DeleteFunc(score.Survivors, func(name string) bool { return score.CaughtLater[name] != "" })
	score.Seconds = int(time.Since(start).Seconds())
	return score, nil
}

// mutateStage makes and checks the mutants of one stage, with the
// stage's catalogue beside them.
func mutateStage(l i18n.Lang, root string, stages []stage.Stage, s stage.Stage, limit int, mr *measure) (mutationScore, error) {
	dir, cleanup, err := solvedTree(l, root, stages, s)
	if err != nil {
		return mutationScore{Stage: s.Slug}, err
	}
	defer cleanup()
	ms, err := mutants.Of(dir, s.Regions)
	if err != nil {
		return mutationScore{Stage: s.Slug}, err
	}
	return checkMutants(l, root, dir, s, ms, limit, mr)
}

// solvedTree is the tree an attendee has when stage s is solved: the
// starter of the next stage (later stages still stubs), or the reference
// after the last one.
func solvedTree(l i18n.Lang, root string, stages []stage.Stage, s stage.Stage) (dir string, cleanup func(), err error) {
	if next, ok := stage.Next(stages, s); ok {
		dir, _, cleanup, err = starter.Tree(l, root, stages, next, verifyTree(root, ""))
		return dir, cleanup, err
	}
	return scratchTree(root, "")
}

// mutatePackage makes and checks the mutants of every function of one
// package of the reference, with all of its tests.
func mutatePackage(l i18n.Lang, root string, s stage.Stage, limit int, mr *measure) (mutationScore, error) {
	dir, cleanup, err := scratchTree(root, "")
	if err != nil {
		return mutationScore{Stage: s.Slug}, err
	}
	defer cleanup()
	ms, err := mutants.InPackage(dir, s.Slug)
	if err != nil {
		return mutationScore{Stage: s.Slug}, err
	}
	return checkMutants(l, root, dir, s, ms, limit, mr)
}

// checkMutants checks the mutants ms, and the catalogue of s, in the tree
// at dir, running every spec with each one made.
func checkMutants(l i18n.Lang, root, dir string, s stage.Stage, all []mutants.Mutant, limit int, mr *measure) (mutationScore, error) {
	start := time.Now()
	score := mutationScore{Stage: s.Slug, Survivors: []string{}, Unfailed: []string{}, Operators: allOperators()}
	if mr != nil && mr.only != nil {
		all = slices.DeleteFunc(slices.Clone(all), func(m mutants.Mutant) bool { return !slices.Contains(mr.only, string(m.Op)) })
		score.Operators = mr.only
	}
	for _, m := range all {
		if m.Op.IsKubernetes() {
			score.KubeMutants++
		}
	}
	// Those that do not compile are counted by name or key, wherever they
	// are found.
	refused := func(names ...string) {
		score.NotCompile += len(names)
		for _, n := range names {
			if opOf(n).IsKubernetes() {
				score.KubeNotCompile++
			}
		}
	}
	if len(all) == 0 && len(s.Mistakes) == 0 {
		return score, nil
	}
	equivalent, err := readEquivalents(root)
	if err != nil {
		return score, err
	}
	ok, not, err := mutants.Compiling(dir, all)
	if err != nil {
		return score, err
	}
	score.Mutants = len(all)
	refused(slices.Collect(maps.Keys(not))...)
	var setAside map[string]bool
	ok, setAside, score.Equivalent = splitEquivalents(equivalent, ok, occurrenceKeys(all))
	c := newCatalogueRun("")
	c.everySpec = true
	c.failing[s.Slug] = map[string]int{}
	clean, err := run.ChecksWith(l, root, dir, s, run.Quiet, false, run.BuildOpts{})
	if err != nil {
		return score, fmt.Errorf("%s: its check fails before any mutant is made: %s", s.Num, firstFailure(clean, err))
	}
	specs := specsOf(s, clean, "passed")
	score.Specs = len(specs)
	s = stoppingLoops(s, time.Since(start))
	keys := map[string]string{} // the mutants' keys in the matrix, by name
	var kept map[string][]string
	if mr != nil {
		rest, digests, err := rowDigests(root, mr.ref, s)
		if err != nil {
			return score, err
		}
		var names []string
		for _, m := range ok {
			names = append(names, m.Name())
		}
		check, k := mr.plan(l, s, names, specs, rest, digests)
		kept = k
		var again []mutants.Mutant
		all := mutantKeys(names)
		for i, m := range ok {
			keys[names[i]] = all[i]
			switch {
			case setAside[names[i]]:
			case check[i]:
				again = append(again, m)
			case slices.Contains(mr.survivors, names[i]):
				// Still a survivor of this check; a later stage's check,
				// whose specs this row's digests do not cover, is asked
				// again (catchLater).
				score.Survivors = append(score.Survivors, names[i])
				score.survivors = append(score.survivors, m.Mistake())
			}
		}
		ok = again
		mr.checked = len(again)
		score.Killed = mr.kept
		refused(mr.now.NotCompiled...)
		for _, killers := range kept {
			for _, spec := range killers {
				c.failing[s.Slug][spec]++ // an unchanged spec fails as it did
			}
		}
	}
	ok = slices.DeleteFunc(ok, func(m mutants.Mutant) bool { return setAside[m.Name()] })
	// The guard's sample is drawn from what the matrix sends back, when
	// there is one: those are the mutants a change can have moved.
	if checked := sample(ok, limit); len(checked) < len(ok) {
		ok, score.Sampled = checked, len(checked)
	}
	catalogue := len(s.Mistakes)
	for _, m := range ok {
		s.Mistakes = append(s.Mistakes, m.Mistake())
	}
	caught := c.checkInSchema(l, root, dir, s)
	var alone []int
	for i := range s.Mistakes {
		switch {
		case !caught[i]:
			alone = append(alone, i)
		case i >= catalogue:
			score.Killed++
		}
	}
	c.eachAlone(l, root, dir, s, alone, func(i int, o outcome) {
		if i < catalogue { // lab dev verify judges the catalogue; here it only counts
			if o.unmade == nil {
				c.judge(l, s, s.Mistakes[i], o.rs, o.err, o.start)
			}
			return
		}
		name := s.Mistakes[i].Name
		switch {
		case o.unmade != nil:
			score.Unmade = append(score.Unmade, name+": "+o.unmade.Error())
		case compileErrors(o.rs) != "":
			refused(name) // the type checker let it through; the compiler did not
			if mr != nil {
				mr.refused = append(mr.refused, name)
			}
		case o.err == nil:
			fmt.Printf(l.Tr("  SURVIVED  %s\n", "  存活  %s\n"), name)
			score.Survivors = append(score.Survivors, name)
			score.survivors = append(score.survivors, s.Mistakes[i])
		case base.IsSetupError(o.err):
			score.Unmade = append(score.Unmade, name+": "+o.err.Error())
		default:
			score.Killed++
			c.record(s, s.Mistakes[i], o.rs)
			fmt.Printf(l.Tr("  killed  %s\n        by: %s\n", "  被发现  %s\n        发现它的：%s\n"), name, firstFailure(o.rs, o.err))
		}
	})
	for _, spec := range specs {
		if c.failing[s.Slug][spec] > 0 {
			continue
		}
		// A spec that changed may fail a mutant whose kill was kept without
		// it: only a whole measure can say that it fails none.
		if mr != nil && mr.partial && changedSince(mr, spec) {
			score.Unsure = append(score.Unsure, spec)
			continue
		}
		score.Unfailed = append(score.Unfailed, spec)
	}
	if mr != nil {
		mr.record(s, c, keys, kept, score)
	}
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

func writeScores(root, path string, scores []mutationScore) error {
	raw, err := json.MarshalIndent(scores, "", "  ")
	if err != nil {
		return err
	}
	docs, err := readDocsSpecs(root)
	if err != nil {
		return err
	}
	if err := base.WriteFileAtomic(path, append(raw, '\n')); err != nil {
		return err
	}
	return base.WriteFileAtomic(strings.TrimSuffix(path, ".json")+".md", []byte(mutationReport(scores, docs)))
}

// An equivalent is a mutant that no test could tell from the reference,
// and why.
type equivalent struct {
	Mutant string `json:"mutant"`
	Why    string `json:"why"`
}

// EquivalentsFile lists the equivalent mutants, reviewed like code.
func EquivalentsFile(root string) string {
	return filepath.Join(root, "test", "mutation", "equivalents.yaml")
}

// occurrenceKeys are the mutants' keys with the occurrence of each among
// those that share it, in source order, by name: the first `return 0, err`
// of a function is "… err -> nil #1", the second "… #2". An equivalent
// named so sets that one statement aside; one named by its key alone, all
// that read alike.
func occurrenceKeys(ms []mutants.Mutant) map[string]string {
	seen := map[string]int{}
	out := map[string]string{}
	for _, m := range ms {
		seen[m.Key()]++
		out[m.Name()] = fmt.Sprintf("%s #%d", m.Key(), seen[m.Key()])
	}
	return out
}

// equivalentKey is the key by which equivalents lists m (by its key, or
// its key and occurrence), or "".
func equivalentKey(equivalent map[string]string, m mutants.Mutant, occurrence map[string]string) string {
	if equivalent[m.Key()] != "" {
		return m.Key()
	}
	if k := occurrence[m.Name()]; equivalent[k] != "" {
		return k
	}
	return ""
}

// splitEquivalents sets aside the mutants that equivalents names: one
// named by its key leaves ms before the kill matrix numbers the others;
// one named by its occurrence among statements that read alike stays in
// them, so that the others keep their keys (mutantKeys), and is returned in
// setAside, not to be checked. listed are the keys equivalents names them
// by.
func splitEquivalents(equivalent map[string]string, ms []mutants.Mutant, occurrence map[string]string) (numbered []mutants.Mutant, setAside map[string]bool, listed []string) {
	setAside = map[string]bool{}
	var byOccurrence []string // listed after those named by their keys
	for _, m := range ms {
		switch key := equivalentKey(equivalent, m, occurrence); {
		case key == m.Key():
			listed = append(listed, key)
		case key != "":
			byOccurrence = append(byOccurrence, key)
			setAside[m.Name()] = true
			numbered = append(numbered, m)
		default:
			numbered = append(numbered, m)
		}
	}
	return numbered, setAside, append(listed, byOccurrence...)
}

// readEquivalents reads the equivalent mutants: why, by key.
func readEquivalents(root string) (map[string]string, error) {
	raw, err := os.ReadFile(EquivalentsFile(root))
	if err != nil {
		return nil, err
	}
	var list []equivalent
	if err := yaml.UnmarshalStrict(raw, &list); err != nil {
		return nil, fmt.Errorf("%s: %w", EquivalentsFile(root), err)
	}
	why := map[string]string{}
	for _, e := range list {
		if e.Mutant == "" || strings.TrimSpace(e.Why) == "" {
			return nil, fmt.Errorf("%s: every entry names a mutant and says why it is equivalent: %+v", EquivalentsFile(root), e)
		}
		why[e.Mutant] = strings.TrimSpace(e.Why)
	}
	return why, nil
}

// A docsSpec is a spec whose subject is a document, not code: it holds
// what a document says to what other specs hold the code to, and runs no
// code of the reference, so no mutant of code can fail it. A quote edited
// in the document does.
type docsSpec struct {
	Spec     string `json:"spec"`     // as the report names it: its package, a space, its name
	Document string `json:"document"` // the file it reads, from the repository's top
	Why      string `json:"why"`
}

// DocsSpecsFile lists the specs of documents, reviewed like code.
func DocsSpecsFile(root string) string {
	return filepath.Join(root, "test", "mutation", "docs-specs.yaml")
}

// readDocsSpecs reads the specs of documents, by name.
func readDocsSpecs(root string) (map[string]docsSpec, error) {
	raw, err := os.ReadFile(DocsSpecsFile(root))
	if err != nil {
		return nil, err
	}
	var list []docsSpec
	if err := yaml.UnmarshalStrict(raw, &list); err != nil {
		return nil, fmt.Errorf("%s: %w", DocsSpecsFile(root), err)
	}
	out := map[string]docsSpec{}
	for _, d := range list {
		if d.Spec == "" || d.Document == "" || strings.TrimSpace(d.Why) == "" {
			return nil, fmt.Errorf("%s: every entry names a spec and the document it reads, and says why no mutant of code can fail it: %+v", DocsSpecsFile(root), d)
		}
		out[d.Spec] = d
	}
	return out, nil
}

// MutantsReport is where make mutants keeps the scores, in the clone.
func MutantsReport(root string) string { return filepath.Join(root, "docs", "mutation.json") }

// stoppingLoops is s with a time-out on each of its tests: a mutant that
// loops forever is stopped after a few times what the clean check took (its
// build included), and counts as caught. The tests are copied: the time-outs
// are this check's alone, not the stage's.
func stoppingLoops(s stage.Stage, clean time.Duration) stage.Stage {
	s.Tests = slices.Clone(s.Tests)
	for i := range s.Tests {
		s.Tests[i].Timeout = max(30*time.Second, 4*clean)
	}
	return s
}
