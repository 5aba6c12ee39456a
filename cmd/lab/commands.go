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
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"time"
)

func cmdList(stages []stage) error {
	fmt.Println("Stages (running each stage's tests in this checkout, one after the other: several minutes for all of them):")
	for _, s := range stages {
		status := "pass"
		if err := runChecks(".", s, false); err != nil {
			status = "FAIL"
		}
		fmt.Printf("  %s  %-22s %s  %s\n", s.ID, s.Slug, status, s.Title)
	}
	return nil
}

func cmdStart(root string, stages []stage, s stage) error {
	if err := ensureControllerGen(root); err != nil {
		return err
	}
	branch := "lab/" + s.ID
	fmt.Printf("Making %s: the reference with stage %s and later stages to write ...\n", branch, s.ID)
	_, commit, cleanup, err := starterTree(root, stages, s)
	if err != nil {
		return err
	}
	defer cleanup()
	if _, err := output(root, "git", "branch", "-f", branch, commit); err != nil {
		return err
	}
	if dirty, _ := output(root, "git", "status", "--porcelain"); strings.TrimSpace(dirty) != "" {
		fmt.Printf("Made branch %s. Your working tree has changes, so it stays where it is: commit or stash them, then\n  git switch %s\n", branch, branch)
	} else if _, err := output(root, "git", "switch", branch); err != nil {
		return err
	} else {
		fmt.Printf("Switched to %s.\n", branch)
	}
	fmt.Printf("\nStage %s: %s\n  read:  %s\n  write: the places marked TODO(lab %s), in\n", s.ID, s.Title, s.readme(), s.ID)
	for _, f := range todoFiles(root, commit, s.ID) {
		fmt.Printf("           %s\n", f)
	}
	fmt.Printf("  check: go run ./cmd/lab check %s\n", s.ID)
	return nil
}

func cmdCheck(s stage) error {
	fmt.Printf("Checking stage %s: %s\n", s.ID, s.Title)
	if err := runChecks(".", s, true); err != nil {
		fmt.Printf("\nNot yet. %s\n  hint: %s\n  more: %s\n", err, s.Hint, s.readme())
		if files := todoFiles(".", "", s.ID); len(files) > 0 {
			fmt.Printf("  still TODO(lab %s): %s\n", s.ID, strings.Join(files, ", "))
		}
		os.Exit(1)
	}
	fmt.Printf("\nStage %s passes. Next: go run ./cmd/lab list\n", s.ID)
	return nil
}

// runChecks runs a stage's before-commands and tests in dir. With verbose,
// it prints a line per test package and the failures.
func runChecks(dir string, s stage, verbose bool) error {
	for _, before := range s.Before {
		args := strings.Fields(before)
		if out, err := output(dir, args[0], args[1:]...); err != nil {
			if verbose {
				fmt.Println(lastLines(out, 20))
			}
			return fmt.Errorf("%q failed", before)
		}
	}
	var failed []string
	for _, t := range s.Tests {
		start := time.Now()
		out, err := output(dir, "go", t.args()...)
		if verbose {
			mark := "PASS"
			if err != nil {
				mark = "FAIL"
			}
			fmt.Printf("  %s  %s (%.0fs)\n", mark, strings.Join(t.args()[2:], " "), time.Since(start).Seconds())
			if err != nil {
				fmt.Println(indent(failureSummary(out), "        "))
			}
		}
		if err == nil && strings.Contains(out, "no tests to run") {
			err = fmt.Errorf("no test matched %q", t.Run)
			if verbose {
				fmt.Printf("        %v\n", err)
			}
		}
		if err != nil {
			failed = append(failed, t.Package)
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("failing: %s", strings.Join(failed, ", "))
	}
	return nil
}

var ansiColor = regexp.MustCompile("\x1b\\[[0-9;]*m")

// failureLine matches what says why a test failed: the names of failing Go
// tests and Ginkgo specs, t.Errorf messages ("x_test.go:12: ..."), Gomega's
// messages, stubs' TODOs, panics and compile errors.
var failureLine = regexp.MustCompile(`(?m)^.*(--- FAIL|\[FAIL\]|\[FAILED\]|_test\.go:\d+: |TODO\(lab|panic:|cannot|undefined|Expected|to equal|to be).*$`)

// failureSummary keeps the lines of go test output that say what failed.
func failureSummary(out string) string {
	seen := map[string]bool{}
	var lines []string
	for _, line := range failureLine.FindAllString(ansiColor.ReplaceAllString(out, ""), -1) {
		if key := strings.TrimSpace(line); !seen[key] {
			seen[key] = true
			lines = append(lines, key)
		}
	}
	if len(lines) == 0 {
		return lastLines(out, 15)
	}
	if len(lines) > 15 {
		lines = append(lines[:15], fmt.Sprintf("... and %d more lines", len(lines)-15))
	}
	return strings.Join(lines, "\n")
}

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(strings.TrimSpace(s), "\n", "\n"+prefix)
}

// todoFiles lists the files of revision rev (empty: the working tree) that
// still have a stub of stage id, with how many, as "path (n)". Docs that
// quote a TODO as an example do not count.
func todoFiles(dir, rev, id string) []string {
	args := []string{"grep", "-c", "-F", "TODO(lab " + id + ")"}
	if rev != "" {
		args = append(args, rev)
	}
	// cmd/lab's own tests quote TODOs as expected output.
	args = append(args, "--", ".", ":(exclude)*.md", ":(exclude)cmd/lab")
	out, _ := output(dir, "git", args...)
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

func cmdSolution(root string, stages []stage, s stage) error {
	if err := ensureControllerGen(root); err != nil {
		return err
	}
	_, commit, cleanup, err := starterTree(root, stages, s)
	if err != nil {
		return err
	}
	defer cleanup()
	// Only this stage's regions: a starter of the next stage differs from
	// this one's by exactly them.
	next := stage{ID: "99"}
	for _, other := range stages {
		if other.ID > s.ID {
			next = other
			break
		}
	}
	target, err := referenceCommit(root)
	if err != nil {
		return err
	}
	if next.ID != "99" {
		_, nextCommit, cleanupNext, err := starterTree(root, stages, next)
		if err != nil {
			return err
		}
		defer cleanupNext()
		target = nextCommit
	}
	out, err := output(root, "git", "diff", "--stat", "-p", commit, target, "--", ".", ":!*zz_generated*", ":!config/crd/bases", ":!*zz_lab_todo.go")
	if err != nil {
		return err
	}
	fmt.Printf("The reference solution of stage %s (%s), as a diff from its starter:\n\n%s", s.ID, s.Title, out)
	return nil
}

func cmdBranches(root string, stages []stage) error {
	if err := ensureControllerGen(root); err != nil {
		return err
	}
	for _, s := range stages {
		_, commit, cleanup, err := starterTree(root, stages, s)
		if err != nil {
			return err
		}
		_, err = output(root, "git", "branch", "-f", "lab/"+s.ID, commit)
		cleanup()
		if err != nil {
			return err
		}
		fmt.Printf("  lab/%s  %s\n", s.ID, s.Title)
	}
	fmt.Println("\nPush them to the class repository with: git push <remote> 'refs/heads/lab/*:refs/heads/lab/*'")
	return nil
}

func ensureControllerGen(root string) error {
	if _, err := os.Stat(filepath.Join(root, "bin", "controller-gen")); err == nil {
		return nil
	}
	_, err := output(root, "make", "controller-gen")
	return err
}

// cmdVerify is the instructor's guarantee, run by CI: every starter builds
// and vets, its stage's tests fail on it, and pass on the reference.
// referenceTested says that the reference has just passed every test (CI runs
// `make test` first): then verify only checks that each stage's tests exist,
// which saves a third of its time.
func cmdVerify(root string, stages []stage, only []string, referenceTested bool) error {
	todo := stages
	if len(only) > 0 {
		todo = nil
		for _, name := range only {
			s, err := findStage(stages, name)
			if err != nil {
				return err
			}
			todo = append(todo, s)
		}
	}
	if err := ensureControllerGen(root); err != nil {
		return err
	}
	// Without envtest every starter "fails its tests" for the wrong reason,
	// and every previous stage "depends on later code": say so once instead.
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		return fmt.Errorf("KUBEBUILDER_ASSETS is not set, so the envtest tests cannot run: use `make lab-verify` (it sets it), or run `make setup-envtest` and export KUBEBUILDER_ASSETS=$(cat bin/envtest-assets-path)")
	}
	if dirty, _ := output(root, "git", "status", "--porcelain"); strings.TrimSpace(dirty) != "" {
		fmt.Println("note: starters are made from the last commit; uncommitted changes are in the reference checks only")
	}
	var problems []string
	for _, s := range todo {
		start := time.Now()
		fmt.Printf("stage %s (%s)\n", s.ID, s.Title)
		if referenceTested {
			if err := listChecks(root, s); err != nil {
				problems = append(problems, fmt.Sprintf("stage %s: %v", s.ID, err))
				fmt.Println("  FAIL  the stage's tests exist")
				continue
			}
			fmt.Println("  ok    the stage's tests exist (make test ran them on the reference)")
		} else if err := runChecks(root, s, false); err != nil {
			problems = append(problems, fmt.Sprintf("stage %s: the reference fails its own tests: %v", s.ID, err))
			fmt.Println("  FAIL  the reference passes the stage's tests")
			continue
		} else {
			fmt.Println("  ok    the reference passes the stage's tests")
		}
		dir, _, cleanup, err := starterTree(root, stages, s)
		if err != nil {
			return err
		}
		// go vet compiles every package and its tests to check them, so a
		// starter that does not compile fails here too; a separate go build
		// would only add the link step, and a third of a stage's time.
		if out, err := output(dir, "go", "vet", "./..."); err != nil {
			problems = append(problems, fmt.Sprintf("stage %s: the starter does not compile or vet:\n%s", s.ID, out))
		} else {
			fmt.Println("  ok    the starter compiles and vets (go vet ./..., tests included)")
			if err := runChecks(dir, s, false); err == nil {
				problems = append(problems, fmt.Sprintf("stage %s: the stage's tests pass on the starter, so they do not test the stage", s.ID))
			} else {
				fmt.Println("  ok    the stage's tests fail on the starter")
			}
			// Earlier stages stay solved in a starter: the previous stage's
			// tests must pass on it. Checking the previous stage is enough:
			// starter N stubs the most code that stage N-1 must live with,
			// and every later starter stubs less.
			if prev, ok := previousStage(stages, s); ok {
				if err := runChecks(dir, prev, false); err != nil {
					problems = append(problems, fmt.Sprintf("stage %s: the tests of stage %s fail on its starter, so stage %s depends on code of stage %s or later: %v", s.ID, prev.ID, prev.ID, s.ID, err))
				} else {
					fmt.Printf("  ok    the tests of stage %s pass on it\n", prev.ID)
				}
			}
		}
		cleanup()
		fmt.Printf("        (%.0fs)\n", time.Since(start).Seconds())
	}
	if len(problems) > 0 {
		return fmt.Errorf("verify found %d problem(s):\n%s", len(problems), strings.Join(problems, "\n"))
	}
	fmt.Printf("\n%d stage(s) verified\n", len(todo))
	return nil
}

// listChecks checks that each of the stage's tests selects at least one
// test, without running them.
func listChecks(dir string, s stage) error {
	for _, t := range s.Tests {
		out, err := output(dir, "go", t.listArgs()...)
		if err != nil {
			return fmt.Errorf("%s: %v\n%s", strings.Join(t.listArgs()[2:], " "), err, lastLines(out, 10))
		}
		if t.Labels == "" && !listedATest(out) {
			return fmt.Errorf("%s: no test matches", strings.Join(t.listArgs()[2:], " "))
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

// cmdDoctor checks the machine for what the workshop needs.
func cmdDoctor(root string) error {
	ok := true
	check := func(what string, err error, fix string) {
		if err == nil {
			fmt.Printf("  ok    %s\n", what)
			return
		}
		ok = false
		fmt.Printf("  MISSING %s: %v\n        fix: %s\n", what, err, fix)
	}
	check("Go 1.26 or newer ("+runtime.Version()+")", goVersionOK(), "install Go 1.26 from https://go.dev/dl")
	_, err := exec.LookPath("git")
	check("git", err, "install git")
	_, errMake := exec.LookPath("make")
	check("make", errMake, "install make (Debian/Ubuntu: apt-get install make; macOS: xcode-select --install)")

	kubectl, kerr := findKubectl(root)
	check("kubectl", kerr, "install kubectl, or run `make cluster`, which builds one")
	_, dockerErr := exec.LookPath("docker")
	_, kindErr := exec.LookPath("kind")
	_, kwokErr := os.Stat(filepath.Join(root, "bin", "kwokctl"))
	switch {
	case dockerErr == nil && kindErr == nil:
		check("Docker and kind (the workshop's cluster)", nil, "")
	case kwokErr == nil:
		check("the local cluster tools (kwokctl in bin/)", nil, "")
	default:
		check("a way to run a cluster", fmt.Errorf("neither Docker with kind, nor kwokctl in bin/"),
			"install Docker and kind, or run `make cluster` (no Docker needed)")
	}
	if kerr == nil {
		out, err := output(root, kubectl, "--request-timeout=5s", "get", "--raw", "/readyz")
		if err != nil {
			err = fmt.Errorf("%s", lastLines(out, 1))
		}
		check("a reachable cluster (current kubeconfig context)", err, "start one: `make cluster` (no Docker) or `make kind-cluster`")
	}
	_, err = os.Stat(filepath.Join(root, "bin", "envtest-assets-path"))
	check("envtest binaries (etcd, kube-apiserver)", err, "run `make setup-envtest` (downloads, or builds them from the Go module proxy once)")
	if !ok {
		return fmt.Errorf("some parts are missing; fix them as shown and run `lab doctor` again")
	}
	fmt.Println("\nAll set.")
	return nil
}

func goVersionOK() error {
	var major, minor int
	if _, err := fmt.Sscanf(runtime.Version(), "go%d.%d", &major, &minor); err != nil {
		return nil // a development build: assume it is new enough
	}
	if major > 1 || minor >= 26 {
		return nil
	}
	return fmt.Errorf("this is %s", runtime.Version())
}

func findKubectl(root string) (string, error) {
	if p, err := exec.LookPath("kubectl"); err == nil {
		return p, nil
	}
	cache, _ := os.UserCacheDir()
	matches, _ := filepath.Glob(filepath.Join(cache, "cronlab", "kubernetes-*", "kubectl"))
	if len(matches) > 0 {
		return matches[len(matches)-1], nil
	}
	return "", fmt.Errorf("not on PATH")
}

func previousStage(stages []stage, s stage) (stage, bool) {
	for i := range stages {
		if stages[i].ID == s.ID && i > 0 {
			return stages[i-1], true
		}
	}
	return stage{}, false
}
