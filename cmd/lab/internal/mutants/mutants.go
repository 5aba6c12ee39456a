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

package mutants

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"cronlab.dev/cronlab/cmd/lab/internal/gosrc"
	"cronlab.dev/cronlab/cmd/lab/internal/regions"
	"cronlab.dev/cronlab/cmd/lab/internal/stage"
)

// An Op is a kind of small change, each one a mistake that attendees make.
type Op string

const (
	// RemoveStatement leaves out a call, an if block, a loop, a return,
	// a defer or an assignment: the step someone forgot.
	RemoveStatement Op = "remove statement"
	// NegateCondition turns the condition of an if, a for or a case of a
	// switch without a tag into its opposite: the inverted test.
	NegateCondition Op = "negate condition"
	// MoveBoundary moves a comparison's boundary by one: < and <=, > and
	// >=, t.Before(u) and !t.After(u). The run exactly at the limit.
	MoveBoundary Op = "move boundary"
	// DropOperand keeps one side of && or ||: the half-written condition.
	DropOperand Op = "drop operand"
	// SwallowError returns nil where the function returns an error.
	SwallowError Op = "swallow error"
	// ReturnZero makes the whole function return zero values (or do
	// nothing): a function the stage asks for and nothing requires.
	ReturnZero Op = "return zero"
)

// A Mutant is one small change to one function of the reference.
type Mutant struct {
	File string // relative to the tree, with slashes
	Func string // as regions.FunctionsIn names it: Type.method or function
	Line int    // where the change is, in the reference
	Op   Op
	Was  string // the code changed, on one line
	Now  string // what it became ("" for a removal)
	// whole is the function as written, mutated the function with the
	// change made: the edit that makes the mutant.
	whole, mutated string
}

// Name says what the mutant did, short enough for one line of a report.
func (m Mutant) Name() string {
	if m.Now == "" {
		return fmt.Sprintf("%s:%d %s (%s): %s", m.File, m.Line, m.Op, m.Func, m.Was)
	}
	return fmt.Sprintf("%s:%d %s (%s): %s -> %s", m.File, m.Line, m.Op, m.Func, m.Was, m.Now)
}

// Key is the name without the line, which moves when code above it
// changes: how a mutant is named in the list of equivalent ones.
func (m Mutant) Key() string {
	if m.Now == "" {
		return fmt.Sprintf("%s %s (%s): %s", m.File, m.Op, m.Func, m.Was)
	}
	return fmt.Sprintf("%s %s (%s): %s -> %s", m.File, m.Op, m.Func, m.Was, m.Now)
}

// Mistake is the mutant as a catalogue entry: lab dev verify makes and checks
// it as it does the hand-written ones, in the same build overlays.
func (m Mutant) Mistake() stage.Mistake {
	return stage.Mistake{Name: m.Name(), Edits: []stage.Edit{{File: m.File, Replace: m.whole, With: m.mutated}}}
}

// Of makes the mutants of the Go functions in the named regions of the
// tree at dir, in file and then source order.
func Of(dir string, regionNames []string) ([]Mutant, error) {
	want := map[string]bool{}
	for _, n := range regionNames {
		want[n] = true
	}
	var out []Mutant
	err := regions.EachFile(dir, func(_, rel string, src []byte) error {
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		ms, err := InFile(filepath.ToSlash(rel), src, want)
		out = append(out, ms...)
		return err
	})
	return out, err
}

// InFile makes the mutants of the functions that lie in the named regions
// of one Go file.
func InFile(rel string, src []byte, regionNames map[string]bool) ([]Mutant, error) {
	rs, err := regions.Parse(rel, src)
	if err != nil {
		return nil, err
	}
	return inFile(rel, src, func(line int) bool { return inRegions(line, rs, regionNames) })
}

// InPackage makes the mutants of every function of one package of the tree
// at dir (pkg: its directory, relative to dir, with slashes), but not of
// its tests or its generated files: for the tests of a package that no
// stage checks as a whole.
func InPackage(dir, pkg string) ([]Mutant, error) {
	entries, err := os.ReadDir(filepath.Join(dir, filepath.FromSlash(pkg)))
	if err != nil {
		return nil, err
	}
	var out []Mutant
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") || strings.HasPrefix(name, "zz_generated") {
			continue
		}
		rel := pkg + "/" + name
		src, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil {
			return nil, err
		}
		ms, err := inFile(rel, src, func(int) bool { return true })
		if err != nil {
			return nil, err
		}
		out = append(out, ms...)
	}
	return out, nil
}

// inFile makes the mutants of the functions of one file that begin on a
// line keep accepts.
func inFile(rel string, src []byte, keep func(line int) bool) ([]Mutant, error) {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, rel, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var out []Mutant
	for _, decl := range file.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Body == nil || !keep(fset.Position(fn.Pos()).Line) {
			continue
		}
		f := function{fset: fset, src: src, decl: fn, file: rel, name: funcName(fn), imports: importNames(file)}
		out = append(out, f.mutants()...)
	}
	return out, nil
}

func inRegions(line int, rs []regions.Region, names map[string]bool) bool {
	for _, r := range rs {
		if names[r.Name] && line >= r.First && line < r.End {
			return true
		}
	}
	return false
}

func funcName(fn *ast.FuncDecl) string {
	if fn.Recv != nil && len(fn.Recv.List) == 1 {
		return gosrc.ReceiverType(fn.Recv.List[0].Type) + "." + fn.Name.Name
	}
	return fn.Name.Name
}

// function is one function being mutated: every change is a piece of its
// source text replaced, so the rest stays exactly as written.
type function struct {
	fset *token.FileSet
	src  []byte
	decl *ast.FuncDecl
	file string
	name string
	// imports are the names the file gives the packages it imports, by
	// path: the Kubernetes operators know a name of the API by its package.
	imports map[string]string
}

// text is the source of a node.
func (f function) text(n ast.Node) string {
	return string(f.src[f.fset.Position(n.Pos()).Offset:f.fset.Position(n.End()).Offset])
}

// change makes the mutant that replaces the source from..to with now.
func (f function) change(op Op, from, to token.Pos, now string) Mutant {
	start, end := f.fset.Position(f.decl.Pos()).Offset, f.fset.Position(f.decl.End()).Offset
	a, b := f.fset.Position(from).Offset, f.fset.Position(to).Offset
	whole := string(f.src[start:end])
	return Mutant{
		File: f.file, Func: f.name, Line: f.fset.Position(from).Line, Op: op,
		Was: oneLine(string(f.src[a:b])), Now: oneLine(now),
		whole: whole, mutated: whole[:a-start] + now + whole[b-start:],
	}
}

func (f function) mutants() []Mutant {
	var out []Mutant
	out = append(out, f.returnZero())
	out = append(out, f.sortKey()...)
	ast.Inspect(f.decl.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BlockStmt:
			out = append(out, f.removals(n.List)...)
		case *ast.CaseClause:
			out = append(out, f.removals(n.Body)...)
		case *ast.CommClause:
			out = append(out, f.removals(n.Body)...)
		case *ast.IfStmt:
			out = append(out, f.negate(n.Cond))
		case *ast.ForStmt:
			if n.Cond != nil {
				out = append(out, f.negate(n.Cond))
			}
		case *ast.SwitchStmt:
			if n.Tag == nil {
				for _, s := range n.Body.List {
					for _, e := range s.(*ast.CaseClause).List {
						out = append(out, f.negate(e))
					}
				}
			}
		case *ast.BinaryExpr:
			out = append(out, f.binary(n)...)
			out = append(out, f.looseStatus(n)...)
		case *ast.CallExpr:
			out = append(out, f.beforeAfter(n)...)
			out = append(out, f.kubeCall(n)...)
		case *ast.SelectorExpr:
			out = append(out, f.rename(n)...)
		case *ast.CompositeLit:
			out = append(out, f.dropMetaFields(n)...)
		case *ast.ExprStmt:
			out = append(out, f.reverseSort(n)...)
		case *ast.ReturnStmt:
			out = append(out, f.swallow(n)...)
		case *ast.FuncLit:
			return false // a closure's body is another function's
		}
		return true
	})
	sort.SliceStable(out, func(i, j int) bool { return out[i].Line < out[j].Line })
	return out
}

// removals leaves out, one at a time, each statement of a list that is a
// step of its own.
func (f function) removals(list []ast.Stmt) []Mutant {
	var out []Mutant
	for _, s := range list {
		switch s := s.(type) {
		case *ast.ExprStmt, *ast.IfStmt, *ast.ForStmt, *ast.RangeStmt, *ast.ReturnStmt, *ast.DeferStmt, *ast.IncDecStmt, *ast.SwitchStmt:
		case *ast.AssignStmt:
			if s.Tok == token.DEFINE {
				continue // its names are used below: it would not compile
			}
		default:
			continue
		}
		out = append(out, f.change(RemoveStatement, s.Pos(), s.End(), ""))
	}
	return out
}

func (f function) negate(cond ast.Expr) Mutant {
	return f.change(NegateCondition, cond.Pos(), cond.End(), "!("+f.text(cond)+")")
}

var boundaries = map[token.Token]token.Token{token.LSS: token.LEQ, token.LEQ: token.LSS, token.GTR: token.GEQ, token.GEQ: token.GTR}

func (f function) binary(e *ast.BinaryExpr) []Mutant {
	switch e.Op {
	case token.LAND, token.LOR:
		return []Mutant{
			f.change(DropOperand, e.Pos(), e.End(), f.text(e.X)),
			f.change(DropOperand, e.Pos(), e.End(), f.text(e.Y)),
		}
	}
	if moved, ok := boundaries[e.Op]; ok {
		return []Mutant{f.change(MoveBoundary, e.Pos(), e.End(), f.text(e.X)+" "+moved.String()+" "+f.text(e.Y))}
	}
	return nil
}

// beforeAfter moves the boundary of a time comparison: t.Before(u) is true
// where !t.After(u) is also true at t == u.
func (f function) beforeAfter(call *ast.CallExpr) []Mutant {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || len(call.Args) != 1 {
		return nil
	}
	other := map[string]string{"Before": "After", "After": "Before"}[sel.Sel.Name]
	if other == "" {
		return nil
	}
	return []Mutant{f.change(MoveBoundary, call.Pos(), call.End(), "!"+f.text(sel.X)+"."+other+"("+f.text(call.Args[0])+")")}
}

// swallow returns nil for an error that a return statement passes on.
func (f function) swallow(ret *ast.ReturnStmt) []Mutant {
	results := f.decl.Type.Results
	if results == nil || len(ret.Results) == 0 || len(ret.Results) != results.NumFields() {
		return nil
	}
	last := results.List[len(results.List)-1]
	if id, ok := last.Type.(*ast.Ident); !ok || id.Name != "error" {
		return nil
	}
	e := ret.Results[len(ret.Results)-1]
	if id, ok := e.(*ast.Ident); ok && id.Name == "nil" {
		return nil
	}
	return []Mutant{f.change(SwallowError, e.Pos(), e.End(), "nil")}
}

// returnZero replaces the body with one that returns the zero value of
// every result, or does nothing.
func (f function) returnZero() Mutant {
	var zeros []string
	if results := f.decl.Type.Results; results != nil {
		for _, field := range results.List {
			for range max(len(field.Names), 1) {
				zeros = append(zeros, f.zero(field.Type))
			}
		}
	}
	body := "{}"
	if len(zeros) > 0 {
		body = "{ return " + strings.Join(zeros, ", ") + " }"
	}
	m := f.change(ReturnZero, f.decl.Body.Pos(), f.decl.Body.End(), body)
	m.Was = "the body of " + f.name
	return m
}

// zero is the zero value of a type, written as Go: nil, 0, "" or false
// where the type says so at a glance, *new(T) for every other T.
func (f function) zero(t ast.Expr) string {
	switch t := t.(type) {
	case *ast.StarExpr, *ast.ArrayType, *ast.MapType, *ast.ChanType, *ast.FuncType, *ast.InterfaceType:
		if a, ok := t.(*ast.ArrayType); ok && a.Len != nil {
			break // an array, not a slice
		}
		return "nil"
	case *ast.Ident:
		switch t.Name {
		case "error", "any":
			return "nil"
		case "string":
			return `""`
		case "bool":
			return "false"
		case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64", "uintptr",
			"float32", "float64", "byte", "rune":
			return "0"
		}
	}
	return "*new(" + f.text(t) + ")"
}

// oneLine shortens code to its first line, with "..." where it went on.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i]) + " ..."
	}
	if len(s) > 90 {
		s = s[:87] + "..."
	}
	return s
}
