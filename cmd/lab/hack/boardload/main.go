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

// Command boardload puts the class board (bin/lab board) under a room's
// load and a fault: N attendees each send a check's result every interval
// for a while, and halfway the board is killed with SIGKILL and started
// again on the same database and port. It asserts what the board promises
// (board/store.go): nothing it acknowledged is lost, and a result sent
// again counts once. It measures what the instructor waits for: the time
// from a check to its result being stored, and to its being on the page.
// `make board-load` runs the full size and writes docs/bench/board-load.md;
// `make board-load-ci` is the short run CI fails on.
//
// The board is the real binary in its own process, so that the kill is a
// real SIGKILL and the restart replays the real file. The attendees are
// goroutines that use package class, the code bin/lab check sends with:
// each has its own state directory, queue and sequence numbers. Everything
// listens on loopback only, and every phase is bounded: the run stops by
// itself, at most a minute or two after -for.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"cronlab.dev/cronlab/cmd/lab/internal/class"
	"cronlab.dev/cronlab/cmd/lab/internal/classwire"
)

type config struct {
	lab                      string
	attendees                int
	every, dur, killAt, down time.Duration
	lostAnswers              bool
	out, dir                 string
}

// Bounds of the phases that wait on the board.
const (
	boardCode   = "LOADRUN"
	startBudget = 60 * time.Second // a start, replay of the database included
	drainBudget = 60 * time.Second // sending what waits once the checks stopped
	shownBudget = 10 * time.Second // the page catching up after that
)

// optionalDuration is a flag whose default depends on another one's value.
type optionalDuration struct {
	d   time.Duration
	set bool
}

func (o *optionalDuration) String() string {
	if o == nil || !o.set {
		return ""
	}
	return o.d.String()
}

func (o *optionalDuration) Set(s string) error {
	d, err := time.ParseDuration(s)
	o.d, o.set = d, true
	return err
}

func parseFlags(args []string) (config, error) {
	var c config
	var killAt optionalDuration
	fs := flag.NewFlagSet("boardload", flag.ContinueOnError)
	fs.StringVar(&c.lab, "lab", "bin/lab", "the lab tool whose board is loaded (make lab builds it)")
	fs.IntVar(&c.attendees, "attendees", 200, "how many attendees join")
	fs.DurationVar(&c.every, "every", 5*time.Second, "how often each attendee checks")
	fs.DurationVar(&c.dur, "for", 5*time.Minute, "how long they check")
	fs.Var(&killAt, "kill-at", "when the board is SIGKILLed, after the first check (default: half of -for; 0: never)")
	fs.DurationVar(&c.down, "down", 3*time.Second, "how long the killed board stays down before it is started again")
	fs.BoolVar(&c.lostAnswers, "lost-answers", true, "after the restart, each attendee sends again the last result acknowledged before the kill, as if the kill had cut off its answer")
	fs.StringVar(&c.out, "out", "", "a Markdown report to write (default: none)")
	fs.StringVar(&c.dir, "dir", "", "a work directory to use and keep (default: a temporary one, removed at the end)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	c.killAt = c.dur / 2
	if killAt.set {
		c.killAt = killAt.d
	}
	switch {
	case fs.NArg() > 0:
		return c, fmt.Errorf("unexpected arguments: %v", fs.Args())
	case c.attendees < 1 || c.attendees > 5000:
		return c, errors.New("-attendees must be 1 to 5000")
	case c.every < 100*time.Millisecond:
		return c, errors.New("-every must be at least 100ms")
	case c.dur < c.every || c.dur > 2*time.Hour:
		return c, errors.New("-for must be at least -every and at most 2h")
	case c.killAt < 0 || c.killAt >= c.dur:
		return c, errors.New("-kill-at must be within -for (0: no kill)")
	case c.down < 0 || c.down > time.Minute:
		return c, errors.New("-down must be 0 to 1m")
	}
	lab, err := filepath.Abs(c.lab)
	if err == nil {
		_, err = os.Stat(lab)
	}
	if err != nil {
		return c, fmt.Errorf("-lab %s: %w (make lab builds it)", c.lab, err)
	}
	c.lab = lab
	return c, nil
}

func main() {
	cfg, err := parseFlags(os.Args[1:])
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "boardload:", err)
		os.Exit(2)
	}
	os.Exit(loadRun(cfg))
}

// loadRun is the whole run; its result is the exit status.
func loadRun(cfg config) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	began := time.Now()
	work, removeWork, err := workDir(cfg.dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "boardload:", err)
		return 1
	}
	defer removeWork()
	r, err := setUp(cfg, work)
	if r != nil {
		defer r.board.log.Close()
		defer r.board.stop() // before the work directory goes: deferred calls run last first
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "boardload:", err)
		return 1
	}
	r.loadAvg = loadAverage()
	r.exercise(ctx)
	if ctx.Err() != nil {
		r.failf("interrupted")
	}
	f := r.finish(ctx, began)
	printReport(os.Stdout, f)
	if cfg.out != "" {
		if err := writeReport(cfg.out, f); err != nil {
			fmt.Fprintln(os.Stderr, "boardload:", err)
			return 1
		}
		fmt.Println("Written to", cfg.out)
	}
	if len(f.failures) > 0 {
		fmt.Fprintf(os.Stderr, "boardload: FAIL: %d problems, the first: %s\n", len(f.failures), f.failures[0])
		return 1
	}
	return 0
}

// workDir is dir, which must not hold an earlier run, or a temporary
// directory removed by the returned function.
func workDir(dir string) (string, func(), error) {
	if dir == "" {
		tmp, err := os.MkdirTemp("", "boardload-")
		return tmp, func() { _ = os.RemoveAll(tmp) }, err
	}
	if _, err := os.Stat(filepath.Join(dir, "board.db")); err == nil {
		return "", nil, fmt.Errorf("%s holds an earlier run's board.db: choose an empty -dir", dir)
	}
	return dir, func() {}, os.MkdirAll(dir, 0o755)
}

// setUp starts the board and joins the attendees, each with its own state
// directory, as N clones on N laptops would.
func setUp(cfg config, work string) (*run, error) {
	addr, err := freeLoopbackAddr()
	if err != nil {
		return nil, err
	}
	log, err := os.Create(filepath.Join(work, "board.log"))
	if err != nil {
		return nil, err
	}
	r := &run{cfg: cfg, work: work, board: &boardProc{lab: cfg.lab, addr: addr, db: filepath.Join(work, "board.db"), code: boardCode, log: log}}
	started, answered, err := r.board.start(startBudget)
	if err != nil {
		return r, err
	}
	fmt.Printf("Board up on %s (pid %d), answering %v after its start.\n", r.board.url(), r.board.pid(), answered.Sub(started).Round(time.Millisecond))
	for i := 1; i <= cfg.attendees; i++ {
		dir := filepath.Join(work, "attendees", fmt.Sprintf("%04d", i))
		m, err := class.Join(dir, r.board.url(), boardCode, fmt.Sprintf("load-%04d", i))
		if err != nil {
			return r, fmt.Errorf("attendee %d could not join: %w", i, err)
		}
		r.attendees = append(r.attendees, &attendee{n: i, dir: dir, id: m.Attendee, unacked: map[int64]classwire.Message{}})
	}
	fmt.Printf("%d attendees joined; each checks every %v for %v", cfg.attendees, cfg.every, cfg.dur)
	if cfg.killAt > 0 {
		fmt.Printf("; the board is SIGKILLed at %v and started again %v later", cfg.killAt, cfg.down)
	}
	fmt.Println(".")
	r.watch = newWatcher(r)
	return r, nil
}
