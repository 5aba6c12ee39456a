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

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"strings"
)

// EnclosingFunc is the name of the function or method declared around line
// in file ("startDueRun", "CronJobReconciler.startDueRun"), or "". The parser
// reads files that do not compile; it needs only the syntax.
func EnclosingFunc(file string, line int) string {
	src, err := os.ReadFile(file)
	if err != nil {
		return ""
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, parser.SkipObjectResolution)
	if err == nil {
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fset.Position(fn.Pos()).Line > line || fset.Position(fn.End()).Line < line {
				continue
			}
			if fn.Recv != nil && len(fn.Recv.List) == 1 {
				return ReceiverType(fn.Recv.List[0].Type) + "." + fn.Name.Name
			}
			return fn.Name.Name
		}
	}
	// With a syntax error the parsed file cannot be trusted (an unclosed
	// brace swallows the functions after it): then it is the last func
	// declared above the line.
	lines := strings.Split(string(src), "\n")
	for i := min(line, len(lines)) - 1; i >= 0; i-- {
		if m := funcLine.FindStringSubmatch(lines[i]); m != nil {
			if m[1] != "" {
				return m[1] + "." + m[2]
			}
			return m[2]
		}
	}
	return ""
}

// funcLine is a func declaration's first line, with its receiver's type.
var funcLine = regexp.MustCompile(`^func\s+(?:\(\s*\w*\s*\*?\s*(\w+)[^)]*\)\s*)?(\w+)`)

func ReceiverType(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.StarExpr:
		return ReceiverType(t.X)
	case *ast.IndexExpr: // a generic receiver: T[K]
		return ReceiverType(t.X)
	case *ast.Ident:
		return t.Name
	}
	return "?"
}
