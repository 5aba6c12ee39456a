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

package run

// One function that does not compile must not hide how the others do. When
// the build of a stage's tests fails only inside functions of the stage's
// own files, `lab check` builds once more with those functions' bodies
// replaced by their stubs (as in the starter), through a build overlay that
// leaves the attendee's files untouched, and runs the tests: the screen says
// which function does not compile, and how the others fare.

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"cronlab.dev/cronlab/cmd/lab/internal/gosrc"
	"cronlab.dev/cronlab/cmd/lab/internal/gotest"
	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
	"cronlab.dev/cronlab/cmd/lab/internal/regions"
	"cronlab.dev/cronlab/cmd/lab/internal/report"
	"cronlab.dev/cronlab/cmd/lab/internal/stage"
)

// stubbedOverlay writes an overlay that stubs the functions in which the
// build errors are (and drops imports that nothing uses any more). ok is false when an error is not inside a function of an
// owned file that parses: a syntax error, or a file the attendee does not
// write, where stubbing would hide the problem instead of isolating it.
func stubbedOverlay(l i18n.Lang, dir string, s stage.Stage, owned map[string]bool, buildErrors []string) (overlay string, broken []gotest.CompileError, cleanup func(), ok bool) {
	byFile := map[string]map[string]bool{}
	for _, e := range buildErrors {
		c := gotest.PlaceCompileError(dir, e)
		// An import that only the code being written used: the overlay
		// drops it as it drops those of the stubbed functions.
		unusedImport := c.Function == "" && strings.Contains(c.Message, "imported ") && strings.HasSuffix(c.Message, " not used")
		if (c.Function == "" && !unusedImport) || !owned[filepath.ToSlash(c.File)] {
			return "", nil, nil, false
		}
		if byFile[c.File] == nil {
			byFile[c.File] = map[string]bool{}
		}
		if unusedImport {
			c.Function = gotest.UnusedImportName
		} else {
			byFile[c.File][c.Function] = true
		}
		broken = append(broken, c)
	}
	if len(byFile) == 0 {
		return "", nil, nil, false
	}
	tmp, err := os.MkdirTemp("", "lab-stubbed-*")
	if err != nil {
		return "", nil, nil, false
	}
	cleanup = func() { _ = os.RemoveAll(tmp) }
	replace := map[string]string{}
	todoNeeded := map[string]string{} // package directory -> package name
	files := make([]string, 0, len(byFile))
	for f := range byFile {
		files = append(files, f)
	}
	sort.Strings(files)
	for i, file := range files {
		path := filepath.Join(dir, file)
		src, err := os.ReadFile(path)
		if err != nil {
			cleanup()
			return "", nil, nil, false
		}
		out, pkg, usesTODO, err := stubFunctions(l, path, src, byFile[file], regions.Stub{Stage: s.Slug, Readme: s.Readme(), Broken: true})
		if err != nil {
			cleanup()
			return "", nil, nil, false
		}
		stubbed := filepath.Join(tmp, fmt.Sprintf("%d.go", i))
		if err := os.WriteFile(stubbed, out, 0o644); err != nil {
			cleanup()
			return "", nil, nil, false
		}
		abs, _ := filepath.Abs(path)
		replace[abs] = stubbed
		if usesTODO && !declaresLabTODO(filepath.Dir(path)) {
			todoNeeded[filepath.Dir(abs)] = pkg
		}
	}
	for pkgDir, pkg := range todoNeeded {
		todo := filepath.Join(tmp, "todo-"+pkg+".go")
		if err := os.WriteFile(todo, regions.TodoFile(pkg), 0o644); err != nil {
			cleanup()
			return "", nil, nil, false
		}
		replace[filepath.Join(pkgDir, "zz_lab_todo_stubbed.go")] = todo
	}
	raw, _ := json.Marshal(map[string]map[string]string{"Replace": replace})
	overlay = filepath.Join(tmp, "overlay.json")
	if err := os.WriteFile(overlay, raw, 0o644); err != nil {
		cleanup()
		return "", nil, nil, false
	}
	return overlay, broken, cleanup, true
}

// stubFunctions replaces the bodies of the named functions ("name" or
// "Type.name", as EnclosingFunc names them) with stub bodies.
func stubFunctions(l i18n.Lang, path string, src []byte, names map[string]bool, s regions.Stub) (out []byte, pkg string, usesTODO bool, err error) {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, path, src, parser.ParseComments)
	if err != nil {
		return nil, "", false, err
	}
	type edit struct{ from, to int }
	var edits []edit
	var bodies []string
	for _, d := range file.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		name := fn.Name.Name
		if fn.Recv != nil && len(fn.Recv.List) == 1 {
			name = gosrc.ReceiverType(fn.Recv.List[0].Type) + "." + name
		}
		if !names[name] {
			continue
		}
		body, usesErr, err := regions.StubBody(l, fset, fn, s, nil)
		if err != nil {
			return nil, "", false, err
		}
		usesTODO = usesTODO || usesErr
		edits = append(edits, edit{fset.Position(fn.Body.Lbrace).Offset, fset.Position(fn.Body.Rbrace).Offset + 1})
		bodies = append(bodies, body)
	}
	out = append([]byte(nil), src...)
	for i := len(edits) - 1; i >= 0; i-- { // from the end, so offsets hold
		out = append(out[:edits[i].from], append([]byte(bodies[i]), out[edits[i].to:]...)...)
	}
	out, err = regions.DropUnusedImports(path, out)
	if err != nil {
		return nil, "", false, err
	}
	out, err = format.Source(out)
	return out, file.Name.Name, usesTODO, err
}

// declaresLabTODO tells whether the package in dir has the starter's
// labTODO type already.
func declaresLabTODO(dir string) bool {
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	for _, f := range files {
		if raw, err := os.ReadFile(f); err == nil && strings.Contains(string(raw), "type labTODO string") {
			return true
		}
	}
	return false
}

// checkTheRest runs a test whose build failed once more, with the functions
// that do not compile stubbed. It returns the first run's results when that
// cannot be done, and otherwise the second run's, which remember the first's
// compiler messages; the stage never passes while a function does not
// compile.
func checkTheRest(l i18n.Lang, dir string, s stage.Stage, env []string, t stage.Test, owned map[string]bool, first gotest.Results, firstErr error) (gotest.Results, error) {
	if first.Markers = ConflictMarkers(dir, owned, first.BuildErrors); len(first.Markers) > 0 {
		first.NoRest = "conflict markers"
		return first, fmt.Errorf("%s", l.Tr("merge conflict markers left in the code", "代码中留有合并冲突标记"))
	}
	overlay, broken, cleanup, ok := stubbedOverlay(l, dir, s, owned, first.BuildErrors)
	if !ok {
		first.NoRest = whyNoRest(l, dir, owned, first.BuildErrors)
		return first, firstErr
	}
	defer cleanup()
	bins, err := os.MkdirTemp("", "lab-stubbed-tests-*")
	if err != nil {
		return first, firstErr
	}
	defer func() { _ = os.RemoveAll(bins) }()
	b := buildTest(dir, t, BuildOpts{Overlay: overlay, Out: bins, NoVet: true})
	if b.Err != nil {
		return first, firstErr // stubbing did not help: show what the compiler said
	}
	r, _ := runTest(l, dir, append(env, "GOFLAGS=-overlay="+overlay), t, b, owned, false)
	r.BuildErrors, r.Stubbed = first.BuildErrors, broken
	return r, fmt.Errorf(l.Tr("does not compile: %s", "无法编译：%s"), report.StubbedNames(broken))
}

// whyNoRest says, for the screen, why the rest of a stage that does not
// compile could not be checked with the broken functions stubbed.
func whyNoRest(l i18n.Lang, dir string, owned map[string]bool, buildErrors []string) string {
	for _, e := range buildErrors {
		if strings.Contains(e, "syntax error") || strings.Contains(e, "expected ") {
			return l.Tr("it is a syntax error: until the file parses, no function in it can be told from the others, "+
				"so no test of its package runs; fix the line the compiler names first",
				"这是语法错误：在文件能被解析之前，无法把其中的函数一个个区分开，所以它所在包的测试都不会运行；"+
					"先修好编译器指出的那一行")
		}
	}
	for _, e := range buildErrors {
		if c := gotest.PlaceCompileError(dir, e); c.File != "" && (c.Function == "" || !owned[filepath.ToSlash(c.File)]) {
			return fmt.Sprintf(l.Tr("the error is outside the functions this stage asks you to write (in %s), "+
				"so stubbing them would not help: the tests run once it compiles",
				"错误不在本阶段要你写的函数里（在 %s 中），把那些函数换成桩也无济于事：能编译之后测试才会运行"), c.File)
		}
	}
	return ""
}

// conflictMarkerLine is a line that git merge-file leaves in a conflict.
var conflictMarkerLine = regexp.MustCompile(`^(<<<<<<< |>>>>>>> |\|\|\|\|\|\|\| |=======\r?$)`)

// ConflictMarkers finds the conflict markers that a carry left (lab start,
// package carry) in the stage's files and the files the compiler complains of, as
// file:line. The compiler's own word for them ("syntax error: unexpected <<",
// "missing import path") does not say what they are.
func ConflictMarkers(dir string, owned map[string]bool, buildErrors []string) []string {
	files := map[string]bool{}
	for f := range owned {
		files[f] = true
	}
	for _, e := range buildErrors {
		if m := gotest.CompilerMessage.FindStringSubmatch(e); m != nil {
			files[filepath.ToSlash(m[1])] = true
		}
	}
	names := make([]string, 0, len(files))
	for f := range files {
		names = append(names, f)
	}
	sort.Strings(names)
	var out []string
	for _, f := range names {
		raw, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			continue
		}
		for i, line := range strings.Split(string(raw), "\n") {
			if conflictMarkerLine.MatchString(line) {
				out = append(out, fmt.Sprintf("%s:%d", f, i+1))
			}
		}
	}
	return out
}
