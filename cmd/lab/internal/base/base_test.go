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

package base

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A command that fails says which command, how it ended, and the last
// lines it printed: the place to look first.
func TestOutputSaysWhatFailedAndItsLastLines(t *testing.T) {
	out, err := Output(t.TempDir(), "sh", "-c", "for i in 1 2 3 4 5; do echo line $i; done; exit 3")
	if err == nil {
		t.Fatal("a command that exits 3 did not fail")
	}
	if !strings.HasPrefix(out, "line 1\n") || !strings.Contains(err.Error(), "sh -c") ||
		!strings.Contains(err.Error(), "exit status 3") || !strings.HasSuffix(err.Error(), "line 4\nline 5") {
		t.Errorf("Output printed %q and said %q", out, err)
	}
	if got := LastLines("a\nb\nc\n", 2); got != "b\nc" {
		t.Errorf("LastLines = %q, want b and c", got)
	}
}

// A file written whole replaces the old one, never leaves half of itself.
func TestWriteFileAtomicReplacesTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "progress.json")
	for _, content := range []string{"first", "second"} {
		if err := WriteFileAtomic(path, []byte(content)); err != nil {
			t.Fatal(err)
		}
	}
	if raw, err := os.ReadFile(path); err != nil || string(raw) != "second" {
		t.Errorf("read %q, %v; want second", raw, err)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "*")); len(left) != 1 {
		t.Errorf("files left beside it: %v", left)
	}
}
