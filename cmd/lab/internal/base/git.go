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
	"fmt"
	"strings"

	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
)

func RepoRoot(l i18n.Lang) (string, error) {
	out, err := Output("", "git", "rev-parse", "--show-toplevel")
	if err != nil {
		return "", fmt.Errorf(l.Tr("not in a git clone of cronlab: %w", "当前目录不在 cronlab 的 git 克隆中：%w"), err)
	}
	return strings.TrimSpace(out), nil
}

// ReferenceTrailer, in a starter's commit message, names the reference
// commit the starter was made from, so that on a lab branch the tool still
// makes starters and solutions from the reference, not from the starter.
const ReferenceTrailer = "Cronlab-Reference:"

// LabCommit commits in dir as the lab tool, whatever git identity (if any)
// the attendee has set up.
func LabCommit(dir string, args ...string) error {
	_, err := Output(dir, "git", append([]string{"-c", "user.name=cronlab lab", "-c", "user.email=lab@cronlab.dev", "commit", "-q"}, args...)...)
	return err
}

func ReferenceCommit(root string) (string, error) {
	out, err := Output(root, "git", "log", "--format=%B", "-n", "200", "HEAD")
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), ReferenceTrailer); ok {
			return strings.TrimSpace(rest), nil
		}
	}
	head, err := Output(root, "git", "rev-parse", "HEAD")
	return strings.TrimSpace(head), err
}
