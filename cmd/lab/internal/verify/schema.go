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

package verify

// One build for all the mistakes of a stage. Building a stage's tests takes
// seconds, mostly the link, and running them with one mistake made often
// takes one: lab dev verify spent most of its time building. So the mistakes
// that only change function bodies go into one build overlay together. The
// reference keeps every function; each function that a mistake edits gets a
// first line that hands the call to the mistake's version of it when the
// test binary runs with LAB_MISTAKE set to that mistake's number:
//
//	func (r *CronJobReconciler) observeJobs(...) (...) {
//		if labMistakeInSchema == 3 { return r.observeJobs_labMistake3(...) }
//		... the reference, unchanged ...
//	}
//
// Mutation testers call this a mutant schema (Untch, Offutt and Harrold,
// 1993). A mistake that edits anything else (an import, a type, a marker
// in a comment) keeps a build of its own, and so does every mistake that the
// schema's check does not catch: lab dev verify's verdict that a mistake passes
// always comes from the mistake built alone, vetted, as the attendee would
// have it.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"cronlab.dev/cronlab/cmd/lab/internal/stage"
)

const (
	// mistakeEnv selects the mistake (its place in the catalogue, from 1)
	// that a schema's test binary runs with; unset, it runs the reference.
	mistakeEnv = "LAB_MISTAKE"
	schemaVar  = "labMistakeInSchema"
)

// A mistakeSchema is a build overlay holding several mistakes at once.
type mistakeSchema struct {
	overlay string
	holds   map[int]bool // indexes in the catalogue
}

// makeSchema writes, under at, the overlay that builds the tree at dir
// with every mistake of ms that only edits function bodies, and says which
// ones it holds.
func makeSchema(dir, at string, ms []stage.Mistake) (mistakeSchema, error) {
	sch := mistakeSchema{holds: map[int]bool{}}
	refs, versions := collectVersions(dir, ms, sch.holds)
	if len(sch.holds) == 0 {
		return sch, nil
	}
	var err error
	sch.overlay, err = writeSchema(at, refs, versions)
	return sch, err
}

// collectVersions reads the mistakes that fit the schema (holds[i] for
// mistake i) and returns the reference's files they change, by absolute
// path, with the mistakes' versions of their functions.
func collectVersions(dir string, ms []stage.Mistake, holds map[int]bool) (map[string]*goFile, map[string][]funcVersion) {
	refs := map[string]*goFile{}           // the reference's files, by absolute path
	versions := map[string][]funcVersion{} // the mistakes' functions, by file
	for i, m := range ms {
		files, originals, err := m.Edited(dir)
		if err != nil {
			continue // built alone, it says why it cannot be made
		}
		found, ok := map[string][]funcVersion{}, true
		for path, src := range files {
			ref, seen := refs[path]
			if !seen {
				if ref, err = parseGoFile(path, originals[path]); err != nil {
					ok = false
					break
				}
				refs[path] = ref
			}
			vs, fits := ref.versionsIn(src, i+1)
			if !fits {
				ok = false
				break
			}
			found[path] = vs
		}
		if !ok {
			continue
		}
		for path, vs := range found {
			versions[path] = append(versions[path], vs...)
		}
		holds[i] = true
	}
	return refs, versions
}

// writeSchema writes the files of the schema into at: each file with its
// mistakes' versions and their dispatch, and the variable that chooses a
// mistake, once per package; and the build overlay that puts them in place
// of the tree's files. It returns the overlay's path.
func writeSchema(at string, refs map[string]*goFile, versions map[string][]funcVersion) (string, error) {
	if err := os.MkdirAll(at, 0o755); err != nil {
		return "", err
	}
	replace := map[string]string{}
	add := func(path string, content []byte) error {
		copyPath := filepath.Join(at, fmt.Sprintf("%d-%s", len(replace), filepath.Base(path)))
		replace[path] = copyPath
		return os.WriteFile(copyPath, content, 0o644)
	}
	// Each package whose functions dispatch needs the variable, once: a
	// test file's variable would clash with the package's in its tests.
	type pkg struct{ dir, name string }
	testOnly := map[pkg]bool{}
	for path, vs := range versions {
		ref := refs[path]
		if err := add(path, ref.withVersions(vs)); err != nil {
			return "", err
		}
		p := pkg{filepath.Dir(path), ref.ast.Name.Name}
		isTest := strings.HasSuffix(path, "_test.go")
		if only, seen := testOnly[p]; !seen || only {
			testOnly[p] = isTest
		}
	}
	for p, isTest := range testOnly {
		name := "zz_lab_mistake_schema.go"
		if isTest {
			name = "zz_lab_mistake_schema_test.go"
		}
		path := filepath.Join(p.dir, name)
		if _, err := os.Stat(path); err == nil {
			return "", fmt.Errorf("%s exists: the mistakes' schema would replace it", path)
		}
		src := fmt.Sprintf("package %s\n\nimport (\n\t\"os\"\n\t\"strconv\"\n)\n\n"+
			"// Generated by lab dev verify: which mistake of the schema runs (0: none).\n"+
			"var %s, _ = strconv.Atoi(os.Getenv(%q))\n", p.name, schemaVar, mistakeEnv)
		if err := add(path, []byte(src)); err != nil {
			return "", err
		}
	}
	raw, err := json.Marshal(map[string]map[string]string{"Replace": replace})
	if err != nil {
		return "", err
	}
	overlay := filepath.Join(at, "overlay.json")
	return overlay, os.WriteFile(overlay, raw, 0o644)
}

// A goFile is a parsed Go file and its text.
type goFile struct {
	src   []byte
	fset  *token.FileSet
	ast   *ast.File
	funcs []*ast.FuncDecl
}

func parseGoFile(path string, src []byte) (*goFile, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	g := &goFile{src: src, fset: fset, ast: f}
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
			g.funcs = append(g.funcs, fd)
		}
	}
	return g, nil
}

// text is the source of a node.
func (g *goFile) text(n ast.Node) string {
	return string(g.src[g.offset(n.Pos()):g.offset(n.End())])
}

func (g *goFile) offset(p token.Pos) int { return g.fset.Position(p).Offset }

// fields is the source of a receiver, "" for a function.
func (g *goFile) fields(l *ast.FieldList) string {
	if l == nil {
		return ""
	}
	return g.text(l)
}

// A funcVersion is a mistake's version of one of the reference's functions:
// which one (its place among the file's functions), and its declaration
// renamed for the mistake.
type funcVersion struct {
	mistake int
	fn      int
	decl    string
}

func versionName(name string, mistake int) string {
	return fmt.Sprintf("%s_labMistake%d", name, mistake)
}

// versionsIn compares the mistake's text of the file with the reference
// and returns the functions whose bodies it changes; fits is false when it
// changes anything else, or when it may no longer compile on its own (a
// package or variable it stops using, which the schema would hide).
func (g *goFile) versionsIn(src []byte, mistake int) (vs []funcVersion, fits bool) {
	mut, err := parseGoFile("", src)
	if err != nil || len(mut.funcs) != len(g.funcs) {
		return nil, false
	}
	// Outside the functions' bodies, the texts must be the same.
	var outside bytes.Buffer
	at := 0
	for i, fd := range mut.funcs {
		ref := g.funcs[i]
		if mut.fields(fd.Recv) != g.fields(ref.Recv) || fd.Name.Name != ref.Name.Name || mut.text(fd.Type) != g.text(ref.Type) {
			return nil, false
		}
		outside.Write(src[at:mut.offset(fd.Body.Pos())])
		outside.WriteString(g.text(ref.Body))
		at = mut.offset(fd.Body.End())
		if body := mut.text(fd.Body); body != g.text(ref.Body) {
			name := fd.Name
			decl := string(src[mut.offset(fd.Pos()):mut.offset(name.Pos())]) + versionName(name.Name, mistake) +
				string(src[mut.offset(name.End()):mut.offset(fd.End())])
			vs = append(vs, funcVersion{mistake: mistake, fn: i, decl: decl})
		}
	}
	outside.Write(src[at:])
	if !bytes.Equal(outside.Bytes(), g.src) || len(vs) == 0 {
		return nil, false
	}
	if !subset(selectorBases(g.ast), selectorBases(mut.ast)) {
		return nil, false
	}
	return vs, true
}

// selectorBases are the names before a dot in a file (packages, receivers,
// variables): a mistake that stops using one of them may leave an unused
// import or variable, which does not compile alone.
func selectorBases(f *ast.File) map[string]bool {
	names := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok {
				names[id.Name] = true
			}
		}
		return true
	})
	return names
}

func subset(a, b map[string]bool) bool {
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

// withVersions is the file with the mistakes' versions of its functions
// appended, and a dispatch to each at the top of the reference's function.
func (g *goFile) withVersions(vs []funcVersion) []byte {
	var changes []change
	byFn := map[int][]funcVersion{}
	for _, v := range vs {
		byFn[v.fn] = append(byFn[v.fn], v)
	}
	for i, fd := range g.funcs {
		if versions := byFn[i]; len(versions) > 0 {
			changes = append(changes, g.dispatch(fd, versions)...)
		}
	}
	sort.Slice(changes, func(i, j int) bool { return changes[i].at > changes[j].at })
	out := append([]byte(nil), g.src...)
	for _, c := range changes {
		out = append(out[:c.at], append([]byte(c.text), out[c.at+c.cut:]...)...)
	}
	for _, v := range vs {
		out = append(out, "\n// Mistake "+strconv.Itoa(v.mistake)+" of lab dev verify's schema.\n"+v.decl+"\n"...)
	}
	return out
}

// A change replaces cut bytes at offset at of a file with text.
type change struct {
	at, cut int
	text    string
}

// dispatch makes fd call the version of the mistake that lab dev verify's
// variable chooses: the parameters get names where they have none, so that
// the dispatch can pass them on, and the body begins with one if per
// version.
func (g *goFile) dispatch(fd *ast.FuncDecl, versions []funcVersion) []change {
	var changes []change
	// The dispatch passes the parameters on, so each needs a name.
	var args []string
	next := 0
	name := func(fields *ast.FieldList) {
		if fields == nil {
			return
		}
		for _, field := range fields.List {
			if len(field.Names) == 0 {
				n := fmt.Sprintf("labArg%d", next)
				next++
				changes = append(changes, change{at: g.offset(field.Type.Pos()), text: n + " "})
				args = append(args, n)
				continue
			}
			for _, id := range field.Names {
				n := id.Name
				if n == "_" {
					n = fmt.Sprintf("labArg%d", next)
					next++
					changes = append(changes, change{at: g.offset(id.Pos()), cut: 1, text: n})
				}
				args = append(args, n)
			}
		}
	}
	callee := ""
	if fd.Recv != nil {
		name(fd.Recv)
		callee, args = args[0]+".", nil
	}
	name(fd.Type.Params)
	if n := fd.Type.Params.NumFields(); n > 0 {
		last := fd.Type.Params.List[len(fd.Type.Params.List)-1]
		if _, variadic := last.Type.(*ast.Ellipsis); variadic {
			args[len(args)-1] += "..."
		}
	}
	var typeArgs []string
	if fd.Type.TypeParams != nil {
		for _, field := range fd.Type.TypeParams.List {
			for _, id := range field.Names {
				typeArgs = append(typeArgs, id.Name)
			}
		}
	}
	var dispatch strings.Builder
	for _, v := range versions {
		call := callee + versionName(fd.Name.Name, v.mistake)
		if len(typeArgs) > 0 {
			call += "[" + strings.Join(typeArgs, ", ") + "]"
		}
		call += "(" + strings.Join(args, ", ") + ")"
		if fd.Type.Results.NumFields() > 0 {
			fmt.Fprintf(&dispatch, "\n\tif %s == %d {\n\t\treturn %s\n\t}", schemaVar, v.mistake, call)
		} else {
			fmt.Fprintf(&dispatch, "\n\tif %s == %d {\n\t\t%s\n\t\treturn\n\t}", schemaVar, v.mistake, call)
		}
	}
	return append(changes, change{at: g.offset(fd.Body.Lbrace) + 1, text: dispatch.String() + "\n"})
}
