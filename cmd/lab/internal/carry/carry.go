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
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"cronlab.dev/cronlab/cmd/lab/internal/base"
	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
	"cronlab.dev/cronlab/cmd/lab/internal/progress"
	"cronlab.dev/cronlab/cmd/lab/internal/regions"
	"cronlab.dev/cronlab/cmd/lab/internal/stage"
)

// carryFrom says which lab branch to carry into the starter of s: the
// previous stage's, if the attendee is on it and the policy allows. why
// explains a "no" that the attendee should hear about.
func From(l i18n.Lang, root string, stages []stage.Stage, s stage.Stage, fresh bool) (branch, why string) {
	current, err := base.Output(root, "git", "branch", "--show-current")
	if err != nil {
		return "", ""
	}
	current = strings.TrimSpace(current)
	prev, ok := stage.Previous(stages, s)
	if !ok || current != "lab/"+prev.ID {
		return "", ""
	}
	policy := os.Getenv("LAB_CARRY")
	switch {
	case fresh || policy == "never":
		return "", fmt.Sprintf(l.Tr("starting from the reference (%s): your code of stage %s stays on %s",
			"从参考实现开始（%s）：你第 %s 阶段的代码留在 %s 上"),
			map[bool]string{true: "--fresh", false: "LAB_CARRY=never"}[fresh], prev.ID, current)
	case policy == "always":
		return current, ""
	}
	if r := progress.Read(root).Stages[prev.ID]; !r.Passed {
		return "", fmt.Sprintf(l.Tr("stage %s did not pass its last check, so stage %s starts from the reference; "+
			"your code stays on %s (bin/lab check %s, then start again to carry it; LAB_CARRY=always carries it anyway)",
			"第 %s 阶段最近一次检查没有通过，所以第 %s 阶段从参考实现开始；你的代码留在 %s 上"+
				"（先运行 bin/lab check %s，通过后再 start 一次即可带入；LAB_CARRY=always 则无论如何都带入）"),
			prev.ID, s.ID, current, prev.ID)
	}
	return current, ""
}

// commitWork commits what the attendee left uncommitted on their branch,
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

// carried is what carryInto did.
type Carried struct {
	Merged []string // the files that hold code of the attendee's
	// conflicted are the files where their code and the starter changed the
	// same lines: committed as the starter has them, and left with conflict
	// markers in the working tree (conflicts holds those contents).
	Conflicted []string
	Conflicts  map[string][]byte
	// unwritten are the functions (or regions) that their branch still had
	// as the stubs of its starter: those come from the reference.
	Unwritten []string
}

// carryInto merges the attendee's branch into the starter checked out in
// dir, file by file, with the reference ref as the base, and commits what
// merged cleanly.
func Into(root, dir, ref, branch string, s stage.Stage) (c Carried, err error) {
	c.Conflicts = map[string][]byte{}
	changes, err := base.Output(root, "git", "diff", "--name-status", "--no-renames", ref, branch)
	if err != nil {
		return c, err
	}
	// The starter their branch began from tells what they left unwritten.
	theirStarter, _ := base.Output(root, "git", "log", "-1", "--format=%H", "--grep", "^lab [0-9]* starter:", branch)
	theirStarter = strings.TrimSpace(theirStarter)
	// The regions the new starter has solved: those of the stages before s.
	// (Their stubs of later stages are the starter's too, and stay.)
	solved := map[string]bool{}
	if stages, err := stage.Load(dir); err == nil {
		for _, other := range stages {
			for _, r := range other.Regions {
				solved[r] = other.ID < s.ID
			}
		}
	}
	tmp, err := os.MkdirTemp("", "lab-carry-")
	if err != nil {
		return c, err
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	blob := func(rev, path, name string) (string, bool) {
		out, err := base.Output(root, "git", "show", rev+":"+path)
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
			ours, _ := base.Output(root, "git", "show", branch+":"+path)
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return c, err
			}
			if err := os.WriteFile(target, []byte(ours), 0o644); err != nil {
				return c, err
			}
			c.Merged = append(c.Merged, path)
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
				return c, err
			}
		} else if theirStarter != "" {
			if unwritten, err := restoreUnwritten(path, ours, base, theirStarter, root, solved); err != nil {
				return c, err
			} else {
				c.Unwritten = append(c.Unwritten, unwritten...)
			}
		}
		// The plain conflict style whatever the attendee's git config says:
		// a diff3 section would defeat settleImportConflicts, and the
		// sentence that explains the markers.
		cmd := exec.Command("git", "-c", "merge.conflictStyle=merge", "merge-file", "-p",
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
			return c, fmt.Errorf("merging %s: %v %s", path, mergeErr, stderr.String())
		}
		if strings.HasSuffix(path, ".go") {
			// Both sides drop the imports their stubs no longer use, so
			// the import block is where most conflicts would be: those are
			// settled, and the imports made what the merged code uses.
			out, conflicts = settleImportConflicts(out, conflicts)
			if conflicts == 0 {
				refSrc, _ := os.ReadFile(base)
				out = fixImports(path, out, refSrc)
			}
		}
		if string(out) == string(starter) {
			continue // nothing of theirs here: the starter's stubs, on both sides
		}
		c.Merged = append(c.Merged, path)
		if conflicts > 0 {
			c.Conflicted = append(c.Conflicted, path+" ("+strconv.Itoa(conflicts)+")")
			c.Conflicts[path] = out
			continue
		}
		if err := os.WriteFile(target, out, 0o644); err != nil {
			return c, err
		}
	}
	if _, err := base.Output(dir, "git", "add", "-A"); err != nil {
		return c, err
	}
	err = base.LabCommit(dir, "--allow-empty", "-m", fmt.Sprintf("lab %s: carry my code from %s\n\n%s %s", s.ID, branch, base.ReferenceTrailer, ref))
	return c, err
}

// restoreUnwritten rewrites the attendee's copy of a file (oursFile) so that
// each region of an earlier stage (solved) that they left exactly as the
// starter of their branch had it (a
// stub they never wrote, carried with LAB_CARRY=always from a stage that did
// not pass) holds the reference's code (from baseFile) instead: the next
// stage starts from working code there, not from an earlier stage's TODO.
func restoreUnwritten(path, oursFile, baseFile, theirStarter, root string, solved map[string]bool) ([]string, error) {
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
	rOurs, err1 := regions.Parse(path, ours)
	rStarter, err2 := regions.Parse(path, []byte(starterSrc))
	rRef, err3 := regions.Parse(path, ref)
	if err1 != nil || err2 != nil || err3 != nil || len(rOurs) != len(rStarter) || len(rOurs) != len(rRef) {
		return nil, nil // markers moved or removed: leave their file as it is
	}
	oursLines := strings.Split(string(ours), "\n")
	starterLines := strings.Split(starterSrc, "\n")
	refLines := strings.Split(string(ref), "\n")
	body := func(lines []string, r regions.Region) string { return strings.Join(lines[r.First-1:r.End-1], "\n") }
	var out []string
	var restored []string
	next := 1 // the next line of ours to copy, numbered from 1
	for i, r := range rOurs {
		if rStarter[i].Name != r.Name || rRef[i].Name != r.Name {
			return nil, nil
		}
		mine, stub, want := body(oursLines, r), body(starterLines, rStarter[i]), body(refLines, rRef[i])
		if !solved[r.Name] || mine != stub || stub == want {
			continue // written by them, or no stub in their starter
		}
		out = append(out, oursLines[next-1:r.First-1]...)
		out = append(out, refLines[rRef[i].First-1:rRef[i].End-1]...)
		next = r.End
		names := regions.FunctionsIn(path, string(ref), rRef[i])
		if len(names) == 0 {
			names = []string{"the region " + r.Name}
		}
		restored = append(restored, names...)
	}
	if len(restored) == 0 {
		return nil, nil
	}
	out = append(out, oursLines[next-1:]...)
	return restored, os.WriteFile(oursFile, []byte(strings.Join(out, "\n")), 0o644)
}

// importLine is a line that may stand in an import block: an import, a
// comment, or nothing.
var importLine = regexp.MustCompile(`^\s*((?:[\w.]+\s+)?"[^"]*"\s*(//.*)?|//.*)?$`)

// settleImportConflicts resolves the conflicts of a merged Go file that lie
// in its import block, by keeping the imports of both sides (fixImports
// then drops those the code does not use). It returns the file and how many
// conflicts are left.
func settleImportConflicts(src []byte, conflicts int) ([]byte, int) {
	if conflicts == 0 {
		return src, 0
	}
	lines := strings.Split(string(src), "\n")
	var out []string
	inImports := false
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		switch {
		case strings.HasPrefix(line, "import ("):
			inImports = true
		case inImports && strings.HasPrefix(line, ")"):
			inImports = false
		case inImports && strings.HasPrefix(line, "<<<<<<< "):
			// <<<<<<< ours ... ======= ... >>>>>>> theirs
			end, sep := -1, -1
			for j := i + 1; j < len(lines); j++ {
				if lines[j] == "=======" && sep < 0 {
					sep = j
				}
				if strings.HasPrefix(lines[j], ">>>>>>> ") {
					end = j
					break
				}
			}
			if sep < 0 || end < 0 {
				break
			}
			union, seen, ok := []string{}, map[string]bool{}, true
			for _, l := range append(append([]string{}, lines[i+1:sep]...), lines[sep+1:end]...) {
				if !importLine.MatchString(l) {
					ok = false
					break
				}
				if key := strings.TrimSpace(l); !seen[key] || key == "" {
					seen[key] = true
					union = append(union, l)
				}
			}
			if !ok {
				break
			}
			out = append(out, union...)
			conflicts--
			i = end
			continue
		}
		out = append(out, line)
	}
	return []byte(strings.Join(out, "\n")), conflicts
}

// fixImports makes a merged Go file import what its code uses: the
// reference's imports and the attendee's own, less those nothing uses. The
// merge takes each side's dropped imports (a starter drops those only its
// stubbed code used), so without this the code of one side could lack an
// import that the other side removed.
func fixImports(path string, merged, ref []byte) []byte {
	fset := token.NewFileSet()
	mine, err1 := parser.ParseFile(fset, path, merged, parser.ImportsOnly)
	refFile, err2 := parser.ParseFile(token.NewFileSet(), path, ref, parser.ImportsOnly)
	if err1 != nil || err2 != nil || len(mine.Imports) == 0 {
		return merged
	}
	have := map[string]bool{}
	for _, imp := range mine.Imports {
		have[regions.ImportName(imp)+" "+imp.Path.Value] = true
	}
	var missing []string
	for _, imp := range refFile.Imports {
		if have[regions.ImportName(imp)+" "+imp.Path.Value] {
			continue
		}
		if imp.Name != nil {
			missing = append(missing, "\t"+imp.Name.Name+" "+imp.Path.Value)
		} else {
			missing = append(missing, "\t"+imp.Path.Value)
		}
	}
	// After the last import, into the block: gofmt sorts it in place.
	var decl *ast.GenDecl
	for _, d := range mine.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT && g.Rparen.IsValid() {
			decl = g
		}
	}
	out := merged
	if len(missing) > 0 {
		if decl == nil {
			return merged
		}
		at := fset.Position(decl.Rparen).Offset
		out = append(append(append([]byte{}, merged[:at]...), []byte(strings.Join(missing, "\n")+"\n")...), merged[at:]...)
	}
	out, err := regions.DropUnusedImports(path, dropDuplicateImports(path, out))
	if err != nil {
		return merged
	}
	if formatted, err := format.Source(out); err == nil {
		return formatted
	}
	return merged
}

// dropDuplicateImports keeps the first of two identical imports: the
// attendee added an import where the reference has it in another group,
// and a settled conflict brought the reference's back.
func dropDuplicateImports(path string, src []byte) []byte {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.ImportsOnly)
	if err != nil {
		return src
	}
	seen := map[string]bool{}
	var drop []*ast.ImportSpec
	for _, imp := range f.Imports {
		key := regions.ImportName(imp) + " " + imp.Path.Value
		if seen[key] {
			drop = append(drop, imp)
		}
		seen[key] = true
	}
	return regions.RemoveImports(fset, src, drop)
}
