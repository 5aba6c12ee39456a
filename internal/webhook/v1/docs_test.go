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

package v1

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestTheDocsQuoteWhatTheAPIServerSays: every message that docs/validation.md
// quotes in a column headed "the API server says" (its Chinese twin: "API
// 服务器返回") is part of an answer that the bad-input specs get from a real
// API server (badInputs), so neither edition can drift from what an
// attendee sees.
func TestTheDocsQuoteWhatTheAPIServerSays(t *testing.T) {
	answers := []string{mayNotCreateJobs("bob", "team-a")}
	for _, bad := range badInputs {
		answers = append(answers, bad.want)
	}
	for _, doc := range []struct{ path, header string }{
		{"docs/validation.md", "the API server says"},
		{"docs/validation.zh-CN.md", "API 服务器返回"},
	} {
		raw, err := os.ReadFile("../../../" + doc.path)
		if err != nil {
			t.Fatal(err)
		}
		checked := 0
		for _, quote := range quotedAnswers(string(raw), doc.header) {
			checked++
			if !containedIn(quote, answers) {
				t.Errorf("%s quotes a message no bad-input spec gets from the API server:\n%s", doc.path, quote)
			}
		}
		if checked < 10 {
			t.Errorf("found only %d quoted messages in %s: did its tables change shape?", checked, doc.path)
		}
	}
}

// quotedAnswers are the `quoted` messages in the table columns whose
// header contains header.
func quotedAnswers(doc, header string) []string {
	quoted := regexp.MustCompile("`([^`]+)`")
	var out []string
	column := -1
	for _, line := range strings.Split(doc, "\n") {
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		switch {
		case !strings.HasPrefix(line, "|"):
			column = -1
		case column < 0:
			for i, c := range cells {
				if strings.Contains(c, header) {
					column = i
				}
			}
		case column < len(cells) && !strings.HasPrefix(cells[column], "---"):
			for _, m := range quoted.FindAllStringSubmatch(cells[column], -1) {
				out = append(out, m[1])
			}
		}
	}
	return out
}

func containedIn(s string, answers []string) bool {
	for _, a := range answers {
		if strings.Contains(a, s) {
			return true
		}
	}
	return false
}
