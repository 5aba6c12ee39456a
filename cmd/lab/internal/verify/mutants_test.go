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

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"cronlab.dev/cronlab/cmd/lab/internal/mutants"
	"cronlab.dev/cronlab/cmd/lab/internal/stage"
)

// TestTheMutationReportKeepsWhatItFound: the scores survive a write and a
// read, and the Markdown report shows each stage's row and its survivors.
func TestTheMutationReportKeepsWhatItFound(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mutation.json")
	if scores, err := readScores(path); err != nil || scores != nil {
		t.Fatalf("no report yet: %v, %v", scores, err)
	}
	want := []mutationScore{
		{Stage: "reconcile-loop", Mutants: 10, NotCompile: 2, Killed: 6, Survivors: []string{}, Specs: 7, Seconds: 60,
			CaughtLater: map[string]string{"cronjob_controller.go:2 remove statement (Reconcile): return y": "scheduling", "cronjob_controller.go:1 remove statement (Reconcile): return x": "secondary-resources"}},
		{Stage: "scheduling", Mutants: 5, NotCompile: 1, Killed: 3, Survivors: []string{"status.go:1 negate condition (startDueRun): a -> !(a)"},
			Specs: 4, Unfailed: []string{"./internal/controller Stage 06 › asserts nothing"}, Unsure: []string{"./internal/controller Stage 06 › changed"}},
		{Stage: "internal/schedule", Mutants: 4, Killed: 3, Survivors: []string{}, Equivalent: []string{"schedule.go remove statement (f): x = y"}, Specs: 2},
		{Stage: "envtest", Survivors: []string{}, Specs: 5},
		{Stage: "secondary-resources", Mutants: 12, NotCompile: 3, KubeMutants: 5, KubeNotCompile: 1, Killed: 7, Specs: 3, Seconds: 9, Operators: allOperators(),
			Survivors: []string{"jobs.go:4 drop option (deleteJob): client.Preconditions{UID: &uid}", "jobs.go:5 remove statement (deleteJob): x()"}},
		{Stage: "helm-chart", NotMeasured: "its check runs make helm on the tree first"},
	}
	if err := writeScores(filepath.Join("..", "..", "..", ".."), path, want); err != nil {
		t.Fatal(err)
	}
	got, err := readScores(path)
	if err != nil || len(got) != 6 || got[1].Survivors[0] != want[1].Survivors[0] {
		t.Fatalf("read back %+v, %v", got, err)
	}
	md, err := os.ReadFile(filepath.Join(filepath.Dir(path), "mutation.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"| reconcile-loop | 10 | 2 | 0 | 6 | 2 | 0 | 100.0 % | 75.0 % | 7 | 0 | 60 s |",
		"| scheduling | 5 | 1 | 0 | 3 | 0 | 1 | 75.0 % | 75.0 % | 4 | 1 | 0 s |",
		"| internal/schedule | 4 | 0 | 1 | 3 | 0 | 0 | 100.0 % | 100.0 % | 2 | 0 | 0 s |",
		"| envtest | 0 | 0 | 0 | 0 | 0 | 0 | no mutants | - | 5 | 0 | 0 s |",
		// Apart: the generic operators' 7 mutants of secondary-resources, then the Kubernetes operators' 5.
		"| secondary-resources | 7 | 2 | 0 | 4 | 0 | 1 | 80.0 % | 80.0 % | 3 | 0 | 9 s |\n\n## Kubernetes operators",
		"|---|---|---|---|---|---|---|---|---|---|---|---|\n| secondary-resources | 5 | 1 | 0 | 3 | 0 | 1 | 75.0 % | 75.0 % | 3 | 0 | 9 s |\n",
		"names those that they make mutants of): reconcile-loop, scheduling, internal/schedule, envtest.",
		"## Survivors of the Kubernetes operators\n\nThe same, for the mutants of the Kubernetes operators.\n\n### secondary-resources\n\n- `jobs.go:4 drop option (deleteJob): client.Preconditions{UID: &uid}`\n",
		"## Caught by a later stage\n\nEach one survives its own stage's check, and the check of the stage named fails on it.\n\n### reconcile-loop\n\n- `cronjob_controller.go:1 remove statement (Reconcile): return x`: stage secondary-resources\n- `cronjob_controller.go:2 remove statement (Reconcile): return y`: stage scheduling\n",
		"The regions of stage envtest hold no Go function to mutate",
		"- stage helm-chart: its check runs make helm on the tree first\n",
		"## Equivalent mutants\n\nSet aside, for no test could tell them from the reference; why each one is, is said in\n`test/mutation/equivalents.yaml`.\n\n### internal/schedule\n\n- `schedule.go remove statement (f): x = y`\n",
		"### scheduling\n\n- `status.go:1 negate condition (startDueRun): a -> !(a)`",
		"## Specs that never fail\n\nEach one passed with every mutant and every catalogue mistake made: it wants a mistake that it\ncatches, or to go. One marked (not sure) changed since its row was last measured whole and failed none of\n" +
			"the mutants checked again: it may fail one whose kill was kept (`bin/lab dev mutants --full <row>` says).\n",
		"(`test/mutation/docs-specs.yaml`).\n\n### scheduling\n\n" +
			"- `./internal/controller Stage 06 › asserts nothing`\n- `./internal/controller Stage 06 › changed` (not sure)\n",
	} {
		if !strings.Contains(string(md), line) {
			t.Errorf("the report lacks %q:\n%s", line, md)
		}
	}
	if strings.Contains(string(md), "| helm-chart ") {
		t.Error("a stage that is not measured has a row of scores")
	}
	if strings.Count(string(md), "### reconcile-loop\n") != 1 || strings.Count(string(md), "### internal/schedule") != 1 {
		t.Error("the report lists a stage or package under a heading where it has nothing to show")
	}
}

// TestMutantsNameStagesAndPackages: lab dev mutants takes stages (by number or
// name; a row is named by the slug) and package
// directories; with none, every stage and every tested package; a package
// without tests is refused with the list of those it could take.
func TestMutantsNameStagesAndPackages(t *testing.T) {
	root := filepath.Join("..", "..", "..", "..")
	stages, err := stage.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	ids := func(ss []stage.Stage) (out []string) {
		for _, s := range ss {
			out = append(out, s.Slug)
		}
		return out
	}
	got, err := mutationSuites(root, stages, []string{"06", "./internal/schedule/"})
	if err != nil || !slices.Equal(ids(got), []string{"scheduling", "internal/schedule"}) {
		t.Errorf("06 and ./internal/schedule/: %v, %v", ids(got), err)
	}
	if got[1].Dir != "" || got[1].Tests[0].Package != "./internal/schedule" {
		t.Errorf("the package's suite: %+v", got[1])
	}
	all, err := mutationSuites(root, stages, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"layout", "multiversion", "internal/schedule", "internal/runs", "internal/controller", "api/v1"} {
		if !slices.Contains(ids(all), want) {
			t.Errorf("all suites lack %s: %v", want, ids(all))
		}
	}
	if slices.Contains(ids(all), "internal/controlplane") {
		t.Error("internal/controlplane has no tests, but is a suite")
	}
	if _, err := mutationSuites(root, stages, []string{"internal/controlplane"}); err == nil || !strings.Contains(err.Error(), "internal/schedule") {
		t.Errorf("a package without tests: %v", err)
	}
}

// TestEveryEquivalentMutantIsOneOfTheReference: each entry of
// test/mutation/equivalents.yaml says why, and names by its key a mutant
// that the reference still has, in a stage's region or a tested package;
// an entry that names none is stale (the code changed) and must go.
func TestEveryEquivalentMutantIsOneOfTheReference(t *testing.T) {
	root := filepath.Join("..", "..", "..", "..")
	why, err := readEquivalents(root)
	if err != nil {
		t.Fatal(err)
	}
	stages, err := stage.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]bool{}
	var ms []mutants.Mutant
	// Each row's mutants, whose occurrence keys are counted within the row.
	add := func(row []mutants.Mutant, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, row...)
		for _, m := range row {
			keys[m.Key()] = true
		}
		for _, k := range occurrenceKeys(row) {
			keys[k] = true
		}
	}
	for _, s := range stages {
		add(mutants.Of(root, s.Regions))
	}
	pkgs, err := testedPackages(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pkgs {
		add(mutants.InPackage(root, p))
	}
	add(mutants.Markers(root, markerFiles))
	for key := range why {
		if !keys[key] {
			t.Errorf("test/mutation/equivalents.yaml names a mutant that the reference does not have (%d mutants made): %s", len(ms), key)
		}
	}
}

// The report's rows follow the list of stages, packages after them, and a
// stage taken out of the list loses its row at the next measurement.
func TestTheReportsRowsFollowTheList(t *testing.T) {
	stages := []stage.Stage{{Slug: "zeta", Num: "01"}, {Slug: "alpha", Num: "02"}}
	got := sortScores([]mutationScore{{Stage: "internal/x"}, {Stage: "alpha"}, {Stage: "gone"}, {Stage: "api/v1"}, {Stage: "zeta"}}, stages)
	var names []string
	for _, m := range got {
		names = append(names, m.Name())
	}
	if want := []string{"zeta", "alpha", "api/v1", "internal/x"}; !slices.Equal(names, want) {
		t.Errorf("rows %v, want %v", names, want)
	}
}

// TestTheRowOfTheMarkersIsARowOfItsOwn: config/crd is named like a package
// and measured with every row; it is measured with the operators of the
// markers alone, and the guard reads the CRD for its digest, for the
// markers are comments that the digest of Go code leaves out.
func TestTheRowOfTheMarkersIsARowOfItsOwn(t *testing.T) {
	root := filepath.Join("..", "..", "..", "..")
	stages, err := stage.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	got, err := mutationSuites(root, stages, []string{"config/crd"})
	if err != nil || len(got) != 1 || !isSchemaRow(got[0]) {
		t.Fatalf("config/crd: %+v, %v", got, err)
	}
	all, err := mutationSuites(root, stages, nil)
	if err != nil || !slices.ContainsFunc(all, isSchemaRow) {
		t.Errorf("all suites lack config/crd: %v", err)
	}
	if missing := missingOperators(mutationScore{Stage: schemaRow, Operators: schemaOperators()}); len(missing) != 0 {
		t.Errorf("a row of the markers measured with their operators lacks %v", missing)
	}
	if missing := missingOperators(mutationScore{Stage: "internal/schedule", Operators: allOperators()}); len(missing) != 0 {
		t.Errorf("a package's row lacks %v: the markers' operators are not its own", missing)
	}
	files, err := inputFiles(root, "HEAD", schemaSuite())
	for _, f := range append(slices.Clone(markerFiles), filepath.ToSlash(crdFile)) {
		if err != nil || !slices.Contains(files, f) {
			t.Errorf("the row's inputs hold the files of the markers and the CRD made of them, %s among them: %v, %v", f, files, err)
		}
	}
}

// TestASpecThatAMarkerMutantFailsIsNotNeverFailing: a webhook spec that
// no mutant of the webhook's Go code fails, but one of the CRD's markers
// does, is marked so, and its row does not count it as never failing; so
// is a stage's spec that fails a mutant of its package's row.
func TestASpecThatAMarkerMutantFailsIsNotNeverFailing(t *testing.T) {
	spec := "./internal/webhook/v1 Bad CronJobs with webhooks are refused"
	other := "./internal/webhook/v1 Good CronJobs are taken"
	given := "./internal/handwritten TestSync"
	scores := []mutationScore{
		{Stage: "client-go", Mutants: 1, Killed: 1, Specs: 2, Unfailed: []string{given, "./internal/handwritten TestNothing"}, Operators: allOperators()},
		{Stage: "internal/handwritten", Mutants: 1, Killed: 1, Specs: 9, Unfailed: []string{"./internal/handwritten TestNothing"}, Operators: allOperators()},
		{Stage: "internal/webhook/v1", Mutants: 2, Killed: 2, Specs: 2, Unfailed: []string{spec, other}, Operators: allOperators()},
		{Stage: schemaRow, Mutants: 3, KubeMutants: 3, Killed: 3, Specs: 2, Unfailed: []string{other}, Failed: []string{spec}, Operators: schemaOperators()},
	}
	md := mutationReport(scores, nil)
	if !strings.Contains(md, "| internal/webhook/v1 | 2 | 0 | 0 | 2 | 0 | 0 | 100.0 % | 100.0 % | 2 | 1 |") {
		t.Errorf("the webhook's row counts the spec that a marker's mutant fails as never failing:\n%s", md)
	}
	if !strings.Contains(md, "`"+spec+"` (fails a mutant of the CRD's markers, row config/crd)") || !strings.Contains(md, "- `"+other+"`\n") {
		t.Errorf("the specs that never fail, marked:\n%s", md)
	}
	// A stage runs a spec of given code that calls its function; the spec
	// holds that code in its package's row.
	if !strings.Contains(md, "| client-go | 1 | 0 | 0 | 1 | 0 | 0 | 100.0 % | 100.0 % | 2 | 1 |") ||
		!strings.Contains(md, "`"+given+"` (fails a mutant of its package's row, internal/handwritten)") ||
		!strings.Contains(md, "- `./internal/handwritten TestNothing`\n") {
		t.Errorf("a stage's spec that fails a mutant of its package's row:\n%s", md)
	}
	if strings.Contains(md[:strings.Index(md, "## Kubernetes operators")], "| config/crd |") {
		t.Error("the row of the markers has no generic mutants, but is in the generic table")
	}
	if !strings.Contains(md, "| config/crd | 3 | 0 | 0 | 3 |") {
		t.Errorf("the row of the markers is in the table of the Kubernetes operators:\n%s", md)
	}
}

// TestASpecOfADocumentIsNotNeverFailing: a spec listed in
// test/mutation/docs-specs.yaml is marked with its document, and its row
// does not count it as never failing.
func TestASpecOfADocumentIsNotNeverFailing(t *testing.T) {
	spec := "./internal/webhook/v1 TestTheDocsQuote"
	scores := []mutationScore{{Stage: "internal/webhook/v1", Mutants: 2, Killed: 2, Specs: 3,
		Unfailed: []string{spec, "./internal/webhook/v1 TestNothing"}, Operators: allOperators()}}
	md := mutationReport(scores, map[string]docsSpec{spec: {Spec: spec, Document: "docs/validation.md", Why: "it compares texts"}})
	if !strings.Contains(md, "| internal/webhook/v1 | 2 | 0 | 0 | 2 | 0 | 0 | 100.0 % | 100.0 % | 3 | 1 |") {
		t.Errorf("the row counts the spec of a document as never failing:\n%s", md)
	}
	if !strings.Contains(md, "`"+spec+"` (its subject is docs/validation.md, not code") {
		t.Errorf("the spec of a document, marked:\n%s", md)
	}
}

// TestEachSpecOfADocumentReadsIt: every spec that docs-specs.yaml lists is
// a Go test of its package whose own body names the document it is said to
// read, and that document exists.
func TestEachSpecOfADocumentReadsIt(t *testing.T) {
	root := filepath.Join("..", "..", "..", "..")
	docs, err := readDocsSpecs(root)
	if err != nil || len(docs) == 0 {
		t.Fatalf("read %s: %v, %v", DocsSpecsFile(root), docs, err)
	}
	for _, d := range docs {
		pkg, name, _ := strings.Cut(d.Spec, " ")
		if _, err := os.Stat(filepath.Join(root, d.Document)); err != nil {
			t.Errorf("%s: its document %s: %v", d.Spec, d.Document, err)
		}
		files, _ := filepath.Glob(filepath.Join(root, pkg, "*_test.go"))
		var body string
		for _, f := range files {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			fset := token.NewFileSet()
			file, err := parser.ParseFile(fset, f, src, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, decl := range file.Decls {
				if fn, ok := decl.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.Name == name && fn.Body != nil {
					body = string(src[fset.Position(fn.Body.Pos()).Offset:fset.Position(fn.Body.End()).Offset])
				}
			}
		}
		switch {
		case body == "":
			t.Errorf("%s: no Go test %s in %s", d.Spec, name, pkg)
		case !strings.Contains(body, d.Document):
			t.Errorf("%s: the body of %s does not name %s", d.Spec, name, d.Document)
		}
	}
}
