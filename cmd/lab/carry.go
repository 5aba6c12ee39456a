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
)

// carryFrom says which lab branch to carry into the starter of s: the
// previous stage's, if the attendee is on it and the policy allows. why
// explains a "no" that the attendee should hear about.
func carryFrom(root string, stages []stage, s stage, fresh bool) (branch, why string) {
	current, err := output(root, "git", "branch", "--show-current")
	if err != nil {
		return "", ""
	}
	current = strings.TrimSpace(current)
	prev, ok := previousStage(stages, s)
	if !ok || current != "lab/"+prev.ID {
		return "", ""
	}
	policy := os.Getenv("LAB_CARRY")
	switch {
	case fresh || policy == "never":
		return "", fmt.Sprintf("starting from the reference (%s): your code of stage %s stays on %s",
			map[bool]string{true: "--fresh", false: "LAB_CARRY=never"}[fresh], prev.ID, current)
	case policy == "always":
		return current, ""
	}
	if r := loadProgress(root).Stages[prev.ID]; !r.Passed {
		return "", fmt.Sprintf("stage %s did not pass its last check, so stage %s starts from the reference; "+
			"your code stays on %s (bin/lab check %s, then start again to carry it; LAB_CARRY=always carries it anyway)",
			prev.ID, s.ID, current, prev.ID)
	}
	return current, ""
}

// commitWork commits what the attendee left uncommitted on their branch,
// so that nothing is lost when the tool switches branches.
func commitWork(root, branch string) (bool, error) {
	dirty, err := output(root, "git", "status", "--porcelain", "--untracked-files=no")
	if err != nil || strings.TrimSpace(dirty) == "" {
		return false, err
	}
	if _, err := output(root, "git", "add", "-u"); err != nil {
		return false, err
	}
	_, err = output(root, "git", "-c", "user.name=cronlab lab", "-c", "user.email=lab@cronlab.dev",
		"commit", "-q", "-m", "my work on "+branch+" (committed by lab start)")
	return err == nil, err
}

// carryInto merges the attendee's branch into the starter checked out in
// dir, file by file, with the reference ref as the base, and commits. It
// returns the files that their code changed and those left with conflict
// markers.
func carryInto(root, dir, ref, branch string, s stage) (merged, conflicted []string, err error) {
	changes, err := output(root, "git", "diff", "--name-status", "--no-renames", ref, branch)
	if err != nil {
		return nil, nil, err
	}
	tmp, err := os.MkdirTemp("", "lab-carry-")
	if err != nil {
		return nil, nil, err
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	blob := func(rev, path, name string) (string, bool) {
		out, err := output(root, "git", "show", rev+":"+path)
		if err != nil {
			return "", false
		}
		f := filepath.Join(tmp, name)
		return f, os.WriteFile(f, []byte(out), 0o644) == nil
	}
	for _, line := range strings.Split(strings.TrimSpace(changes), "\n") {
		status, path, ok := strings.Cut(line, "\t")
		if !ok {
			continue
		}
		target := filepath.Join(dir, path)
		starter, readErr := os.ReadFile(target)
		inStarter := readErr == nil
		switch {
		case status == "D":
			continue // deleted from the reference on their branch: the starter keeps it
		case status == "A" && !inStarter:
			// Their own new file: it comes along.
			ours, _ := output(root, "git", "show", branch+":"+path)
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return nil, nil, err
			}
			if err := os.WriteFile(target, []byte(ours), 0o644); err != nil {
				return nil, nil, err
			}
			merged = append(merged, path)
			continue
		case status == "A" && strings.Contains(string(starter), "Code generated by cronlab's lab tool"):
			continue // the starter's own TODO file
		}
		ours, ok1 := blob(branch, path, "ours")
		base, ok2 := blob(ref, path, "base")
		if !ok1 {
			continue
		}
		if !ok2 { // added on both sides: merge from an empty base
			base = filepath.Join(tmp, "empty")
			if err := os.WriteFile(base, nil, 0o644); err != nil {
				return nil, nil, err
			}
		}
		cmd := exec.Command("git", "merge-file", "-p",
			"-L", "your code ("+branch+")", "-L", "the reference", "-L", "the starter of stage "+s.ID,
			ours, base, target)
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
			return nil, nil, fmt.Errorf("merging %s: %v %s", path, mergeErr, stderr.String())
		}
		if string(out) == string(starter) {
			continue // nothing of theirs here: the starter's stubs, on both sides
		}
		if err := os.WriteFile(target, out, 0o644); err != nil {
			return nil, nil, err
		}
		merged = append(merged, path)
		if conflicts > 0 {
			conflicted = append(conflicted, path+" ("+strconv.Itoa(conflicts)+")")
		}
	}
	if _, err := output(dir, "git", "add", "-A"); err != nil {
		return nil, nil, err
	}
	_, err = output(dir, "git", "-c", "user.name=cronlab lab", "-c", "user.email=lab@cronlab.dev",
		"commit", "-q", "--allow-empty", "-m", fmt.Sprintf("lab %s: carry my code from %s\n\n%s %s", s.ID, branch, referenceTrailer, ref))
	return merged, conflicted, err
}
