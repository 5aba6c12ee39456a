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

// The row config/crd: the mutants of the CRD's markers (mutants.Markers).
// Build overlays cannot reach a CRD, which the tests read as YAML at run
// time, so each mutant is made in a scratch tree of the reference: its
// marker line changed, the CRD generated again from it by controller-gen,
// the Go file put back (the test binaries stay as they were built), and the
// tests run against that CRD, each envtest suite with an API server of its
// own. A survivor is then checked with the other tests that read the CRD.

import (
	"bytes"
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
)

// schemaRow names the row of the CRD's markers.
const schemaRow = "config/crd"

// markerFiles hold the markers of the API's types: v1's, the version
// served and stored, whose rules the webhook's specs send to API servers,
// and v2's, served only with the webhooks (config/with-webhooks): the
// webhook's suite sends two v2 CronJobs that its schema refuses, and
// api/v2's tests try every rule in process (test/crdrules).
var markerFiles = []string{"api/v1/cronjob_types.go", "api/v2/cronjob_types.go"}

// crdFile is the CRD that controller-gen writes from them.
var crdFile = filepath.Join("config", "crd", "bases", "batch.cronlab.dev_cronjobs.yaml")

// schemaSuite is the row's check: the tests of the packages that hold the
// markers (api/v1 and api/v2 run the CRD's schema, CEL rules and defaults
// in process) and the webhook's suite, whose API servers load the CRD
// before they call the webhook.
func schemaSuite() stage.Stage {
	return stage.Stage{Slug: schemaRow, Num: schemaRow, Tests: []stage.Test{
		{Package: "./api/v1"}, {Package: "./api/v2"}, {Package: "./internal/webhook/v1"},
	}}
}

func isSchemaRow(s stage.Stage) bool { return s.Slug == schemaRow }

func schemaOperators() []string {
	var out []string
	for _, op := range mutants.Schema {
		out = append(out, string(op))
	}
	return out
}

// A crdTree is a scratch tree of the reference whose CRD can be that of a
// mutant of its markers.
type crdTree struct {
	root, dir string
	want      []byte // the CRD of the reference
}

// generate writes the CRD that the markers of the tree give with m made
// (none: as they are), and puts the marker's file back. It returns the
// CRD.
func (t crdTree) generate(m *mutants.Mutant) ([]byte, error) {
	if m != nil {
		path := filepath.Join(t.dir, m.File)
		src, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		mutated, err := m.OnLine(src)
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(path, mutated, 0o644); err != nil {
			return nil, err
		}
		defer func() { _ = os.WriteFile(path, src, 0o644) }()
	}
	out, err := os.MkdirTemp("", "cronlab-crd-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(out)
	// The Makefile's manifests target, for the CRD alone.
	if msg, err := base.Output(t.dir, filepath.Join(t.root, "bin", "controller-gen"),
		"crd:generateEmbeddedObjectMeta=true", "paths=./api/...", "output:crd:artifacts:config="+out); err != nil {
		return nil, fmt.Errorf("controller-gen: %s", base.LastLines(msg, 5))
	}
	crd, err := os.ReadFile(filepath.Join(out, filepath.Base(crdFile)))
	if err != nil {
		return nil, err
	}
	return crd, t.put(crd)
}

// put writes crd as the tree's CRD.
func (t crdTree) put(crd []byte) error {
	return os.WriteFile(filepath.Join(t.dir, crdFile), crd, 0o644)
}

// mutateSchema makes and checks the mutants of the CRD's markers, at most
// limit of them (0: all). With the row's kill matrix (mr), a change of
// specs alone sends back only the mutants it can move, as in any other
// row (kills.go).
func mutateSchema(l i18n.Lang, root string, s stage.Stage, limit int, mr *measure) (mutationScore, error) {
	start := time.Now()
	score := mutationScore{Stage: s.Slug, Survivors: []string{}, Unfailed: []string{}, Operators: schemaOperators()}
	fmt.Printf(l.Tr("the CRD's markers (%s)\n", "CRD 的标记（%s）\n"), s.Slug)
	dir, cleanup, err := scratchTree(root, "-crd")
	if err != nil {
		return score, err
	}
	defer cleanup()
	t := crdTree{root: root, dir: dir}
	if t.want, err = os.ReadFile(filepath.Join(dir, crdFile)); err != nil {
		return score, err
	}
	// controller-gen as called here must give the committed CRD, or every
	// mutant would differ from the reference by more than its change.
	if again, err := t.generate(nil); err != nil {
		return score, err
	} else if !bytes.Equal(again, t.want) {
		return score, fmt.Errorf("%s: controller-gen does not give the committed CRD from the reference's markers: run make manifests, or make this call match the Makefile's", crdFile)
	}
	all, err := mutants.Markers(dir, markerFiles)
	if err != nil {
		return score, err
	}
	if mr != nil && mr.only != nil {
		// The guard holds a row measured before some operators existed to
		// the mutants it had.
		all = slices.DeleteFunc(all, func(m mutants.Mutant) bool { return !slices.Contains(mr.only, string(m.Op)) })
		score.Operators = slices.DeleteFunc(score.Operators, func(op string) bool { return !slices.Contains(mr.only, op) })
	}
	score.Mutants, score.KubeMutants = len(all), len(all)
	refused := func(n int) { score.NotCompile += n; score.KubeNotCompile += n }
	equivalent, err := readEquivalents(root)
	if err != nil {
		return score, err
	}
	own := run.BuildOpts{OwnAPIServers: true}
	clean, err := run.ChecksWith(l, root, dir, s, run.Quiet, false, own)
	if err != nil {
		return score, fmt.Errorf("%s: its check fails before any mutant is made: %s", s.Num, firstFailure(clean, err))
	}
	specs := specsOf(s, clean, "passed")
	score.Specs = len(specs)
	s = stoppingLoops(s, time.Since(start))
	all, setAside, equivalents := splitEquivalents(equivalent, all, occurrenceKeys(all))
	score.Equivalent = equivalents
	names := make([]string, len(all))
	for i, m := range all {
		names[i] = m.Name()
	}
	keys := map[string]string{}
	for i, k := range mutantKeys(names) {
		keys[names[i]] = k
	}
	c := newCatalogueRun("")
	c.everySpec = true
	c.failing[s.Slug] = map[string]int{}
	check := make([]bool, len(all))
	var kept map[string][]string
	if mr != nil {
		rest, digests, err := rowDigests(root, mr.ref, s)
		if err != nil {
			return score, err
		}
		check, kept = mr.plan(l, s, names, specs, rest, digests)
		score.Killed = mr.kept
		refused(len(mr.now.NotCompiled))
		for _, killers := range kept {
			for _, spec := range killers {
				c.failing[s.Slug][spec]++ // an unchanged spec fails as it did
			}
		}
	} else {
		for i := range check {
			check[i] = true
		}
	}
	var checked, survivors []mutants.Mutant
	for i, m := range all {
		switch {
		case setAside[m.Name()]:
		case check[i]:
			checked = append(checked, m)
		case mr != nil && slices.Contains(mr.survivors, m.Name()):
			survivors = append(survivors, m) // the other tests that read the CRD are asked again
		}
	}
	if picked := sample(checked, limit); len(picked) < len(checked) {
		checked, score.Sampled = picked, len(picked)
	}
	if mr != nil {
		mr.checked = len(checked)
	}
	for i, m := range checked {
		crd, err := t.generate(&m)
		switch {
		case err != nil:
			// controller-gen refused the marker: the compiler caught it.
			refused(1)
			if mr != nil {
				mr.refused = append(mr.refused, m.Name())
			}
			fmt.Printf(l.Tr("  [%d/%d] refused by controller-gen  %s\n", "  [%d/%d] controller-gen 拒绝了  %s\n"), i+1, len(checked), m.Name())
			continue
		case bytes.Equal(crd, t.want):
			score.Unmade = append(score.Unmade, m.Name()+": the CRD generated from it is the reference's")
			continue
		}
		rs, err := run.ChecksWith(l, root, dir, s, run.Quiet, false, own)
		switch {
		case err == nil:
			fmt.Printf(l.Tr("  [%d/%d] SURVIVED  %s\n", "  [%d/%d] 存活  %s\n"), i+1, len(checked), m.Name())
			survivors = append(survivors, m)
		case base.IsSetupError(err):
			score.Unmade = append(score.Unmade, m.Name()+": "+err.Error())
		default:
			score.Killed++
			c.record(s, stage.Mistake{Name: m.Name()}, rs)
			fmt.Printf(l.Tr("  [%d/%d] killed  %s\n        by: %s\n", "  [%d/%d] 被发现  %s\n        发现它的：%s\n"), i+1, len(checked), m.Name(), firstFailure(rs, err))
		}
	}
	if err := t.put(t.want); err != nil {
		return score, err
	}
	for _, spec := range specs {
		switch {
		case c.failing[s.Slug][spec] > 0:
			score.Failed = append(score.Failed, spec)
		case mr != nil && mr.partial && changedSince(mr, spec):
			// It may fail a mutant whose kill was kept without it.
			score.Unsure = append(score.Unsure, spec)
		default:
			score.Unfailed = append(score.Unfailed, spec)
		}
	}
	score.CaughtLater, err = catchSchemaElsewhere(l, t, survivors)
	if err != nil {
		return score, err
	}
	for _, m := range survivors {
		if score.CaughtLater[m.Name()] == "" {
			score.Survivors = append(score.Survivors, m.Name())
		}
	}
	if mr != nil {
		mr.record(s, c, keys, kept, score)
	}
	score.Seconds = int(time.Since(start).Seconds())
	return score, nil
}

// schemaTesters are the other test packages that read the CRD: those
// whose tests name its directory or start an API server with it, the
// end-to-end suite (a cluster) and the lab tool's own left out.
func schemaTesters(root string) ([]string, error) {
	out, err := base.Output(root, "git", "grep", "-l", "-e", `"crd"`, "-e", "StartAPIServer(", "-e", "CRDServingV2(", "--", "*_test.go")
	if err != nil {
		return nil, err
	}
	own := schemaSuite()
	var pkgs []string
	for _, f := range strings.Fields(out) {
		pkg := "./" + filepath.ToSlash(filepath.Dir(f))
		switch {
		case strings.HasPrefix(pkg, "./test/e2e"), strings.HasPrefix(pkg, "./cmd/lab"), strings.HasPrefix(pkg, "./hack"):
		case slices.ContainsFunc(own.Tests, func(t stage.Test) bool { return t.Package == pkg }), slices.Contains(pkgs, pkg):
		default:
			pkgs = append(pkgs, pkg)
		}
	}
	// The controller's suite is the longest: last, so that a quicker one
	// that kills a survivor spares it.
	const longest = "./internal/controller"
	if slices.Contains(pkgs, longest) {
		pkgs = append(slices.DeleteFunc(pkgs, func(p string) bool { return p == longest }), longest)
	}
	return pkgs, nil
}

// catchSchemaElsewhere checks each survivor with the other tests that read
// the CRD (schemaTesters), and returns the package whose tests fail on it,
// by name.
func catchSchemaElsewhere(l i18n.Lang, t crdTree, survivors []mutants.Mutant) (map[string]string, error) {
	if len(survivors) == 0 {
		return nil, nil
	}
	testers, err := schemaTesters(t.root)
	if err != nil {
		return nil, err
	}
	fmt.Printf(l.Tr("  with the other tests that read the CRD (%s): survivors checked again: %d\n",
		"  用其他读取 CRD 的测试（%s）：重新检查的存活者：%d 个\n"), strings.Join(testers, ", "), len(survivors))
	caught := map[string]string{}
	defer func() { _ = t.put(t.want) }()
	for _, m := range survivors {
		if _, err := t.generate(&m); err != nil {
			return nil, err
		}
		for _, pkg := range testers {
			s := stage.Stage{Slug: pkg, Num: pkg, Tests: []stage.Test{{Package: pkg}}}
			rs, err := run.ChecksWith(l, t.root, t.dir, s, run.Quiet, true, run.BuildOpts{OwnAPIServers: true})
			if err != nil && !base.IsSetupError(err) && compileErrors(rs) == "" {
				caught[m.Name()] = strings.TrimPrefix(pkg, "./")
				fmt.Printf(l.Tr("  caught by the tests of %s: %s\n", "  被 %s 的测试发现：%s\n"), caught[m.Name()], m.Name())
				break
			}
		}
	}
	return caught, nil
}
