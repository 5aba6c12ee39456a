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

package say

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestEveryAssertionOfAStageLeadsWithASentence holds every Gomega assertion
// of the stages' specs (Expect, Eventually, Consistently, and g.Expect
// inside them) to a description written with say.Both. Without one, the
// first lines under a failed spec are Gomega's dump of the values and the
// matcher (a Satisfy's predicate prints as a reflect.rtype), and the attendee
// reads a data structure where a sentence should say what went wrong. The
// specs are those of the stages' own packages (exercises/*/), and in a
// package whose specs a stage picks by label (stage.yaml `labels:`), those
// that carry a stage's label, the setup that runs before them, and the
// helpers outside any spec.
func TestEveryAssertionOfAStageLeadsWithASentence(t *testing.T) {
	files := stageSpecFiles(t)
	if len(files) < 10 {
		t.Fatalf("found only %d test files of the stages' specs: %v", len(files), files)
	}
	var problems []string
	assertions := 0
	for file, labelled := range files {
		src, err := os.ReadFile(filepath.Join(root, file))
		if err != nil {
			t.Fatal(err)
		}
		found, missing := undescribed(t, file, src, labelled)
		assertions += found
		problems = append(problems, missing...)
	}
	if assertions < 100 {
		t.Fatalf("found only %d assertions in %d files: is the scan blind?", assertions, len(files))
	}
	slices.Sort(problems)
	for _, p := range problems {
		t.Error(p)
	}
}

// stageSpecFiles are the test files of the stages' specs, relative to the
// repository, each with whether a stage picks its specs by label.
func stageSpecFiles(t *testing.T) map[string]bool {
	dirs := map[string]bool{}
	for _, test := range stageTests(t) {
		if test.Labels != "" || strings.HasPrefix(test.Package, "exercises/") {
			dirs[test.Package] = dirs[test.Package] || test.Labels != ""
		}
	}
	files := map[string]bool{}
	for dir, labelled := range dirs {
		matches, _ := filepath.Glob(filepath.Join(root, dir, "*_test.go"))
		for _, m := range matches {
			rel, _ := filepath.Rel(root, m)
			files[filepath.ToSlash(rel)] = labelled
		}
	}
	return files
}

// undescribed counts the Gomega assertions of a file that a stage's check
// runs and lists those whose description is not a say.Both sentence. In a
// file whose specs are picked by label, an assertion in a spec or container
// that carries no stage label is not the stages' (a setup node counts when
// its container holds a labelled spec).
func undescribed(t *testing.T, name string, src []byte, byLabel bool) (found int, missing []string) {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, 0)
	if err != nil {
		t.Fatal(err)
	}
	sentences := sentenceNames(f)
	var nodes []*ast.CallExpr // the Ginkgo nodes around the one inspected
	var walk func(n ast.Node) bool
	walk = func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		if ginkgoNode(call) != "" {
			nodes = append(nodes, call)
			for _, arg := range call.Args {
				ast.Inspect(arg, walk)
			}
			nodes = nodes[:len(nodes)-1]
			return false
		}
		what := assertion(call)
		if what == "" || (byLabel && !stages(nodes)) {
			return true
		}
		found++
		if len(call.Args) < 2 || !isSentence(call.Args[1], sentences) {
			missing = append(missing, fmt.Sprintf("%s:%d: this %s has no sentence: give it one, say.Both(en, zh), as its description (after the matcher), so that its failure leads with words, not Gomega's dump",
				name, fset.Position(call.Pos()).Line, what))
		}
		return true
	}
	ast.Inspect(f, walk)
	return found, missing
}

// ginkgoNode is the name of the Ginkgo container, spec or setup node that
// call makes, or "".
func ginkgoNode(call *ast.CallExpr) string {
	id, ok := call.Fun.(*ast.Ident)
	if !ok {
		return ""
	}
	switch id.Name {
	case "Describe", "Context", "When", "It", "Specify", "DescribeTable", "Entry",
		"BeforeEach", "JustBeforeEach", "AfterEach", "JustAfterEach", "BeforeAll", "AfterAll",
		"BeforeSuite", "AfterSuite", "SynchronizedBeforeSuite", "SynchronizedAfterSuite":
		return id.Name
	}
	return ""
}

// stages says whether code inside the Ginkgo nodes around it runs in a
// stage's check that picks specs by label: outside any node (a helper, a
// suite's setup), under a node with a stage's label, or in a setup node
// whose container holds a labelled one.
func stages(nodes []*ast.CallExpr) bool {
	if len(nodes) == 0 {
		return true
	}
	for _, n := range nodes {
		if hasStageLabel(n, false) {
			return true
		}
	}
	inner := nodes[len(nodes)-1]
	switch ginkgoNode(inner) {
	case "It", "Specify", "Entry", "Describe", "Context", "When", "DescribeTable":
		return false
	}
	if len(nodes) == 1 {
		return true // BeforeSuite and the like
	}
	return hasStageLabel(nodes[len(nodes)-2], true)
}

// hasStageLabel says whether node carries Label("lab-<slug>"), or, with
// within, whether any node inside it does.
func hasStageLabel(node *ast.CallExpr, within bool) bool {
	found := false
	check := func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		if id, ok := c.Fun.(*ast.Ident); ok && id.Name == "Label" {
			for _, a := range c.Args {
				if s, ok := literal(a); ok && strings.HasPrefix(s, "lab-") {
					found = true
				}
			}
		}
		return within || c == node
	}
	if within {
		ast.Inspect(node, check)
		return found
	}
	for _, a := range node.Args {
		if c, ok := a.(*ast.CallExpr); ok {
			check(c)
		}
	}
	return found
}

// assertion names the Gomega function that call ends ("Expect", "Eventually",
// ...), when call is the To, NotTo, Should... of an assertion; else "".
// The chain between them may hold WithOffset, WithTimeout, WithPolling,
// WithContext, WithArguments.
func assertion(call *ast.CallExpr) string {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return ""
	}
	switch sel.Sel.Name {
	case "To", "ToNot", "NotTo", "Should", "ShouldNot":
	default:
		return ""
	}
	for x := sel.X; ; {
		c, ok := x.(*ast.CallExpr)
		if !ok {
			return ""
		}
		var fun string
		switch f := c.Fun.(type) {
		case *ast.Ident:
			fun = f.Name
		case *ast.SelectorExpr:
			fun = f.Sel.Name
			if strings.HasPrefix(fun, "With") {
				x = f.X
				continue
			}
		}
		switch fun {
		case "Expect", "ExpectWithOffset", "Eventually", "EventuallyWithOffset", "Consistently", "ConsistentlyWithOffset", "Ω":
			return strings.TrimSuffix(fun, "WithOffset")
		case "eventually", "consistently": // a suite's own with its timeouts (internal/controller)
			return fun
		}
		return ""
	}
}

// isSentence says whether a description is a say.Both sentence: the call
// itself, a func() string that returns one (Gomega calls it only on a
// failure), or a name that holds one wherever the file gives it a value
// (a variable, waitInStep2 := say.Both(...), or a field of a table of
// cases, tc.what).
func isSentence(e ast.Expr, sentences map[string]bool) bool {
	if lit, ok := e.(*ast.FuncLit); ok && len(lit.Body.List) == 1 {
		if ret, ok := lit.Body.List[0].(*ast.ReturnStmt); ok && len(ret.Results) == 1 {
			e = ret.Results[0]
		}
	}
	switch x := e.(type) {
	case *ast.CallExpr:
		return isBoth(x) && !nameAlone(x)
	case *ast.Ident:
		return sentences[x.Name]
	case *ast.SelectorExpr:
		return sentences["."+x.Sel.Name]
	}
	return false
}

// nameAlone says whether a say.Both's English is a literal of one word,
// such as "status.lastSuccessfulTime": the name of what is compared, which
// says nothing of what went wrong, not a sentence.
func nameAlone(call *ast.CallExpr) bool {
	if len(call.Args) == 0 {
		return false
	}
	lit, ok := call.Args[0].(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return false
	}
	text, err := strconv.Unquote(lit.Value)
	return err == nil && !strings.Contains(strings.TrimSpace(text), " ")
}

// sentenceNames are the variables ("name") and fields (".name") of a file
// that every value given them is a say.Both sentence.
func sentenceNames(f *ast.File) map[string]bool {
	both, other := map[string]bool{}, map[string]bool{}
	give := func(name string, v ast.Expr) {
		if c, ok := v.(*ast.CallExpr); ok && isBoth(c) {
			both[name] = true
		} else {
			other[name] = true
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.AssignStmt:
			if len(x.Lhs) == len(x.Rhs) {
				for i, l := range x.Lhs {
					if id, ok := l.(*ast.Ident); ok {
						give(id.Name, x.Rhs[i])
					}
				}
			}
		case *ast.ValueSpec:
			if len(x.Names) == len(x.Values) {
				for i, id := range x.Names {
					give(id.Name, x.Values[i])
				}
			}
		case *ast.CompositeLit:
			// A row of a table: its fields by key, or by position in the
			// table's struct type.
			var fields []string
			if rows, ok := x.Type.(*ast.ArrayType); ok {
				if row, ok := rows.Elt.(*ast.StructType); ok {
					for _, field := range row.Fields.List {
						for _, name := range field.Names {
							fields = append(fields, name.Name)
						}
					}
				}
			}
			for _, elt := range x.Elts {
				values, ok := elt.(*ast.CompositeLit)
				if !ok {
					continue
				}
				for j, v := range values.Elts {
					if kv, ok := v.(*ast.KeyValueExpr); ok {
						if key, ok := kv.Key.(*ast.Ident); ok {
							give("."+key.Name, kv.Value)
						}
					} else if j < len(fields) {
						give("."+fields[j], v)
					}
				}
			}
		}
		return true
	})
	for name := range other {
		delete(both, name)
	}
	return both
}

func TestTheCheckFindsAnAssertionWithoutASentence(t *testing.T) {
	src := `package p
func f() {
	Expect(err).NotTo(HaveOccurred())                                        // flagged
	Expect(x).To(Satisfy(func(int) bool { return true }), "a value")         // flagged
	Eventually(get).WithTimeout(time.Second).Should(ContainElement(y))       // flagged
	Eventually(func(g Gomega) { g.Expect(x).To(Equal(y)) }).Should(Succeed(), say.Both("x reaches y", "x 达到 y")) // the inner one flagged
	Consistently(get).ShouldNot(BeNil(), tc.reason)                          // flagged: no table gives tc.reason
	Expect(x).To(Equal(y), say.Both("status.active after the reconcile", "调和之后的 status.active"))
	Expect(x).To(Equal(y), func() string { return say.Both("z as the spec wrote it", "测试用例写下的 z") })
	other.To(Equal(y))                                                         // no assertion
	Expect(x).To(Equal(y), say.Both("status.active", "status.active 的值"))   // flagged: a name, not a sentence
	because := say.Both("a reason", "一个原因")
	Expect(x).To(Equal(y), because)
	for _, tc := range []struct{ name, what, plain string }{{"a", say.Both("a", "甲"), "a"}} {
		Expect(x).To(Equal(y), tc.what)
		Expect(x).To(Equal(y), tc.plain)                                       // flagged: not a sentence in every row
	}
}
`
	found, missing := undescribed(t, "p.go", []byte(src), false)
	if found != 12 {
		t.Errorf("found %d assertions, want 12", found)
	}
	var lines []string
	for _, m := range missing {
		where, _, _ := strings.Cut(m, ": this")
		lines = append(lines, where)
	}
	want := []string{"p.go:3", "p.go:4", "p.go:5", "p.go:6", "p.go:7", "p.go:11", "p.go:16"}
	if !slices.Equal(lines, want) {
		t.Errorf("flagged %v, want %v", lines, want)
	}
}
