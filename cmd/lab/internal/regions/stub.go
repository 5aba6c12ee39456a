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

package regions

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/printer"
	"go/token"
	"slices"
	"sort"
	"strings"

	"cronlab.dev/cronlab/cmd/lab/internal/gosrc"
	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
)

// Stub is what replaces a region: which stage it belongs to and where the
// attendee reads about it.
type Stub struct {
	Stage  string // the stage's slug: TODO(lab secondary-resources)
	Readme string // "exercises/secondary-resources/README.md"
	// Broken: the stub stands in for the attendee's function that does not
	// compile, while lab check checks the rest (package run).
	Broken bool
	// Given, when set, holds a simpler form of each function of the region
	// (stage.yaml's trusting:, read by ParseGiven), which the starters up to
	// the region's stage have instead of a TODO: the earlier stages' tests
	// then run on code that works, only not in every case the region's
	// stage asks about. GivenFile is where the forms are written.
	Given     map[string]GivenFunc
	GivenFile string
	// Own: the starter is of the region's own stage, whose attendee writes
	// the region; the given forms then carry its TODO comment too, so that
	// they count as not written yet (gosrc.StillStubs).
	Own bool
}

// A GivenFunc is one function of a file of given forms: its doc comment
// (empty if none), its signature as written, and its body, braces included.
type GivenFunc struct {
	Doc, Signature, Body string
}

// ParseGiven reads a file of given forms (stage.yaml's trusting:): a Go file
// of the reference's package, kept out of builds by a build tag, whose
// functions have the names ("name" or "Type.name") and signatures of the
// region's.
func ParseGiven(path string, src []byte) (map[string]GivenFunc, error) {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, path, src, parser.ParseComments)
	if err != nil {
		return nil, i18n.Errorf("%s does not parse (%v): it must be Go, a function per function of the region",
			"%s 无法解析（%v）：它必须是 Go 代码，区域里的每个函数各对应一个函数", path, err)
	}
	text := func(from, to token.Pos) string {
		return string(src[fset.Position(from).Offset:fset.Position(to).Offset])
	}
	given := map[string]GivenFunc{}
	for _, decl := range file.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		g := GivenFunc{
			Signature: strings.TrimSpace(text(fn.Pos(), fn.Body.Lbrace)),
			Body:      text(fn.Body.Lbrace, fn.Body.Rbrace+1),
		}
		if fn.Doc != nil {
			g.Doc = text(fn.Doc.Pos(), fn.Doc.End())
		}
		given[funcKey(fn)] = g
	}
	return given, nil
}

// funcKey names a function as gosrc and stage.yaml's functions do: "name",
// or "Type.name" for a method.
func funcKey(fn *ast.FuncDecl) string {
	if fn.Recv != nil && len(fn.Recv.List) == 1 {
		return gosrc.ReceiverType(fn.Recv.List[0].Type) + "." + fn.Name.Name
	}
	return fn.Name.Name
}

func (s Stub) todo(l i18n.Lang) string {
	if s.Broken {
		return fmt.Sprintf(l.Tr("TODO(lab %s): this function does not compile; bin/lab check ran this stub in its place to check the rest",
			"TODO(lab %s)：这个函数无法编译；bin/lab check 用这个桩代替它，以便检查其余部分"), s.Stage)
	}
	// The starter is the same in both languages (a class shares its
	// branches, and carrying code forward compares starters), so the text
	// names both READMEs.
	return fmt.Sprintf("%s (在此编写); see %s (中文: %s)", TodoMarker(s.Stage), s.Readme, readmeZh(s.Readme))
}

// TodoMarker is what every stub of a starter's stage says, and what tells
// a function not written yet from one written wrong (gosrc.StillStubs).
func TodoMarker(stage string) string {
	return fmt.Sprintf("TODO(lab %s): write this", stage)
}

// readmeZh is the Chinese twin of a README.md: README.zh-CN.md beside it.
func readmeZh(readme string) string {
	if dir, ok := strings.CutSuffix(readme, "README.md"); ok {
		return dir + "README.zh-CN.md"
	}
	return readme
}

// StubGo rewrites the regions of a Go file that stubs names:
//   - every function declared in the region keeps its signature, and its
//     body becomes a TODO that returns zero values (and an error, if the
//     function returns one), so the program compiles and the tests fail
//     with a message that points to the stage's README;
//   - "+kubebuilder:" marker comments in the region are removed: writing
//     them is the task of the API stage. Types and fields stay, so the rest
//     of the code keeps compiling.
//
// It reports whether a stub uses the package's labTODO error type, which
// the caller then writes once per package (see TodoFile).
func StubGo(l i18n.Lang, path string, src []byte, stubs map[string]Stub) (out []byte, usesTODO bool, err error) {
	regions, err := Parse(path, src)
	if err != nil {
		return nil, false, err
	}
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, path, src, parser.ParseComments)
	if err != nil {
		return nil, false, err
	}
	var edits []edit
	inRegion := func(pos token.Pos) (Stub, bool) {
		line := fset.Position(pos).Line
		for _, r := range regions {
			if s, ok := stubs[r.Name]; ok && line >= r.First && line < r.End {
				return s, true
			}
		}
		return Stub{}, false
	}
	offset := func(pos token.Pos) int { return fset.Position(pos).Offset }

	var replaced []edit // whole declarations, whose comments go with them
	for _, decl := range file.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		s, ok := inRegion(fn.Pos())
		if !ok {
			continue
		}
		if _, given := s.Given[funcKey(fn)]; s.Given != nil && !given {
			// A helper of the region's own functions that the given forms
			// do without: before the region's stage it is not there at all,
			// and its own stage's attendee writes it from a stub, below.
			if !s.Own {
				if user := calledOutside(fset, file, regions, fn, s.Given); user != "" {
					return nil, false, i18n.Errorf("%s leaves out %s (%s), which %s calls: only a function that the region's own functions alone call may be left out; write a form of it there, with the same signature",
						"%s 没有给出 %s（%s），而 %s 调用了它：只有仅被本区域自己的函数调用的函数才能省略；在那里写一个它的形式，签名保持相同",
						s.GivenFile, funcKey(fn), path, user)
				}
				e := leftOut(src, fset, fn)
				edits = append(edits, e)
				replaced = append(replaced, e)
				continue
			}
		} else if s.Given != nil {
			e, err := givenForm(l, src, fset, fn, s)
			if err != nil {
				return nil, false, err
			}
			edits = append(edits, e)
			replaced = append(replaced, e)
			continue
		}
		body, usesErr, err := StubBody(l, fset, fn, s, stepComments(fset, file, fn.Body))
		if err != nil {
			return nil, false, fmt.Errorf("%s: %s: %w", path, fn.Name.Name, err)
		}
		usesTODO = usesTODO || usesErr
		edits = append(edits, edit{offset(fn.Body.Lbrace), offset(fn.Body.Rbrace) + 1, body})
	}
	for _, group := range file.Comments {
		for _, c := range group.List {
			within := slices.ContainsFunc(replaced, func(e edit) bool { return offset(c.Pos()) >= e.from && offset(c.Pos()) < e.to })
			if _, ok := inRegion(c.Pos()); ok && !within && strings.HasPrefix(c.Text, "// +kubebuilder:") {
				edits = append(edits, edit{offset(c.Pos()), offset(c.End()), removedMarker})
			}
		}
	}
	if len(edits) == 0 {
		return src, false, nil
	}
	sort.Slice(edits, func(i, j int) bool { return edits[i].from > edits[j].from })
	out = append([]byte(nil), src...)
	for _, e := range edits {
		out = append(out[:e.from], append([]byte(e.text), out[e.to:]...)...)
	}
	// Drop the lines left where markers were.
	out = removedMarkerRE.ReplaceAll(out, nil)
	out, err = DropUnusedImports(path, out)
	if err != nil {
		return nil, false, err
	}
	formatted, err := format.Source(out)
	if err != nil {
		return nil, false, fmt.Errorf("%s: the stub does not format: %w", path, err)
	}
	return formatted, usesTODO, nil
}

// An edit replaces the bytes [from, to) of a file with text.
type edit struct {
	from, to int
	text     string
}

// calledOutside names a function that calls fn and would still be there
// once fn is left out: one outside fn's region, or a given form. It is ""
// when there is none.
func calledOutside(fset *token.FileSet, file *ast.File, rs []Region, fn *ast.FuncDecl, given map[string]GivenFunc) string {
	line := func(pos token.Pos) int { return fset.Position(pos).Line }
	var region Region
	for _, r := range rs {
		if line(fn.Pos()) >= r.First && line(fn.Pos()) < r.End {
			region = r
		}
	}
	for key, g := range given {
		if strings.Contains(g.Body, fn.Name.Name+"(") {
			return key
		}
	}
	for _, decl := range file.Decls {
		if line(decl.Pos()) >= region.First && line(decl.Pos()) < region.End {
			continue
		}
		calls := false
		ast.Inspect(decl, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && id.Name == fn.Name.Name {
				calls = true
			}
			return !calls
		})
		if !calls {
			continue
		}
		if d, ok := decl.(*ast.FuncDecl); ok {
			return funcKey(d)
		}
		return fset.Position(decl.Pos()).String()
	}
	return ""
}

// leftOut removes fn, with its doc comment and the blank line after it.
func leftOut(src []byte, fset *token.FileSet, fn *ast.FuncDecl) edit {
	from := fset.Position(fn.Pos()).Offset
	if fn.Doc != nil {
		from = fset.Position(fn.Doc.Pos()).Offset
	}
	to := fset.Position(fn.Body.Rbrace).Offset + 1
	for to < len(src) && src[to] == '\n' {
		to++
	}
	return edit{from, to, ""}
}

// givenForm puts the given form of fn in its place: its doc comment and
// body, under the reference's signature, which the form must repeat.
func givenForm(l i18n.Lang, src []byte, fset *token.FileSet, fn *ast.FuncDecl, s Stub) (edit, error) {
	offset := func(pos token.Pos) int { return fset.Position(pos).Offset }
	key := funcKey(fn)
	g := s.Given[key]
	signature := strings.TrimSpace(string(src[offset(fn.Pos()):offset(fn.Body.Lbrace)]))
	if strings.Join(strings.Fields(g.Signature), " ") != strings.Join(strings.Fields(signature), " ") {
		return edit{}, i18n.Errorf("%s: the form of %s is declared %q, and the reference %q: give it the reference's signature",
			"%s：%s 的形式声明为 %q，而参考实现是 %q：让它的签名与参考实现相同",
			s.GivenFile, key, g.Signature, signature)
	}
	body := g.Body
	if s.Own {
		body = "{\n\t// " + s.todo(l) + "\n" + strings.TrimPrefix(strings.TrimPrefix(body, "{"), "\n")
	}
	from := offset(fn.Pos())
	if fn.Doc != nil {
		from = offset(fn.Doc.Pos())
	}
	var text strings.Builder
	if g.Doc != "" {
		text.WriteString(g.Doc + "\n")
	}
	text.WriteString(signature + " " + body)
	return edit{from, offset(fn.Body.Rbrace) + 1, text.String()}, nil
}

// TodoFile is the Go file, one per stubbed package, that declares the error
// the stubs return.
func TodoFile(pkg string) []byte {
	return []byte(`// Code generated by cronlab's lab tool for a starter. DO NOT EDIT.

package ` + pkg + `

// labTODO is the error that the stubs of a lab starter return until you
// write them. Delete this file when no stub is left.
type labTODO string

func (e labTODO) Error() string { return string(e) }

// GomegaString is what Gomega prints for the value after the error's text:
// nothing, so that a failure does not show the TODO twice.
func (e labTODO) GomegaString() string { return "" }
`)
}

// stepComments are the comments of a body that stand between its top-level
// statements, such as Reconcile's numbered steps: the outline of the
// lesson, which a starter keeps. Comments inside a statement (in an if or a
// loop) or after one on its line explain the solution and go with it.
func stepComments(fset *token.FileSet, file *ast.File, body *ast.BlockStmt) []string {
	var steps []string
	for _, group := range file.Comments {
		if group.Pos() <= body.Lbrace || group.End() >= body.Rbrace {
			continue
		}
		standalone := true
		for _, stmt := range body.List {
			inside := group.Pos() >= stmt.Pos() && group.Pos() < stmt.End()
			sameLine := fset.Position(stmt.End()).Line == fset.Position(group.Pos()).Line
			if inside || sameLine {
				standalone = false
				break
			}
		}
		if !standalone {
			continue
		}
		var lines []string
		for _, c := range group.List {
			lines = append(lines, c.Text)
		}
		steps = append(steps, strings.Join(lines, "\n"))
	}
	return steps
}

// StubBody writes a function body that returns the zero value of each
// result, and for an error result an error that says what to do. The
// body's step comments stay, in order, above it.
func StubBody(l i18n.Lang, fset *token.FileSet, fn *ast.FuncDecl, s Stub, steps []string) (body string, usesTODO bool, err error) {
	var results []string
	if fn.Type.Results != nil {
		for _, field := range fn.Type.Results.List {
			var typ bytes.Buffer
			if err := printer.Fprint(&typ, fset, field.Type); err != nil {
				return "", false, err
			}
			n := max(len(field.Names), 1)
			for range n {
				if typ.String() == "error" {
					results = append(results, fmt.Sprintf("labTODO(%q)", s.todo(l)))
					usesTODO = true
				} else {
					results = append(results, fmt.Sprintf("*new(%s)", typ.String()))
				}
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "{\n\t// %s\n", s.todo(l))
	for _, step := range steps {
		fmt.Fprintf(&b, "\n\t%s\n", strings.ReplaceAll(step, "\n", "\n\t"))
	}
	if len(steps) > 0 {
		b.WriteString("\n")
	}
	// Keep the parameters "used" so that vet and the compiler stay quiet.
	if fn.Recv != nil {
		for _, f := range fn.Recv.List {
			for _, name := range f.Names {
				if name.Name != "_" {
					fmt.Fprintf(&b, "\t_ = %s\n", name.Name)
				}
			}
		}
	}
	for _, f := range fn.Type.Params.List {
		for _, name := range f.Names {
			if name.Name != "_" {
				fmt.Fprintf(&b, "\t_ = %s\n", name.Name)
			}
		}
	}
	if len(results) > 0 {
		fmt.Fprintf(&b, "\treturn %s\n", strings.Join(results, ", "))
	}
	b.WriteString("}")
	return b.String(), usesTODO, nil
}

// StubText replaces the lines of each stubbed region of a YAML file, a Helm
// template or a Makefile with one TODO comment, in the style of the region's
// begin line.
func StubText(l i18n.Lang, path string, src []byte, stubs map[string]Stub) ([]byte, error) {
	regions, err := Parse(path, src)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(string(src), "\n")
	for i := len(regions) - 1; i >= 0; i-- {
		r := regions[i]
		s, ok := stubs[r.Name]
		if !ok {
			continue
		}
		begin := lines[r.First-2]
		indent := begin[:len(begin)-len(strings.TrimLeft(begin, " \t"))]
		todo := indent + "# " + s.todo(l)
		if strings.HasPrefix(strings.TrimSpace(begin), "{{") {
			todo = indent + "{{- /* " + s.todo(l) + " */}}"
		}
		lines = append(lines[:r.First-1], append([]string{todo}, lines[r.End-1:]...)...)
	}
	return []byte(strings.Join(lines, "\n")), nil
}
