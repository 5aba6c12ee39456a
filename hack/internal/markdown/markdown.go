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

// Package markdown holds what the checks of the repository's Markdown
// (hack/mdlinks, hack/translations) need alike: its prose, apart from code.
package markdown

import (
	"regexp"
	"strings"
)

var codeSpan = regexp.MustCompile("`[^`]*`")

// Prose returns a file's lines with code blocks blanked, and code spans
// too unless keepSpans, so that a link or a word shown as code is not taken
// for prose. Line i of the result is line i of the file.
func Prose(text string, keepSpans bool) []string {
	lines := strings.Split(text, "\n")
	inFence := false
	for i, line := range lines {
		if trimmed := strings.TrimSpace(line); strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			inFence = !inFence
			lines[i] = ""
			continue
		}
		if inFence {
			lines[i] = ""
			continue
		}
		if !keepSpans {
			lines[i] = codeSpan.ReplaceAllString(line, "``")
		}
	}
	return lines
}
