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
	"strings"

	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
	"cronlab.dev/cronlab/internal/trace"
)

// Page is a page of its own for a trace: the heading, the summary, each
// stale read and the writes that followed it, and the picture. It loads
// nothing: open it from the disk.
func Page(l i18n.Lang, title string, a *trace.Analysis) string {
	var b strings.Builder
	lang := "en"
	if l == i18n.Chinese {
		lang = "zh-CN"
	}
	fmt.Fprintf(&b, "<!doctype html>\n<html lang=%q>\n<head>\n<meta charset=\"utf-8\">\n<title>%s</title>\n", lang, esc(title))
	b.WriteString(`<style>
body{font-family:system-ui,'Noto Sans CJK SC','WenQuanYi Zen Hei',sans-serif;margin:24px;color:#222}
h1{font-size:20px;margin:0 0 4px}
.heading{color:#555;margin:0 0 12px}
.summary{font-size:15px;padding:8px 12px;background:#f4f6fa;border-left:4px solid #4a7bd0}
.summary.has-stale{background:#fdf0f1;border-left-color:#d0203a}
ol.stale li{margin:4px 0}
.picture{overflow-x:auto;border:1px solid #ddd;margin-top:16px}
</style>
</head>
<body>
`)
	fmt.Fprintf(&b, "<h1>%s</h1>\n<p class=\"heading\">%s</p>\n", esc(fmt.Sprintf(l.Tr("Trace: %s", "追踪记录：%s"), title)), esc(heading(l, a)))
	class := "summary"
	if len(a.Stale) > 0 {
		class += " has-stale"
	}
	fmt.Fprintf(&b, "<p class=%q>%s</p>\n", class, esc(Summary(l, a)))
	if len(a.Stale) > 0 {
		fmt.Fprintf(&b, "<h2>%s</h2>\n<ol class=\"stale\">\n", esc(l.Tr("Stale reads", "陈旧的读取")))
		for _, s := range a.Stale {
			var writes []string
			for _, w := range s.Followed {
				writes = append(writes, writeBrief(l, a.Events[w]))
			}
			then := l.Tr("no write followed", "之后没有写入")
			if len(writes) > 0 {
				then = l.Tr("then: ", "随后：") + strings.Join(writes, l.Tr(", ", "，"))
			}
			fmt.Fprintf(&b, "<li data-seq=\"%d\">#%d %s<br>%s<br>%s</li>\n", a.Events[s.Event].Seq, a.Events[s.Event].Seq,
				esc(describe(l, a, s.Event)), esc(staleLine(l, a, s)), esc(then))
		}
		b.WriteString("</ol>\n")
	}
	fmt.Fprintf(&b, "<div class=\"picture\">\n%s</div>\n</body>\n</html>\n", SVG(l, a))
	return b.String()
}
