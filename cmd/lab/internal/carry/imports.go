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

package carry

import (
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"regexp"
	"strings"

	"cronlab.dev/cronlab/cmd/lab/internal/regions"
)

// importLine is a line that may stand in an import block: an import, a
// comment, or nothing.
var importLine = regexp.MustCompile(`^\s*((?:[\w.]+\s+)?"[^"]*"\s*(//.*)?|//.*)?$`)

// settleImportConflicts resolves the conflicts of a merged Go file that lie
// in its import block, by keeping the imports of both sides (fixImports
// then drops those the code does not use). It returns the file and how many
// conflicts are left.
func settleImportConflicts(src []byte, conflicts int) ([]byte, int) {
	if conflicts == 0 {
		return src, 0
	}
	lines := strings.Split(string(src), "\n")
	var out []string
	inImports := false
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		switch {
		case strings.HasPrefix(line, "import ("):
			inImports = true
		case inImports && strings.HasPrefix(line, ")"):
			inImports = false
		case inImports && strings.HasPrefix(line, "<<<<<<< "):
			// <<<<<<< ours ... ======= ... >>>>>>> theirs
			end, sep := -1, -1
			for j := i + 1; j < len(lines); j++ {
				if lines[j] == "=======" && sep < 0 {
					sep = j
				}
				if strings.HasPrefix(lines[j], ">>>>>>> ") {
					end = j
					break
				}
			}
			if sep < 0 || end < 0 {
				break
			}
			union, seen, ok := []string{}, map[string]bool{}, true
			for _, l := range append(append([]string{}, lines[i+1:sep]...), lines[sep+1:end]...) {
				if !importLine.MatchString(l) {
					ok = false
					break
				}
				if key := strings.TrimSpace(l); !seen[key] || key == "" {
					seen[key] = true
					union = append(union, l)
				}
			}
			if !ok {
				break
			}
			out = append(out, union...)
			conflicts--
			i = end
			continue
		}
		out = append(out, line)
	}
	return []byte(strings.Join(out, "\n")), conflicts
}

// fixImports makes a merged Go file import what its code uses: the
// reference's imports and the attendee's own, less those nothing uses. The
// merge takes each side's dropped imports (a starter drops those only its
// stubbed code used), so without this the code of one side could lack an
// import that the other side removed.
func fixImports(path string, merged, ref []byte) []byte {
	fset := token.NewFileSet()
	mine, err1 := parser.ParseFile(fset, path, merged, parser.ImportsOnly)
	refFile, err2 := parser.ParseFile(token.NewFileSet(), path, ref, parser.ImportsOnly)
	if err1 != nil || err2 != nil || len(mine.Imports) == 0 {
		return merged
	}
	have := map[string]bool{}
	for _, imp := range mine.Imports {
		have[regions.ImportName(imp)+" "+imp.Path.Value] = true
	}
	var missing []string
	for _, imp := range refFile.Imports {
		if have[regions.ImportName(imp)+" "+imp.Path.Value] {
			continue
		}
		if imp.Name != nil {
			missing = append(missing, "\t"+imp.Name.Name+" "+imp.Path.Value)
		} else {
			missing = append(missing, "\t"+imp.Path.Value)
		}
	}
	// After the last import, into the block: gofmt sorts it in place.
	var decl *ast.GenDecl
	for _, d := range mine.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT && g.Rparen.IsValid() {
			decl = g
		}
	}
	out := merged
	if len(missing) > 0 {
		if decl == nil {
			return merged
		}
		at := fset.Position(decl.Rparen).Offset
		out = append(append(append([]byte{}, merged[:at]...), []byte(strings.Join(missing, "\n")+"\n")...), merged[at:]...)
	}
	out, err := regions.DropUnusedImports(path, dropDuplicateImports(path, out))
	if err != nil {
		return merged
	}
	if formatted, err := format.Source(out); err == nil {
		return formatted
	}
	return merged
}

// dropDuplicateImports keeps the first of two identical imports: the
// attendee added an import where the reference has it in another group,
// and a settled conflict brought the reference's back.
func dropDuplicateImports(path string, src []byte) []byte {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.ImportsOnly)
	if err != nil {
		return src
	}
	seen := map[string]bool{}
	var drop []*ast.ImportSpec
	for _, imp := range f.Imports {
		key := regions.ImportName(imp) + " " + imp.Path.Value
		if seen[key] {
			drop = append(drop, imp)
		}
		seen[key] = true
	}
	return regions.RemoveImports(fset, src, drop)
}
