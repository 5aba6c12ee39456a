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
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strings"
)

// DropUnusedImports removes the imports that only the replaced bodies used.
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

// RemoveImports deletes the lines of the given imports (parsed from src
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

// ImportName is the name a file uses for an import: its alias, or the
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
