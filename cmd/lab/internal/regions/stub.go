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
	"sort"
	"strings"

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
	type edit struct {
		from, to int // byte offsets
		text     string
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

	for _, decl := range file.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		s, ok := inRegion(fn.Pos())
		if !ok {
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
			if _, ok := inRegion(c.Pos()); ok && strings.HasPrefix(c.Text, "// +kubebuilder:") {
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
