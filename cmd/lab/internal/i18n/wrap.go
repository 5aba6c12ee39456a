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

package i18n

import (
	"fmt"
	"strings"
)

// Wrap breaks text into lines of at most width characters at spaces. Line
// breaks in the text are kept, and indented lines (a snippet's code) are
// left as they are.
func Wrap(text string, width int) string {
	var out []string
	for _, para := range strings.Split(text, "\n") {
		if strings.HasPrefix(para, " ") || strings.HasPrefix(para, "\t") {
			out = append(out, para) // code in a snippet: as written
			continue
		}
		line := ""
		for _, t := range wrapTokens(para) {
			sep := ""
			if t.space && line != "" {
				sep = " "
			}
			// Chinese closing punctuation stays at the end of its line.
			if line != "" && Width(line+sep+t.text) > width && !strings.ContainsAny(t.text, "，。；：、）！？」") {
				// ... and opening punctuation at the start of the next.
				carry := ""
				if r := []rune(line); strings.ContainsRune("（「“", r[len(r)-1]) {
					line, carry = string(r[:len(r)-1]), string(r[len(r)-1])
				}
				out = append(out, line)
				line, sep = carry, ""
			}
			line += sep + t.text
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// A wrapToken is a word, or one Chinese character: Chinese text has no
// spaces, and a line may break between any two of its characters.
type wrapToken struct {
	text  string
	space bool // a space comes before it
}

func wrapTokens(para string) []wrapToken {
	var tokens []wrapToken
	for _, field := range strings.Fields(para) {
		space := true
		word := ""
		for _, r := range field {
			if Width(string(r)) == 2 {
				if word != "" {
					tokens = append(tokens, wrapToken{word, space})
					word, space = "", false
				}
				tokens = append(tokens, wrapToken{string(r), space})
				space = false
				continue
			}
			word += string(r)
		}
		if word != "" {
			tokens = append(tokens, wrapToken{word, space})
		}
	}
	return tokens
}

func Indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}

func LimitLines(l Lang, s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) <= n {
		return s
	}
	return strings.Join(lines[:n], "\n") + fmt.Sprintf(l.Tr("\n... %d more lines (run with -v)", "\n……另有 %d 行（加 -v 运行可以看到）"), len(lines)-n)
}
