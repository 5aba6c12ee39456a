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

// Command bench measures what an attendee waits for: `bin/lab check` of a
// stage after a one-line edit, three ways: in a worktree of an earlier
// commit with its lab tool, tests and code (before), with this one while
// every test starts its own API server (LAB_SHARED_APISERVER=off), and with
// its shared API server. `make bench-lab` runs it. It works in a clone of
// this repository with the working tree's tracked changes (git stash
// create), so the edits never touch your tree, and prints the figures of
// docs/performance.md's "Fast feedback" section. It lives beside bin/lab
// because it reads the stages as bin/lab does (package stage).
//
// Each run appends one line of code (a package variable) to a file that
// holds one of the stage's regions, as an attendee's save would: Go
// recompiles that package and relinks the test binary, as after a real edit.
// (A comment would not do: Go sees that the compiled package is the same and
// skips the link.) The first check of
// each column is reported apart from the others: it pays for starting the
// shared server, or for the first build of the test binary.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"cronlab.dev/cronlab/cmd/lab/internal/stage"
)

func main() {
	stages := flag.String("stages", "04,06,15,16", "the stages to check, comma-separated")
	runs := flag.Int("runs", 5, "checks after an edit per stage and mode, after the first")
	modes := flag.String("modes", "before,own,shared", "before: the lab tool of -before; own: this lab tool, every test starting its own API server; shared: this lab tool with its shared API server")
	before := flag.String("before", "0784148", "the commit whose lab tool the before mode runs (the last one without the shared API server)")
	makeTest := flag.Bool("make-test", false, "also time `make test` in the clone, twice (the second is the warm figure)")
	flag.Parse()

	repo, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	check(err)
	root := strings.TrimSpace(string(repo))
	assets := os.Getenv("KUBEBUILDER_ASSETS")
	if assets == "" {
		raw, err := os.ReadFile(filepath.Join(root, "bin", "envtest-assets-path"))
		if err != nil {
			fail("no envtest binaries: run `make setup-envtest` first (make bench-lab does)")
		}
		assets = strings.TrimSpace(string(raw))
	}

	clone, err := os.MkdirTemp("", "cronlab-bench-lab-")
	check(err)
	defer func() { _ = os.RemoveAll(clone) }()
	// The tree as it is, uncommitted changes to tracked files included.
	rev := "HEAD"
	if out, err := exec.Command("git", "-C", root, "stash", "create").Output(); err == nil && strings.TrimSpace(string(out)) != "" {
		rev = strings.TrimSpace(string(out))
	}
	fmt.Printf("cloning %s into %s\n", rev, clone)
	run(root, "git", "clone", "-q", "--no-hardlinks", "--no-checkout", root, clone)
	run(clone, "git", "fetch", "-q", root, rev)
	run(clone, "git", "checkout", "-q", "--detach", "FETCH_HEAD")
	run(clone, "go", "build", "-o", "bin/lab", "./cmd/lab")
	if strings.Contains(*modes, "before") {
		old := filepath.Join(clone, "bin", "lab-before-src")
		run(clone, "git", "worktree", "add", "-q", "--detach", old, *before)
		run(old, "go", "build", "-o", filepath.Join(clone, "bin", "lab-before"), "./cmd/lab")
	}
	env := append(os.Environ(), "KUBEBUILDER_ASSETS="+assets)
	// stopServers stops the shared API server of the clone and that of the
	// earlier tool's worktree: between two columns, so that an idle server
	// of one does not slow the checks of the other, and at the end.
	stopServers := func() {
		_, _ = timed(clone, env, "bin/lab", "stop")
		if strings.Contains(*modes, "before") {
			_, _ = timed(filepath.Join(clone, "bin", "lab-before-src"), env, filepath.Join(clone, "bin", "lab-before"), "stop")
		}
	}
	defer stopServers()

	type row struct {
		stage, mode string
		first       time.Duration
		after       []time.Duration
	}
	var rows []row
	for _, id := range strings.Split(*stages, ",") {
		for _, mode := range strings.Split(*modes, ",") {
			// The earlier tool runs in a worktree of its own commit: its
			// stage.yaml files, its tests, its code.
			dir := clone
			if mode == "before" {
				dir = filepath.Join(clone, "bin", "lab-before-src")
			}
			file := regionFile(dir, id)
			modeEnv := append(env[:len(env):len(env)], "LAB_SHARED_APISERVER=on")
			lab := "bin/lab"
			switch mode {
			case "own":
				modeEnv = append(env[:len(env):len(env)], "LAB_SHARED_APISERVER=off")
			case "before":
				lab = filepath.Join(clone, "bin", "lab-before")
			}
			stopServers()
			r := row{stage: id, mode: mode}
			for i := 0; i <= *runs; i++ {
				edit(filepath.Join(dir, file), fmt.Sprintf("%s-%d", mode, i))
				d, err := timed(dir, modeEnv, lab, "check", id)
				if err != nil {
					fail("stage %s (%s) failed on the reference: %v", id, mode, err)
				}
				if i == 0 {
					r.first = d
				} else {
					r.after = append(r.after, d)
				}
				fmt.Printf("  stage %s, %-6s check %d after editing %s: %.1fs\n", id, mode, i, file, d.Seconds())
			}
			rows = append(rows, r)
		}
	}

	fmt.Printf("\n`bin/lab check` after a one-line edit, %d runs after the first (%s, %d CPUs):\n\n", *runs, time.Now().UTC().Format("2006-01-02"), runtime.NumCPU())
	fmt.Println("| stage | lab tool | first check | median after an edit | max after an edit |")
	fmt.Println("|---|---|---|---|---|")
	for _, r := range rows {
		fmt.Printf("| %s | %s | %.1f s | %.1f s | %.1f s |\n", r.stage, r.mode, r.first.Seconds(), median(r.after).Seconds(), maxOf(r.after).Seconds())
	}

	if *makeTest {
		fmt.Println("\n`make test` in the clone (the first run builds the tools and test binaries):")
		for i, what := range []string{"first", "warm"} {
			d, err := timed(clone, env, "make", "test")
			if err != nil {
				fail("make test failed: %v", err)
			}
			fmt.Printf("| make test, %s (run %d) | %.0f s |\n", what, i+1, d.Seconds())
		}
	}
}

// regionFile is a file that holds one of the stage's regions: the place an
// attendee edits. The stage is read as bin/lab reads it (package stage).
func regionFile(root, id string) string {
	stages, err := stage.Load(root)
	check(err)
	s, err := stage.Find(stages, id)
	check(err)
	if len(s.Regions) == 0 {
		fail("stage %s has no region to edit", id)
	}
	region := s.Regions[0]
	out, err := exec.Command("git", "-C", root, "grep", "-l", "lab:begin "+region+"$", "--", "*.go").Output()
	if err != nil || len(out) == 0 {
		fail("stage %s: no Go file holds region %q", id, region)
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n")[0]
}

func edit(path, tag string) {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	check(err)
	_, err = fmt.Fprintf(f, "\nvar benchLabEdit%s = %q\n", strings.NewReplacer("-", "_").Replace(tag), tag)
	check(err)
	check(f.Close())
}

func timed(dir string, env []string, name string, args ...string) (time.Duration, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, env
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if err != nil {
		err = fmt.Errorf("%w\n%s", err, out)
	}
	return time.Since(start), err
}

func run(dir, name string, args ...string) {
	if _, err := timed(dir, os.Environ(), name, args...); err != nil {
		fail("%s %s: %v", name, strings.Join(args, " "), err)
	}
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

func maxOf(ds []time.Duration) time.Duration {
	var m time.Duration
	for _, d := range ds {
		m = max(m, d)
	}
	return m
}

func check(err error) {
	if err != nil {
		fail("%v", err)
	}
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bench-lab: "+format+"\n", args...)
	os.Exit(1)
}
