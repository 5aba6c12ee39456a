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
	"strings"
	"testing"

	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
	"cronlab.dev/cronlab/cmd/lab/internal/labtest"
)

// An attendee on a branch made before stages had names (lab/06) goes on
// where they were: the branch, checked out, is renamed with its commits, a
// saved one too; one whose new name is taken is left for a person, who is
// told how to settle it.
func TestTheBranchesOfNumberedStagesAreRenamed(t *testing.T) {
	root, _ := labtest.TinyLab(t)
	for _, b := range []string{"lab/06", "lab/04-saved-20261120-101010", "lab/05", "lab/secondary-resources", "lab/one"} {
		labtest.Git(t, root, "branch", b)
	}
	labtest.Git(t, root, "switch", "-q", "lab/06")
	head := labtest.Git(t, root, "rev-parse", "HEAD")
	said := labtest.Printed(t, func() error { RenameLegacyBranches(i18n.English, root); return nil })
	branches := labtest.Git(t, root, "branch", "--format=%(refname:short)")
	for _, want := range []string{"lab/scheduling", "lab/reconcile-loop-saved-20261120-101010", "lab/05", "lab/secondary-resources", "lab/one"} {
		if !strings.Contains(branches, want+"\n") {
			t.Errorf("no branch %s among:\n%s", want, branches)
		}
	}
	if strings.Contains(branches, "lab/06\n") || strings.Contains(branches, "lab/04-saved") {
		t.Errorf("a numbered branch is left:\n%s", branches)
	}
	if cur := strings.TrimSpace(labtest.Git(t, root, "branch", "--show-current")); cur != "lab/scheduling" || labtest.Git(t, root, "rev-parse", "HEAD") != head {
		t.Errorf("checked out %s, not lab/scheduling at the same commit", cur)
	}
	for _, want := range []string{"lab: lab/06 is now lab/scheduling", "lab/05 is named as before stages had names, and lab/secondary-resources exists too", "git branch -m lab/05 lab/secondary-resources"} {
		if !strings.Contains(said, want) {
			t.Errorf("it said\n%s\nwithout %q", said, want)
		}
	}
	if again := labtest.Printed(t, func() error { RenameLegacyBranches(i18n.English, root); return nil }); strings.Contains(again, "is now") {
		t.Errorf("renamed again:\n%s", again)
	}
}
