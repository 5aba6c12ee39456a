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

package start

import (
	"fmt"
	"strings"

	"cronlab.dev/cronlab/cmd/lab/internal/base"
	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
	"cronlab.dev/cronlab/cmd/lab/internal/stage"
)

// RenameLegacyBranches gives the lab branches made before stages had names
// (lab/06, lab/06-saved-...) their stage's name (lab/scheduling), once, by
// the fixed table of those numbers, so that an attendee who pulled a newer
// tool in the middle of a stage goes on where they were: git branch -m
// keeps the commits, and the checked-out branch stays checked out. A branch
// whose new name is taken already is left, and named, for a person to sort.
func RenameLegacyBranches(l i18n.Lang, root string) {
	out, err := base.Output(root, "git", "for-each-ref", "--format=%(refname:short)", "refs/heads/lab/")
	if err != nil {
		return // not a git clone, or no branches: nothing to rename
	}
	for _, old := range strings.Fields(out) {
		renamed, ok := stage.LegacyBranch(old)
		if !ok {
			continue
		}
		if _, err := base.Output(root, "git", "rev-parse", "--verify", "--quiet", "refs/heads/"+renamed); err == nil {
			fmt.Printf(l.Tr("lab: %s is named as before stages had names, and %s exists too: keep the one you want (git branch -D) and rename the other (git branch -m %s %s)\n",
				"lab：%s 还是阶段有名字之前的命名，而 %s 也已存在：保留你想要的那个（git branch -D），再把另一个改名（git branch -m %s %s）\n"),
				old, renamed, old, renamed)
			continue
		}
		if _, err := base.Output(root, "git", "branch", "-m", old, renamed); err != nil {
			fmt.Printf(l.Tr("lab: could not rename %s to %s (%v): run git branch -m %s %s\n",
				"lab：没能把 %s 改名为 %s（%v）：请运行 git branch -m %s %s\n"), old, renamed, err, old, renamed)
			continue
		}
		fmt.Printf(l.Tr("lab: %s is now %s: stages are known by their names, not their numbers\n",
			"lab：%s 现在叫 %s：阶段改用名字而不是编号来称呼\n"), old, renamed)
	}
}
