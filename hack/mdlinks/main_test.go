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

package main

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestLinksResolveOrAreReported(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"docs/workshop.md":       "# The workshop\n\n## `bin/lab check`\n\n## Stage 1: the API\n\n## Stage 1: the API\n",
		"docs/workshop.zh-CN.md": "# 工作坊\n\n## 检查：`bin/lab check`\n\n## 调和循环（Reconcile）\n",
		"README.md": "See [the workshop](docs/workshop.md), [its check](docs/workshop.md#binlab-check),\n" +
			"[the second stage 1](docs/workshop.md#stage-1-the-api-1), [中文](docs/workshop.zh-CN.md#调和循环reconcile),\n" +
			"[the docs](docs/), [the web](https://example.com/missing) and [a mail](mailto:x@y).\n" +
			"Broken: [gone](docs/gone.md), [no heading](docs/workshop.md#the-check), [dir anchor](docs/#x).\n" +
			"`[in a span](docs/gone.md)`\n```\n[in a block](docs/gone.md)\n```\n",
		"bin/ignored.md": "[gone](nothing.md)\n",
	}
	for path, content := range files {
		full := filepath.Join(dir, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	problems, n, err := check(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"README.md:4: docs/gone.md: no such file",
		"README.md:4: docs/workshop.md#the-check: no heading of " + filepath.ToSlash(filepath.Join(dir, "docs/workshop.md")) + " has the anchor #the-check",
		"README.md:4: docs/#x: a #fragment into a directory",
	}
	if !reflect.DeepEqual(problems, want) {
		t.Errorf("problems:\n got %q\nwant %q", problems, want)
	}
	if n != 8 {
		t.Errorf("%d relative links read, want 8 (the web, mail, code span and code block are not)", n)
	}
}

func TestHeadingAnchorsAreGitHubs(t *testing.T) {
	got := headingAnchors("# Done when\n## `make test`, and CI\n## 第 5 阶段：属主引用（Owner）\n## Done when\n```\n# not a heading\n```\n#not one either\n")
	want := map[string]bool{"done-when": true, "make-test-and-ci": true, "第-5-阶段属主引用owner": true, "done-when-1": true}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("anchors %v, want %v", got, want)
	}
}
