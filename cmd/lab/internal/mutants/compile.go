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

// A mutant that does not compile tells nothing about a stage's check: the
// compiler caught it. Building each one to find out would take a second or
// more apiece; type-checking its package with go/types, against the export
// data that `go list -export` leaves in the build cache, takes
// milliseconds, and says the same (an unused variable, a missing return, a
// type that no longer fits). As goimports would, an import that the change
// left unused is removed first, so that it does not count.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"path/filepath"
	"strings"

	"cronlab.dev/cronlab/cmd/lab/internal/base"
	"cronlab.dev/cronlab/cmd/lab/internal/regions"
)

// Compiling returns the mutants that compile, and the others with the
// first error the type checker gave, by mutant name.
func Compiling(dir string, ms []Mutant) (ok []Mutant, not map[string]string, err error) {
	not = map[string]string{}
	pkgs := map[string]*typedPackage{} // by directory, loaded once
	for _, m := range ms {
		pkgDir := filepath.Dir(filepath.FromSlash(m.File))
		p := pkgs[pkgDir]
		if p == nil {
			if p, err = loadPackage(dir, pkgDir); err != nil {
				return nil, nil, err
			}
			pkgs[pkgDir] = p
		}
		if msg := p.check(m); msg != "" {
			not[m.Name()] = msg
			continue
		}
		ok = append(ok, m)
	}
	return ok, not, nil
}

// A typedPackage is one package of the tree, parsed, with what the type
// checker needs to check it again with one file changed.
type typedPackage struct {
	dir     string // the tree
	path    string // import path
	fset    *token.FileSet
	files   map[string]*ast.File // by path relative to the tree, with slashes
	imports types.Importer
}

type listed struct {
	Dir, ImportPath, Export string
	GoFiles, CgoFiles       []string
}

func loadPackage(dir, pkgDir string) (*typedPackage, error) {
	out, err := base.Output(dir, "go", "list", "-e", "-export", "-deps", "-json", "./"+filepath.ToSlash(pkgDir))
	if err != nil {
		return nil, fmt.Errorf("listing %s to type-check its mutants: %w", pkgDir, err)
	}
	exports := map[string]string{}
	var self listed
	dec := json.NewDecoder(strings.NewReader(out))
	for {
		var p listed
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return nil, err
		}
		exports[p.ImportPath] = p.Export
		self = p // -deps lists the package itself last
	}
	tp := &typedPackage{dir: dir, path: self.ImportPath, fset: token.NewFileSet(), files: map[string]*ast.File{}}
	tp.imports = importer.ForCompiler(tp.fset, "gc", func(path string) (io.ReadCloser, error) {
		if exports[path] == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(exports[path])
	})
	for _, name := range append(self.GoFiles, self.CgoFiles...) {
		rel := filepath.ToSlash(filepath.Join(pkgDir, name))
		f, err := parser.ParseFile(tp.fset, rel, mustRead(filepath.Join(dir, rel)), 0)
		if err != nil {
			return nil, err
		}
		tp.files[rel] = f
	}
	return tp, nil
}

func mustRead(path string) []byte {
	b, _ := os.ReadFile(path)
	return b
}

// check type-checks the package with m made, and returns the first error,
// or "".
func (p *typedPackage) check(m Mutant) string {
	src := mustRead(filepath.Join(p.dir, filepath.FromSlash(m.File)))
	if !bytes.Contains(src, []byte(m.whole)) {
		return "the function is not in " + m.File + " as the mutant knew it"
	}
	mutated := bytes.Replace(src, []byte(m.whole), []byte(m.mutated), 1)
	mutated, err := regions.DropUnusedImports(m.File, mutated)
	if err != nil {
		return err.Error()
	}
	changed, err := parser.ParseFile(p.fset, m.File, mutated, 0)
	if err != nil {
		return err.Error()
	}
	var files []*ast.File
	for rel, f := range p.files {
		if rel == m.File {
			f = changed
		}
		files = append(files, f)
	}
	var first string
	conf := types.Config{Importer: p.imports, Error: func(err error) {
		if first == "" {
			first = err.Error()
		}
	}}
	_, _ = conf.Check(p.path, p.fset, files, nil)
	return first
}
