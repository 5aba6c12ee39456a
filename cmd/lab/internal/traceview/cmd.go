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

package traceview

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
	"cronlab.dev/cronlab/internal/trace"
)

// Options are lab trace's flags.
type Options struct {
	HTML string // where the page goes: default beside the trace, FILE.html
	SVG  string // also write the picture alone (docs/answers use it)
}

// CmdTrace is lab trace FILE: the trace in lanes on the terminal, and its
// page written beside it.
func CmdTrace(l i18n.Lang, args []string, o Options) error {
	if len(args) != 1 {
		return i18n.Errorf("which trace? bin/lab trace FILE (a failed spec's is named by bin/lab check; the specs of a stage write theirs in bin/lab-state/traces/)",
			"哪一个追踪记录？bin/lab trace FILE（bin/lab check 会给出未通过的测试用例的追踪记录；各阶段的测试用例把追踪记录写在 bin/lab-state/traces/ 下）")
	}
	path := args[0]
	events, err := trace.Load(path)
	if err != nil {
		return i18n.Errorf("reading the trace: %w", "读取追踪记录：%w", err)
	}
	if len(events) == 0 {
		return i18n.Errorf("%s holds no event: was the spec stopped before it began?", "%s 里没有任何事件：测试用例是不是在开始之前就被停止了？", path)
	}
	a := trace.Analyze(events)
	fmt.Print(Lanes(l, a, TerminalWidth()))
	title := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	page := o.HTML
	if page == "" {
		page = strings.TrimSuffix(path, ".jsonl") + ".html"
	}
	if err := os.WriteFile(page, []byte(Page(l, title, a)), 0o644); err != nil {
		return i18n.Errorf("writing the page: %w", "写入页面：%w", err)
	}
	fmt.Printf(l.Tr("\nthe picture: open %s in a browser\n", "\n图：在浏览器中打开 %s\n"), page)
	if o.SVG != "" {
		if err := os.WriteFile(o.SVG, []byte(SVG(l, a)), 0o644); err != nil {
			return i18n.Errorf("writing the picture: %w", "写入图片：%w", err)
		}
	}
	return nil
}

// TerminalWidth is $COLUMNS, or 120.
func TerminalWidth() int {
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n >= 60 {
		return n
	}
	return 120
}
