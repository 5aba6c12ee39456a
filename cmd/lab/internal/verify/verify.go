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

package verify

// lab dev verify, the instructor's guarantee, run by CI: every starter builds
// and vets, its stage's tests fail on it and pass on the reference, and
// they fail on every mistake of the stage's catalogue.
//
// It is a few hundred checks, and a check spends much of its time waiting
// (for the API server, for a timeout that a failing test runs into): one
// check at a time used little more than one of two cores. So the work is
// cut into parts (one stage's starter, one catalogue), and verify runs
// several parts at once, each in a `lab dev verify-part` process of its own
// with a slot of its own: its own starter tree and its own shared API
// server, so that parts never see each other's objects. Their outputs are
// printed in the order of the stages.

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"cronlab.dev/cronlab/cmd/lab/internal/apiserver"
	"cronlab.dev/cronlab/cmd/lab/internal/base"
	"cronlab.dev/cronlab/cmd/lab/internal/functions"
	"cronlab.dev/cronlab/cmd/lab/internal/gotest"
	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
	"cronlab.dev/cronlab/cmd/lab/internal/run"
	"cronlab.dev/cronlab/cmd/lab/internal/stage"
	"cronlab.dev/cronlab/cmd/lab/internal/starter"
	"cronlab.dev/cronlab/internal/controlplane"
)

const (
	// jobsEnv sets how many parts of verify run at once.
	jobsEnv = "LAB_VERIFY_JOBS"
	// slotEnv gives a verify-part its slot: the suffix of its trees and of
	// its API server's directory, which it must not share with another part.
	slotEnv = "LAB_VERIFY_SLOT"
)

// A verifyPart is what one process of verify does: the starter of a stage
// (and on it, the catalogue of the stage before), or one stage's catalogue
// alone.
type verifyPart struct {
	Kind      string `json:"kind"` // "starter" or "catalogue"
	Stage     string `json:"stage"`
	Catalogue bool   `json:"catalogue"` // starter: check the previous stage's catalogue on it
}

// A partReport is what a part found, for the process that started it.
type partReport struct {
	Problems []string       `json:"problems"`
	Caught   map[string]int `json:"caught"`
	Err      string         `json:"err,omitempty"`
}

// CmdVerify is `lab dev verify`. referenceTested says that the reference has
// just passed every test (CI runs `make test` first): then verify only
// checks that each stage's tests exist, which saves a third of its time.
func CmdVerify(l i18n.Lang, root string, stages []stage.Stage, only []string, referenceTested bool) error {
	todo, err := stage.Select(stages, only)
	if err != nil {
		return err
	}
	if err := starter.EnsureControllerGen(root); err != nil {
		return err
	}
	// Without envtest every starter "fails its tests" for the wrong reason,
	// and every previous stage "depends on later code": say so once instead.
	if _, err := controlplane.Assets(root); err != nil {
		return fmt.Errorf("the envtest tests cannot run: %w", err)
	}
	if dirty, _ := base.Output(root, "git", "status", "--porcelain"); strings.TrimSpace(dirty) != "" {
		fmt.Println("note: starters are made from the last commit; uncommitted changes are in the reference checks only")
	}
	var parts []verifyPart
	for _, s := range todo {
		prev, ok := stage.Previous(stages, s)
		parts = append(parts, verifyPart{Kind: "starter", Stage: s.Slug, Catalogue: ok && stage.Selected(todo, prev)})
	}
	// The catalogues that no starter of this run serves: the last stage's,
	// and the first one's when the stage after it is not verified.
	for _, s := range todo {
		next, ok := stage.Next(stages, s)
		if len(s.Mistakes) > 0 && (!ok || !stage.Selected(todo, next)) {
			parts = append(parts, verifyPart{Kind: "catalogue", Stage: s.Slug})
		}
	}
	jobs := verifyJobs()
	fmt.Printf("verifying %d stage(s) in %d part(s), %d at a time (%s)\n", len(todo), len(parts), jobs, jobsEnv)
	begin := time.Now()
	var reports []partReport
	if jobs == 1 {
		reports = runPartsHere(l, root, stages, parts, referenceTested)
	} else {
		reports = runPartsAtOnce(l, root, parts, referenceTested, jobs)
	}
	catalogue := newCatalogueRun("")
	var problems []string
	for _, r := range reports {
		if r.Err != "" {
			problems = append(problems, r.Err)
		}
		problems = append(problems, r.Problems...)
		for id, n := range r.Caught {
			catalogue.caught[id] += n
		}
	}
	fmt.Printf("\nMistakes caught by each stage's check (caught / catalogue):\n%s\n", catalogue.scores(l, todo))
	fmt.Printf("(verify took %.0fs)\n", time.Since(begin).Seconds())
	if len(problems) > 0 {
		return fmt.Errorf("verify found %d problem(s):\n%s", len(problems), strings.Join(problems, "\n"))
	}
	fmt.Printf("\n%d stage(s) verified\n", len(todo))
	return nil
}

// verifyJobs is how many parts run at once: LAB_VERIFY_JOBS, or two where
// there are two cores (more parts than cores only wait for each other).
func verifyJobs() int {
	if n, err := strconv.Atoi(os.Getenv(jobsEnv)); err == nil && n > 0 {
		return n
	}
	return min(2, runtime.NumCPU())
}

// runPartsHere runs the parts one after the other in this process, with
// their output as it comes.
func runPartsHere(l i18n.Lang, root string, stages []stage.Stage, parts []verifyPart, referenceTested bool) []partReport {
	// Verify runs a few hundred checks and then none: the shared API server
	// does not wait its 30 idle minutes (in CI it would outlive the job).
	defer stopServer(l, apiserver.Open(root))
	var reports []partReport
	for _, p := range parts {
		reports = append(reports, runPart(l, root, stages, p, referenceTested, ""))
	}
	return reports
}

// runPartsAtOnce runs each part in a `lab dev verify-part` process, jobs at a
// time, and prints their outputs in the parts' order as they finish.
func runPartsAtOnce(l i18n.Lang, root string, parts []verifyPart, referenceTested bool, jobs int) []partReport {
	self, err := apiserver.LabExecutable()
	if err != nil {
		return []partReport{{Err: err.Error()}}
	}
	dir, err := os.MkdirTemp("", "lab-verify-")
	if err != nil {
		return []partReport{{Err: err.Error()}}
	}
	defer func() { _ = os.RemoveAll(dir) }()
	reports := inOrder(len(parts), jobs, os.Stdout, func(i, slot int) ([]byte, partReport) {
		p := parts[i]
		file := filepath.Join(dir, fmt.Sprintf("part-%d.json", i))
		raw, _ := json.Marshal(p)
		args := []string{"dev", "verify-part", string(raw), file}
		if referenceTested {
			args = append(args, "--reference-tested")
		}
		cmd := exec.Command(self, args...)
		cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d", slotEnv, slot))
		out, err := cmd.CombinedOutput()
		var r partReport
		if raw, readErr := os.ReadFile(file); readErr != nil || json.Unmarshal(raw, &r) != nil {
			r = partReport{Err: fmt.Sprintf("verify of %s %s stopped without a report: %v", p.Kind, p.Stage, err)}
		}
		return out, r
	})
	for k := 1; k <= jobs; k++ {
		stopServer(l, apiserver.Of(root, strconv.Itoa(k)))
	}
	return reports
}

// inOrder runs run(i, slot) for i from 0 to n-1, jobs at a time, each with
// a slot (1 to jobs) that no other run holds meanwhile, and writes their
// outputs to w in the order of i, each as soon as those before it are out.
func inOrder(n, jobs int, w io.Writer, run func(i, slot int) ([]byte, partReport)) []partReport {
	type done struct {
		i, slot int
		out     []byte
		report  partReport
	}
	finished := make(chan done)
	free := make(chan int, jobs)
	for k := 1; k <= jobs; k++ {
		free <- k
	}
	go func() {
		for i := range n {
			k := <-free
			go func() {
				out, r := run(i, k)
				finished <- done{i: i, slot: k, out: out, report: r}
			}()
		}
	}()
	reports := make([]partReport, n)
	outs := make([][]byte, n)
	written := 0
	for range n {
		d := <-finished
		free <- d.slot
		reports[d.i], outs[d.i] = d.report, append([]byte{}, d.out...)
		for ; written < n && outs[written] != nil; written++ {
			_, _ = w.Write(outs[written])
		}
	}
	return reports
}

func stopServer(l i18n.Lang, s apiserver.Server) {
	if err := apiserver.StopShared(l, s); err != nil {
		fmt.Println("stopping the shared API server:", err)
	}
}

// CmdVerifyPart is `lab dev verify-part PART REPORT`, started by verify: it
// does one part and writes what it found to the file REPORT.
func CmdVerifyPart(l i18n.Lang, root string, stages []stage.Stage, args []string, referenceTested bool) error {
	if len(args) != 2 {
		return fmt.Errorf("usage: lab dev verify-part PART-JSON REPORT-FILE")
	}
	var p verifyPart
	if err := json.Unmarshal([]byte(args[0]), &p); err != nil {
		return err
	}
	r := runPart(l, root, stages, p, referenceTested, os.Getenv(slotEnv))
	raw, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return os.WriteFile(args[1], raw, 0o644)
}

// runPart does one part of verify and prints what it checks.
func runPart(l i18n.Lang, root string, stages []stage.Stage, p verifyPart, referenceTested bool, slot string) partReport {
	catalogue := newCatalogueRun(slot)
	r := partReport{Caught: catalogue.caught}
	s, err := stage.Find(stages, p.Stage)
	if err != nil {
		r.Err = err.Error()
		return r
	}
	if p.Kind == "catalogue" {
		fmt.Printf("stage %s: its mistakes\n", s.Num)
		r.Problems, err = catalogue.checkOnOwnTree(l, root, stages, s)
	} else {
		r.Problems, err = verifyStarter(l, root, stages, s, p.Catalogue, referenceTested, catalogue)
	}
	if err != nil {
		r.Err = fmt.Sprintf("stage %s: %v", s.Num, err)
	}
	return r
}

// verifyStarter checks stage s (its tests exist, or pass on the reference;
// they fail on its starter; the stage before passes on the starter) and,
// when withCatalogue, the catalogue of the stage before on that starter:
// it is what an attendee has who has just done that stage.
func verifyStarter(l i18n.Lang, root string, stages []stage.Stage, s stage.Stage, withCatalogue, referenceTested bool, catalogue *catalogueRun) (problems []string, err error) {
	start := time.Now()
	fmt.Printf("stage %s (%s)\n", s.Num, s.Title)
	defer func() { fmt.Printf("        (%.0fs)\n", time.Since(start).Seconds()) }()
	if referenceTested {
		if err := run.ListChecks(root, s); err != nil {
			fmt.Println("  FAIL  the stage's tests exist")
			return []string{fmt.Sprintf("stage %s: %v", s.Num, err)}, nil
		}
		fmt.Println("  ok    the stage's tests exist (make test ran them on the reference)")
	} else if rs, err := run.ChecksWith(l, root, root, s, run.Quiet, false, run.BuildOpts{Slot: catalogue.slot}); err != nil {
		fmt.Println("  FAIL  the reference passes the stage's tests")
		return []string{fmt.Sprintf("stage %s: the reference fails its own tests: %v", s.Num, err)}, nil
	} else {
		fmt.Println("  ok    the reference passes the stage's tests")
		problems = append(problems, tableProblems(s, rs)...)
	}
	dir, _, cleanup, err := starter.Tree(l, root, stages, s, verifyTree(root, catalogue.slot))
	if err != nil {
		return nil, err
	}
	defer cleanup()
	// go vet compiles every package and its tests to check them, so a
	// starter that does not compile fails here too; a separate go build
	// would only add the link step, and a third of a stage's time.
	doneVet := base.Traced("go vet ./... of the starter")
	out, err := base.Output(dir, "go", "vet", "./...")
	doneVet()
	if err != nil {
		return []string{fmt.Sprintf("stage %s: the starter does not compile or vet:\n%s", s.Num, out)}, nil
	}
	fmt.Println("  ok    the starter compiles and vets (go vet ./..., tests included)")
	// go vet ./... has vetted every package of this tree: the checks on it
	// need not vet their packages again.
	vetted := run.BuildOpts{NoVet: true, Slot: catalogue.slot}
	if _, err := run.ChecksWith(l, root, dir, s, run.Quiet, true, vetted); err == nil {
		problems = append(problems, fmt.Sprintf("stage %s: the stage's tests pass on the starter, so they do not test the stage", s.Num))
	} else {
		fmt.Println("  ok    the stage's tests fail on the starter")
	}
	// Earlier stages stay solved in a starter: the previous stage's tests
	// must pass on it. Checking the previous stage is enough: starter N
	// stubs the most code that stage N-1 must live with, and every later
	// starter stubs less.
	// The table of functions of the last stage is checked here (every
	// other stage's is checked below, as the stage before the next).
	if _, ok := stage.Next(stages, s); !ok && referenceTested {
		rs, err := run.ChecksWith(l, root, root, s, run.Quiet, false, run.BuildOpts{Slot: catalogue.slot})
		if err != nil {
			return append(problems, fmt.Sprintf("stage %s: the reference fails its own tests: %v", s.Num, err)), nil
		}
		problems = append(problems, tableProblems(s, rs)...)
	}
	prev, ok := stage.Previous(stages, s)
	if !ok {
		return problems, nil
	}
	// On a starter that breaks the previous stage, its mistakes would be
	// caught for the wrong reason: the catalogue waits for a good starter.
	prevResults, err := run.ChecksWith(l, root, dir, prev, run.Quiet, false, vetted)
	if err != nil {
		return append(problems, fmt.Sprintf("stage %s: the tests of stage %s fail on its starter, so stage %s depends on code of stage %s or later: %v", s.Num, prev.Num, prev.Num, s.Num, err)), nil
	}
	fmt.Printf("  ok    the tests of stage %s pass on it\n", prev.Num)
	// Those are the tests of stage prev on its solution: each row of its
	// table of functions must name specs that ran.
	problems = append(problems, tableProblems(prev, prevResults)...)
	if withCatalogue {
		problems = append(problems, catalogue.check(l, root, dir, prev)...)
	}
	return problems, nil
}

// tableProblems checks stage.yaml's table of functions (package functions) against
// a passing run of the stage's tests: every function has specs that ran, and
// each name in the table is a spec that ran (BeforeSuite aside, which is a
// spec only when it fails).
func tableProblems(s stage.Stage, rs []gotest.Results) []string {
	var problems []string
	for i, fr := range functions.Verdicts(s, ".", rs) {
		if fr.Ran == 0 {
			problems = append(problems, fmt.Sprintf("stage %s: no spec of %s ran (stage.yaml's functions)", s.Num, fr.Name))
		}
		for _, part := range s.Functions[i].Specs {
			if part == "BeforeSuite" {
				continue
			}
			one := stage.Function{Specs: []string{part}}
			ran := false
			for _, r := range rs {
				for _, o := range r.Outcomes {
					ran = ran || one.Checks(o.Name)
				}
			}
			if !ran {
				problems = append(problems, fmt.Sprintf("stage %s: %s is checked by %q, which names no spec that ran (stage.yaml's functions)", s.Num, fr.Name, part))
			}
		}
	}
	if len(problems) == 0 {
		fmt.Printf("  ok    every function of stage %s has specs that ran\n", s.Num)
	}
	return problems
}
