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
	"strconv"
	"strings"

	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
	"cronlab.dev/cronlab/internal/trace"
)

// The words of a trace: each event and each stale read said in one line,
// in the terminal and in the page alike.

// laneName is a lane's heading. The Reconcile's lane also holds what the
// test itself reads and writes (stage 13 has no Reconciler at all).
func laneName(l i18n.Lang, a *trace.Analysis, lane string) string {
	switch lane {
	case trace.LaneAPI:
		return l.Tr("API server", "API 服务器")
	case trace.LaneCache:
		return l.Tr("cache (informer)", "缓存（informer）")
	}
	for _, e := range a.Events {
		if e.Actor == "spec" {
			return l.Tr("Reconcile · the test", "Reconcile（调和）· 测试")
		}
	}
	return l.Tr("Reconcile", "Reconcile（调和）")
}

// object is "CronJob c-lag v2": a kind, a name, and the version this trace
// numbered (trace.Analysis.Version), which reads better than an rv.
func object(a *trace.Analysis, r trace.Ref) string {
	if v := version(a, r); v != "" {
		return r.Kind + " " + r.Name + " " + v
	}
	return r.Kind + " " + r.Name
}

// version is "v2", or the rv when the trace did not number it.
func version(a *trace.Analysis, r trace.Ref) string {
	if v := a.Version(r); v > 0 {
		return "v" + strconv.Itoa(v)
	}
	if r.RV != "" {
		return "rv " + r.RV
	}
	return ""
}

// sign marks what an api or cache event did to an object.
func sign(kind string) string {
	switch kind {
	case trace.Added:
		return "+"
	case trace.Deleted:
		return "−"
	}
	return "~"
}

// describe is one event in words. n is the reconcile an event starts, if
// it starts one.
func describe(l i18n.Lang, a *trace.Analysis, i int) string {
	e := a.Events[i]
	switch {
	case e.Kind == trace.Note:
		return "✂ " + e.Text
	case e.Lane == trace.LaneAPI || e.Lane == trace.LaneCache:
		if e.Object == nil {
			return e.Kind
		}
		s := sign(e.Kind) + " " + object(a, *e.Object)
		if e.Kind == trace.Deleted {
			s += l.Tr(" (deleted)", "（已删除）")
		}
		return s
	case e.Kind == trace.Start:
		return "▶ " + fmt.Sprintf(l.Tr("reconcile %d of %s", "调和 #%d（%s）"), e.Reconcile, shortName(e.Request)) + cause(l, a, i)
	case e.Kind == trace.End:
		return "◀ " + result(l, e)
	case e.Kind == trace.Read:
		return who(l, e) + read(l, a, e)
	case e.Kind == trace.Write:
		return who(l, e) + write(l, a, e)
	}
	return e.Kind
}

func shortName(request string) string {
	_, name, ok := strings.Cut(request, "/")
	if !ok {
		return request
	}
	return name
}

// cause says what asked for the reconcile that event i starts.
func cause(l i18n.Lang, a *trace.Analysis, i int) string {
	for _, r := range a.Reconciles {
		if r.Start != i {
			continue
		}
		switch {
		case a.Events[i].ReconcileID == "":
			return l.Tr(" ← called by the test", " ← 由测试调用")
		case len(r.Causes) > 1:
			return fmt.Sprintf(l.Tr(" ← %d cache events, one reconcile", " ← %d 个缓存事件，合并为一次调和"), len(r.Causes))
		case len(r.Causes) == 1:
			return l.Tr(" ← 1 cache event", " ← 1 个缓存事件")
		case r.Requeued:
			return l.Tr(" ← requeued", " ← 重新入队")
		}
	}
	return ""
}

func who(l i18n.Lang, e trace.Event) string {
	if e.Actor == "spec" {
		return l.Tr("the test: ", "测试：")
	}
	return ""
}

func read(l i18n.Lang, a *trace.Analysis, e trace.Event) string {
	from := l.Tr("from the cache", "从缓存")
	if e.Source == trace.FromAPI {
		from = l.Tr("from the API server", "从 API 服务器")
	}
	if e.List != nil {
		names := make([]string, 0, len(e.Items))
		for _, item := range e.Items {
			names = append(names, object(a, item))
		}
		got := l.Tr("none", "无")
		if len(names) > 0 {
			got = strings.Join(names, ", ")
		}
		return fmt.Sprintf(l.Tr("list %ss %s: %s", "列出 %s（%s）：%s"), e.List.Kind, from, got)
	}
	if e.Object == nil {
		return "get"
	}
	if e.Error != "" {
		return fmt.Sprintf(l.Tr("get %s %s %s: %s", "读取 %s %s（%s）：%s"), e.Object.Kind, e.Object.Name, from, e.Error)
	}
	return fmt.Sprintf(l.Tr("get %s %s", "读取 %s（%s）"), object(a, *e.Object), from)
}

func write(l i18n.Lang, a *trace.Analysis, e trace.Event) string {
	if e.Object == nil {
		return verbOf(l, e.Verb, "")
	}
	target := verbOf(l, e.Verb, e.Object.Kind+" "+e.Object.Name)
	switch {
	case e.Error != "":
		return fmt.Sprintf("%s ✗ %s", target, e.Error)
	case e.Verb == "delete":
		return target + " ✓"
	}
	return fmt.Sprintf("%s → %s", target, version(a, *e.Object))
}

// verbOf is a write of target in words: the recorder's verbs (create,
// update, patch, delete, and status-update, status-patch for the status
// subresource) are names in the file, not words to show in Chinese.
func verbOf(l i18n.Lang, verb, target string) string {
	var format string
	switch verb {
	case "create":
		format = l.Tr("create %s", "创建 %s")
	case "update":
		format = l.Tr("update %s", "更新 %s")
	case "patch":
		format = l.Tr("patch %s", "修补 %s")
	case "delete":
		format = l.Tr("delete %s", "删除 %s")
	case "status-update":
		format = l.Tr("status-update %s", "更新 %s 的状态")
	case "status-patch":
		format = l.Tr("status-patch %s", "修补 %s 的状态")
	default:
		return strings.TrimSpace(verb + " " + target)
	}
	return strings.TrimSpace(fmt.Sprintf(format, target))
}

func result(l i18n.Lang, e trace.Event) string {
	return fmt.Sprintf(l.Tr("reconcile %d: %s", "调和 #%d：%s"), e.Reconcile, outcome(l, e))
}

// outcome is how a reconcile ended, in words (the recorder's Result:
// "done", "requeue after 1h0m0s", "error: ...").
func outcome(l i18n.Lang, e trace.Event) string {
	switch {
	case e.Result == "done":
		return l.Tr("done", "完成")
	case strings.HasPrefix(e.Result, "requeue after "):
		return fmt.Sprintf(l.Tr("again in %s", "%s 后再来"), strings.TrimPrefix(e.Result, "requeue after "))
	case strings.HasPrefix(e.Result, "error: "):
		return fmt.Sprintf(l.Tr("error: %s", "出错：%s"), strings.TrimPrefix(e.Result, "error: "))
	}
	return e.Result
}

// staleLine says what a stale read missed, and since which event the API
// server had it (events are numbered as the trace's seq).
func staleLine(l i18n.Lang, a *trace.Analysis, s trace.StaleRead) string {
	since := a.Events[s.Known].Seq
	server := s.Object
	server.RV = s.ServerRV
	switch s.Lag {
	case trace.CLag:
		return fmt.Sprintf(l.Tr("⚠ stale (c-lag): the cache did not have %s, which the API server had since event %d", "⚠ 陈旧（c-lag）：缓存里没有 %s，而 API 服务器从第 %d 个事件起就有了"), object(a, server), since)
	case trace.DLag:
		return fmt.Sprintf(l.Tr("⚠ stale (d-lag): the API server had deleted %s %s by event %d", "⚠ 陈旧（d-lag）：API 服务器在第 %[3]d 个事件时已经删除了 %[1]s %[2]s"), s.Object.Kind, s.Object.Name, since)
	}
	return fmt.Sprintf(l.Tr("⚠ stale (u-lag): the API server had %s since event %d", "⚠ 陈旧（u-lag）：API 服务器上已是 %s（从第 %d 个事件起）"), object(a, server), since)
}
