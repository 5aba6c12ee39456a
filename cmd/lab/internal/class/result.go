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

package class

// What a check sends: the --json document's results (package report),
// stripped of the assertions' messages, their locations and the compiler's
// words, which may quote code; plus the stage's start and the hints seen.

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"time"

	"cronlab.dev/cronlab/cmd/lab/internal/classwire"
	"cronlab.dev/cronlab/cmd/lab/internal/gotest"
	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
	"cronlab.dev/cronlab/cmd/lab/internal/progress"
	"cronlab.dev/cronlab/cmd/lab/internal/report"
	"cronlab.dev/cronlab/cmd/lab/internal/stage"
)

// Sent is what a check of stage s becomes on the wire. Its specs are the
// --json document's, so the board counts what the terminal and --json
// count (gotest.Results.Counts).
func Sent(s stage.Stage, c report.Check, p progress.StageResult) *classwire.Result {
	r := &classwire.Result{Stage: c.Slug, Passed: c.Passed, StageStarted: p.Started, HintsSeen: len(p.HintsShown),
		Specs: []classwire.Spec{}, Functions: []classwire.Function{}}
	for _, t := range c.Tests {
		r.CompileErrors += len(t.CompileErrors)
		for _, spec := range t.Specs {
			r.Specs = append(r.Specs, classwire.Spec{Package: t.Package, Name: cut(spec.Name, classwire.MaxName), Status: spec.Status, Hint: tied(s, spec.Hint)})
		}
	}
	if len(r.Specs) > classwire.MaxSpecs {
		r.Specs = keepFailing(r.Specs, classwire.MaxSpecs)
	}
	for _, f := range c.Functions {
		if len(r.Functions) == classwire.MaxFunctions {
			break
		}
		r.Functions = append(r.Functions, classwire.Function{Name: cut(f.Name, classwire.MaxName), Status: f.Status, Passed: f.Passed, Ran: f.Ran})
	}
	return r
}

// tied is id when it is a hint that stage.yaml ties to a failure (when:),
// else "". --json falls back on the stage's first hint, a general nudge
// ("start with runs.go"): on the board, beside a spec that the room or an
// attendee keeps failing, it would read as that failure's hint.
func tied(s stage.Stage, id string) string {
	for _, h := range s.Hints {
		if h.ID == id && h.When != "" {
			return id
		}
	}
	return ""
}

func cut(s string, most int) string {
	if rs := []rune(s); len(rs) > most {
		return string(rs[:most-1]) + "…"
	}
	return s
}

// keepFailing keeps the failing specs first, then as many passed as fit.
func keepFailing(specs []classwire.Spec, most int) []classwire.Spec {
	var out []classwire.Spec
	for _, pass := range []string{"failed", "passed"} {
		for _, s := range specs {
			if s.Status == pass && len(out) < most {
				out = append(out, s)
			}
		}
	}
	return out
}

// Report puts a check's result in the queue when the clone is in a class
// (queued), and says so in a line when results are waiting from before
// (the board did not answer last time).
func Report(l i18n.Lang, root string, s stage.Stage, rs []gotest.Results, checkErr error, p *progress.Progress) (line string, queued bool) {
	dir := Dir(root)
	m, ok := ReadMember(dir)
	if !ok {
		return "", false
	}
	waiting := len(Waiting(dir))
	sent := Sent(s, report.NewCheck(".", s, rs, checkErr), p.Stages[s.Slug])
	if _, err := Enqueue(dir, classwire.Message{At: time.Now().UTC(), Result: sent}); err != nil {
		return fmt.Sprintf(l.Tr("  board: this result could not be queued (%s)", "  看板：这个结果没能放入队列（%s）"), i18n.Message(l, err)), false
	}
	if waiting == 0 {
		return "", true
	}
	a, _ := LastAttempt(dir)
	if a.Status == http.StatusUnauthorized {
		return fmt.Sprintf(l.Tr("  board: %s for %s, which refused the last ones: %s",
			"  看板：%s在等待 %s，它拒绝了上一批：%s"), Waits(l, waiting+1), m.Board, a.why(l)), true
	}
	return fmt.Sprintf(l.Tr("  board: %s for %s, which did not answer last time; sending them now, in order (bin/lab status)",
		"  看板：%s在等待 %s，它上次没有应答；现在按顺序发送（bin/lab status）"), Waits(l, waiting+1), m.Board), true
}

// SendInBackground starts `bin/lab class-send` detached from this process,
// so that a check that exits at once still has its result sent.
func SendInBackground(dir string) {
	if len(Waiting(dir)) == 0 {
		return
	}
	exe, err := os.Executable()
	if err != nil {
		return
	}
	cmd := exec.Command(exe, "class-send", dir)
	detach(cmd) // a Ctrl-C in the terminal must not stop it half-way
	if cmd.Start() == nil {
		_ = cmd.Process.Release()
	}
}

// CmdSend is `bin/lab class-send`: send what waits, within SendBudget.
func CmdSend(dir string) error {
	ctx, cancel := context.WithTimeout(context.Background(), SendBudget)
	defer cancel()
	_, err := Flush(ctx, dir)
	return err
}

// SendBudget bounds one background send: a board that is down costs one
// request's time-out, a long queue at most this.
const SendBudget = 30 * time.Second
