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
	"go/ast"
	"go/parser"
	"go/token"
	"regexp"
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

// Region is a marked span of a file: the lines strictly between its
// begin and end comments, numbered from 1: first is the line after
// "lab:begin", end the line of "lab:end", so the region is [first, end).
type Region struct {
	Name       string
	First, End int
}

// Parse lists the regions of a file and checks that they pair up.
func Parse(path string, src []byte) ([]Region, error) {
	var out []Region
	var open *Region
	for i, line := range strings.Split(string(src), "\n") {
		n := i + 1
		if m := beginRE.FindStringSubmatch(line); m != nil {
			if open != nil {
				return nil, i18n.Errorf("%s:%d: lab:begin %s inside region %s (regions do not nest): put back the lab:end of %s",
					"%s:%d：区域 %s 的 lab:begin 位于区域 %s 之内（区域不能嵌套）：把 %s 的 lab:end 放回去", path, n, m[2], open.Name, open.Name)
			}
			open = &Region{Name: m[2], First: n + 1}
			continue
		}
		if endRE.MatchString(line) {
			if open == nil {
				return nil, i18n.Errorf("%s:%d: lab:end without lab:begin: put back the lab:begin line above it",
					"%s:%d：lab:end 前面没有 lab:begin：把它上方的 lab:begin 行放回去", path, n)
			}
			open.End = n
			out = append(out, *open)
			open = nil
		}
	}
	if open != nil {
		return nil, i18n.Errorf("%s: region %s has no lab:end: put back its lab:end line after its code",
			"%s：区域 %s 没有 lab:end：在它的代码之后把 lab:end 这一行放回去", path, open.Name)
	}
	return out, nil
}

// FunctionsIn names the functions declared in region r of a Go file, a
// method as Type.name (as a compiler message's place is named: gosrc.EnclosingFunc).
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
