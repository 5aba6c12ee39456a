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

// Summary is what a trace shows, in one line: the first stale read, with
// real resourceVersions, and the writes its reconcile made after it; or
// that no read was stale. bin/lab check prints it under a failed spec.
func Summary(l i18n.Lang, a *trace.Analysis) string {
	if len(a.Stale) == 0 {
		reads := 0
		for _, e := range a.Events {
			if e.Kind == trace.Read && e.Source == trace.FromCache {
				reads++
			}
		}
		return fmt.Sprintf(l.Tr("no read was stale: each of the %d reads from the cache returned what the API server had when it began", "没有陈旧的读取：%d 次从缓存的读取，每次都得到了读取开始时 API 服务器上的版本"), reads)
	}
	s := a.Stale[0]
	e := a.Events[s.Event]
	var line string
	switch s.Lag {
	case trace.CLag:
		line = fmt.Sprintf(l.Tr("read %s from the cache without %s %s, which the API server had at rv %s (c-lag)", "从缓存读取%s时缺少 %s %s，而 API 服务器上已有它（rv %s）（c-lag）"), what(l, e), s.Object.Kind, s.Object.Name, s.ServerRV)
	case trace.DLag:
		line = fmt.Sprintf(l.Tr("read %s %s at rv %s from the cache after the API server had deleted it (d-lag)", "在 API 服务器删除 %s %s 之后，仍从缓存读到它（rv %s）（d-lag）"), s.Object.Kind, s.Object.Name, s.Object.RV)
	default:
		line = fmt.Sprintf(l.Tr("read %s %s at rv %s from the cache while the API server had %s (u-lag)", "从缓存读到 %s %s 的 rv %s，而 API 服务器上已是 %s（u-lag）"), s.Object.Kind, s.Object.Name, s.Object.RV, s.ServerRV)
	}
	if len(s.Followed) > 0 {
		var writes []string
		for _, w := range s.Followed {
			writes = append(writes, writeBrief(a.Events[w]))
		}
		line += l.Tr("; then ", "；随后 ") + strings.Join(writes, ", ")
	}
	if more := len(a.Stale) - 1; more > 0 {
		line += fmt.Sprintf(l.Tr(" (and %d more stale read(s))", "（另有 %d 次陈旧的读取）"), more)
	}
	return line
}

// what a list asked for: "the Jobs of c-lag".
func what(l i18n.Lang, e trace.Event) string {
	if e.List == nil {
		return l.Tr("an object", "一个对象")
	}
	return fmt.Sprintf(l.Tr("the list of %ss", " %s 列表"), e.List.Kind)
}

// writeBrief is a write as the summary gives it: "create Job x: AlreadyExists".
func writeBrief(e trace.Event) string {
	if e.Object == nil {
		return e.Verb
	}
	outcome := "ok"
	if e.Error != "" {
		outcome = e.Error
	}
	return fmt.Sprintf("%s %s %s: %s", e.Verb, e.Object.Kind, e.Object.Name, outcome)
}
