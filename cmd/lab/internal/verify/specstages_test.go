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
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"cronlab.dev/cronlab/cmd/lab/internal/base"
	"cronlab.dev/cronlab/cmd/lab/internal/regions"
	"cronlab.dev/cronlab/cmd/lab/internal/stage"
)

// outsideEveryStage are the specs that drive a region's function and that no
// stage runs on purpose, each with the reason. A spec belongs here only when
// no stage could run it: it tests the reference's plumbing outside every
// region, and reaches a region only on its way there.
var outsideEveryStage = map[string]string{
	"internal/controller A manager that may have lost its Lease › starts no Job after a freeze until it has renewed its Lease": "it tests internal/leader's fence, which cmd/main.go puts in front of the Reconciler's writes and no stage teaches; " +
		"the Reconciler only carries the fence's refusal up as a create's error, which stage scheduling's check holds (a create that the API server refused)",
	"internal/controller A manager that may have lost its Lease › stays fenced when another manager took the Lease during the freeze": "as the spec above: internal/leader's fence, outside every region",
	"cmd TestTheTraceOfMakeRun": "it tests the trace that make run TRACE= records (cmd/main.go's traced, internal/trace), which no stage teaches; " +
		"it calls SetupWithManager as main does, which stage secondary-resources' specs hold",
	"exercises/q4-level-based TestManyUpdatesAreCoalescedIntoFewReconciles": "it shows what controller-runtime's work queue does with any level-based Reconcile, and calls the reference's wiring " +
		"(IndexJobsByOwner, WatchWithOwns) only to build a manager; no code of stage q4-level-based changes what it shows (its README says so), and the wiring is held by the specs of stages reconcile-loop and secondary-resources",
	"exercises/q4-level-based TestAfterARestartChangesMadeWhileDownArriveAsCreates": "as the test above: a restarted manager's informers, with the reference's wiring",
	"api/v2 TestTheRoundTripCatchesADroppedField": "it tests the round trip's own harness (a converter broken on purpose must be caught), not the conversion; " +
		"stage multiversion runs the same harness on the attendee's conversion (TestEveryValidObjectSurvivesTheRoundTrip)",
}

// TestEverySpecThatDrivesARegionRunsInItsStage: a spec whose own code (its
// body, the setup nodes of its containers and the test helpers they call)
// calls a function of a region must be run by that region's stage or by a
// later one, or no check would catch what it catches: the stages' checks,
// their catalogues and their mutation rows rest on the specs they run. A
// later stage may run it, for a spec can need code of stages after its
// region (most of the Reconciler's specs start runs, stage scheduling's
// code); that it does not run too early, lab dev verify checks (the stage
// before must pass on each starter). What the reference calls on from there
// is not followed: Reconcile reaches every region, and each stage runs with
// the later ones stubbed.
func TestEverySpecThatDrivesARegionRunsInItsStage(t *testing.T) {
	start := time.Now()
	root := filepath.Join("..", "..", "..", "..")
	stages, err := stage.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	funcs := regionFuncs(t, root, stages)
	if len(funcs) < 40 {
		t.Fatalf("only %d functions found in the stages' regions: is regionFuncs still reading them?", len(funcs))
	}
	byPackage := map[string][]int{} // a package's tests: the stages that run some
	for i, s := range stages {
		for _, test := range s.Tests {
			pkg := filepath.ToSlash(filepath.Clean(test.Package))
			if !slices.Contains(byPackage[pkg], i) {
				byPackage[pkg] = append(byPackage[pkg], i)
			}
		}
	}
	pkgs := make([]string, 0, len(byPackage))
	for pkg := range byPackage {
		pkgs = append(pkgs, pkg)
	}
	sort.Strings(pkgs)
	listed, found, labelled := map[string]bool{}, 0, map[string]int{}
	for _, pkg := range pkgs {
		specs := readSpecs(t, root, pkg, funcs)
		found += len(specs)
		for _, sp := range specs {
			id := pkg + " " + sp.name
			var runBy []int
			for _, i := range byPackage[pkg] {
				for _, test := range stages[i].Tests {
					if filepath.ToSlash(filepath.Clean(test.Package)) == pkg && selects(t, test, sp) {
						runBy = append(runBy, i)
						labelled[stages[i].Slug+" "+pkg]++
					}
				}
			}
			latest := -1
			var driven []string
			for _, f := range sp.drives {
				latest = max(latest, f.stage)
				driven = append(driven, fmt.Sprintf("%s (region %s, stage %s)", f.name, f.region, stages[f.stage].Slug))
			}
			if latest < 0 || slices.ContainsFunc(runBy, func(i int) bool { return i >= latest }) {
				if _, ok := outsideEveryStage[id]; ok {
					listed[id] = true
					t.Errorf("%s is listed in outsideEveryStage, but it calls no region's function, or a stage from its regions' on runs it: take it off the list", id)
				}
				continue
			}
			if _, ok := outsideEveryStage[id]; ok {
				listed[id] = true
				continue
			}
			var by []string
			for _, i := range runBy {
				by = append(by, stages[i].Slug)
			}
			t.Errorf("%s: %q calls %s, and no stage from %s on runs it (run by: %s).\n"+
				"Fix: give it the label lab-<slug> of the first stage from %s on whose code it needs (a Go test: add its name to that stage's run: for %s in stage.yaml), "+
				"then run bin/lab dev verify on that stage and on the next (its tests must pass on the next starter); "+
				"or, if no stage can run it, list it with the reason in outsideEveryStage (cmd/lab/internal/verify/specstages_test.go)",
				pkg, sp.name, strings.Join(driven, ", "), stages[latest].Slug, orNone(by), stages[latest].Slug, pkg)
		}
	}
	for id := range outsideEveryStage {
		if !listed[id] {
			t.Errorf("outsideEveryStage lists %q, which is no spec that drives a region (renamed or removed?): take it off the list or write its new name", id)
		}
	}
	// The reading of the specs must see what the stages run, or it would
	// find nothing to complain about: every stage that runs a package by a
	// label or a pattern has specs that it selects.
	for i, s := range stages {
		for _, test := range s.Tests {
			pkg := filepath.ToSlash(filepath.Clean(test.Package))
			if labelled[s.Slug+" "+pkg] == 0 && (test.Labels != "" || test.Run != "") {
				t.Errorf("stage %s (%d) runs %s, but none of the specs read there is one it selects: does the reading of the specs (readSpecs) still understand that package's tests?", s.Slug, i+1, pkg)
			}
		}
	}
	if found < 100 {
		t.Errorf("only %d specs read in the stages' packages: is readSpecs still reading them?", found)
	}
	t.Logf("read %d functions of regions and %d specs of %d packages in %v", len(funcs), found, len(pkgs), time.Since(start).Round(time.Millisecond))
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

// regionFunc is a function declared in a region: Type.name for a method.
type regionFunc struct {
	dir, name, region string
	stage             int
}

// regionFuncs reads the Go files of the working tree that hold regions (one
// git grep, where run.RegionFiles greps once per stage).
func regionFuncs(t *testing.T, root string, stages []stage.Stage) []regionFunc {
	t.Helper()
	stageOf := map[string]int{}
	for i, s := range stages {
		for _, r := range s.Regions {
			stageOf[r] = i
		}
	}
	// The tool's own sources and fixtures hold markers too, none a stage's.
	out, err := base.Output(root, "git", "grep", "-l", "lab:begin ", "--", "*.go", ":!cmd/lab")
	if err != nil {
		t.Fatalf("git grep: %v\n%s", err, out)
	}
	var funcs []regionFunc
	for _, path := range strings.Fields(out) {
		src, err := os.ReadFile(filepath.Join(root, path))
		if err != nil {
			t.Fatal(err)
		}
		found, err := regions.Parse(path, src)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range found {
			i, ok := stageOf[r.Name]
			if !ok {
				continue
			}
			for _, fn := range regions.FunctionsIn(path, string(src), r) {
				funcs = append(funcs, regionFunc{dir: filepath.ToSlash(filepath.Dir(path)), name: fn, region: r.Name, stage: i})
			}
		}
	}
	return funcs
}

// spec is a Ginkgo spec (its containers' texts and its own, joined by
// " › " as reports print them) or a Go test function.
type spec struct {
	name   string
	labels []string // a Ginkgo spec's, its containers' included
	suite  string   // the Go test that runs a Ginkgo spec (RunSpecs)
	goTest bool
	drives []regionFunc
}

// selects tells whether a stage's test entry runs the spec.
func selects(t *testing.T, test stage.Test, sp spec) bool {
	t.Helper()
	if test.Run != "" {
		name := sp.name
		if !sp.goTest {
			name = sp.suite
		}
		re, err := regexp.Compile(test.Run)
		if err != nil {
			t.Fatalf("%s: run: %q: %v", test.Package, test.Run, err)
		}
		if !re.MatchString(name) {
			return false
		}
	}
	if test.Labels != "" {
		if sp.goTest {
			return false // a label filter runs Ginkgo specs, not the Go tests beside them
		}
		for _, want := range strings.Split(test.Labels, "||") {
			want = strings.TrimSpace(want)
			if strings.ContainsAny(want, "&!(),") {
				t.Fatalf("%s: labels: %q: this test reads only a label or labels joined by ||; teach it the rest of Ginkgo's filter language", test.Package, test.Labels)
			}
			if slices.Contains(sp.labels, want) {
				return true
			}
		}
		return false
	}
	return true
}

// testPackage is what the _test.go files of a package declare, read
// without types (a starter's code need not compile): calls are matched by
// name, and a receiver's type by the declared types of the names in front of
// it, which is enough to tell a helper from the Reconciler's method of the
// same name (harness.createJob and CronJobReconciler.createJob).
type testPackage struct {
	dir     string
	module  string
	funcs   map[string]*ast.FuncDecl        // name, or Type.name for a method
	methods map[string][]string             // a method's name: its Type.name keys
	fields  map[string]map[string]string    // a struct type's fields' types
	types   map[string]map[string]bool      // a name: the types it is declared with
	imports map[*ast.File]map[string]string // a file's import names: their directories
	files   map[*ast.File]bool
	region  func(dir, recv, name string) []regionFunc
	vars    map[string]ast.Expr // the tests' package-level variables: their values
}

func readSpecs(t *testing.T, root, pkg string, funcs []regionFunc) []spec {
	t.Helper()
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	module := strings.TrimSpace(strings.TrimPrefix(strings.SplitN(string(mod), "\n", 2)[0], "module"))
	tp := &testPackage{dir: pkg, module: module, funcs: map[string]*ast.FuncDecl{}, methods: map[string][]string{},
		fields: map[string]map[string]string{}, types: map[string]map[string]bool{}, imports: map[*ast.File]map[string]string{},
		files: map[*ast.File]bool{}, vars: map[string]ast.Expr{}}
	tp.region = func(dir, recv, name string) []regionFunc {
		var out []regionFunc
		for _, f := range funcs {
			typ, method, isMethod := strings.Cut(f.name, ".")
			switch {
			case recv == "" && f.name == name && f.dir == dir:
				out = append(out, f)
			case recv != "" && isMethod && method == name && (recv == "?" || recv == typ):
				out = append(out, f)
			}
		}
		return out
	}
	paths, _ := filepath.Glob(filepath.Join(root, pkg, "*_test.go"))
	fset := token.NewFileSet()
	var files []*ast.File
	for _, path := range paths {
		file, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		files = append(files, file)
		tp.declare(file)
	}
	var specs []spec
	for _, file := range files {
		for _, d := range file.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && strings.HasPrefix(d.Name.Name, "Test") && d.Name.Name != "TestMain" && !tp.callsRunSpecs(d) {
					specs = append(specs, spec{name: d.Name.Name, goTest: true, drives: tp.drivenBy(file, d.Body, nil)})
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					if vs, ok := s.(*ast.ValueSpec); ok {
						for _, v := range vs.Values {
							specs = append(specs, tp.ginkgo(file, v, nil, nil, nil, nil)...)
						}
					}
				}
			}
		}
	}
	suite := ""
	for _, file := range files {
		for _, d := range file.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && tp.callsRunSpecs(fn) {
				suite = fn.Name.Name
			}
		}
	}
	for i := range specs {
		if !specs[i].goTest {
			specs[i].suite = suite
		}
	}
	return specs
}

func (tp *testPackage) declare(file *ast.File) {
	tp.files[file] = true
	names := map[string]string{}
	for _, imp := range file.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		name := filepath.Base(path)
		if imp.Name != nil {
			name = imp.Name.Name
		}
		names[name] = strings.TrimPrefix(strings.TrimPrefix(path, tp.module), "/")
	}
	tp.imports[file] = names
	for _, d := range file.Decls {
		if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.VAR {
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, name := range vs.Names {
					if i < len(vs.Values) && name.Name != "_" {
						tp.vars[name.Name] = vs.Values[i]
					}
				}
			}
		}
	}
	ast.Inspect(file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncDecl:
			key := n.Name.Name
			if n.Recv != nil && len(n.Recv.List) == 1 {
				typ := typeName(n.Recv.List[0].Type)
				key = typ + "." + key
				tp.methods[n.Name.Name] = append(tp.methods[n.Name.Name], key)
				for _, name := range n.Recv.List[0].Names {
					tp.declareName(name.Name, typ)
				}
			}
			tp.funcs[key] = n
		case *ast.TypeSpec:
			if st, ok := n.Type.(*ast.StructType); ok {
				tp.fields[n.Name.Name] = map[string]string{}
				for _, f := range st.Fields.List {
					for _, name := range f.Names {
						tp.fields[n.Name.Name][name.Name] = typeName(f.Type)
					}
				}
			}
		case *ast.Field: // parameters, results and fields
			for _, name := range n.Names {
				tp.declareName(name.Name, typeName(n.Type))
			}
		case *ast.ValueSpec:
			for i, name := range n.Names {
				if n.Type != nil {
					tp.declareName(name.Name, typeName(n.Type))
				} else if i < len(n.Values) {
					tp.declareName(name.Name, valueType(n.Values[i]))
				}
			}
		case *ast.AssignStmt:
			if n.Tok == token.DEFINE && len(n.Lhs) == len(n.Rhs) {
				for i, lhs := range n.Lhs {
					if id, ok := lhs.(*ast.Ident); ok {
						tp.declareName(id.Name, valueType(n.Rhs[i]))
					}
				}
			}
		}
		return true
	})
}

func (tp *testPackage) declareName(name, typ string) {
	if typ == "" || name == "_" {
		return
	}
	if tp.types[name] == nil {
		tp.types[name] = map[string]bool{}
	}
	tp.types[name][typ] = true
}

// typeName is the name of a declared type, without its package and
// pointer: *controller.CronJobReconciler is CronJobReconciler.
func typeName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.StarExpr:
		return typeName(e.X)
	case *ast.SelectorExpr:
		return e.Sel.Name
	case *ast.IndexExpr:
		return typeName(e.X)
	}
	return ""
}

// valueType is the type of what a name is set to, where its form says it:
// &T{...}, T{...}, or newT() (a helper of the tests, read as T).
func valueType(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.UnaryExpr:
		return valueType(e.X)
	case *ast.CompositeLit:
		return typeName(e.Type)
	case *ast.CallExpr:
		if id, ok := e.Fun.(*ast.Ident); ok && strings.HasPrefix(id.Name, "new") && len(id.Name) > 3 {
			return strings.ToLower(id.Name[3:4]) + id.Name[4:]
		}
	}
	return ""
}

func (tp *testPackage) callsRunSpecs(fn *ast.FuncDecl) bool {
	found := false
	ast.Inspect(fn, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && id.Name == "RunSpecs" {
			found = true
		}
		return !found
	})
	return found
}

// ginkgo reads a Ginkgo node: a container gives its text, labels, setup
// nodes and closures to what it holds; It and Entry are specs.
func (tp *testPackage) ginkgo(file *ast.File, e ast.Expr, texts, labels []string, setup []ast.Node, closures map[string]ast.Node) []spec {
	call, ok := e.(*ast.CallExpr)
	if !ok {
		return nil
	}
	id, ok := call.Fun.(*ast.Ident)
	if !ok {
		return nil
	}
	text := ""
	if len(call.Args) > 0 {
		if lit, ok := call.Args[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
			text, _ = strconv.Unquote(lit.Value)
		}
	}
	own := slices.Clone(labels)
	var body *ast.FuncLit
	for _, a := range call.Args {
		if c, ok := a.(*ast.CallExpr); ok {
			if f, ok := c.Fun.(*ast.Ident); ok && f.Name == "Label" {
				for _, l := range c.Args {
					if lit, ok := l.(*ast.BasicLit); ok && lit.Kind == token.STRING {
						s, _ := strconv.Unquote(lit.Value)
						own = append(own, s)
					}
				}
			}
		}
		if fl, ok := a.(*ast.FuncLit); ok && body == nil {
			body = fl
		}
	}
	switch strings.TrimLeft(id.Name, "FPX") {
	case "Describe", "Context", "When":
		if body == nil {
			return nil
		}
		inner := append(slices.Clone(texts), text)
		mySetup := slices.Clone(setup)
		myClosures := map[string]ast.Node{}
		for k, v := range closures {
			myClosures[k] = v
		}
		var nested []ast.Expr
		for _, st := range body.Body.List {
			switch st := st.(type) {
			case *ast.ExprStmt:
				c, ok := st.X.(*ast.CallExpr)
				if !ok {
					continue
				}
				if f, ok := c.Fun.(*ast.Ident); ok && slices.Contains([]string{"BeforeEach", "JustBeforeEach", "AfterEach", "JustAfterEach"}, f.Name) {
					for _, a := range c.Args {
						if fl, ok := a.(*ast.FuncLit); ok {
							mySetup = append(mySetup, fl.Body)
						}
					}
					continue
				}
				nested = append(nested, c)
			case *ast.AssignStmt:
				for i, lhs := range st.Lhs {
					if lid, ok := lhs.(*ast.Ident); ok && i < len(st.Rhs) {
						if fl, ok := st.Rhs[i].(*ast.FuncLit); ok {
							myClosures[lid.Name] = fl.Body
						}
					}
				}
			}
		}
		var out []spec
		for _, n := range nested {
			out = append(out, tp.ginkgo(file, n, inner, own, mySetup, myClosures)...)
		}
		return out
	case "It", "Specify":
		sp := spec{name: strings.Join(append(slices.Clone(texts), text), " › "), labels: own}
		var code []ast.Node
		if body != nil {
			code = append(code, body.Body)
		}
		code = append(code, setup...)
		seen := map[string]bool{}
		for _, c := range code {
			for _, f := range tp.drivenBy(file, c, closures) {
				if !seen[f.name] {
					seen[f.name] = true
					sp.drives = append(sp.drives, f)
				}
			}
		}
		return []spec{sp}
	case "DescribeTable":
		var out []spec
		for _, a := range call.Args {
			entry, ok := a.(*ast.CallExpr)
			if !ok {
				continue
			}
			if f, ok := entry.Fun.(*ast.Ident); !ok || strings.TrimLeft(f.Name, "FPX") != "Entry" {
				continue
			}
			specs := tp.ginkgo(file, &ast.CallExpr{Fun: ast.NewIdent("It"), Args: append(slices.Clone(entry.Args), body)}, append(slices.Clone(texts), text), own, setup, closures)
			out = append(out, specs...)
		}
		return out
	}
	return nil
}

// drivenBy lists the region functions that code calls, directly or through
// the tests' own helpers and closures.
func (tp *testPackage) drivenBy(file *ast.File, code ast.Node, closures map[string]ast.Node) []regionFunc {
	out := map[string]regionFunc{}
	tp.walk(file, code, closures, out, map[ast.Node]bool{})
	var list []regionFunc
	for _, f := range out {
		list = append(list, f)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].name < list[j].name })
	return list
}

func (tp *testPackage) walk(file *ast.File, code ast.Node, closures map[string]ast.Node, out map[string]regionFunc, seen map[ast.Node]bool) {
	if code == nil || seen[code] {
		return
	}
	seen[code] = true
	into := func(decl *ast.FuncDecl) {
		if decl.Body == nil {
			return
		}
		// A region may hold functions of the tests themselves (a stage
		// whose attendee writes specs or a test's helper).
		key := decl.Name.Name
		if decl.Recv != nil && len(decl.Recv.List) == 1 {
			key = typeName(decl.Recv.List[0].Type) + "." + key
		}
		for _, f := range tp.region(tp.dir, "", key) {
			out[f.name] = f
		}
		for f := range tp.files {
			if f.Pos() <= decl.Pos() && decl.End() <= f.End() {
				tp.walk(f, decl.Body, nil, out, seen)
			}
		}
	}
	ast.Inspect(code, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			if x, ok := n.X.(*ast.Ident); ok {
				if dir, ok := tp.imports[file][x.Name]; ok && tp.types[x.Name] == nil {
					for _, f := range tp.region(dir, "", n.Sel.Name) {
						out[f.name] = f
					}
					return false
				}
			}
			tp.method(file, n, out, into)
			// What is left of the dot; the name after it is no function
			// of the tests' own package.
			tp.walk(file, n.X, closures, out, seen)
			return false
		case *ast.Ident:
			if body, ok := closures[n.Name]; ok {
				tp.walk(file, body, closures, out, seen)
			}
			if value, ok := tp.vars[n.Name]; ok {
				tp.walk(file, value, closures, out, seen)
			}
			if decl, ok := tp.funcs[n.Name]; ok {
				into(decl)
			} else {
				for _, f := range tp.region(tp.dir, "", n.Name) {
					out[f.name] = f
				}
			}
		}
		return true
	})
}

// method resolves x.m: the Reconciler's createJob, or the harness's, by the
// types the tests declare x with. A method of a region counts only in a file
// that can hold a value of its type (its package, or one that imports it).
func (tp *testPackage) method(file *ast.File, n *ast.SelectorExpr, out map[string]regionFunc, into func(*ast.FuncDecl)) {
	types := tp.typesOf(n.X)
	var inRegion, exact []regionFunc
	for _, f := range tp.region("", "?", n.Sel.Name) {
		if f.dir != tp.dir && !slices.Contains(slices.Collect(maps.Values(tp.imports[file])), f.dir) {
			continue
		}
		inRegion = append(inRegion, f)
		if typ, _, _ := strings.Cut(f.name, "."); slices.Contains(types, typ) {
			exact = append(exact, f)
		}
	}
	var helpers []string
	for _, key := range tp.methods[n.Sel.Name] {
		typ, _, _ := strings.Cut(key, ".")
		if len(types) == 0 || slices.Contains(types, typ) {
			helpers = append(helpers, key)
		}
	}
	for _, key := range helpers {
		into(tp.funcs[key])
	}
	switch {
	case len(exact) > 0:
		inRegion = exact
	case len(helpers) > 0:
		inRegion = nil // x is the tests' own: the helper it names
	}
	for _, f := range inRegion {
		out[f.name] = f
	}
}

// typesOf are the types that an expression may have, as far as the
// declarations of the tests say: a name's declared types, a field's type.
func (tp *testPackage) typesOf(e ast.Expr) []string {
	switch e := e.(type) {
	case *ast.Ident:
		var out []string
		for typ := range tp.types[e.Name] {
			out = append(out, typ)
		}
		sort.Strings(out)
		return out
	case *ast.SelectorExpr:
		var out []string
		for _, typ := range tp.typesOf(e.X) {
			if f, ok := tp.fields[typ][e.Sel.Name]; ok {
				out = append(out, f)
			}
		}
		return out
	case *ast.ParenExpr:
		return tp.typesOf(e.X)
	case *ast.StarExpr:
		return tp.typesOf(e.X)
	case *ast.CompositeLit:
		return []string{typeName(e.Type)}
	case *ast.UnaryExpr:
		return tp.typesOf(e.X)
	}
	return nil
}
