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

package report

import (
	"strings"
	"testing"

	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
)

// A long Gomega message keeps its words and every value's first lines:
// "the extra elements were" must not be cut off by the first object's dump.
func TestShortenDumpsKeepsWhatTheAssertionSays(t *testing.T) {
	l := i18n.English
	var b strings.Builder
	b.WriteString("status.active lists only running Jobs\nExpected\n    <[]v1.ObjectReference | len:2, cap:2>: [\n")
	for i := 0; i < 2; i++ {
		b.WriteString("        {\n")
		for j := 0; j < 8; j++ {
			b.WriteString("            Field: \"value\",\n")
		}
		b.WriteString("        },\n")
	}
	b.WriteString("    ]\nto consist of\n    <[]interface {} | len:1, cap:1>: [\n        {Name: \"running\"},\n    ]\n")
	b.WriteString("the extra elements were\n    <[]v1.ObjectReference | len:1, cap:1>: [\n        {\n            Name: \"finished\",\n        },\n    ]")
	got := shortenDumps(l, b.String(), 20)
	for _, want := range []string{"status.active lists only running Jobs", "Expected", "to consist of", "{Name: \"running\"}",
		"the extra elements were", "Name: \"finished\"", "... 18 more lines of this value"} {
		if !strings.Contains(got, want) {
			t.Errorf("the shortened message lacks %q:\n%s", want, got)
		}
	}
	if n := strings.Count(got, "\n") + 1; n > 20 {
		t.Errorf("%d lines, want at most 20:\n%s", n, got)
	}
	// A Job dumped whole keeps the lines that say which Job it is.
	var job strings.Builder
	job.WriteString("the Job of the 10:05 run\nExpected\n    <*v1.Job | 0xc000>: {\n        TypeMeta: {Kind: \"\", APIVersion: \"\"},\n        ObjectMeta: {\n")
	job.WriteString("            Name: \"report-31566845\",\n            GenerateName: \"\",\n            Namespace: \"team\",\n")
	for i := 0; i < 30; i++ {
		job.WriteString("            Field: \"value\",\n")
	}
	job.WriteString("        },\n    }\nto be nil")
	got = shortenDumps(l, job.String(), 20)
	for _, want := range []string{`Name: "report-31566845"`, `Namespace: "team"`, "to be nil", "more lines of this value"} {
		if !strings.Contains(got, want) {
			t.Errorf("the shortened dump of a Job lacks %q:\n%s", want, got)
		}
	}
	if short := "Expected\n    <int>: 1\nto equal\n    <int>: 2"; shortenDumps(l, short, 20) != short {
		t.Error("a short message must be left whole")
	}
}

func TestGomegasWordsAreShownInChineseAndItsValuesAsTheyAre(t *testing.T) {
	msg := strings.Join([]string{
		"状态写入失败了：Reconcile 必须返回它的错误",
		"Expected",
		"    <[]string | len:1, cap:1>: [\"to equal\"]",
		"to equal",
		"    <[]string | len:1, cap:1>: [\"order-2\"]",
		"Timed out after 10.001s.",
		"Value for field 'Time' failed to satisfy matcher.",
		"to have length 1",
		"to be ==",
		"Unexpected error:",
		"    <*errors.errorString | 0xc0001>: the API server is restarting",
		"occurred",
		"something Gomega never says",
	}, "\n")
	want := strings.Join([]string{
		"状态写入失败了：Reconcile 必须返回它的错误",
		"实际值：",
		"    <[]string | len:1, cap:1>: [\"to equal\"]",
		"应等于：",
		"    <[]string | len:1, cap:1>: [\"order-2\"]",
		"等了 10.001 秒仍未满足，超时。",
		"字段 'Time' 的值不满足匹配器：",
		"长度应为 1",
		"应等于（==）：",
		"意外的错误：",
		"    <*errors.errorString | 0xc0001>: the API server is restarting",
		"（发生了这个错误）",
		"something Gomega never says",
	}, "\n")
	if got := gomegaInChinese(msg); got != want {
		t.Errorf("gomegaInChinese:\n%s\nwant:\n%s", got, want)
	}
}
