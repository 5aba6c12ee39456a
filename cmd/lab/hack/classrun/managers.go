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

package main

// The attendees' managers: each the real bin/manager in a process of its
// own, as `make run NAMESPACE=<ns>` starts it on an attendee's laptop, with
// the attendee's kubeconfig and so the attendee's rights, and nothing of
// the instructor's environment that could widen them.

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// workersStarted is what controller-runtime logs once a controller runs:
// with leader election, only after the manager got its Lease.
const workersStarted = "Starting workers"

// acquiredLease is what client-go's leader election logs when it leads,
// with the Lease's namespace/name as lock="..." (structured klog), or after
// it (the older printf form).
var acquiredLease = regexp.MustCompile(`(?i)successfully acquired lease"?\s+(?:lock=")?([^"\s]+)`)

func leaseOf(line string) (string, bool) {
	m := acquiredLease.FindStringSubmatch(line)
	if m == nil {
		return "", false
	}
	return m[1], true
}

type manager struct {
	a        *attendee
	cmd      *exec.Cmd
	log      string
	started  time.Time
	ready    time.Time // when its log first showed workersStarted
	done     chan struct{}
	exited   time.Time
	exitErr  error
	stopping atomic.Bool // set before this run stops it: any other exit is a crash
	peakRSS  int64       // kB, the highest VmRSS sampled
	hwm      int64       // kB, VmHWM read just before it was stopped
}

// cleanEnv is this process's environment without what would point a child
// elsewhere than the kubeconfig and namespace it is given.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if name != "KUBECONFIG" && name != "WATCH_NAMESPACE" && name != "ENABLE_WEBHOOKS" {
			env = append(env, kv)
		}
	}
	return env
}

// startManager starts a's manager, logging to a file of the work directory.
// It gets a process group of its own, so that Ctrl-C in the terminal
// reaches this program only, which then stops each manager once, and a
// death signal, so that it does not outlive a SIGKILLed classrun.
func (r *run) startManager(a *attendee) (*manager, error) {
	m := &manager{a: a, log: filepath.Join(r.work, "logs", a.name+".log"), done: make(chan struct{})}
	if err := os.MkdirAll(filepath.Dir(m.log), 0o755); err != nil {
		return nil, err
	}
	f, err := os.Create(m.log)
	if err != nil {
		return nil, err
	}
	m.cmd = exec.Command(r.cfg.manager, "--namespace", a.ns, "--leader-elect",
		"--metrics-bind-address", "0", "--health-probe-bind-address", "0")
	m.cmd.Env = append(cleanEnv(), "KUBECONFIG="+a.kubeconfig, "ENABLE_WEBHOOKS=false")
	m.cmd.Stdout, m.cmd.Stderr = f, f
	m.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	m.started = time.Now()
	if err := m.cmd.Start(); err != nil {
		f.Close()
		return nil, err
	}
	go func() {
		m.exitErr = m.cmd.Wait()
		m.exited = time.Now()
		f.Close()
		close(m.done)
	}()
	return m, nil
}

func (m *manager) alive() bool {
	select {
	case <-m.done:
		return false
	default:
		return true
	}
}

// startManagers starts one manager per attendee and waits until each one's
// controller runs; a manager that exits, or is not running within the
// budget, fails the run.
func (r *run) startManagers(stop <-chan struct{}) error {
	for _, a := range r.attendees {
		m, err := r.startManager(a)
		if err != nil {
			return fmt.Errorf("starting %s's manager: %w", a.name, err)
		}
		r.managers = append(r.managers, m)
	}
	progress("%d managers started, each scoped to its attendee's namespace with the attendee's token; waiting for their workers", len(r.managers))
	deadline := time.Now().Add(r.cfg.startupBudget)
	for {
		waiting := 0
		for _, m := range r.managers {
			if !m.ready.IsZero() {
				continue
			}
			if !m.alive() {
				return fmt.Errorf("%s's manager exited before its workers started (%v): %s", m.a.name, m.exitErr, lastLines(m.log, 5))
			}
			if logHas(m.log, workersStarted) {
				m.ready = time.Now()
				continue
			}
			waiting++
		}
		if waiting == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d managers' workers had not started after %v", waiting, r.cfg.startupBudget)
		}
		select {
		case <-stop:
			return fmt.Errorf("interrupted while the managers started")
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// stopManagers stops every manager still running: SIGTERM, which a manager
// takes for a clean stop, then SIGKILL for any still there 10 s later.
// Each is signalled by the PID this run started it with, nothing else.
func (r *run) stopManagers() {
	var running []*manager
	for _, m := range r.managers {
		if m.alive() {
			m.stopping.Store(true)
			m.hwm = procStatusKB(m.cmd.Process.Pid, "VmHWM")
			_ = m.cmd.Process.Signal(syscall.SIGTERM)
			running = append(running, m)
		}
	}
	if len(running) == 0 {
		return
	}
	deadline := time.After(10 * time.Second)
	killed := 0
	for _, m := range running {
		select {
		case <-m.done:
		case <-deadline:
			deadline = closedTimer()
			_ = m.cmd.Process.Kill()
			killed++
			<-m.done
		}
	}
	progress("%d managers stopped (%d of them needed SIGKILL)", len(running), killed)
}

func closedTimer() <-chan time.Time {
	c := make(chan time.Time)
	close(c)
	return c
}

// sampleRSS reads each running manager's resident memory, keeps each one's
// peak, and returns their sum and how many run.
func (r *run) sampleRSS() (sum int64, alive int) {
	for _, m := range r.managers {
		if !m.alive() {
			continue
		}
		alive++
		kb := procStatusKB(m.cmd.Process.Pid, "VmRSS")
		m.peakRSS = max(m.peakRSS, kb)
		sum += kb
	}
	return sum, alive
}

// procStatusKB reads a "<key>: <n> kB" line of /proc/<pid>/status; 0 if
// the process is gone.
func procStatusKB(pid int, key string) int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), key+":"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb
		}
	}
	return 0
}

func logHas(path, text string) bool {
	raw, err := os.ReadFile(path)
	return err == nil && strings.Contains(string(raw), text)
}

func lastLines(path string, n int) string {
	raw, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimRight(string(raw), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], " | ")
}

// logVerdict is what one manager's log says about the run.
type logVerdict struct {
	forbidden     []string // lines that mention a 403
	starts        int      // "starting manager": more than one is a restart
	reconcileErrs int
	cleanStop     bool
	leases        []string // the Leases it acquired, namespace/name
}

// leaseIn tells whether the manager led by a Lease of namespace ns, and of
// no other: leader election that needed a Lease elsewhere would be refused.
func (v logVerdict) leaseIn(ns string) bool {
	return len(v.leases) > 0 && !slices.ContainsFunc(v.leases, func(l string) bool { return !strings.HasPrefix(l, ns+"/") })
}

func readLog(path string) logVerdict {
	var v logVerdict
	raw, _ := os.ReadFile(path)
	for _, line := range strings.Split(string(raw), "\n") {
		switch {
		case strings.Contains(strings.ToLower(line), "forbidden"):
			v.forbidden = append(v.forbidden, line)
		case strings.Contains(line, "starting manager"):
			v.starts++
		case strings.Contains(line, "Reconciler error"):
			v.reconcileErrs++
		case strings.Contains(line, "manager stopped"):
			v.cleanStop = true
		}
		if lease, ok := leaseOf(line); ok {
			v.leases = append(v.leases, lease)
		}
	}
	return v
}

// logTally is what the managers' logs said, summed.
type logTally struct{ forbidden, restarts, cleanStops, reconcileErrs int }

// checkManagers judges each manager, once stopped: it ran from start to
// end in one process, and its log has no refusal in it. A manager that
// reached outside its namespace would have been refused, and said so.
func (r *run) checkManagers() {
	for _, m := range r.managers {
		v := readLog(m.log)
		r.logs.forbidden += len(v.forbidden)
		r.logs.reconcileErrs += v.reconcileErrs
		if v.cleanStop {
			r.logs.cleanStops++
		}
		if v.starts != 1 || (!m.stopping.Load() && !m.alive()) {
			r.logs.restarts++
		}
		if !v.leaseIn(m.a.ns) {
			r.failf("%s's manager never logged that it acquired its Lease in %s", m.a.name, m.a.ns)
		}
		if len(v.forbidden) > 0 {
			r.failf("%s's manager was refused %d times, first: %s", m.a.name, len(v.forbidden), strings.TrimSpace(v.forbidden[0]))
		}
		if v.starts != 1 {
			r.failf("%s's manager started %d times in its log", m.a.name, v.starts)
		}
		if !m.stopping.Load() && !m.alive() {
			r.failf("%s's manager exited by itself at %s (%v): %s", m.a.name, m.exited.Format(time.TimeOnly), m.exitErr, lastLines(m.log, 3))
		}
		if m.stopping.Load() && !v.cleanStop {
			r.notes = append(r.notes, fmt.Sprintf("%s's manager did not log a clean stop (%v)", m.a.name, m.exitErr))
		}
	}
}
