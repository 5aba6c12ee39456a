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
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
	"cronlab.dev/cronlab/internal/trace"
)

var update = flag.Bool("update", false, "write the golden files again")

// Two real traces of the reference (testdata/*.jsonl, recorded by the
// tests of stages 15 and 12) drawn for the terminal, in both languages,
// compared with golden files. go test -update writes them again; read the
// diff before committing it.
func TestLanesGolden(t *testing.T) {
	for _, name := range []string{"c-lag", "coalesced"} {
		a := analyzed(t, name)
		for _, l := range []i18n.Lang{i18n.English, i18n.Chinese} {
			golden := filepath.Join("testdata", name+"."+string(l)+".golden")
			got := Lanes(l, a, 120)
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("%s: the lanes differ from %s (go test -update writes it; read the diff):\n%s", name, golden, got)
			}
		}
	}
}

// What bin/lab check prints under a failed spec: the first stale read with
// its real resourceVersions and the writes that followed it.
func TestSummary(t *testing.T) {
	for name, want := range map[string]string{
		"c-lag": "event 14: read CronJob c-lag v2 (rv 267) from the cache while the API server had v3 (rv 269) (u-lag); " +
			"then create Job c-lag-31566840: AlreadyExists, status-patch CronJob c-lag: ok (and 1 more stale read)",
		"coalesced": "no read was stale: each of the 4 reads from the cache returned what the API server had when it began",
	} {
		if got := Summary(i18n.English, analyzed(t, name)); got != want {
			t.Errorf("%s:\n got %s\nwant %s", name, got, want)
		}
	}
}

// The page stands alone: opened from the disk, it asks the network for
// nothing (the SVG's xmlns is a name, not a request).
func TestThePageLoadsNothing(t *testing.T) {
	page := Page(i18n.Chinese, "c-lag", analyzed(t, "c-lag"))
	if refs := regexp.MustCompile(`(?i)(src|href)=|url\((["']?)[^#]|@import|https?://`).FindAllString(
		strings.ReplaceAll(page, `xmlns="http://www.w3.org/2000/svg"`, ""), -1); len(refs) > 0 {
		t.Errorf("the page refers to %q", refs)
	}
	for _, want := range []string{"陈旧（u-lag）", "陈旧（c-lag）", "API 服务器", "缓存（informer）"} {
		if !strings.Contains(page, want) {
			t.Errorf("the Chinese page lacks %q", want)
		}
	}
}

func analyzed(t *testing.T, name string) *trace.Analysis {
	t.Helper()
	events, err := trace.Load(filepath.Join("testdata", name+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return trace.Analyze(events)
}

// In Chinese, the recorder's names (its verbs, a reconcile's result) are
// said in Chinese too, in the lanes, the summary and the page alike; the
// number of a reconcile is the trace's, not the object's (调和 #N).
func TestChineseLeavesNoRecordersWordInEnglish(t *testing.T) {
	for _, name := range []string{"c-lag", "coalesced"} {
		a := analyzed(t, name)
		said := Lanes(i18n.Chinese, a, 120) + Summary(i18n.Chinese, a)
		// The page's markup names lanes and kinds in classes (class="event
		// reconcile end"), and its tooltips the field reconcileID: names,
		// not words.
		page := Page(i18n.Chinese, name, a)
		for _, english := range []string{"create ", "status-patch", "delete ", "reconcile ", "requeue", "again in", "done", "第 1 次调和"} {
			if strings.Contains(said, english) {
				t.Errorf("%s: the Chinese trace says %q", name, english)
			}
			if english != "reconcile " && strings.Contains(page, english) {
				t.Errorf("%s: the Chinese page says %q", name, english)
			}
		}
		if !strings.Contains(said, "调和 #1") {
			t.Errorf("%s: the Chinese trace does not number its reconciles 调和 #N", name)
		}
	}
}
