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

package gotest

// What `lab check` says about a failure comes from the tests' structured
// results, not from their text output, where values and panics are easily
// lost: `go test -json` for Go tests and compile errors, and Ginkgo's JSON
// report for specs.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/onsi/ginkgo/v2/types"
	"sigs.k8s.io/yaml"

	"cronlab.dev/cronlab/cmd/lab/internal/base"
	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
)

// A failure is one failing test or spec.
type Failure struct {
	Name     string // the test's or spec's full name
	Location string // file:line of the failing assertion, relative to the tree
	Message  string // what the assertion said: Gomega's expected and actual values
	Panic    string // a panic's value, if the test panicked
	// Frames are a panic's stack frames in this tree as file:line (function),
	// the attendee's own files first.
	Frames []string
	// Said is, when the tests spoke Chinese, the English of the sentences
	// in Message (gosrc.English): hints are tied to failures by English words.
	Said string `json:"-"`
	// NameZh is Name in Chinese, when the tool speaks it: each segment by
	// its twin in the package's testdata/names.zh-CN.yaml (ChineseName).
	NameZh string `json:"-"`
	// Trace is the trace this spec recorded in this run (stages 12 to
	// 15: test/tracing), relative to the tree; TracePage the page drawn
	// from it, TraceSaid what it shows in a line (package run sets them).
	Trace     string `json:"-"`
	TracePage string `json:"-"`
	TraceSaid string `json:"-"`
}

// NameIn is the failure's name in l.
func (f Failure) NameIn(l i18n.Lang) string {
	if l == i18n.Chinese && f.NameZh != "" {
		return f.NameZh
	}
	return f.Name
}

// ChineseNames are the Chinese twins of the names of the tests in the
// package folder dir, from its testdata/names.zh-CN.yaml (the tests check
// that every name has one: test/say), or none.
func ChineseNames(dir string) map[string]string {
	names := map[string]string{}
	raw, err := os.ReadFile(filepath.Join(dir, "testdata", "names.zh-CN.yaml"))
	if err == nil {
		_ = yaml.Unmarshal(raw, &names) // a file that does not parse leaves the names English
	}
	return names
}

// ChineseName is a test's or spec's name with each segment that twins
// translates in Chinese: the containers and text of a Ginkgo spec ("A › B"),
// the subtests of a Go test ("TestDue/exactly_100_missed_runs", whose
// underscores were spaces in the test). A segment without a twin, such as
// a Go test's own name, stays as it is.
func ChineseName(name string, twins map[string]string) string {
	segments := strings.Split(name, " › ")
	for i, seg := range segments {
		goTest := strings.HasPrefix(seg, "Test") && !strings.Contains(seg, " ")
		if zh, ok := twins[seg]; ok && !goTest {
			segments[i] = zh
			continue
		}
		parts := strings.Split(seg, "/")
		for j, part := range parts {
			if zh, ok := twins[strings.ReplaceAll(part, "_", " ")]; ok && j > 0 {
				parts[j] = zh
			}
		}
		segments[i] = strings.Join(parts, "/")
	}
	return strings.Join(segments, " › ")
}

// Results is what one `go test -json` run of a package said.
type Results struct {
	Passed, Failed int       // tests or specs
	Outcomes       []Outcome // every test or spec that ran, in order
	Failures       []Failure // in the order they ran
	BuildErrors    []string  // compiler messages, file:line: text
	// Stubbed are the functions that did not compile, when the other tests
	// ran with them stubbed (package run).
	Stubbed []CompileError
	// Calls is the call graph of the stage's own files (gosrc.CallGraph): a
	// function whose callee fails its own specs may fail because of it.
	Calls map[string][]string
	// Todo are the stage's functions whose body is still the starter's stub
	// (gosrc.StillStubs): not written yet.
	Todo []string
	// NoRest says why the rest was not checked when nothing could be
	// stubbed; Markers are the conflict markers left in the code.
	NoRest    string
	Markers   []string
	VetErrors []string // go vet's findings, file:line: text
	Ginkgo    bool     // a Ginkgo suite: its setup (BeforeSuite) ran before the specs
	Output    string   // all of the text output, for -v
}

// An outcome is one test's or spec's name and "passed" or "failed".
type Outcome struct {
	Name, Status string
}

// What a check counts is one rule, the same in the terminal (lab check,
// lab watch), in lab check --json and on the class board: every Go test
// and Ginkgo spec that ran (Outcomes), and each failure of a suite's own
// node (a BeforeSuite), which is no spec but is why specs did not run or
// fail. A Go subtest is part of its test: a failing subtest fails the test,
// which counts once, and is never a spec of its own.

// IsSubtest is whether the failure is a Go subtest's ("TestDue/a_row")
// whose test has an outcome of its own.
func (r Results) IsSubtest(name string) bool {
	root := rootTest(name)
	return root != name && HasOutcome(r.Outcomes, root)
}

// NodeFailures are the failures that are neither a test's or spec's nor a
// subtest's: a suite's failed setup or teardown.
func (r Results) NodeFailures() []Failure {
	var out []Failure
	for _, f := range r.Failures {
		if !HasOutcome(r.Outcomes, f.Name) && !r.IsSubtest(f.Name) {
			out = append(out, f)
		}
	}
	return out
}

// Counts is how many specs passed, and how many count, by the rule above.
func (r Results) Counts() (passed, counted int) {
	return r.Passed, r.Passed + r.Failed + len(r.NodeFailures())
}

// testEvent is one line of `go test -json` (go doc test2json).
type testEvent struct {
	Action     string
	Package    string
	ImportPath string
	Test       string
	Output     string
}

// ParseJSON reads `go test -json` output. The Go test that runs a Ginkgo
// suite is left out when report holds the suite's specs: one failing spec
// must not count twice. A plain Go test beside the suite counts as itself.
func ParseJSON(out []byte, tree, pkg string, owned map[string]bool, ginkgo bool) Results {
	var r Results
	outputs := map[string]*strings.Builder{}
	var all strings.Builder
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var e testEvent
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			all.WriteString(sc.Text() + "\n") // not JSON: go's own messages
			continue
		}
		switch e.Action {
		case "build-output":
			all.WriteString(e.Output)
			msg := strings.TrimSpace(e.Output)
			switch {
			case msg == "" || strings.HasPrefix(msg, "#"):
			case strings.HasPrefix(e.Output, "\t") && len(r.BuildErrors) > 0:
				// The rest of a message of several lines ("not enough
				// return values" goes on with have and want).
				r.BuildErrors[len(r.BuildErrors)-1] += "\n\t" + relative(msg, tree)
			default:
				r.BuildErrors = append(r.BuildErrors, relative(msg, tree))
			}
		case "output":
			all.WriteString(e.Output)
			b := outputs[e.Test]
			if b == nil {
				b = &strings.Builder{}
				outputs[e.Test] = b
			}
			b.WriteString(e.Output)
		case "pass":
			if e.Test != "" && !(ginkgo && runsSuite(outputs[e.Test])) && !strings.Contains(e.Test, "/") {
				r.Passed++
				r.Outcomes = append(r.Outcomes, Outcome{e.Test, "passed"})
			}
		case "fail":
			if e.Test == "" || ginkgo && runsSuite(outputs[rootTest(e.Test)]) {
				continue
			}
			if !strings.Contains(e.Test, "/") {
				r.Failed++
				r.Outcomes = append(r.Outcomes, Outcome{e.Test, "failed"})
			}
			text := ""
			if b := outputs[e.Test]; b != nil {
				text = b.String()
			}
			r.Failures = append(r.Failures, goTestFailure(e.Test, text, tree, pkg, owned))
		}
	}
	lendPanicsToSubtests(r.Failures)
	// A panic outside any test (in TestMain, or one that kills the binary)
	// shows in the package's output only.
	if out := outputs[""]; out != nil && strings.Contains(out.String(), "panic: ") && len(r.Failures) == 0 {
		r.Failures = append(r.Failures, goTestFailure("(the test binary)", out.String(), tree, pkg, owned))
	}
	r.Output = all.String()
	return r
}

// VetFindings keeps the lines of go vet's output that name a place.
func VetFindings(out, tree string) []string {
	var found []string
	for _, line := range strings.Split(out, "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") && strings.Contains(line, ".go:") {
			found = append(found, relative(line, tree))
		}
	}
	if len(found) == 0 && strings.TrimSpace(out) != "" {
		found = []string{base.LastLines(out, 5)}
	}
	return found
}

// runsSuite tells whether a Go test's output is a Ginkgo suite's: Ginkgo
// starts it with "Running Suite:".
func runsSuite(output *strings.Builder) bool {
	return output != nil && strings.Contains(output.String(), "Running Suite:")
}

// rootTest is the top-level test of a test or subtest name.
func rootTest(name string) string {
	root, _, _ := strings.Cut(name, "/")
	return root
}

// lendPanicsToSubtests gives a subtest that failed without a word the panic
// of the test it ran under. When a subtest panics, go test prints the panic
// under the top-level test, after the subtest's own "--- FAIL" line: read as
// it comes, the subtest that panicked (the one an attendee reads first, a
// row of a table test) would say nothing at all.
func lendPanicsToSubtests(fs []Failure) {
	for i := range fs {
		f := &fs[i]
		if f.Panic != "" || f.Message != "" {
			continue
		}
		for _, parent := range fs {
			if parent.Panic != "" && strings.HasPrefix(f.Name, parent.Name+"/") {
				f.Panic, f.Frames = parent.Panic, parent.Frames
				if f.Location == "" {
					f.Location = parent.Location
				}
				break
			}
		}
	}
}

// assertionLine is a t.Errorf or t.Fatal line: "    x_test.go:12: message".
var assertionLine = regexp.MustCompile(`^\s+([\w./-]+\.go:\d+): (.*)$`)

// goTestFailure reads a failed Go test's output. t.Errorf names only the
// file, which is in pkg, the test's package directory.
func goTestFailure(name, output, tree, pkg string, owned map[string]bool) Failure {
	f := Failure{Name: name}
	lines := strings.Split(output, "\n")
	var msg []string
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if m := assertionLine.FindStringSubmatch(line); m != nil {
			if f.Location == "" {
				f.Location = filepath.ToSlash(filepath.Join(pkg, m[1]))
			}
			msg = append(msg, m[2])
			// Continuation lines of the same message are indented deeper.
			for i+1 < len(lines) && strings.HasPrefix(lines[i+1], "        ") && !assertionLine.MatchString(lines[i+1]) {
				i++
				msg = append(msg, strings.TrimPrefix(lines[i], "        "))
			}
			continue
		}
		// A fatal error (a mutex unlocked twice, a map written at once
		// from two goroutines) ends the binary as a panic does, unrecovered.
		p, ok := strings.CutPrefix(line, "panic: ")
		if !ok {
			p, ok = strings.CutPrefix(line, "fatal error: ")
		}
		if ok && f.Panic == "" {
			// " [recovered]", or " [recovered, repanicked]" since Go 1.23.
			f.Panic, _, _ = strings.Cut(p, " [recovered")
			f.Frames = ownFrames(strings.Join(lines[i:], "\n"), tree, owned)
		}
	}
	f.Message = strings.Join(msg, "\n")
	return f
}

// ReadGinkgoReport reads the failing specs of a Ginkgo JSON report, and
// counts passing and failing specs.
func ReadGinkgoReport(path, tree string, owned map[string]bool, r *Results) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var reports []types.Report
	if err := json.Unmarshal(raw, &reports); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	for _, report := range reports {
		for _, spec := range report.SpecReports {
			switch {
			case spec.State == types.SpecStatePassed && spec.LeafNodeType == types.NodeTypeIt:
				r.Passed++
				r.Outcomes = append(r.Outcomes, Outcome{specName(spec), "passed"})
			case spec.State.Is(types.SpecStateFailureStates):
				f := specFailure(spec, tree, owned)
				if spec.LeafNodeType == types.NodeTypeIt {
					r.Failed++
					r.Outcomes = append(r.Outcomes, Outcome{f.Name, "failed"})
				}
				r.Failures = append(r.Failures, f)
			}
		}
	}
	return nil
}

// specName is a spec's containers and text, "CronJob Reconciler › ... › It".
func specName(spec types.SpecReport) string {
	if spec.LeafNodeType != types.NodeTypeIt {
		return spec.LeafNodeType.String() // BeforeSuite, AfterSuite ...
	}
	return strings.Join(append(append([]string{}, spec.ContainerHierarchyTexts...), spec.LeafNodeText), " › ")
}

func specFailure(spec types.SpecReport, tree string, owned map[string]bool) Failure {
	f := Failure{
		Name:     specName(spec),
		Location: relative(fmt.Sprintf("%s:%d", spec.Failure.Location.FileName, spec.Failure.Location.LineNumber), tree),
		Message:  strings.TrimSpace(spec.Failure.Message),
	}
	if spec.State == types.SpecStatePanicked {
		f.Panic = spec.Failure.ForwardedPanic
		f.Message = ""
		f.Frames = ownFrames(spec.Failure.Location.FullStackTrace, tree, owned)
		// Ginkgo places a panic where it was raised, often in the runtime;
		// the place in the spec is the first of the tests' frames.
		f.Location = ""
		for _, frame := range f.Frames {
			if file, _, _ := strings.Cut(frame, ":"); strings.HasSuffix(file, "_test.go") {
				f.Location = strings.Fields(frame)[0]
				break
			}
		}
	}
	if spec.State == types.SpecStateTimedout || spec.State == types.SpecStateInterrupted {
		f.Message = strings.TrimSpace(spec.Failure.Message + "\n" + spec.Failure.ProgressReport.Message)
	}
	return f
}

// frameLine is the file line of a stack frame: "\t/path/file.go:123 +0x1f".
var frameLine = regexp.MustCompile(`^\s+(/\S+\.go):(\d+)`)

// ownFrames picks a stack's frames that are in tree, as "file:line
// (function)": those in owned files (the stage's, which the attendee
// writes) first, then the tests', never the libraries' or the runtime's.
func ownFrames(stack, tree string, owned map[string]bool) []string {
	lines := strings.Split(stack, "\n")
	var mine, others []string
	abs, err := filepath.Abs(tree)
	if err != nil {
		return nil
	}
	for i, line := range lines {
		m := frameLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		rel, err := filepath.Rel(abs, m[1])
		if err != nil || strings.HasPrefix(rel, "..") {
			continue
		}
		fn := ""
		if i > 0 {
			fn = strings.TrimSpace(lines[i-1])
			if j := strings.LastIndex(fn, "("); j > 0 {
				fn = fn[:j]
			}
			fn = fn[strings.LastIndex(fn, "/")+1:]
		}
		frame := fmt.Sprintf("%s:%s (%s)", rel, m[2], fn)
		if owned[rel] {
			mine = append(mine, frame+"  <- your code")
		} else {
			others = append(others, frame)
		}
	}
	return append(mine, others...)
}

// relative turns absolute paths of the tree in s into paths relative to it.
func relative(s, tree string) string {
	abs, err := filepath.Abs(tree)
	if err != nil {
		return s
	}
	return strings.ReplaceAll(s, abs+string(filepath.Separator), "")
}
