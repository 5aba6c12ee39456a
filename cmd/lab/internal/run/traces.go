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

import (
	"os"
	"path/filepath"
	"strings"

	"cronlab.dev/cronlab/cmd/lab/internal/gotest"
	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
	"cronlab.dev/cronlab/cmd/lab/internal/stage"
	"cronlab.dev/cronlab/cmd/lab/internal/traceview"
	"cronlab.dev/cronlab/internal/trace"
)

// One spec of each of stages 12, 13 and 14, and each of stage 15's three,
// records a trace of the reconcile loop (test/tracing), in
// bin/lab-state/traces/<the package's folder>/, named after the spec. A failed spec's trace is what shows why it failed: which
// read was stale, which write followed. The check points to it, says what
// it shows in a line, and draws its page beside it.

// traceDir is where the specs of t write their traces, in the tree dir.
func traceDir(dir string, t stage.Test) string {
	return filepath.Join(dir, "bin", "lab-state", "traces", filepath.Base(t.Package))
}

// clearTraces removes the traces of an earlier run, so that only this
// run's are pointed to.
func clearTraces(dir string, t stage.Test) {
	for _, pattern := range []string{"*.jsonl", "*.html"} {
		old, _ := filepath.Glob(filepath.Join(traceDir(dir, t), pattern))
		for _, f := range old {
			_ = os.Remove(f)
		}
	}
}

// attachTraces finds the trace of each failure, says what it shows, and
// writes its page. A trace that cannot be read is left unsaid: the failure
// itself is still shown.
func attachTraces(l i18n.Lang, dir string, t stage.Test, r *gotest.Results) {
	var zhNames map[string]string // the page's title in Chinese (gotest.ChineseName)
	if l == i18n.Chinese {
		zhNames = gotest.ChineseNames(filepath.Join(dir, t.Package))
	}
	for i, f := range r.Failures {
		path := filepath.Join(traceDir(dir, t), trace.FileName(f.Name))
		events, err := trace.Load(path)
		if err != nil || len(events) == 0 {
			continue
		}
		a := trace.Analyze(events)
		page := strings.TrimSuffix(path, ".jsonl") + ".html"
		title := f.Name
		if zh := gotest.ChineseName(f.Name, zhNames); zhNames != nil && zh != "" {
			title = zh
		}
		if os.WriteFile(page, []byte(traceview.Page(l, title, a)), 0o644) == nil {
			r.Failures[i].TracePage = relative(dir, page)
		}
		r.Failures[i].Trace = relative(dir, path)
		r.Failures[i].TraceSaid = traceview.Summary(l, a)
	}
}

func relative(dir, path string) string {
	if rel, err := filepath.Rel(dir, path); err == nil {
		return rel
	}
	return path
}
