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
// quotes in a column headed "the API server says" is part of an answer that
// the bad-input specs get from a real API server (badInputs), so the docs
// cannot drift from what an attendee sees.
func TestTheDocsQuoteWhatTheAPIServerSays(t *testing.T) {
	raw, err := os.ReadFile("../../../docs/validation.md")
	if err != nil {
		t.Fatal(err)
	}
	answers := []string{mayNotCreateJobs("bob", "team-a")}
	for _, bad := range badInputs {
		answers = append(answers, bad.want)
	}
	quoted := regexp.MustCompile("`([^`]+)`")
	column, checked := -1, 0
	for _, line := range strings.Split(string(raw), "\n") {
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		switch {
		case !strings.HasPrefix(line, "|"):
			column = -1
		case column < 0:
			for i, c := range cells {
				if strings.HasPrefix(c, "the API server says") {
					column = i
				}
			}
		case column < len(cells) && !strings.HasPrefix(cells[column], "---"):
			for _, m := range quoted.FindAllStringSubmatch(cells[column], -1) {
				checked++
				if !containedIn(m[1], answers) {
					t.Errorf("docs/validation.md quotes a message no bad-input spec gets from the API server:\n%s", m[1])
				}
			}
		}
	}
	if checked < 10 {
		t.Errorf("found only %d quoted messages in docs/validation.md: did its tables change shape?", checked)
	}
}

func containedIn(s string, answers []string) bool {
	for _, a := range answers {
		if strings.Contains(a, s) {
			return true
		}
	}
	return false
}
