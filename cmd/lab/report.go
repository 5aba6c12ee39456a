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

package main

// `lab check --json`: the result of a check for an instructor's tools, in a
// shape that stays stable (docs/lab-json.md; version 1). Human output is for
// people and may change; this may only gain fields.

import (
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

type checkReport struct {
	Version int    `json:"version"` // 1
	Stage   string `json:"stage"`
	Title   string `json:"title"`
	Passed  bool   `json:"passed"`
	// Error says in a line why the stage does not pass; "" when it does.
	Error string        `json:"error,omitempty"`
	Tests []checkedTest `json:"tests"`
	// Functions is the result per function the stage asks for (functions.go).
	Functions []functionResult `json:"functions"`
}

// checkedTest is one package of the stage's tests (stage.yaml's tests).
type checkedTest struct {
	Package       string         `json:"package"`
	Specs         []checkedSpec  `json:"specs"`
	CompileErrors []compileError `json:"compileErrors"`
	VetErrors     []string       `json:"vetErrors"`
	// ConflictMarkers are merge conflict markers left in the code (file:line);
	// NotChecked says why the rest was not checked when the code does not
	// compile and its broken functions could not be stubbed.
	ConflictMarkers []string `json:"conflictMarkers,omitempty"`
	NotChecked      string   `json:"notChecked,omitempty"`
}

type checkedSpec struct {
	Name     string `json:"name"`
	Status   string `json:"status"` // passed or failed
	Message  string `json:"message,omitempty"`
	Location string `json:"location,omitempty"` // file:line of the failing assertion
	Panic    string `json:"panic,omitempty"`
	Hint     string `json:"hint,omitempty"` // the id of the hint for this failure: lab hint shows it
}

// compileError is one compiler message, with the function it is in: a stage
// asks for functions, and which one does not compile is what an attendee
// needs to know.
type compileError struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Function string `json:"function,omitempty"`
	Message  string `json:"message"`
}

func newCheckReport(dir string, s stage, rs []results, err error) checkReport {
	r := checkReport{Version: 1, Stage: s.ID, Title: s.Title, Passed: err == nil, Tests: []checkedTest{},
		Functions: append([]functionResult{}, s.functionResults(dir, rs)...)}
	if err != nil {
		r.Error = err.Error()
	}
	for i, res := range rs {
		t := checkedTest{Package: s.Tests[i].Package, Specs: []checkedSpec{}, CompileErrors: []compileError{}, VetErrors: []string{}}
		failures := map[string]failure{}
		for _, f := range res.Failures {
			failures[f.Name] = f
		}
		for _, o := range res.Outcomes {
			spec := checkedSpec{Name: o.Name, Status: o.Status}
			if f, ok := failures[o.Name]; ok {
				spec.Message, spec.Location, spec.Panic = f.Message, f.Location, f.Panic
				spec.Hint = s.hintFor(f).ID
			}
			t.Specs = append(t.Specs, spec)
		}
		// A failure of a suite's setup (BeforeSuite) is no spec, but it is
		// why none ran: it is reported as one.
		for _, f := range res.Failures {
			if !hasOutcome(res.Outcomes, f.Name) {
				t.Specs = append(t.Specs, checkedSpec{Name: f.Name, Status: "failed", Message: f.Message,
					Location: f.Location, Panic: f.Panic, Hint: s.hintFor(f).ID})
			}
		}
		for _, e := range res.BuildErrors {
			t.CompileErrors = append(t.CompileErrors, placeCompileError(dir, e))
		}
		t.VetErrors = append(t.VetErrors, res.VetErrors...)
		t.ConflictMarkers, t.NotChecked = res.Markers, res.NoRest
		r.Tests = append(r.Tests, t)
	}
	return r
}

func hasOutcome(os []outcome, name string) bool {
	for _, o := range os {
		if o.Name == name {
			return true
		}
	}
	return false
}

func (r checkReport) write(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// compilerMessage is "file.go:12:3: message" (the column may be missing;
// the message may go on over more lines, as have and want do).
var compilerMessage = regexp.MustCompile(`(?s)^(\S+\.go):(\d+)(?::\d+)?: (.*)$`)

// placeCompileError reads a compiler message and names the function of the
// tree in dir that holds the line.
func placeCompileError(dir, msg string) compileError {
	m := compilerMessage.FindStringSubmatch(msg)
	if m == nil {
		return compileError{Message: msg}
	}
	line, _ := strconv.Atoi(m[2])
	return compileError{File: m[1], Line: line, Message: m[3], Function: enclosingFunc(filepath.Join(dir, m[1]), line)}
}

// enclosingFunc is the name of the function or method declared around line
// in file ("startDueRun", "CronJobReconciler.startDueRun"), or "". The parser
// reads files that do not compile; it needs only the syntax.
func enclosingFunc(file string, line int) string {
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
				return receiverType(fn.Recv.List[0].Type) + "." + fn.Name.Name
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

func receiverType(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.StarExpr:
		return receiverType(t.X)
	case *ast.IndexExpr: // a generic receiver: T[K]
		return receiverType(t.X)
	case *ast.Ident:
		return t.Name
	}
	return "?"
}

// cmdCheckJSON is `lab check --json`: the check of cmdCheck, recorded in the
// progress file the same way, with the result as JSON on stdout and nothing
// else there: what the check prints for people goes to stderr. It exits 1
// when the stage does not pass, as go test does.
func cmdCheckJSON(root string, s stage) error {
	// The document is for tools: its text is English whatever the locale,
	// so that the same failure reads the same to them (docs/lab-json.md).
	lang = "en"
	stdout := os.Stdout
	os.Stdout = os.Stderr
	defer func() { os.Stdout = stdout }()
	rs, err := runChecks(root, ".", s, quiet)
	var setup setupError
	if errors.As(err, &setup) {
		return fmt.Errorf("could not run the check of stage %s: %w", s.ID, err)
	}
	p := loadProgress(root)
	p.record(s, rs, err)
	if saveErr := p.save(root); saveErr != nil {
		fmt.Fprintln(os.Stderr, "lab: could not save the result:", saveErr)
	}
	if werr := newCheckReport(".", s, rs, err).write(stdout); werr != nil {
		return werr
	}
	if err != nil {
		os.Exit(1)
	}
	return nil
}

// hintForCheck is the hint that a failed check prints: the first tied to
// one of its failures (a failure explained in the operator's terms beats a
// general nudge), else the stage's first level.
func (s stage) hintForCheck(rs []results) hint {
	// The functions that others wait for (functions.go) come first: the
	// failures of their callers may be theirs, and a hint tied to one of
	// those would send the attendee to code that is right. A function that
	// does not compile is named; one that fails its own specs gets the hint
	// of its own failure, else one that names it.
	var waited, waiting []string
	for _, fr := range s.functionResults(".", rs) {
		if fr.Status == "waiting" {
			waiting = append(waiting, fr.Name)
			for _, w := range fr.WaitingFor {
				if !slices.Contains(waited, w) {
					waited = append(waited, w)
				}
			}
		}
	}
	for _, r := range rs {
		for _, c := range r.Stubbed {
			if slices.Contains(waited, c.Function) {
				return hint{
					En: fmt.Sprintf("%s does not compile (%s:%d). Fix that first: the functions that call it ran with its stub, so their failures may not be theirs.",
						c.Function, c.File, c.Line),
					Zh: fmt.Sprintf("%s 无法编译（%s:%d）。先修好它：调用它的函数在检查时用的是它的桩，它们的失败未必是它们自己的问题。",
						c.Function, c.File, c.Line)}
			}
		}
	}
	for _, name := range waited {
		for _, f := range s.Functions {
			if f.Name != name {
				continue
			}
			for _, r := range rs {
				for _, fail := range r.Failures {
					if h := s.hintFor(fail); h.When != "" && f.checks(fail.Name) {
						return h
					}
				}
			}
		}
	}
	if len(waited) > 0 {
		return hint{
			En: fmt.Sprintf("%s fails its own specs: fix it first. %s calls it, so those failures may be its.", joinNames(waited), joinNames(waiting)),
			Zh: fmt.Sprintf("%s 自己的测试用例没有通过：先修好它。%s 调用了它，所以它们的失败可能源自它。", joinNames(waited), joinNames(waiting))}
	}
	for _, r := range rs {
		for _, f := range r.Failures {
			if h := s.hintFor(f); h.When != "" {
				return h
			}
		}
	}
	if levels := s.levels(); len(levels) > 0 {
		return levels[0]
	}
	return hint{}
}

// undefinedName is the compiler's "undefined: name".
var undefinedName = regexp.MustCompile(`undefined: (\w+)$`)

// droppedImport explains an "undefined: kbatchv1" in a file of the stage:
// a starter drops the imports that only the stubbed code used, so code
// written into it needs them back. It returns the import line the
// reference has for that name, or "" when the name is no import there.
func droppedImport(root, file, message string) string {
	m := undefinedName.FindStringSubmatch(message)
	if m == nil {
		return ""
	}
	ref, err := referenceCommit(root)
	if err != nil {
		return ""
	}
	src, err := output(root, "git", "show", ref+":"+filepath.ToSlash(file))
	if err != nil {
		return ""
	}
	f, err := parser.ParseFile(token.NewFileSet(), file, src, parser.ImportsOnly)
	if err != nil {
		return ""
	}
	for _, imp := range f.Imports {
		if importName(imp) != m[1] {
			continue
		}
		if imp.Name != nil {
			return imp.Name.Name + " " + imp.Path.Value
		}
		return imp.Path.Value
	}
	return ""
}
