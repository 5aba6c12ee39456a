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

package perturb

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"cronlab.dev/cronlab/cmd/lab/internal/gotest"
	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
	"cronlab.dev/cronlab/cmd/lab/internal/report"
	"cronlab.dev/cronlab/cmd/lab/internal/run"
	"cronlab.dev/cronlab/cmd/lab/internal/stage"
	"cronlab.dev/cronlab/cmd/lab/internal/traceview"
	"cronlab.dev/cronlab/internal/trace"
)

// endStateFile is the variable in which test/perturb is told where to write
// the end state (its endStateFile): it writes it only once the scenario
// has played to its end, so a file that is not there means that nothing
// was compared.
const endStateFile = "CRONLAB_PERTURB_END_STATE"

// An outcome is what one run of the scenario came to.
type outcome int

const (
	// matched: the scenario played to its end, where the reference's ends.
	matched outcome = iota
	// differed: it played to its end, elsewhere. Only this is the
	// attendee's difference from the reference.
	differed
	// broke: it did not play to its end (a build that failed, an error, a
	// panic, a skip), or failed after it: nothing can be said of the end
	// state, and nobody is told that theirs differs.
	broke
)

// A play is one run of the scenario under one kind. What it leaves is kept
// in bin/lab-state/perturb/<kind>.*, where no run of another kind removes
// it: a check clears its package's traces before each run.
type play struct {
	root        string // the clone: its shared API server, its envtest binaries
	dir, kind   string // the tree played (the clone itself, for bin/lab perturb) and the perturbation
	results     gotest.Results
	runErr      error
	took        time.Duration
	reached     bool   // the harness wrote the end state: the scenario played to its end
	got, want   string // the end state, this clone's and the reference's (test/perturb's format)
	outcome     outcome
	trace, page string // the kept trace and its page, from root; "" when there is none
}

func playOf(root, dir, kind string) *play { return &play{root: root, dir: dir, kind: kind} }

// kept is the file of this kind's run with the extension ext.
func (p *play) kept(ext string) string {
	return filepath.Join(p.dir, "bin", "lab-state", "perturb", p.kind+ext)
}

// play runs the scenario and says how the run went; an error is returned
// only when nothing ran at all (no API server to run it on, say).
func (p *play) play(l i18n.Lang) error {
	endState := p.kept(".end-state")
	if err := os.MkdirAll(filepath.Dir(endState), 0o755); err != nil {
		return err
	}
	_ = os.Remove(endState)
	want, err := os.ReadFile(filepath.Join(p.dir, "test", "perturb", "testdata", p.kind+".golden"))
	if err != nil {
		return i18n.Errorf("reading the reference's end state: %w (is this a clone of cronlab?)", "读取参考实现的结束状态：%w（这是 cronlab 的克隆吗？）", err)
	}
	s := stage.Stage{Slug: "perturb", Title: "the scenario of test/perturb under " + p.kind, TitleZh: "test/perturb 的场景，扰动：" + p.kind,
		Tests: []stage.Test{{Package: "./test/perturb", Run: "^TestPerturbed$/^" + p.kind + "$"}}}
	start := time.Now()
	all, runErr := run.ChecksWith(l, p.root, p.dir, s, run.Quiet, false, run.BuildOpts{Env: []string{endStateFile + "=" + endState}})
	p.took = time.Since(start)
	if len(all) == 0 {
		if runErr == nil {
			runErr = i18n.Errorf("the scenario's test did not run", "场景的测试没有运行")
		}
		return runErr
	}
	p.results, p.runErr, p.want = all[0], runErr, string(want)
	if got, err := os.ReadFile(endState); err == nil {
		p.reached, p.got = true, string(got)
	}
	p.outcome = classify(p.results, p.runErr, p.reached, p.got == p.want)
	p.keepTrace(l)
	p.report(l)
	return nil
}

// classify is the outcome of a run: its results, its error, whether the
// scenario played to its end and whether that end is the reference's.
func classify(r gotest.Results, runErr error, reached, same bool) outcome {
	switch {
	case len(r.BuildErrors) > 0 || len(r.Stubbed) > 0 || len(r.Markers) > 0:
		// A function that did not compile was stubbed for the run: its
		// end state is not this clone's code's.
		return broke
	case !reached:
		return broke
	case !same:
		return differed
	case runErr != nil:
		return broke
	}
	return matched
}

// keepTrace copies the run's trace beside the end state and draws its page
// there; a failure's pointer to the trace is pointed at the copies.
func (p *play) keepTrace(l i18n.Lang) {
	recorded := filepath.Join(p.dir, "bin", "lab-state", "traces", "perturb", trace.FileName("TestPerturbed/"+p.kind))
	events, err := trace.Load(recorded)
	if err != nil || len(events) == 0 {
		return
	}
	data, err := os.ReadFile(recorded)
	if err != nil || os.WriteFile(p.kept(".jsonl"), data, 0o644) != nil {
		return
	}
	p.trace = relative(p.dir, p.kept(".jsonl"))
	title := fmt.Sprintf(l.Tr("the scenario under %s", "扰动 %s 下的场景"), p.kind)
	if os.WriteFile(p.kept(".html"), []byte(traceview.Page(l, title, trace.Analyze(events))), 0o644) == nil {
		p.page = relative(p.dir, p.kept(".html"))
	}
	for i := range p.results.Failures {
		if p.results.Failures[i].Trace != "" {
			p.results.Failures[i].Trace, p.results.Failures[i].TracePage = p.trace, p.page
		}
	}
}

// report is the run's line, as a check prints it, and when the run broke,
// what broke it. A difference is shown by showDifference instead of the
// test's own failure: the tool says it in its language, lines and all.
func (p *play) report(l i18n.Lang) {
	mark := l.Tr("PASS", "通过")
	if p.outcome != matched {
		mark = l.Tr("FAIL", "失败")
	}
	fmt.Printf(l.Tr("  %s  %s: %s (%.0fs)\n", "  %s  %s：%s（%.0f 秒）\n"), mark, "./test/perturb", report.Counts(l, p.results), p.took.Seconds())
	if p.outcome == broke && p.runErr != nil {
		report.Explain(l, p.results, p.runErr)
	}
}

// draw prints the trace in lanes and where its page is.
func (p *play) draw(l i18n.Lang) {
	if p.trace == "" {
		return
	}
	events, err := trace.Load(filepath.Join(p.dir, p.trace))
	if err != nil || len(events) == 0 {
		return
	}
	fmt.Println()
	fmt.Print(traceview.Lanes(l, trace.Analyze(events), traceview.TerminalWidth()))
	if p.page != "" {
		fmt.Printf(l.Tr("\nthe picture: open %s in a browser\n", "\n图：在浏览器中打开 %s\n"), p.page)
	}
}

// showDifference prints both end states, marking this clone's lines that
// the reference's does not have.
func (p *play) showDifference(l i18n.Lang) {
	fmt.Printf(l.Tr("\nWhere the scenario ends under %s (≠: a line the reference's end state does not have):\n",
		"\n在 %s 扰动下这个场景的结束状态（≠：参考实现的结束状态里没有的行）：\n"), p.kind)
	want := strings.Split(p.want, "\n")
	fmt.Println(l.Tr("  yours:", "  你的："))
	for _, line := range strings.Split(strings.TrimRight(p.got, "\n"), "\n") {
		mark := "   "
		if !slices.Contains(want, line) {
			mark = " ≠ "
		}
		fmt.Println("  " + mark + stateLine(l, line))
	}
	fmt.Println(l.Tr("  the reference's:", "  参考实现的："))
	for _, line := range strings.Split(strings.TrimRight(p.want, "\n"), "\n") {
		fmt.Println("     " + stateLine(l, line))
	}
}

// whyNothingWasCompared is the error of a run that broke: what failed,
// and that it is no difference from the reference.
func (p *play) whyNothingWasCompared() error {
	r := p.results
	switch {
	case len(r.BuildErrors) > 0 || len(r.Stubbed) > 0 || len(r.Markers) > 0:
		return i18n.Errorf("under %s nothing was compared: this clone's code does not compile (above). Make it compile (bin/lab check says where), then run bin/lab perturb %s again",
			"在 %s 扰动下什么都没有比较：本克隆的代码无法编译（见上）。先让它能够编译（bin/lab check 会指出位置），再运行 bin/lab perturb %s", p.kind, p.kind)
	case p.reached:
		return i18n.Errorf("under %s the scenario ended where the reference's ends, but its run failed after that (above): %w",
			"在 %s 扰动下，这个场景的结束状态与参考实现的相同，但这次运行在那之后失败了（见上）：%w", p.kind, p.runErr)
	case p.runErr == nil:
		return i18n.Errorf("under %s nothing was compared: the scenario was skipped before its end (%s)",
			"在 %s 扰动下什么都没有比较：这个场景在结束之前被跳过了（%s）", p.kind, skipped(r.Output))
	}
	return i18n.Errorf("under %s nothing was compared: the scenario stopped before its end, on the failure above. That is no difference from the reference: fix what failed, then run bin/lab perturb %s again",
		"在 %s 扰动下什么都没有比较：这个场景在结束之前就停下了，停在上面那个失败上。这并不是与参考实现的差别：先解决失败的原因，再运行 bin/lab perturb %s", p.kind, p.kind)
}

// skipLine is a test's own line before its --- SKIP: why it skipped.
var skipLine = regexp.MustCompile(`(?m)^\s+\w+_test\.go:\d+: (.+)$`)

func skipped(output string) string {
	lines := skipLine.FindAllStringSubmatch(output, -1)
	if len(lines) == 0 {
		return "--- SKIP"
	}
	return lines[len(lines)-1][1]
}

func relative(root, path string) string {
	if rel, err := filepath.Rel(root, path); err == nil {
		return rel
	}
	return path
}
