//go:build linux

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

// Command classrun plays a whole class on one real cluster (issue 40): it
// prepares N attendees with `bin/lab class setup`, shows that one
// attendee's kubeconfig is refused everything in a neighbour's namespace
// and on the cluster, starts one manager per attendee scoped to their
// namespace and authenticated as them, gives each a CronJob that runs every
// minute, and after -for checks from the API server's side what a class
// relies on: every run started once, no Job where it does not belong, no
// manager refused or restarted. It reports the skew of the runs and what
// the managers cost in memory, which is what a classroom server must have
// per attendee. Whatever happens, it stops its managers and tears the
// class down. `make class-cluster` writes docs/bench/class-cluster.md;
// `make class-cluster-ci` is the short run CI fails on.
//
// It reads /proc for the managers' memory, hence Linux only.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"
)

type config struct {
	attendees             int
	dur                   time.Duration
	class                 string
	manager, lab, kubectl string
	out, dir              string
	margin, startupBudget time.Duration
	hours                 float64
	command               string
}

func parseFlags(args []string) (config, error) {
	var c config
	fs := flag.NewFlagSet("classrun", flag.ContinueOnError)
	fs.IntVar(&c.attendees, "attendees", 30, "how many attendees the class has (at least 2: the isolation checks need a neighbour)")
	fs.DurationVar(&c.dur, "for", 3*time.Minute, "how long the class runs once every CronJob exists")
	fs.StringVar(&c.class, "class", "classrun", "the class's name: namespaces are <class>-<name>, and teardown removes this class only")
	fs.StringVar(&c.manager, "manager", "bin/manager", "the manager each attendee runs (make build)")
	fs.StringVar(&c.lab, "lab", "bin/lab", "the lab tool whose `class setup` and `class teardown` are used (make lab)")
	fs.StringVar(&c.kubectl, "kubectl", "", "the kubectl of the isolation checks (default: the one make cluster built, else kubectl on PATH)")
	fs.StringVar(&c.out, "out", "", "a Markdown report to write (default: none)")
	fs.StringVar(&c.dir, "dir", "", "a work directory to keep: roster, kubeconfigs, managers' logs (default: a temporary one, kept only on failure)")
	fs.DurationVar(&c.margin, "margin", 20*time.Second, "a run is judged only if it came due at least this long before the end")
	fs.Float64Var(&c.hours, "hours", 1, "how long the attendees' tokens last (lab class setup --hours)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	c.command = "go run ./cmd/lab/hack/classrun " + strings.Join(args, " ")
	c.startupBudget = 90*time.Second + time.Duration(c.attendees)*2*time.Second
	switch {
	case fs.NArg() > 0:
		return c, fmt.Errorf("unexpected arguments: %v", fs.Args())
	case c.attendees < 2 || c.attendees > 500:
		return c, errors.New("-attendees must be 2 to 500")
	case c.dur < time.Minute+c.margin || c.dur > 2*time.Hour:
		return c, fmt.Errorf("-for must be at least a minute and -margin (%v), so that a run comes due, and at most 2h", c.margin)
	case len(validation.IsDNS1123Label(c.class+"-x")) > 0:
		return c, fmt.Errorf("-class %q cannot start a namespace's name", c.class)
	case c.hours*60 < 10:
		return c, errors.New("-hours must be at least 10 minutes' worth: the TokenRequest API refuses shorter tokens")
	}
	var err error
	if c.manager, err = existing(c.manager, "make build"); err != nil {
		return c, err
	}
	if c.lab, err = existing(c.lab, "make lab"); err != nil {
		return c, err
	}
	if c.kubectl == "" {
		c.kubectl = defaultKubectl()
	}
	return c, nil
}

// existing is path made absolute, or an error that says what builds it.
func existing(path, builds string) (string, error) {
	abs, err := filepath.Abs(path)
	if err == nil {
		_, err = os.Stat(abs)
	}
	if err != nil {
		return "", fmt.Errorf("%s: %w (%s builds it)", path, err, builds)
	}
	return abs, nil
}

// defaultKubectl prefers the kubectl of the local cluster's version, as the
// Makefile does: an older one on PATH warns on every command, and its
// warning would sit in the refusal that the report quotes.
func defaultKubectl() string {
	home, _ := os.UserHomeDir()
	found, _ := filepath.Glob(filepath.Join(home, ".cache", "cronlab", "kubernetes-*", "kubectl"))
	if len(found) > 0 {
		return found[len(found)-1]
	}
	if p, err := exec.LookPath("kubectl"); err == nil {
		return p
	}
	return "kubectl"
}

func main() {
	cfg, err := parseFlags(os.Args[1:])
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "classrun:", err)
		os.Exit(2)
	}
	os.Exit(classRun(cfg))
}

func progress(format string, args ...any) {
	fmt.Printf("%s  %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

// classRun is the whole run; its result is the exit status. Everything
// that must be undone is undone by a deferred call registered before the
// step that makes it, so that a failure or Ctrl-C at any step undoes what
// exists, and only that.
func classRun(cfg config) (status int) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	r := &run{cfg: cfg, began: time.Now()}
	work, keep, err := workDir(cfg.dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "classrun:", err)
		return 1
	}
	r.work = work
	defer func() {
		if status == 0 && !keep {
			_ = os.RemoveAll(work)
		} else {
			fmt.Printf("The roster, kubeconfigs and managers' logs are kept in %s\n", work)
		}
	}()
	defer r.tearDown()
	err = r.exercise(ctx)
	if ctx.Err() != nil {
		err = errors.New("interrupted (Ctrl-C or SIGTERM) before the end: nothing was judged")
	}
	if err != nil {
		r.failf("%v", err)
	}
	text := markdown(r.figures())
	fmt.Print("\n" + text)
	// A run cut short measured nothing worth keeping; a run that went to
	// the end is written even when it failed, with its failures in it.
	if cfg.out != "" && err == nil {
		if werr := os.WriteFile(cfg.out, []byte(text), 0o644); werr != nil {
			r.failf("writing %s: %v", cfg.out, werr)
		} else {
			fmt.Println("Written to", cfg.out)
		}
	}
	if len(r.failures) > 0 {
		fmt.Fprintf(os.Stderr, "classrun: FAIL: %d problems:\n", len(r.failures))
		for _, p := range r.failures {
			fmt.Fprintln(os.Stderr, "  -", p)
		}
		return 1
	}
	fmt.Println("classrun: PASS")
	return 0
}

// workDir is dir (kept), or a new temporary directory.
func workDir(dir string) (string, bool, error) {
	if dir == "" {
		tmp, err := os.MkdirTemp("", "classrun-")
		return tmp, false, err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", true, err
	}
	return abs, true, os.MkdirAll(abs, 0o700)
}
