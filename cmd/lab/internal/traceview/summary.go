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
// the versions as the picture numbers them and the real resourceVersions,
// and the writes its reconcile made after it; or that no read was stale.
// bin/lab check prints it under a failed spec.
func Summary(l i18n.Lang, a *trace.Analysis) string {
	if len(a.Stale) == 0 {
		reads := 0
		for _, e := range a.Events {
			if e.Kind == trace.Read && e.Source == trace.FromCache {
				reads++
			}
		}
		if reads == 0 {
			return l.Tr("nothing was read from the cache", "没有从缓存读取任何东西")
		}
		return fmt.Sprintf(l.Tr("no read was stale: each of the %d reads from the cache returned what the API server had when it began",
			"没有陈旧的读取：从缓存的 %d 次读取，每次都得到了读取开始时 API 服务器上的版本"), reads)
	}
	s := a.Stale[0]
	e := a.Events[s.Event]
	server := s.Object
	server.RV = s.ServerRV
	var line string
	switch {
	case s.Lag == trace.CLag && e.List != nil:
		line = fmt.Sprintf(l.Tr("event %d: the list of %ss from the cache lacked %s (rv %s), which the API server had (c-lag)",
			"第 %d 个事件：从缓存得到的 %s 列表里缺少 %s（rv %s），而 API 服务器上已有它（c-lag）"), e.Seq, e.List.Kind, object(a, server), s.ServerRV)
	case s.Lag == trace.CLag:
		line = fmt.Sprintf(l.Tr("event %d: reading %s %s from the cache found nothing, while the API server had %s (rv %s) (c-lag)",
			"第 %d 个事件：从缓存读取 %s %s 没有找到，而 API 服务器上已有 %s（rv %s）（c-lag）"), e.Seq, s.Object.Kind, s.Object.Name, version(a, server), s.ServerRV)
	case s.Lag == trace.DLag:
		line = fmt.Sprintf(l.Tr("event %d: the cache still had %s (rv %s), which the API server had deleted (d-lag)",
			"第 %d 个事件：缓存里还有 %s（rv %s），而 API 服务器已经删除了它（d-lag）"), e.Seq, object(a, s.Object), s.Object.RV)
	default:
		line = fmt.Sprintf(l.Tr("event %d: read %s (rv %s) from the cache while the API server had %s (rv %s) (u-lag)",
			"第 %d 个事件：从缓存读到 %s（rv %s），而 API 服务器上已是 %s（rv %s）（u-lag）"), e.Seq, object(a, s.Object), s.Object.RV, version(a, server), s.ServerRV)
	}
	if len(s.Followed) > 0 {
		var writes []string
		for _, w := range s.Followed {
			writes = append(writes, writeBrief(l, a.Events[w]))
		}
		line += l.Tr("; then ", "；随后") + strings.Join(writes, l.Tr(", ", "，"))
	}
	switch more := len(a.Stale) - 1; {
	case more == 1:
		line += l.Tr(" (and 1 more stale read)", "（另有 1 次陈旧的读取）")
	case more > 1:
		line += fmt.Sprintf(l.Tr(" (and %d more stale reads)", "（另有 %d 次陈旧的读取）"), more)
	}
	return line
}

// writeBrief is a write as the summary gives it: "create Job x: AlreadyExists".
func writeBrief(l i18n.Lang, e trace.Event) string {
	if e.Object == nil {
		return verbOf(l, e.Verb, "")
	}
	outcome := l.Tr("ok", "成功")
	if e.Error != "" {
		outcome = e.Error
	}
	return fmt.Sprintf(l.Tr("%s: %s", "%s：%s"), verbOf(l, e.Verb, e.Object.Kind+" "+e.Object.Name), outcome)
}
