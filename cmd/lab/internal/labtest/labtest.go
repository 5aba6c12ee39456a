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

package labtest

import (
	"io"
	"os"
	"testing"

	"cronlab.dev/cronlab/cmd/lab/internal/stage"
)

// printed is what f prints to stdout; f's error fails the test.
func Printed(t *testing.T, f func() error) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout := os.Stdout
	os.Stdout = w
	err = f()
	os.Stdout = stdout
	_ = w.Close()
	raw, _ := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

func StageWithHints() stage.Stage {
	s := stage.Stage{Slug: "scheduling", Num: "06", Dir: "exercises/scheduling", Hints: []stage.Hint{
		{En: "nudge"},
		{When: "once per problem", En: "call reportUnschedulable"},
		{En: "where to look"},
		{When: "AlreadyExists", En: "the Job exists already: adopt it"},
		{En: "a snippet"},
	}}
	for i := range s.Hints {
		s.Hints[i].ID = stage.HintID(s.Slug, i+1)
	}
	return s
}
