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

// Package say writes the sentence a failing test leads with in the language
// of the attendee who runs it. The lab is taught in Chinese and English, and
// that sentence ("status.lastSuccessfulTime on the API server: step 6
// writes the status with r.Status().Patch ...") is the first thing an
// attendee reads about a mistake, before any hint.
//
// Each sentence is written in both languages where the test asserts, as the
// lab tool writes its own messages, so that the two are read and changed
// together:
//
//	Expect(got.Status.Active).To(BeEmpty(), say.Both(
//		"status.active on the API server, after the Job finished",
//		"Job 结束之后，API 服务器上的 status.active"))
//
// bin/lab tells the tests its language in LAB_LANG; `go test` and `make
// test` leave it unset, and the tests speak English. What the sentence
// quotes (Gomega's values, Go's and the API server's errors) stays as it
// is. TestEverySentenceHasTwoLanguages finds a sentence written in one
// language only, or twins whose format verbs differ;
// TestEveryAssertionOfAStageLeadsWithASentence finds a Gomega assertion of
// a stage's specs that has no sentence at all.
package say

import (
	"fmt"
	"os"
	"strings"
)

// Chinese is whether the tests speak Chinese: LAB_LANG=zh (zh_CN and the
// like too), which bin/lab sets when it runs in Chinese. It is read at each
// sentence, while a test runs, so that go test's cache of results knows
// that they depend on it.
func Chinese() bool {
	return strings.HasPrefix(strings.ToLower(os.Getenv("LAB_LANG")), "zh")
}

// Both is the sentence in the tests' language, en or zh, formatted with
// args as fmt.Sprintf formats them, also when there are none (a percent
// sign is "%%"). The two formats take the same verbs in the same order (zh
// may reorder them with explicit indexes, %[2]v).
func Both(en, zh string, args ...any) string {
	format := en
	if Chinese() {
		format = zh
	}
	return fmt.Sprintf(format, args...)
}
