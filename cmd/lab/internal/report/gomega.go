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
	"regexp"
	"strings"
)

// Gomega writes a failed assertion as words and values on lines of their
// own: "Expected", the actual value indented, "to equal", the expected
// value indented. The test's own sentence comes first, in the attendee's
// language (test/say); gomegaInChinese puts Gomega's words into Chinese too,
// and leaves every value as it is: a value is indented deeper than the
// words, and a line that is not one of Gomega's phrases is not touched.

// gomegaWords are Gomega's phrases (github.com/onsi/gomega/matchers), each
// on a line of its own, in Chinese. The layout stays Gomega's: actual value,
// phrase, expected value.
var gomegaWords = map[string]string{
	"Expected":                                  "实际值：",
	"to equal":                                  "应等于：",
	"not to equal":                              "不应等于：",
	"to be nil":                                 "应为 nil",
	"not to be nil":                             "不应为 nil",
	"to be true":                                "应为 true",
	"not to be true":                            "不应为 true",
	"to be false":                               "应为 false",
	"not to be false":                           "不应为 false",
	"to be empty":                               "应为空",
	"not to be empty":                           "不应为空",
	"to be zero-valued":                         "应为零值",
	"not to be zero-valued":                     "不应为零值",
	"to consist of":                             "应恰好由以下元素组成：",
	"not to consist of":                         "不应恰好由以下元素组成：",
	"to contain element matching":               "应包含匹配以下内容的元素：",
	"not to contain element matching":           "不应包含匹配以下内容的元素：",
	"to contain elements":                       "应包含以下元素：",
	"not to contain elements":                   "不应包含以下元素：",
	"to contain substring":                      "应包含子串：",
	"not to contain substring":                  "不应包含子串：",
	"to have prefix":                            "应以此开头：",
	"not to have prefix":                        "不应以此开头：",
	"to have suffix":                            "应以此结尾：",
	"not to have suffix":                        "不应以此结尾：",
	"to have key":                               "应有键：",
	"not to have key":                           "不应有键：",
	"to have key matching":                      "应有匹配以下内容的键：",
	"not to have key matching":                  "不应有匹配以下内容的键：",
	"to match error":                            "应匹配错误：",
	"not to match error":                        "不应匹配错误：",
	"to match regular expression":               "应匹配正则表达式：",
	"not to match regular expression":           "不应匹配正则表达式：",
	"to satisfy predicate":                      "应满足条件：",
	"to not satisfy predicate":                  "不应满足条件：",
	"to be equivalent to":                       "应等价于：",
	"not to be equivalent to":                   "不应等价于：",
	"to be identical to":                        "应与以下值是同一个：",
	"not to be identical to":                    "不应与以下值是同一个：",
	"to be an element of":                       "应是以下集合的元素：",
	"not to be an element of":                   "不应是以下集合的元素：",
	"to have exact elements with":               "应按顺序恰好包含：",
	"to receive something.":                     "应从通道收到一个值。",
	"not to receive anything.":                  "不应从通道收到任何值。",
	"to be ==":                                  "应等于（==）：",
	"to be <":                                   "应小于：",
	"to be <=":                                  "应小于或等于：",
	"to be >":                                   "应大于：",
	"to be >=":                                  "应大于或等于：",
	"to panic":                                  "应发生 panic",
	"Expected an error, got nil":                "应返回错误，实际得到 nil",
	"Unexpected error:":                         "意外的错误：",
	"occurred":                                  "（发生了这个错误）",
	"Expected success, but got an error:":       "应成功，实际得到错误：",
	"Expected an error to have occurred.  Got:": "应发生错误，实际得到：",
	"When passed a matcher, ReceiveMatcher's channel *must* receive something.": "给了匹配器时，ReceiveMatcher 的通道必须收到一个值。",
}

// gomegaPatterns are Gomega's phrases that carry a value of their own.
var gomegaPatterns = []struct {
	re *regexp.Regexp
	zh string
}{
	{regexp.MustCompile(`^to have length (\d+)$`), "长度应为 $1"},
	{regexp.MustCompile(`^not to have length (\d+)$`), "长度不应为 $1"},
	{regexp.MustCompile(`^Timed out after ([\d.]+)s\.$`), "等了 $1 秒仍未满足，超时。"},
	{regexp.MustCompile(`^Value for field '(.+)' failed to satisfy matcher\.$`), "字段 '$1' 的值不满足匹配器："},
	{regexp.MustCompile(`^to have field '(.+)'$`), "应有字段 '$1'"},
	{regexp.MustCompile(`^Expected an error\.  Got:$`), "应返回错误，实际得到："},
}

// gomegaInChinese is msg with Gomega's phrases in Chinese, each line that is
// one of them, whatever its indentation; values stay as they are.
func gomegaInChinese(msg string) string {
	lines := strings.Split(msg, "\n")
	for i, line := range lines {
		body := strings.TrimLeft(line, " \t")
		indent := line[:len(line)-len(body)]
		if zh, ok := gomegaWords[strings.TrimRight(body, " ")]; ok {
			lines[i] = indent + zh
			continue
		}
		for _, p := range gomegaPatterns {
			if p.re.MatchString(body) {
				lines[i] = indent + p.re.ReplaceAllString(body, p.zh)
				break
			}
		}
	}
	return strings.Join(lines, "\n")
}
