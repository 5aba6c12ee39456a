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
	"os"
	"path/filepath"
	"testing"

	"cronlab.dev/cronlab/cmd/lab/internal/base"
	"cronlab.dev/cronlab/cmd/lab/internal/stage"
)

// TinyLab is a lab of two stages in a git repository of its own: stage 01 writes One,
// stage 02 writes Two, both in p/p.go.
func TinyLab(t *testing.T) (root string, stages []stage.Stage) {
	t.Helper()
	root = t.TempDir()
	files := map[string]string{
		".gitignore": "bin/\n",
		"go.mod":     "module example.com/lab\n\ngo 1.26\n",
		"p/p.go": `package p

// lab:begin one

// One says one.
func One() string {
	return "one"
}

// lab:end

// lab:begin two

// Two says two.
func Two() string {
	return "two"
}

// lab:end
`,
		"exercises/stages.yaml":    "- one\n- two\n",
		"exercises/one/stage.yaml": "title: one\nregions: [one]\ntests:\n- package: ./p\n  run: TestOne\nhints:\n- en: write One\n",
		"exercises/one/README.md":  "# One\n",
		"exercises/two/stage.yaml": "title: two\nregions: [two]\ntests:\n- package: ./p\n  run: TestTwo\nhints:\n- en: write Two\n",
		"exercises/two/README.md":  "# Two\n",
		"bin/controller-gen":       "#!/bin/sh\n",
	}
	for name, content := range files {
		path := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	Git(t, root, "init", "-q", "-b", "main")
	Git(t, root, "add", "-A")
	Git(t, root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "the reference")
	stages, err := stage.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	return root, stages
}

// Git runs git in dir and returns what it printed; a failure fails the test.
func Git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := base.Output(dir, "git", args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
