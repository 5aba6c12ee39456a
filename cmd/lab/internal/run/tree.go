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

package run

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"cronlab.dev/cronlab/cmd/lab/internal/base"
	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
	"cronlab.dev/cronlab/cmd/lab/internal/stage"
)

// leftOpen are the files of the tree with changes not committed: where a
// carry leaves its conflicts (package carry).
func LeftOpen(dir string) map[string]bool {
	out, _ := base.Output(dir, "git", "diff", "--name-only")
	files := map[string]bool{}
	for _, f := range strings.Fields(out) {
		files[f] = true
	}
	return files
}

// OwnedFiles are the files that hold the stage's regions in the reference:
// the attendee's own code, shown first in a panic's stack.
func OwnedFiles(root, dir string, s stage.Stage) map[string]bool {
	defer base.Traced("find the stage's files")()
	owned := map[string]bool{}
	ref, err := base.ReferenceCommit(root)
	if err != nil || len(s.Regions) == 0 {
		return owned
	}
	for _, path := range RegionFiles(root, ref, s) {
		owned[path] = true
	}
	return owned
}

// RegionFiles lists the files of commit ref that hold one of the stage's
// regions.
func RegionFiles(root, ref string, s stage.Stage) []string {
	out, _ := base.Output(root, "git", "grep", "-l", "-E", "lab:begin ("+strings.Join(s.Regions, "|")+")( |\\*|$)", ref, "--", ".")
	var paths []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if line != "" {
			paths = append(paths, strings.TrimPrefix(line, ref+":"))
		}
	}
	return paths
}

// usesGinkgo tells whether the tests of pkg are a Ginkgo suite, which takes
// -ginkgo.* flags and writes a JSON report.
func usesGinkgo(dir, pkg string) bool {
	return testsMention(dir, pkg, "github.com/onsi/ginkgo/v2")
}

// usesEnvtest tells whether the tests of pkg, a directory under dir, start an
// API server.
func usesEnvtest(dir, pkg string) bool {
	return testsMention(dir, pkg, "envtest", "StartAPIServer")
}

// testsMention tells whether a _test.go file of pkg contains one of words.
func testsMention(dir, pkg string, words ...string) bool {
	tests, _ := filepath.Glob(filepath.Join(dir, pkg, "*_test.go"))
	for _, f := range tests {
		src, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, w := range words {
			if strings.Contains(string(src), w) {
				return true
			}
		}
	}
	return false
}

// TodoFiles lists the files of revision rev (empty: the working tree) that
// still have a stub of the stage of that slug, with how many, as "path (n)".
// A stub is counted by its comment (// TODO(lab <slug>), # TODO(lab <slug>)
// in YAML, /* in a
// template): a Go stub's return quotes the TODO again, and is the same stub.
// Docs, and the stages' own stage.yaml whose hints explain what a TODO
// means, quote one and do not count.
func TodoFiles(dir, rev, slug string) []string {
	args := []string{"grep", "-c", "-E", `(//|#|/\*) TODO\(lab ` + slug + `\)`}
	if rev != "" {
		args = append(args, rev)
	}
	// cmd/lab's own tests quote TODOs as expected output.
	args = append(args, "--", ".", ":(exclude)*.md", ":(exclude)cmd/lab", ":(exclude)exercises/*/stage.yaml")
	out, _ := base.Output(dir, "git", args...)
	var files []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		i := strings.LastIndex(line, ":")
		if i < 0 {
			continue
		}
		path := strings.TrimPrefix(line[:i], rev+":")
		files = append(files, fmt.Sprintf("%s (%s)", path, line[i+1:]))
	}
	return files
}

// ListChecks checks that each of the stage's tests selects at least one
// test, without running them.
func ListChecks(dir string, s stage.Stage) error {
	for _, t := range s.Tests {
		out, err := base.Output(dir, "go", t.ListArgs()...)
		if err != nil {
			return fmt.Errorf("%s: %v\n%s", strings.Join(t.ListArgs()[2:], " "), err, base.LastLines(out, 10))
		}
		if t.Labels == "" && !listedATest(out) {
			return i18n.Errorf("%s: no test matches", "%s：没有匹配的测试", strings.Join(t.ListArgs()[2:], " "))
		}
	}
	return nil
}

// listedATest tells whether `go test -list` printed a test name.
func listedATest(out string) bool {
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "Test") || strings.HasPrefix(line, "Example") || strings.HasPrefix(line, "Fuzz") {
			return true
		}
	}
	return false
}
