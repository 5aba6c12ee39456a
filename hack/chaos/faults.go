//go:build unix

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

// The faults, and the processes they hit. Managers are processes this tool
// starts; etcd and kube-apiserver are the local cluster's, found by the PID
// files kwokctl keeps for this HOME (never by name: another user's cluster
// runs the same programs).

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"cronlab.dev/cronlab/hack/internal/localcluster"
)

// manager is one cronlab manager process, and when it began to lead.
type manager struct {
	name string
	cmd  *exec.Cmd
	done chan struct{}

	mu      sync.Mutex
	leading time.Time // zero until it logged that it acquired the lease
}

// startManager starts cronlab's manager scoped to namespace ns, with its
// leader election there, webhooks off, metrics and probes off so that
// several fit on one machine; its log goes to dir/<name>.log. It runs through a link named
// cronlab-<name>: client-go sends the program's name as its user agent, and
// the API server names the writer of every change after it (managedFields),
// which is how the audit tells the managers' writes apart (staleWrites).
func startManager(binary, dir, name, ns string) (*manager, error) {
	logFile, err := os.Create(filepath.Join(dir, name+".log"))
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(binary)
	if err != nil {
		return nil, err
	}
	link := filepath.Join(dir, fieldManager(name))
	_ = os.Remove(link)
	if err := os.Symlink(abs, link); err != nil {
		return nil, err
	}
	m := &manager{name: name, done: make(chan struct{})}
	m.cmd = exec.Command(link, "--namespace="+ns, "--leader-elect", "--leader-election-namespace="+ns,
		"--metrics-bind-address=0", "--health-probe-bind-address=0")
	m.cmd.Env = append(os.Environ(), "ENABLE_WEBHOOKS=false")
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	m.cmd.Stdout, m.cmd.Stderr = w, w
	if err := m.cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s (make build): %w", binary, err)
	}
	_ = w.Close()
	// The log is read as it is written: the moment a manager leads is the
	// moment it may start runs, and the audit needs it.
	go func() {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			_, _ = fmt.Fprintln(logFile, line)
			if strings.Contains(strings.ToLower(line), "successfully acquired lease") {
				m.mu.Lock()
				m.leading = time.Now()
				m.mu.Unlock()
			}
		}
		_ = logFile.Close()
	}()
	go func() { _ = m.cmd.Wait(); close(m.done) }()
	return m, nil
}

// fieldManager is the name the API server gives the writes of manager name.
func fieldManager(name string) string { return "cronlab-" + name }

// leadingSince is when the manager began to lead, or zero.
func (m *manager) leadingSince() time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.leading
}

// waitLeading waits until the manager leads, up to a limit.
func (m *manager) waitLeading(limit time.Duration) (time.Time, error) {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if t := m.leadingSince(); !t.IsZero() {
			return t, nil
		}
		select {
		case <-m.done:
			return time.Time{}, fmt.Errorf("manager %s exited before it led (its log is in the output directory)", m.name)
		case <-time.After(100 * time.Millisecond):
		}
	}
	return time.Time{}, fmt.Errorf("manager %s did not lead within %s", m.name, limit)
}

// waitAnyLeading waits until one of the managers leads, whichever it is.
func waitAnyLeading(ms []*manager, limit time.Duration) (time.Time, error) {
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		for _, m := range ms {
			if t := m.leadingSince(); !t.IsZero() {
				return t, nil
			}
		}
	}
	return time.Time{}, fmt.Errorf("no manager led within %s (their logs are in the output directory)", limit)
}

func (m *manager) signal(sig syscall.Signal) error { return m.cmd.Process.Signal(sig) }

// stop ends the manager (SIGCONT first, in case a fault froze it).
func (m *manager) stop() {
	_ = m.cmd.Process.Signal(syscall.SIGCONT)
	_ = m.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-m.done:
	case <-time.After(20 * time.Second):
		_ = m.cmd.Process.Kill()
		<-m.done
	}
}

// exited tells whether the process has ended.
func (m *manager) exited() bool {
	select {
	case <-m.done:
		return true
	default:
		return false
	}
}

// freeze stops a process of the cluster with SIGSTOP for d, then continues
// it: every connection to it hangs meanwhile, as a machine that stalls does.
// It returns when the process runs again.
func freeze(component string, d time.Duration) error {
	pid, err := localcluster.Process(component)
	if err != nil {
		return err
	}
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		return err
	}
	time.Sleep(d)
	return syscall.Kill(pid, syscall.SIGCONT)
}

// A process is how to start a component of the cluster again: its command
// line, environment and directory, read from /proc while it runs.
type process struct {
	component string
	args, env []string
	dir       string
}

// readProcess reads how a running component was started.
func readProcess(component string) (process, error) {
	pid, err := localcluster.Process(component)
	if err != nil {
		return process{}, err
	}
	argv, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return process{}, err
	}
	environ, _ := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	cwd, _ := os.Readlink(fmt.Sprintf("/proc/%d/cwd", pid))
	return process{component: component, dir: cwd,
		args: strings.Split(strings.TrimRight(string(argv), "\x00"), "\x00"),
		env:  strings.Split(strings.TrimRight(string(environ), "\x00"), "\x00")}, nil
}

// start runs the component again, with its log where kwokctl keeps it, in
// a session of its own (it outlives this tool, as kwokctl's do), and records
// its PID in kwokctl's PID file, so that `make cluster-down` stops it.
func (p process) start() error {
	logFile, err := os.OpenFile(localcluster.Log(p.component), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer func() { _ = logFile.Close() }()
	cmd := exec.Command(p.args[0], p.args[1:]...)
	cmd.Dir, cmd.Env = p.dir, p.env
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting %s again: %w", p.component, err)
	}
	go func() { _ = cmd.Wait() }()
	return os.WriteFile(localcluster.PIDFile(p.component), []byte(strconv.Itoa(cmd.Process.Pid)), 0o644)
}

// supervisor starts again the components of the cluster that exit, as the
// kubelet restarts a control plane's static pods: kube-controller-manager
// and kube-scheduler exit by design when they lose their lease, which a
// frozen kube-apiserver or etcd makes them do. kwokctl's processes have no
// supervisor of their own.
type supervisor struct {
	mu    sync.Mutex // trials run together (-together) each supervise
	procs []process
}

func newSupervisor(components ...string) (*supervisor, error) {
	s := &supervisor{}
	for _, c := range components {
		p, err := readProcess(c)
		if err != nil {
			return nil, err
		}
		s.procs = append(s.procs, p)
	}
	return s, nil
}

// restartExited starts the components that are no longer running, and
// names them.
func (s *supervisor) restartExited() ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var restarted []string
	for _, p := range s.procs {
		if _, err := localcluster.Process(p.component); err == nil {
			continue
		}
		if err := p.start(); err != nil {
			return restarted, err
		}
		restarted = append(restarted, p.component)
	}
	return restarted, nil
}

// restartProcess kills a component of the cluster with SIGKILL and starts it
// again after d as it was started.
func restartProcess(component string, d time.Duration) error {
	p, err := readProcess(component)
	if err != nil {
		return err
	}
	pid, err := localcluster.Process(component)
	if err != nil {
		return err
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		return err
	}
	time.Sleep(d)
	return p.start()
}

func numCPU() int { return goruntime.NumCPU() }
