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

package gosrc

// When a function does not compile, the rest of the stage is checked with
// it stubbed; a correct function that calls it then fails too, with the
// stub's zero value. The same happens when a function compiles but is
// wrong. Reported as an ordinary failure, that reads as if the attendee's
// correct code were wrong. So the check reads, in the stage's own files,
// which functions call which (CallGraph), and reports a failure of a
// caller as waiting for the callee to be fixed (package functions).

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// CallGraph maps each function declared in the owned Go files ("name" or
// "Type.name") to the functions of those files that its body names. A call
// is matched by the callee's name (runs.JobName, r.buildJob): the code may
// not compile, so there are no types to resolve it with, and a stage's
// functions have distinct names.
func CallGraph(dir string, owned map[string]bool) map[string][]string {
	names := map[string][]string{} // the identifiers each function uses
	byShort := map[string][]string{}
	fset := token.NewFileSet()
	for path := range owned {
		if !strings.HasSuffix(path, ".go") {
			continue
		}
		file, err := parser.ParseFile(fset, filepath.Join(dir, path), nil, parser.SkipObjectResolution)
		if err != nil {
			continue
		}
		for _, d := range file.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			key := fn.Name.Name
			if fn.Recv != nil && len(fn.Recv.List) == 1 {
				key = ReceiverType(fn.Recv.List[0].Type) + "." + key
			}
			byShort[fn.Name.Name] = append(byShort[fn.Name.Name], key)
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				if id, ok := n.(*ast.Ident); ok {
					names[key] = append(names[key], id.Name)
				}
				return true
			})
		}
	}
	graph := map[string][]string{}
	for fn, used := range names {
		seen := map[string]bool{fn: true}
		for _, name := range used {
			for _, callee := range byShort[name] {
				if !seen[callee] {
					seen[callee] = true
					graph[fn] = append(graph[fn], callee)
				}
			}
		}
		sort.Strings(graph[fn])
	}
	return graph
}

// Reached maps each function of the graph to the functions it reaches,
// directly or through others, for which want is true (sorted). A function
// is not listed for itself, and one that reaches none is left out.
func Reached(graph map[string][]string, want func(string) bool) map[string][]string {
	out := map[string][]string{}
	for fn := range graph {
		seen := map[string]bool{fn: true}
		queue := []string{fn}
		var found []string
		for len(queue) > 0 {
			next := queue[0]
			queue = queue[1:]
			for _, callee := range graph[next] {
				if seen[callee] {
					continue
				}
				seen[callee] = true
				queue = append(queue, callee)
				if want(callee) {
					found = append(found, callee)
				}
			}
		}
		if len(found) > 0 {
			sort.Strings(found)
			out[fn] = found
		}
	}
	return out
}

// StillStubs are the functions declared in the owned Go files ("name" or
// "Type.name") whose body still holds marker, the TODO of a starter's stub
// (package regions): functions the attendee has not written yet, whose
// failures are no mistake, and which the functions around them wait for
// (package functions).
func StillStubs(dir string, owned map[string]bool, marker string) []string {
	var stubs []string
	fset := token.NewFileSet()
	for path := range owned {
		if !strings.HasSuffix(path, ".go") {
			continue
		}
		src, err := os.ReadFile(filepath.Join(dir, path))
		if err != nil || !strings.Contains(string(src), marker) {
			continue
		}
		file, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
		if err != nil {
			continue
		}
		for _, d := range file.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			// The body's text, comments included: a stub that returns
			// nothing says its TODO in a comment.
			body := src[fset.Position(fn.Body.Lbrace).Offset:fset.Position(fn.Body.Rbrace).Offset]
			if !strings.Contains(string(body), marker) {
				continue
			}
			key := fn.Name.Name
			if fn.Recv != nil && len(fn.Recv.List) == 1 {
				key = ReceiverType(fn.Recv.List[0].Type) + "." + key
			}
			stubs = append(stubs, key)
		}
	}
	sort.Strings(stubs)
	return stubs
}
