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
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"sigs.k8s.io/yaml"
)

// root is the repository, two folders up from test/say.
const root = "../.."

func TestBothSpeaksTheLanguageItIsGiven(t *testing.T) {
	t.Setenv("LAB_LANG", "")
	if got := Both("%d Jobs left", "还剩 %d 个 Job", 3); got != "3 Jobs left" {
		t.Errorf("in English: %q", got)
	}
	t.Setenv("LAB_LANG", "zh_CN")
	if got := Both("%d Jobs left", "还剩 %d 个 Job", 3); got != "还剩 3 个 Job" {
		t.Errorf("in Chinese: %q", got)
	}
	if got := Both("%[1]s then %[2]s", "先 %[2]s 再 %[1]s", "a", "b"); got != "先 b 再 a" {
		t.Errorf("reordered: %q", got)
	}
}

// TestEverySentenceHasTwoLanguages reads the tests of every package a
// stage's check runs (exercises/*/stage.yaml) and fails for each sentence
// that a failing test would print in English only: the message of t.Error,
// t.Errorf, t.Fatal, t.Fatalf and Ginkgo's Fail, and the description of a
// Gomega assertion (Expect(x).To(m, "...")), when it is a literal with
// words in it rather than say.Both. In every test of the repository it
// holds each say.Both to its contract: both formats literal, the Chinese
// one Chinese, the same verbs for the same values, as many as are passed.
func TestEverySentenceHasTwoLanguages(t *testing.T) {
	checked := checkedPackages(t)
	if len(checked) < 10 {
		t.Fatalf("found the tests of only %d packages in exercises/*/stage.yaml: %v", len(checked), checked)
	}
	var problems []string
	files := 0
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "bin" || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		files++
		strict := checked[filepath.ToSlash(filepath.Dir(rel))]
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			where := fmt.Sprintf("%s:%d", filepath.ToSlash(rel), fset.Position(call.Pos()).Line)
			if isBoth(call) {
				problems = append(problems, bothProblems(where, call)...)
				return true
			}
			if strict {
				if arg := oneLanguage(call); arg != "" {
					problems = append(problems, fmt.Sprintf("%s: %q is in English only: write it as say.Both(en, zh, args...)", where, arg))
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files == 0 {
		t.Fatal("read no test file")
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// stageTest is a test that a stage's check runs (stage.yaml's tests:).
type stageTest struct{ Package, Labels string }

// stageTests are the tests of every stage's check, the package without
// its leading "./".
func stageTests(t *testing.T) []stageTest {
	yamls, err := filepath.Glob(filepath.Join(root, "exercises", "*", "stage.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var tests []stageTest
	for _, y := range yamls {
		raw, err := os.ReadFile(y)
		if err != nil {
			t.Fatal(err)
		}
		var s struct{ Tests []stageTest }
		if err := yaml.Unmarshal(raw, &s); err != nil {
			t.Fatalf("%s: %v", y, err)
		}
		for _, test := range s.Tests {
			test.Package = strings.TrimPrefix(test.Package, "./")
			tests = append(tests, test)
		}
	}
	return tests
}

// checkedPackages are the folders of the packages whose tests some stage's
// check runs.
func checkedPackages(t *testing.T) map[string]bool {
	pkgs := map[string]bool{}
	for _, test := range stageTests(t) {
		pkgs[test.Package] = true
	}
	return pkgs
}

func isBoth(call *ast.CallExpr) bool {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "Both" {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	return ok && pkg.Name == "say"
}

// bothProblems holds one say.Both call to its contract.
func bothProblems(where string, call *ast.CallExpr) []string {
	if len(call.Args) < 2 {
		return []string{where + ": say.Both needs a sentence in English and one in Chinese"}
	}
	en, ok1 := literal(call.Args[0])
	zh, ok2 := literal(call.Args[1])
	if !ok1 || !ok2 {
		return []string{where + ": say.Both's two sentences must be literals, so that this test can read them"}
	}
	var problems []string
	if hasHan(en) {
		problems = append(problems, fmt.Sprintf("%s: the English sentence %q has Chinese in it", where, en))
	}
	if !hasHan(zh) {
		problems = append(problems, fmt.Sprintf("%s: the Chinese sentence %q has no Chinese in it", where, zh))
	}
	enVerbs, zhVerbs := verbs(en), verbs(zh)
	if !slices.Equal(enVerbs, zhVerbs) {
		problems = append(problems, fmt.Sprintf("%s: the sentences take different values: %v in English, %v in Chinese (%q, %q)", where, enVerbs, zhVerbs, en, zh))
	}
	if n := len(call.Args) - 2; len(enVerbs) != n {
		problems = append(problems, fmt.Sprintf("%s: %d values are passed, but %q formats %d", where, n, en, len(enVerbs)))
	}
	return problems
}

// oneLanguage is the English-only sentence that call passes to a failure,
// or "".
func oneLanguage(call *ast.CallExpr) string {
	var arg ast.Expr
	switch fun := call.Fun.(type) {
	case *ast.SelectorExpr:
		if pkg, ok := fun.X.(*ast.Ident); ok && (pkg.Name == "fmt" || pkg.Name == "errors") {
			return "" // an error made, not a failure reported
		}
		switch fun.Sel.Name {
		case "Error", "Errorf", "Fatal", "Fatalf", "Fail":
			if len(call.Args) > 0 {
				arg = call.Args[0]
			}
		case "To", "ToNot", "NotTo", "Should", "ShouldNot":
			if len(call.Args) > 1 {
				arg = call.Args[1]
			}
		}
	case *ast.Ident:
		if fun.Name == "Fail" && len(call.Args) > 0 {
			arg = call.Args[0]
		}
	}
	if arg == nil {
		return ""
	}
	// fmt.Sprintf("...", ...) and fmt.Errorf are a literal too.
	if c, ok := arg.(*ast.CallExpr); ok && len(c.Args) > 0 {
		if sel, ok := c.Fun.(*ast.SelectorExpr); ok && (sel.Sel.Name == "Sprintf" || sel.Sel.Name == "Errorf") {
			arg = c.Args[0]
		}
	}
	s, ok := literal(arg)
	if !ok || !hasWords(s) {
		return ""
	}
	return s
}

// literal is the string a literal, or a sum of literals, holds.
func literal(e ast.Expr) (string, bool) {
	switch x := e.(type) {
	case *ast.BasicLit:
		if x.Kind == token.STRING {
			s, err := strconv.Unquote(x.Value)
			return s, err == nil
		}
	case *ast.BinaryExpr:
		if x.Op == token.ADD {
			a, ok1 := literal(x.X)
			b, ok2 := literal(x.Y)
			return a + b, ok1 && ok2
		}
	case *ast.ParenExpr:
		return literal(x.X)
	}
	return "", false
}

var verb = regexp.MustCompile(`%(\[(\d+)\])?[-+# 0]*(\d+|\*)?(\.(\d+|\*)?)?([a-zA-Z%])`)

// verbs are a format's verbs, one per value in the order of the values:
// "%[2]d %[1]s" gives [s d], as "%s %d" does.
func verbs(format string) []string {
	byValue := map[int]string{}
	next := 1
	for _, m := range verb.FindAllStringSubmatch(format, -1) {
		if m[6] == "%" {
			continue
		}
		if m[2] != "" {
			next, _ = strconv.Atoi(m[2])
		}
		byValue[next] = m[6]
		next++
	}
	out := make([]string, 0, len(byValue))
	for i := 1; i <= len(byValue); i++ {
		out = append(out, byValue[i])
	}
	return out
}

// hasWords is whether a format says something in words, rather than only
// arranging values ("%s: %v").
func hasWords(format string) bool {
	return strings.IndexFunc(verb.ReplaceAllString(format, ""), unicode.IsLetter) >= 0
}

func hasHan(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.Is(unicode.Han, r) }) >= 0
}

func TestTheCheckFindsSentencesInOneLanguage(t *testing.T) {
	src := `package p
func f() {
	t.Errorf("Next = %v, want %v", a, b)                  // flagged
	Expect(x).To(Equal(y), "status.active")               // flagged
	Expect(x).To(Equal(y), fmt.Sprintf("after %d", n))    // flagged
	Fail("the index is missing")                          // flagged
	t.Error(say.Both("Next = %v", "Next = %v，不对", a))    // two languages
	t.Errorf("%s: %v", name, err)                         // no words of its own
	t.Fatal(err)                                          // Go's message
	_ = fmt.Errorf("delete %s: %w", name, err)            // an error made, not reported
	Expect(x).To(Equal(y), tc.what)                       // a value: the table says it
}
`
	f, err := parser.ParseFile(token.NewFileSet(), "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	ast.Inspect(f, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok && !isBoth(call) {
			if s := oneLanguage(call); s != "" {
				found = append(found, s)
			}
		}
		return true
	})
	want := []string{"Next = %v, want %v", "status.active", "after %d", "the index is missing"}
	if !slices.Equal(found, want) {
		t.Errorf("found %q, want %q", found, want)
	}
	if p := bothProblems("p.go:1", &ast.CallExpr{Args: []ast.Expr{
		&ast.BasicLit{Kind: token.STRING, Value: `"%d runs"`}, &ast.BasicLit{Kind: token.STRING, Value: `"%s 次运行"`},
		&ast.Ident{Name: "n"}}}); len(p) != 1 {
		t.Errorf("twins with %%d and %%s: problems %q, want one", p)
	}
}

// TestEveryNameHasAChineseTwin holds the names of the tests and specs of
// every stage's package to their Chinese twins in the package's
// testdata/names.zh-CN.yaml, which bin/lab --lang zh shows in their place
// (names stay English in the tests, where they are identifiers: stage.yaml's
// functions, -ginkgo.focus, go test -run):
// a name the file lacks, or a twin whose English no test has any more, is
// an error. A name is a segment: the text of a Ginkgo container, spec or
// table entry, or of a Go subtest (t.Run), literal or taken from the table
// the test ranges over.
func TestEveryNameHasAChineseTwin(t *testing.T) {
	for pkg := range checkedPackages(t) {
		names := map[string]string{} // name -> where
		files, _ := filepath.Glob(filepath.Join(root, pkg, "*_test.go"))
		for _, file := range files {
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, file, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			for name, line := range testNames(fset, f) {
				names[name] = fmt.Sprintf("%s:%d", filepath.ToSlash(filepath.Join(pkg, filepath.Base(file))), line)
			}
		}
		twins := map[string]string{}
		file := filepath.Join(root, pkg, "testdata", "names.zh-CN.yaml")
		if raw, err := os.ReadFile(file); err == nil {
			if err := yaml.UnmarshalStrict(raw, &twins); err != nil {
				t.Errorf("%s: %v", file, err)
				continue
			}
		}
		var missing []string
		for name, where := range names {
			zh, ok := twins[name]
			switch {
			case !ok:
				missing = append(missing, fmt.Sprintf("%s: %q", where, name))
			case !hasHan(zh):
				t.Errorf("%s/testdata/names.zh-CN.yaml: the twin of %q has no Chinese in it: %q", pkg, name, zh)
			}
		}
		slices.Sort(missing)
		if len(missing) > 0 {
			t.Errorf("%s/testdata/names.zh-CN.yaml has no Chinese twin for %d names of its tests:\n%s", pkg, len(missing), strings.Join(missing, "\n"))
		}
		for name := range twins {
			if _, ok := names[name]; !ok {
				t.Errorf("%s/testdata/names.zh-CN.yaml: no test is named %q any more: remove it, or rename it as the test was", pkg, name)
			}
		}
	}
}

// testNames are the names a file's tests give their specs and subtests,
// with the line of each.
func testNames(fset *token.FileSet, f *ast.File) map[string]int {
	names := map[string]int{}
	add := func(e ast.Expr) {
		if s, ok := literal(e); ok && strings.TrimSpace(s) != "" {
			names[s] = fset.Position(e.Pos()).Line
		}
	}
	// The fields that Ginkgo specs are named by (It(m.bug, ...) over a
	// table of mutants), whose table is a declaration of its own.
	specFields := map[string]bool{}
	for _, decl := range f.Decls {
		// The fields a function's subtests are named by (t.Run(tc.name, ...)).
		fields := map[string]bool{}
		ast.Inspect(decl, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) == 0 {
				return true
			}
			var fun string
			switch x := call.Fun.(type) {
			case *ast.Ident:
				fun = x.Name
			case *ast.SelectorExpr:
				fun = x.Sel.Name
			}
			switch fun {
			case "Describe", "Context", "When", "It", "Specify", "DescribeTable", "Entry":
				if sel, ok := call.Args[0].(*ast.SelectorExpr); ok {
					specFields[sel.Sel.Name] = true // It(m.bug): a spec per row
				}
				add(call.Args[0])
			case "Run":
				if sel, ok := call.Args[0].(*ast.SelectorExpr); ok {
					fields[sel.Sel.Name] = true
				} else {
					add(call.Args[0])
				}
			}
			return true
		})
		if len(fields) == 0 {
			continue
		}
		ast.Inspect(decl, func(n ast.Node) bool {
			table, ok := n.(*ast.CompositeLit)
			if !ok {
				return true
			}
			rows, ok := table.Type.(*ast.ArrayType)
			if !ok {
				return true
			}
			row, ok := rows.Elt.(*ast.StructType)
			if !ok {
				return true
			}
			at := map[int]bool{}
			i := 0
			for _, field := range row.Fields.List {
				for _, name := range field.Names {
					if fields[name.Name] {
						at[i] = true
					}
					i++
				}
			}
			for _, elt := range table.Elts {
				values, ok := elt.(*ast.CompositeLit)
				if !ok {
					continue
				}
				for j, v := range values.Elts {
					if kv, ok := v.(*ast.KeyValueExpr); ok {
						if key, ok := kv.Key.(*ast.Ident); ok && fields[key.Name] {
							add(kv.Value)
						}
					} else if at[j] {
						add(v)
					}
				}
			}
			return true
		})
	}
	ast.Inspect(f, func(n ast.Node) bool {
		if kv, ok := n.(*ast.KeyValueExpr); ok {
			if key, ok := kv.Key.(*ast.Ident); ok && specFields[key.Name] {
				add(kv.Value)
			}
		}
		return true
	})
	return names
}
