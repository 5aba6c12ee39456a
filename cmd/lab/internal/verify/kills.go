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

// The kill matrix: which specs failed with each mutant of a row, kept
// beside the report (docs/mutation-kills.json), so that a change to one
// spec sends back to be checked only the mutants that the change can move.
//
// A mutant's verdict depends on the code of the row (the regions' files,
// the test packages) and on nothing else that the row's digest does not
// already leave out. That code is cut in two: each spec's own code (a
// Ginkgo It or Entry with a name written out in the source, or a Go test
// function), and the rest (helpers, suite setup, BeforeEach, the code under
// test). When the rest is as it was, a mutant that an unchanged spec failed
// still fails it: its kill is kept; one that the compiler refused still is
// refused (mutants change no test), and one that passed every spec still
// passes them while none changed. What is checked again is what can have
// moved: a mutant that is new, one that survived while a spec is new or
// changed, one whose killers are not known, and one all of whose killers
// changed or are gone. When the rest changed, every mutant is. The later
// stages that catch a row's survivors are asked again every time: their
// specs are in no digest of this row.
//
// This assumes that a spec's outcome depends on its own code and the rest,
// not on what another spec left behind; the specs share an API server, so a
// maintainer who doubts it runs the row whole (lab dev mutants --full).

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"maps"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"

	"cronlab.dev/cronlab/cmd/lab/internal/base"
	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
	"cronlab.dev/cronlab/cmd/lab/internal/regions"
	"cronlab.dev/cronlab/cmd/lab/internal/stage"
)

// rowKills is what one row's last measure knew of each mutant.
type rowKills struct {
	// Stage names the row as the report's rows do (mutationScore.Stage).
	Stage string `json:"stage"`
	// Rest is the digest of the row's code but its specs' (rowDigests).
	Rest string `json:"rest"`
	// Specs are the specs that ran, with the digest of each one's code, or
	// inRest when its code is part of the rest (its name is made when it
	// runs, or it is written in a helper): unchanged while the rest is.
	Specs map[string]string `json:"specs"`
	// Killed are the mutants the row's check killed, by key, each with the
	// specs that failed with it; an empty list: its killers are not known
	// (the suite's setup failed, or the binary stopped), so it is checked
	// again on the next measure.
	Killed map[string][]string `json:"killed"`
	// Survived are the mutants that passed the row's own check (some of
	// them a later stage catches).
	Survived []string `json:"survived"`
	// NotCompiled are the mutants that the type checker let through and
	// the compiler did not: a mutant changes code that is not a test, so
	// while the rest is as it was, no change of specs makes it compile.
	NotCompiled []string `json:"notCompiled,omitempty"`
}

// inRest is the digest of a spec whose code is part of the rest.
const inRest = "rest"

// KillsFile is where the kill matrix is kept, beside the report.
func KillsFile(report string) string { return strings.TrimSuffix(report, ".json") + "-kills.json" }

func readKills(path string) ([]rowKills, error) {
	raw, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var rows []rowKills
	if err := json.Unmarshal(raw, &rows); err != nil {
		return nil, i18n.Errorf("%s: %v: delete it, and lab dev mutants measures every row whole and writes it again",
			"%s：%v：删掉它，lab dev mutants 会整行测量每一行，并重新写出它", path, err)
	}
	return rows, nil
}

// writeKills writes the rows sorted by their names, their lists sorted
// too (Go writes a map's keys sorted): a measure that changes little
// changes few lines.
func writeKills(path string, rows []rowKills) error {
	slices.SortFunc(rows, func(a, b rowKills) int { return strings.Compare(a.Stage, b.Stage) })
	for _, r := range rows {
		slices.Sort(r.Survived)
		slices.Sort(r.NotCompiled)
		for _, killers := range r.Killed {
			slices.Sort(killers)
		}
	}
	// Mutants are code: "&&" and "->" read better as they are than as
	// \u0026 and \u003e, which Go's JSON writes by default for HTML.
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(rows); err != nil {
		return err
	}
	return base.WriteFileAtomic(path, b.Bytes())
}

// rowOf is the name the matrix knows a stage's or a package's row by: the
// one the report's row has (mutationScore.Stage).
func rowOf(s stage.Stage) string { return s.Slug }

func findKills(rows []rowKills, id string) *rowKills {
	for i := range rows {
		if rows[i].Stage == id {
			return &rows[i]
		}
	}
	return nil
}

// putKills replaces the row of the same name, or adds it.
func putKills(rows []rowKills, row rowKills) []rowKills {
	rows = slices.DeleteFunc(rows, func(r rowKills) bool { return r.Stage == row.Stage })
	return append(rows, row)
}

// Why a mutant is checked again.
type rerunWhy int

const (
	keptKill       rerunWhy = iota // not checked again: an unchanged spec killed it
	keptRefused                    // not checked again: the compiler refused it
	keptSurvivor                   // not checked again: it passed these very specs
	isNew                          // not in the matrix
	survivedBefore                 // survived: a new or changed spec may kill it
	killersUnknown                 // killed, by specs nobody knows
	killersChanged                 // every spec that killed it changed, or is gone
)

func (w rerunWhy) in(l i18n.Lang) string {
	switch w {
	case isNew:
		return l.Tr("new since the last measure", "上次测量之后新出现的")
	case survivedBefore:
		return l.Tr("survived last time, and a spec is new or changed", "上次存活，而有测试用例新增或改过")
	case killersUnknown:
		return l.Tr("killed last time, by specs not known", "上次被发现，但不知道是哪些测试用例发现的")
	case killersChanged:
		return l.Tr("every spec that killed it changed or is gone", "发现它的测试用例都改了或已不在")
	case keptRefused:
		return l.Tr("kept: the compiler refused it, and its code is as it was", "沿用：编译器拒绝了它，而它的代码没有变")
	case keptSurvivor:
		return l.Tr("kept: it passed every spec, and none changed", "沿用：它通过了每个测试用例，而它们都没有变")
	}
	return l.Tr("kept: a spec that killed it is unchanged", "沿用：发现它的测试用例之一没有变")
}

// selectReruns applies the rule above: for each mutant (by key) of the row
// now, why it is checked again, or keptKill with the killers that still
// hold (those unchanged since the matrix). specs are the digests of the
// code of the specs that ran now (inRest for those whose code is in the
// rest, which is as it was, or no mutant would be kept).
func selectReruns(prior rowKills, keys []string, specs map[string]string) (why map[string]rerunWhy, kept map[string][]string) {
	why, kept = map[string]rerunWhy{}, map[string][]string{}
	survived := map[string]bool{}
	for _, k := range prior.Survived {
		survived[k] = true
	}
	// A survivor passed every spec; only a spec new or changed can fail it.
	specsMoved := false
	for spec, d := range specs {
		if was, ran := prior.Specs[spec]; !ran || was != d {
			specsMoved = true
		}
	}
	for _, k := range keys {
		killers, killed := prior.Killed[k]
		switch {
		case slices.Contains(prior.NotCompiled, k):
			why[k] = keptRefused
		case survived[k] && !specsMoved:
			why[k] = keptSurvivor
		case survived[k]:
			why[k] = survivedBefore
		case !killed:
			why[k] = isNew
		case len(killers) == 0:
			why[k] = killersUnknown
		default:
			var still []string
			for _, spec := range killers {
				if d, ran := prior.Specs[spec]; ran && specs[spec] == d {
					still = append(still, spec)
				}
			}
			if len(still) == 0 {
				why[k] = killersChanged
				continue
			}
			why[k], kept[k] = keptKill, still
		}
	}
	return why, kept
}

// mutantKeys are the keys of the mutants, in their order; a key that two
// mutants share (the same change at two places of one function) gets " #2"
// for the second, so that each has a line of the matrix.
func mutantKeys(names []string) []string {
	seen := map[string]int{}
	keys := make([]string, len(names))
	for i, name := range names {
		k := keyOf(name)
		seen[k]++
		if n := seen[k]; n > 1 {
			k += " #" + strconv.Itoa(n)
		}
		keys[i] = k
	}
	return keys
}

// rowDigests reads, from the commit ref, the code of row s cut in two: the
// digest of each spec's code, by the name lab reports it under (the test's
// package, a space, then its name), and the digest of the rest. Like
// suiteInputs, it leaves out comments and the tests' sentences; unlike it,
// it leaves out the catalogue of mistakes, which every measure checks
// whole, so that its edits move no kill.
func rowDigests(root, ref string, s stage.Stage) (rest string, specs map[string]string, err error) {
	h := sha256.New()
	what, _ := json.Marshal(struct {
		Regions []string
		Tests   []stage.Test
	}{s.Regions, s.Tests})
	h.Write(what)
	files, err := inputFiles(root, ref, s)
	if err != nil {
		return "", nil, err
	}
	// A spec is reported under its test's package as stage.yaml spells it.
	spelled := map[string][]string{}
	for _, t := range s.Tests {
		dir := strings.TrimPrefix(t.Package, "./")
		if !slices.Contains(spelled[dir], t.Package) {
			spelled[dir] = append(spelled[dir], t.Package)
		}
	}
	codes := map[string]*strings.Builder{}
	for _, f := range files {
		src, err := base.Output(root, "git", "show", ref+":"+f)
		if err != nil {
			return "", nil, err
		}
		code := codeOf(f, src)
		if pkgs := spelled[path.Dir(f)]; strings.HasSuffix(f, "_test.go") && len(pkgs) > 0 {
			var own map[string]string
			code, own = specsApart(f, src)
			for spec, c := range own {
				for _, pkg := range pkgs {
					name := pkg + " " + spec
					if codes[name] == nil {
						codes[name] = &strings.Builder{}
					}
					codes[name].WriteString(c) // a name written twice: both
				}
			}
		}
		fmt.Fprintf(h, "\x00%s\x00%s", f, code)
		rs, err := regions.Parse(f, []byte(src))
		if err != nil {
			return "", nil, err
		}
		for _, r := range rs {
			if slices.Contains(s.Regions, r.Name) {
				fmt.Fprintf(h, "\x00%s %v", r.Name, regions.FunctionsIn(f, src, r))
			}
		}
	}
	specs = map[string]string{}
	for name, c := range codes {
		sum := sha256.Sum256([]byte(c.String()))
		specs[name] = hex.EncodeToString(sum[:])[:12]
	}
	return hex.EncodeToString(h.Sum(nil))[:16], specs, nil
}

// Ginkgo's containers and the nodes that are specs.
var (
	ginkgoContainers = map[string]string{"Describe": "", "FDescribe": "", "PDescribe": "", "XDescribe": "",
		"Context": "", "FContext": "", "PContext": "", "XContext": "",
		"When": "when ", "FWhen": "when ", "PWhen": "when ", "XWhen": "when ", // Ginkgo writes "when " before the text
		"DescribeTable": "", "FDescribeTable": "", "PDescribeTable": "", "XDescribeTable": ""}
	ginkgoSpecs = map[string]bool{"It": true, "FIt": true, "PIt": true, "XIt": true,
		"Specify": true, "FSpecify": true, "PSpecify": true, "XSpecify": true,
		"Entry": true, "FEntry": true, "PEntry": true, "XEntry": true}
)

// specsApart splits a test file into the code of its specs, by name, and
// the rest, each printed without comments or sentences as codeOf prints
// them. A spec is a Go test function (but the one that runs a Ginkgo suite,
// whose code is the suite's setup), or a Ginkgo It or Entry whose name and
// containers' names are written out as strings, in a container of the
// file's top level: its whole call, text, decorators and body. Any other
// It stays in the rest: a spec that runs under a name not found here has
// its code in the rest (rowKills.Specs says "rest").
// A spec taken out leaves nothing behind it, so that adding one leaves the
// rest as it was.
func specsApart(name, src string) (string, map[string]string) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, 0)
	if err != nil {
		return src, nil
	}
	withoutSentences(f)
	specs := map[string]string{}
	print := func(n ast.Node) string {
		var b strings.Builder
		_ = printer.Fprint(&b, fset, n)
		return b.String()
	}
	cut := map[ast.Node]bool{}
	f.Decls = slices.DeleteFunc(f.Decls, func(d ast.Decl) bool {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || !isGoTest(fn) || runsSuite(fn) {
			return false
		}
		specs[fn.Name.Name] += print(fn)
		return true
	})
	// A spec's name is its containers' texts and its own only where each
	// call is a statement of the body of the container around it, from a
	// container of the file's top level (var _ = Describe(...)) down: that
	// body runs once, when Ginkgo builds the tree. An It in a loop, in an
	// if, in a function literal kept in a variable or in a helper runs under
	// names the source does not spell, so it stays in the rest, with the
	// specs whose names are made when they run.
	var container func(call *ast.CallExpr, names []string)
	visit := func(call *ast.CallExpr, names []string) {
		if len(call.Args) == 0 {
			return
		}
		node := calledName(call.Fun)
		if _, is := ginkgoContainers[node]; is {
			container(call, names)
			return
		}
		if text, ok := stringOf(call.Args[0]); ok && ginkgoSpecs[node] {
			specs[strings.Join(append(slices.Clip(names), text), " › ")] += print(call)
			cut[call] = true
		}
	}
	container = func(call *ast.CallExpr, names []string) {
		node := calledName(call.Fun)
		text, ok := stringOf(call.Args[0])
		if !ok {
			return
		}
		names = append(slices.Clip(names), ginkgoContainers[node]+text)
		for _, a := range call.Args[1:] {
			switch a := a.(type) {
			case *ast.FuncLit:
				if strings.HasSuffix(node, "DescribeTable") {
					continue // the table's body: every entry's code, so the rest's
				}
				for _, st := range a.Body.List {
					if e, ok := st.(*ast.ExprStmt); ok {
						if inner, ok := e.X.(*ast.CallExpr); ok {
							visit(inner, names)
						}
					}
				}
			case *ast.CallExpr:
				if strings.HasSuffix(node, "DescribeTable") && ginkgoSpecs[calledName(a.Fun)] {
					visit(a, names)
				}
			}
		}
	}
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.VAR {
			for _, sp := range g.Specs {
				for _, v := range sp.(*ast.ValueSpec).Values {
					if call, ok := v.(*ast.CallExpr); ok && len(call.Args) > 0 {
						if _, is := ginkgoContainers[calledName(call.Fun)]; is {
							container(call, nil) // an It of the top level stays in the rest
						}
					}
				}
			}
		}
	}
	// Cut the specs found out of the statement lists and the tables'
	// arguments that hold them; one found anywhere else stays in the rest
	// as well, which only makes the rest change with it.
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BlockStmt:
			n.List = slices.DeleteFunc(n.List, func(st ast.Stmt) bool {
				e, ok := st.(*ast.ExprStmt)
				return ok && cut[e.X]
			})
		case *ast.CallExpr:
			n.Args = slices.DeleteFunc(n.Args, func(a ast.Expr) bool { return cut[a] })
		}
		return true
	})
	// The printer keeps a blank line where the source had lines between
	// two statements, so a spec cut out would leave one: the rest is
	// compared without its empty lines (a raw string's own empty lines with
	// them, a change the rest does not see).
	var rest strings.Builder
	for line := range strings.Lines(print(f)) {
		if strings.TrimSpace(line) != "" {
			rest.WriteString(line)
		}
	}
	return rest.String(), specs
}

// calledName is the name of the function a call calls: It, or ginkgo.It.
func calledName(fun ast.Expr) string {
	switch fun := fun.(type) {
	case *ast.Ident:
		return fun.Name
	case *ast.SelectorExpr:
		return fun.Sel.Name
	}
	return ""
}

// stringOf is the value of a string written out, or of several joined
// with +.
func stringOf(e ast.Expr) (string, bool) {
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(e.Value)
		return s, err == nil
	case *ast.BinaryExpr:
		if e.Op != token.ADD {
			return "", false
		}
		a, ok := stringOf(e.X)
		b, ok2 := stringOf(e.Y)
		return a + b, ok && ok2
	case *ast.ParenExpr:
		return stringOf(e.X)
	}
	return "", false
}

// isGoTest tells a func TestXxx(t *testing.T).
func isGoTest(fn *ast.FuncDecl) bool {
	if fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, "Test") || fn.Name.Name == "TestMain" || fn.Type.Params.NumFields() != 1 {
		return false
	}
	star, ok := fn.Type.Params.List[0].Type.(*ast.StarExpr)
	if !ok {
		return false
	}
	sel, ok := star.X.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == "T"
}

// runsSuite tells the Go test that runs a Ginkgo suite: it is no spec of
// its own (lab reports the suite's specs), and its code is the suite's.
func runsSuite(fn *ast.FuncDecl) bool {
	found := false
	ast.Inspect(fn, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok && calledName(call.Fun) == "RunSpecs" {
			found = true
		}
		return !found
	})
	return found
}

// A measure is what lab dev mutants knows of a row before checking it, and
// what it leaves in the matrix for the next time.
type measure struct {
	ref   string    // the commit the trees are made from
	prior *rowKills // the row's matrix; nil: every mutant is checked
	full  bool      // lab dev mutants --full: every mutant, matrix or not
	guard bool      // lab dev mutants --guard: a sample of what plan sends back, nothing written
	// only, when set, are the operators whose mutants are checked: the
	// guard holds a row measured before some operators existed to the
	// mutants it had.
	only []string
	now  rowKills // written by checkMutants
	// kept is how many kills were kept from the matrix without checking
	// them again (0: the row was measured whole); checked how many mutants
	// were checked.
	kept, checked int
	partial       bool     // some verdicts were kept from the matrix
	refused       []string // the mutants checked that the compiler refused, by name
	survivors     []string // the survivors kept without checking them again, by name
}

// plan chooses which of the mutants (named as the report names them) are
// checked again, saying why in words; the others' kills are kept, with
// the killers returned. ran are the specs that ran on the clean tree,
// digests the code of each spec found in the source.
func (m *measure) plan(l i18n.Lang, s stage.Stage, names, ran []string, rest string, digests map[string]string) (check []bool, kept map[string][]string) {
	now := map[string]string{}
	for _, spec := range ran {
		if d, found := digests[spec]; found {
			now[spec] = d
		} else {
			now[spec] = inRest
		}
	}
	m.now = rowKills{Stage: rowOf(s), Rest: rest, Specs: now, Killed: map[string][]string{}, Survived: []string{}}
	check = make([]bool, len(names))
	for i := range check {
		check[i] = true
	}
	switch {
	case m.full:
		fmt.Println(l.Tr("  every mutant is checked (--full)", "  检查每个变异体（--full）"))
		return check, nil
	case m.prior == nil && m.guard:
		return check, nil // no matrix to draw the sample from: it is drawn from all
	case m.prior == nil:
		fmt.Println(l.Tr("  no kill matrix of this row yet (docs/mutation-kills.json): every mutant is checked, and the matrix written",
			"  这一行还没有发现矩阵（docs/mutation-kills.json）：检查每个变异体，并写下矩阵"))
		return check, nil
	case m.prior.Rest != rest && m.guard:
		fmt.Println(l.Tr("  the row's code apart from its specs changed since the matrix: a sample of all its mutants is checked",
			"  自矩阵写下以来，这一行除测试用例以外的代码变了：从它所有的变异体中抽样检查"))
		return check, nil
	case m.prior.Rest != rest:
		fmt.Println(l.Tr("  the row's code apart from its specs changed since the matrix (helpers, suite setup, the code under test, its tests in stage.yaml): every mutant is checked",
			"  自矩阵写下以来，这一行除测试用例以外的代码变了（辅助函数、套件准备、被测代码、stage.yaml 里的 tests）：检查每个变异体"))
		return check, nil
	}
	m.partial = true
	keys := mutantKeys(names)
	why, kept := selectReruns(*m.prior, keys, now)
	var changed []string
	for _, spec := range ran {
		if d, was := m.prior.Specs[spec]; !was || d != now[spec] {
			changed = append(changed, spec)
		}
	}
	if len(changed) == 0 && len(gone(m.prior.Specs, now)) == 0 {
		fmt.Println(l.Tr("  the row's code is as it was when the matrix was written: checking again only what the matrix cannot vouch for",
			"  这一行的代码和写下矩阵时一样：只重新检查矩阵无法担保的变异体"))
	} else {
		fmt.Printf(l.Tr("  since the matrix, only specs changed (%d changed or new, %d gone): checking again what they can move\n",
			"  自矩阵写下以来只有测试用例变了（%d 个改动或新增，%d 个已不在）：只重新检查它们可能改变的变异体\n"), len(changed), len(gone(m.prior.Specs, now)))
	}
	for _, spec := range changed {
		fmt.Printf(l.Tr("    changed or new: %s\n", "    改动或新增：%s\n"), spec)
	}
	for _, spec := range gone(m.prior.Specs, now) {
		fmt.Printf(l.Tr("    gone: %s\n", "    已不在：%s\n"), spec)
	}
	for i, k := range keys {
		switch why[k] {
		case keptKill:
			check[i] = false
			m.kept++
			continue
		case keptRefused:
			check[i] = false
			m.now.NotCompiled = append(m.now.NotCompiled, k)
			continue
		case keptSurvivor:
			check[i] = false
			m.survivors = append(m.survivors, names[i])
			continue
		}
		fmt.Printf(l.Tr("  again  %s\n         why: %s\n", "  重查  %s\n         原因：%s\n"), names[i], why[k].in(l))
	}
	fmt.Printf(l.Tr("  mutants checked again: %d of %d; kept: kills by an unchanged spec %d, refused by the compiler %d, survivors of unchanged specs %d\n",
		"  重新检查的变异体：%d / %d；沿用：由没变的测试用例发现的 %d 个，编译器拒绝的 %d 个，在没变的测试用例下存活的 %d 个\n"),
		len(keys)-m.kept-len(m.now.NotCompiled)-len(m.survivors), len(keys), m.kept, len(m.now.NotCompiled), len(m.survivors))
	return check, kept
}

// gone are the specs of was that are not in now, sorted.
func gone(was, now map[string]string) []string {
	var out []string
	for spec := range was {
		if _, still := now[spec]; !still {
			out = append(out, spec)
		}
	}
	slices.Sort(out)
	return out
}

// unsure says, in words, which specs of the row a measure of part of it
// cannot say fail nothing, and what settles it.
func unsure(l i18n.Lang, score mutationScore) string {
	// Worded so that English needs no agreement in number.
	return fmt.Sprintf(l.Tr("changed since the row was last measured whole, and failing none of the mutants checked again, these may fail one whose kill was kept (bin/lab dev mutants --full %s says): %s",
		"这些测试用例自这一行上次整行测量以来改过，在重查的变异体上一个都没失败，它们可能会让某个沿用了发现结论的变异体失败（bin/lab dev mutants --full %s 能确定）：%s"),
		score.Stage, strings.Join(score.Unsure, "; "))
}

// changedSince tells whether spec is new or changed since the matrix.
func changedSince(m *measure, spec string) bool {
	if m.prior == nil {
		return true
	}
	d, found := m.prior.Specs[spec]
	return !found || d != m.now.Specs[spec]
}

// record writes into the matrix what this measure found: the kills kept,
// and the mutants checked, each killed with the specs that failed or
// survived; one that could not be made or did not compile is left out, to
// be checked next time.
func (m *measure) record(s stage.Stage, c *catalogueRun, keys map[string]string, kept map[string][]string, score mutationScore) {
	maps.Copy(m.now.Killed, kept)
	survived := map[string]bool{}
	for _, name := range score.Survivors {
		survived[name] = true
	}
	for name := range score.CaughtLater {
		survived[name] = true
	}
	for _, name := range m.refused {
		m.now.NotCompiled = append(m.now.NotCompiled, keys[name])
	}
	for name, key := range keys {
		switch killers, killed := c.killers[name]; {
		case survived[name]:
			m.now.Survived = append(m.now.Survived, key)
		case killed:
			m.now.Killed[key] = append([]string{}, killers...)
		}
	}
}
