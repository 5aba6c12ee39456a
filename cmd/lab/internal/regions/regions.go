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

// The reference code marks what an attendee writes with plain comments:
//
//	// lab:begin <region>
//	...
//	// lab:end
//
// (in YAML and Makefiles: "# lab:begin <region>" and "# lab:end"; in Helm
// templates "{{- /* lab:begin <region> */}}", which renders to nothing). They
// are not "+" markers, so controller-gen never reads them. A stage names the
// regions it teaches; a starter is the reference with those regions, and
// the regions of later stages, turned into stubs that still compile.

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/printer"
	"go/token"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"cronlab.dev/cronlab/cmd/lab/internal/gosrc"
	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
)

var (
	beginRE = regexp.MustCompile(`^\s*(//|#|\{\{-?\s*/\*)\s*lab:begin\s+(\S+?)\s*(\*/\s*-?\}\})?\s*$`)
	endRE   = regexp.MustCompile(`^\s*(//|#|\{\{-?\s*/\*)\s*lab:end\s*(\*/\s*-?\}\})?\s*$`)
	// removedMarkerRE matches the lines left where markers were removed (and
	// nothing else: a bare "//" line is a paragraph break of a doc comment).
	removedMarkerRE = regexp.MustCompile(`(?m)^[ \t]*` + removedMarker + `\n`)
	// majorVersionRE matches the "v3" of an import path such as ".../cron/v3".
	majorVersionRE = regexp.MustCompile(`^v[0-9]+$`)
)

// removedMarker stands for a removed marker until its line is dropped.
const removedMarker = "//lab:removed-marker"

// region is a marked span of a file: the lines strictly between its
// begin and end comments, numbered from 1: first is the line after
// "lab:begin", end the line of "lab:end", so the region is [first, end).
type Region struct {
	Name       string
	First, End int
}

// findRegions lists the regions of a file and checks that they pair up.
func Parse(path string, src []byte) ([]Region, error) {
	var out []Region
	var open *Region
	for i, line := range strings.Split(string(src), "\n") {
		n := i + 1
		if m := beginRE.FindStringSubmatch(line); m != nil {
			if open != nil {
				return nil, fmt.Errorf("%s:%d: lab:begin %s inside region %s (regions do not nest)", path, n, m[2], open.Name)
			}
			open = &Region{Name: m[2], First: n + 1}
			continue
		}
		if endRE.MatchString(line) {
			if open == nil {
				return nil, fmt.Errorf("%s:%d: lab:end without lab:begin", path, n)
			}
			open.End = n
			out = append(out, *open)
			open = nil
		}
	}
	if open != nil {
		return nil, fmt.Errorf("%s: region %s has no lab:end", path, open.Name)
	}
	return out, nil
}

// stub is what replaces a region: which stage it belongs to and where the
// attendee reads about it.
type Stub struct {
	Stage  string // "05"
	Readme string // "exercises/05-secondary-resources/README.md"
	// broken: the stub stands in for the attendee's function that does not
	// compile, while lab check checks the rest (fallback.go).
	Broken bool
}

func (s Stub) todo(l i18n.Lang) string {
	if s.Broken {
		return fmt.Sprintf(l.Tr("TODO(lab %s): this function does not compile; bin/lab check ran this stub in its place to check the rest",
			"TODO(lab %s)：这个函数无法编译；bin/lab check 用这个桩代替它，以便检查其余部分"), s.Stage)
	}
	return fmt.Sprintf("TODO(lab %s): write this; see %s", s.Stage, s.Readme)
}

// stubGo rewrites the regions of a Go file that stubs names:
//   - every function declared in the region keeps its signature, and its
//     body becomes a TODO that returns zero values (and an error, if the
//     function returns one), so the program compiles and the tests fail
//     with a message that points to the stage's README;
//   - "+kubebuilder:" marker comments in the region are removed: writing
//     them is the task of the API stage. Types and fields stay, so the rest
//     of the code keeps compiling.
//
// It reports whether a stub uses the package's labTODO error type, which
// the caller then writes once per package (see todoFile).
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

// dropUnusedImports removes the imports that only the replaced bodies used.
// A dot import ("." as in Ginkgo's and Gomega's tests) has no name to look
// for, so it is kept while the file still uses one of the names that the
// package exports.
func DropUnusedImports(path string, src []byte) ([]byte, error) {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, path, src, parser.ParseComments)
	if err != nil {
		return nil, fmt.Errorf("%s: the stub does not parse: %w", path, err)
	}
	used := map[string]bool{}
	ast.Inspect(file, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok {
				used[id.Name] = true
			}
		}
		return true
	})
	var drop []*ast.ImportSpec
	for _, imp := range file.Imports {
		name := ImportName(imp)
		switch {
		case name == "_" || used[name]:
			continue
		case name == ".":
			if stillUsed, err := dotImportUsed(file, strings.Trim(imp.Path.Value, `"`)); err != nil || stillUsed {
				continue // when in doubt, keep it: the build says if it is wrong
			}
		}
		drop = append(drop, imp)
	}
	return RemoveImports(fset, src, drop), nil
}

// removeImports deletes the lines of the given imports (parsed from src
// with fset, in order) from src, which it returns.
func RemoveImports(fset *token.FileSet, src []byte, imps []*ast.ImportSpec) []byte {
	out := append([]byte{}, src...)
	for i := len(imps) - 1; i >= 0; i-- { // from the end, so offsets hold
		imp := imps[i]
		from, to := fset.Position(imp.Pos()).Offset, fset.Position(imp.End()).Offset
		if imp.Name != nil {
			from = fset.Position(imp.Name.Pos()).Offset
		}
		// The whole line, so that no empty line is left in the block.
		for from > 0 && (out[from-1] == ' ' || out[from-1] == '\t') {
			from--
		}
		if to < len(out) && out[to] == '\n' {
			to++
		}
		out = append(out[:from], out[to:]...)
	}
	return out
}

// dotImportUsed tells whether file uses a name that the dot-imported package
// exports: the parser leaves such names unresolved.
func dotImportUsed(file *ast.File, importPath string) (bool, error) {
	exports, err := exportsOf(importPath)
	if err != nil {
		return false, err
	}
	for _, id := range file.Unresolved {
		if exports[id.Name] {
			return true, nil
		}
	}
	return false, nil
}

var exportsCache = map[string]map[string]bool{}

// exportsOf lists the exported top-level names of a package, read from its
// source where the go command finds it.
func exportsOf(importPath string) (map[string]bool, error) {
	if names, ok := exportsCache[importPath]; ok {
		return names, nil
	}
	out, err := exec.Command("go", "list", "-f", "{{.Dir}}", importPath).Output()
	if err != nil {
		return nil, fmt.Errorf("go list %s: %w", importPath, err)
	}
	dir := strings.TrimSpace(string(out))
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	names := map[string]bool{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		parsed, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		for _, decl := range parsed.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					names[d.Name.Name] = d.Name.IsExported()
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch sp := spec.(type) {
					case *ast.TypeSpec:
						names[sp.Name.Name] = sp.Name.IsExported()
					case *ast.ValueSpec:
						for _, n := range sp.Names {
							names[n.Name] = n.IsExported()
						}
					}
				}
			}
		}
	}
	exportsCache[importPath] = names
	return names, nil
}

// importName is the name a file uses for an import: its alias, or the
// last element of the path without a major-version suffix (".../cron/v3"
// is cron, "gopkg.in/yaml.v3" is yaml).
func ImportName(imp *ast.ImportSpec) string {
	if imp.Name != nil {
		return imp.Name.Name
	}
	path := strings.Trim(imp.Path.Value, `"`)
	parts := strings.Split(path, "/")
	last := parts[len(parts)-1]
	if majorVersionRE.MatchString(last) && len(parts) > 1 {
		last = parts[len(parts)-2]
	}
	last, _, _ = strings.Cut(last, ".")
	return strings.ReplaceAll(last, "-", "_")
}

// todoFile is the Go file, one per stubbed package, that declares the error
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

// stubBody writes a function body that returns the zero value of each
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

// stubText replaces the lines of each stubbed region of a YAML file, a Helm
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

// functionsIn names the functions declared in region r of a Go file, a
// method as Type.name (as a compiler message's place is named: report.go).
func FunctionsIn(path, src string, r Region) []string {
	if !strings.HasSuffix(path, ".go") {
		return nil
	}
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
	if err != nil {
		return nil
	}
	var names []string
	for _, decl := range file.Decls {
		if fn, ok := decl.(*ast.FuncDecl); ok {
			if line := fset.Position(fn.Pos()).Line; line < r.First || line >= r.End {
				continue
			}
			if fn.Recv != nil && len(fn.Recv.List) == 1 {
				names = append(names, gosrc.ReceiverType(fn.Recv.List[0].Type)+"."+fn.Name.Name)
			} else {
				names = append(names, fn.Name.Name)
			}
		}
	}
	return names
}
