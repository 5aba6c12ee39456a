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

package carry

// Carrying the attendee's own code into the next stage. `lab start 05` on
// lab/04 makes stage 05's starter as always, then merges into it what the
// attendee wrote: a three-way merge of each file, whose base is the
// reference. The attendee's lab/04 differs from the reference where they
// wrote (and in the stubs of stage 05 on), the starter of 05 only in the stubs
// of stage 05 on, which are the same on both sides; so their code comes
// along, and only lines that both changed conflict (stage 05's stubs the
// attendee began to edit early, say). A conflict stays as markers, with a
// sentence that says what to do.
//
// When: by default (LAB_CARRY=passing) only when their previous stage passed
// its last check, so that nobody starts a stage on code that does not work;
// LAB_CARRY=always or never makes it a class's rule, and --fresh starts from
// the reference once.

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"cronlab.dev/cronlab/cmd/lab/internal/base"
	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
	"cronlab.dev/cronlab/cmd/lab/internal/progress"
	"cronlab.dev/cronlab/cmd/lab/internal/regions"
	"cronlab.dev/cronlab/cmd/lab/internal/stage"
)

// From says which lab branch to carry into the starter of s: the
// previous stage's, if the attendee is on it and the policy allows. why
// explains a "no" that the attendee should hear about.
func From(l i18n.Lang, root string, stages []stage.Stage, s stage.Stage, fresh bool) (branch, why string) {
	current, err := base.Output(root, "git", "branch", "--show-current")
	if err != nil {
		return "", ""
	}
	current = strings.TrimSpace(current)
	prev, ok := stage.Previous(stages, s)
	if !ok || current != prev.Branch() {
		return "", ""
	}
	policy := os.Getenv("LAB_CARRY")
	switch {
	case fresh || policy == "never":
		return "", fmt.Sprintf(l.Tr("starting from the reference (%s): your code of stage %s stays on %s",
			"从参考实现开始（%s）：你第 %s 阶段的代码留在 %s 上"),
			map[bool]string{true: "--fresh", false: "LAB_CARRY=never"}[fresh], prev.Num, current)
	case policy == "always":
		return current, ""
	}
	if r := progress.Read(root).Stages[prev.Slug]; !r.Passed {
		return "", fmt.Sprintf(l.Tr("stage %s did not pass its last check, so stage %s starts from the reference; "+
			"your code stays on %s (bin/lab check %s, then start again to carry it; LAB_CARRY=always carries it anyway)",
			"第 %s 阶段最近一次检查没有通过，所以第 %s 阶段从参考实现开始；你的代码留在 %s 上"+
				"（先运行 bin/lab check %s，通过后再 start 一次即可带入；LAB_CARRY=always 则无论如何都带入）"),
			prev.Num, s.Num, current, prev.Num)
	}
	return current, ""
}

// CommitWork commits what the attendee left uncommitted on their branch,
// so that nothing is lost when the tool switches branches.
func CommitWork(root, branch string) (bool, error) {
	dirty, err := base.Output(root, "git", "status", "--porcelain", "--untracked-files=no")
	if err != nil || strings.TrimSpace(dirty) == "" {
		return false, err
	}
	if _, err := base.Output(root, "git", "add", "-u"); err != nil {
		return false, err
	}
	err = base.LabCommit(root, "-m", "my work on "+branch+" (committed by lab start)")
	return err == nil, err
}

// Carried is what Into did.
type Carried struct {
	Merged []string // the files that hold code of the attendee's
	// Conflicted are the files where their code and the starter changed the
	// same lines: committed as the starter has them, and left with conflict
	// markers in the working tree (conflicts holds those contents).
	Conflicted []string
	Conflicts  map[string][]byte
	// Unwritten are the functions (or regions) that their branch still had
	// as the stubs of its starter: those come from the reference.
	Unwritten []string
}

// Into merges the attendee's branch into the starter checked out in dir,
// file by file, with the reference ref as the base, and commits what
// merged cleanly.
func Into(root, dir, ref, branch string, s stage.Stage) (c Carried, err error) {
	c.Conflicts = map[string][]byte{}
	changes, err := base.Output(root, "git", "diff", "--name-status", "--no-renames", ref, branch)
	if err != nil {
		return c, err
	}
	tmp, err := os.MkdirTemp("", "lab-carry-")
	if err != nil {
		return c, err
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	// The starter their branch began from tells what they left unwritten.
	theirStarter, _ := base.Output(root, "git", "log", "-1", "--format=%H", "--grep", "^lab [a-z0-9-]* starter:", branch)
	m := merge{root: root, dir: dir, ref: ref, branch: branch, s: s, tmp: tmp,
		theirStarter: strings.TrimSpace(theirStarter), solved: solvedBefore(dir, s)}
	for _, line := range strings.Split(strings.TrimSpace(changes), "\n") {
		if status, path, ok := strings.Cut(line, "\t"); ok {
			if err := m.carryFile(&c, status, path); err != nil {
				return c, err
			}
		}
	}
	if _, err := base.Output(dir, "git", "add", "-A"); err != nil {
		return c, err
	}
	err = base.LabCommit(dir, "--allow-empty", "-m", fmt.Sprintf("lab %s: carry my code from %s\n\n第 %s 阶段：带入我在 %s 上的代码\n\n%s %s", s.Slug, branch, s.Num, branch, base.ReferenceTrailer, ref))
	return c, err
}

// A merge is one carry of the attendee's branch into a starter: what the
// merge of each file needs.
type merge struct {
	root, dir, ref, branch string
	s                      stage.Stage
	tmp                    string // scratch files for git merge-file
	theirStarter           string // the starter commit their branch began from
	solved                 map[string]bool
}

// solvedBefore are the regions the new starter has solved: those of the
// stages before s. (Their stubs of later stages are the starter's too, and
// stay.)
func solvedBefore(dir string, s stage.Stage) map[string]bool {
	solved := map[string]bool{}
	if stages, err := stage.Load(dir); err == nil {
		for _, other := range stages {
			for _, r := range other.Regions {
				solved[r] = other.Num < s.Num
			}
		}
	}
	return solved
}

// blob writes path as it is at rev into the scratch directory, as name.
func (m merge) blob(rev, path, name string) (string, bool) {
	out, err := base.Output(m.root, "git", "show", rev+":"+path)
	if err != nil {
		return "", false
	}
	f := filepath.Join(m.tmp, name)
	return f, os.WriteFile(f, []byte(out), 0o644) == nil
}

// carryFile carries one file that their branch changed from the reference
// (git diff --name-status: status and path) into the starter.
func (m merge) carryFile(c *Carried, status, path string) error {
	target := filepath.Join(m.dir, path)
	starter, readErr := os.ReadFile(target)
	inStarter := readErr == nil
	switch {
	case status == "D":
		return nil // deleted from the reference on their branch: the starter keeps it
	case status == "A" && !inStarter:
		// Their own new file: it comes along.
		ours, _ := base.Output(m.root, "git", "show", m.branch+":"+path)
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(target, []byte(ours), 0o644); err != nil {
			return err
		}
		// The TODO file of their earlier starter comes along for stubs they
		// may still carry, but it is no code of theirs to name.
		if !strings.Contains(ours, "Code generated by cronlab's lab tool") {
			c.Merged = append(c.Merged, path)
		}
		return nil
	case status == "A" && strings.Contains(string(starter), "Code generated by cronlab's lab tool"):
		return nil // the starter's own TODO file
	}
	ours, ok1 := m.blob(m.branch, path, "ours")
	baseFile, ok2 := m.blob(m.ref, path, "base")
	if !ok1 {
		return nil
	}
	if !ok2 { // added on both sides: merge from an empty base
		baseFile = filepath.Join(m.tmp, "empty")
		if err := os.WriteFile(baseFile, nil, 0o644); err != nil {
			return err
		}
	} else if m.theirStarter != "" {
		unwritten, err := restoreUnwritten(path, ours, baseFile, target, m.theirStarter, m.root, m.solved)
		if err != nil {
			return err
		}
		c.Unwritten = append(c.Unwritten, unwritten...)
	}
	out, conflicts, err := m.mergeFile(path, ours, baseFile, target)
	if err != nil {
		return err
	}
	if string(out) == string(starter) {
		return nil // nothing of theirs here: the starter's stubs, on both sides
	}
	c.Merged = append(c.Merged, path)
	if conflicts > 0 {
		c.Conflicted = append(c.Conflicted, path+" ("+strconv.Itoa(conflicts)+")")
		c.Conflicts[path] = out
		return nil
	}
	return os.WriteFile(target, out, 0o644)
}

// mergeFile merges their version of path (ours) and the starter's (target)
// from the reference's (baseFile), and returns the merge with the number of
// conflicts left in it.
func (m merge) mergeFile(path, ours, baseFile, target string) ([]byte, int, error) {
	// The plain conflict style whatever the attendee's git config says:
	// a diff3 section would defeat settleImportConflicts, and the
	// sentence that explains the markers.
	cmd := exec.Command("git", "-c", "merge.conflictStyle=merge", "merge-file", "-p",
		// The labels stay in the file, whatever language the tool speaks: both.
		"-L", "your code 你的代码 ("+m.branch+")", "-L", "the reference 参考实现", "-L", "the starter of stage "+m.s.Num+" 第 "+m.s.Num+" 阶段的起始代码",
		ours, baseFile, target)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, mergeErr := cmd.Output()
	// git merge-file exits with the number of conflicts, or with a
	// negative status (255 and up) on an error.
	conflicts := 0
	var exit *exec.ExitError
	switch {
	case errors.As(mergeErr, &exit) && exit.ExitCode() > 0 && exit.ExitCode() < 128:
		conflicts = exit.ExitCode()
	case mergeErr != nil:
		return nil, 0, i18n.Errorf("merging %s: %v %s", "合并 %s：%v %s", path, mergeErr, stderr.String())
	}
	if strings.HasSuffix(path, ".go") {
		// Both sides drop the imports their stubs no longer use, so
		// the import block is where most conflicts would be: those are
		// settled, and the imports made what the merged code uses.
		out, conflicts = settleImportConflicts(out, conflicts)
		if conflicts == 0 {
			refSrc, _ := os.ReadFile(baseFile)
			out = fixImports(path, out, refSrc)
		}
	}
	return out, conflicts, nil
}

// restoreUnwritten rewrites the attendee's copy of a file (oursFile) so that
// each region of an earlier stage (solved) that they left exactly as the
// starter of their branch had it (a
// stub they never wrote, carried with LAB_CARRY=always from a stage that did
// not pass) holds the reference's code (from baseFile) instead: the next
// stage starts from working code there, not from an earlier stage's TODO.
// It names those regions' functions.
//
// A region of this stage or a later one that they left as their starter had
// it takes the new starter's form (from newStarterFile), unnamed: it was
// never theirs. Its forms can differ between two starters (stage.yaml's
// trusting: gives the earlier ones forms that the region's own stage marks
// TODO), and the merge would otherwise call the two forms a conflict of
// theirs with the starter.
func restoreUnwritten(path, oursFile, baseFile, newStarterFile, theirStarter, root string, solved map[string]bool) ([]string, error) {
	starterSrc, err := base.Output(root, "git", "show", theirStarter+":"+path)
	if err != nil {
		return nil, nil // not in their starter: nothing of it was a stub
	}
	ours, err := os.ReadFile(oursFile)
	if err != nil {
		return nil, err
	}
	ref, err := os.ReadFile(baseFile)
	if err != nil {
		return nil, err
	}
	newStarter, err := os.ReadFile(newStarterFile)
	if err != nil {
		newStarter = nil // not in the new starter: its regions are not compared
	}
	rOurs, err1 := regions.Parse(path, ours)
	rStarter, err2 := regions.Parse(path, []byte(starterSrc))
	rRef, err3 := regions.Parse(path, ref)
	rNew, err4 := regions.Parse(path, newStarter)
	if err1 != nil || err2 != nil || err3 != nil || len(rOurs) != len(rStarter) || len(rOurs) != len(rRef) {
		return nil, nil // markers moved or removed: leave their file as it is
	}
	if err4 != nil || len(rNew) != len(rOurs) {
		rNew = nil
	}
	oursLines := strings.Split(string(ours), "\n")
	starterLines := strings.Split(starterSrc, "\n")
	refLines := strings.Split(string(ref), "\n")
	newLines := strings.Split(string(newStarter), "\n")
	body := func(lines []string, r regions.Region) string { return strings.Join(lines[r.First-1:r.End-1], "\n") }
	var out []string
	var restored []string
	changed := false
	next := 1 // the next line of ours to copy, numbered from 1
	for i, r := range rOurs {
		if rStarter[i].Name != r.Name || rRef[i].Name != r.Name {
			return nil, nil
		}
		mine, stub, want := body(oursLines, r), body(starterLines, rStarter[i]), body(refLines, rRef[i])
		if mine != stub || stub == want {
			continue // written by them, or no stub in their starter
		}
		var with []string
		switch {
		case solved[r.Name]:
			with = refLines[rRef[i].First-1 : rRef[i].End-1]
			names := regions.FunctionsIn(path, string(ref), rRef[i])
			if len(names) == 0 {
				names = []string{"lab:begin " + r.Name} // a region without a function: named by its marker, in either language
			}
			restored = append(restored, names...)
		case rNew != nil && rNew[i].Name == r.Name && body(newLines, rNew[i]) != mine:
			with = newLines[rNew[i].First-1 : rNew[i].End-1]
		default:
			continue
		}
		out = append(out, oursLines[next-1:r.First-1]...)
		out = append(out, with...)
		next = r.End
		changed = true
	}
	if !changed {
		return nil, nil
	}
	out = append(out, oursLines[next-1:]...)
	return restored, os.WriteFile(oursFile, []byte(strings.Join(out, "\n")), 0o644)
}
