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

// The board under test is the real bin/lab board, a child process: a
// SIGKILL then ends it the way a power cut or the OOM killer would, with no
// deferred Close and no last checkpoint of the SQLite file, and its restart
// reads back only what reached the file.

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

type boardProc struct {
	lab, addr, db, code string
	log                 *os.File // the board's stdout and stderr, for when it fails
	key                 string   // the instructor's, parsed from what the board printed
	up                  atomic.Bool

	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan struct{}
}

// freeLoopbackAddr is a port nobody listens on now. Closing the listener
// before the board binds it leaves a short race with other programs, which
// on a test machine's loopback is not worth the board taking a listener.
func freeLoopbackAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	addr := ln.Addr().String()
	return addr, ln.Close()
}

func (b *boardProc) url() string { return "http://" + b.addr }

// start runs the board and returns once it answers the instructor's key,
// with when it was started and when it first answered.
func (b *boardProc) start(timeout time.Duration) (started, answered time.Time, err error) {
	ann := &announcement{log: b.log, done: make(chan struct{})}
	cmd := exec.Command(b.lab, "board", "--addr", b.addr, "--db", b.db, "--code", b.code)
	// The announcement is parsed in English, whatever this machine's locale.
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	cmd.Stdout, cmd.Stderr = ann, b.log
	started = time.Now()
	if err := cmd.Start(); err != nil {
		return started, time.Time{}, fmt.Errorf("could not start %s: %w", b.lab, err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	b.mu.Lock()
	b.cmd, b.exited = cmd, exited
	b.mu.Unlock()

	deadline := time.After(timeout)
	select {
	case <-ann.done:
	case <-exited:
		return started, time.Time{}, fmt.Errorf("the board exited at start (%v): see %s", cmd.ProcessState, b.log.Name())
	case <-deadline:
		return started, time.Time{}, fmt.Errorf("the board printed no key within %v: see %s", timeout, b.log.Name())
	}
	if ann.code != b.code {
		return started, time.Time{}, fmt.Errorf("the board announced class code %q, not the %q it was given", ann.code, b.code)
	}
	// The key is stored in the board's database: a restart that printed
	// another one would have lost the instructor's page. It is set once,
	// at the first start, before anything else reads it.
	switch {
	case b.key == "":
		b.key = ann.key
	case ann.key != b.key:
		return started, time.Time{}, fmt.Errorf("the restarted board printed another key than before")
	}
	answered, err = b.waitAnswer(exited, deadline)
	if err == nil {
		b.up.Store(true)
	}
	return started, answered, err
}

// waitAnswer polls until the board serves its snapshot: the announcement
// comes once it listens, a moment before it serves.
func (b *boardProc) waitAnswer(exited <-chan struct{}, deadline <-chan time.Time) (time.Time, error) {
	client := &http.Client{Timeout: time.Second}
	for {
		resp, err := client.Get(b.url() + "/api/v1/board?key=" + b.key)
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return time.Now(), nil
			}
		}
		select {
		case <-exited:
			return time.Time{}, fmt.Errorf("the board exited before it answered: see %s", b.log.Name())
		case <-deadline:
			return time.Time{}, fmt.Errorf("the board did not answer in time: see %s", b.log.Name())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func (b *boardProc) pid() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cmd == nil || b.cmd.Process == nil {
		return 0
	}
	return b.cmd.Process.Pid
}

// kill sends SIGKILL to the board this program started, and reaps it.
func (b *boardProc) kill() error {
	b.mu.Lock()
	cmd, exited := b.cmd, b.exited
	b.mu.Unlock()
	b.up.Store(false)
	if err := cmd.Process.Kill(); err != nil {
		return err
	}
	<-exited
	return nil
}

// stop asks the board to stop (SIGTERM: it closes its database cleanly,
// which folds the write-ahead log into the file), and kills it if it has
// not within ten seconds. Stopping a board that is not running does nothing.
func (b *boardProc) stop() {
	b.mu.Lock()
	cmd, exited := b.cmd, b.exited
	b.mu.Unlock()
	if cmd == nil {
		return
	}
	select {
	case <-exited:
		return
	default:
	}
	b.up.Store(false)
	if cmd.Process.Signal(syscall.SIGTERM) == nil {
		select {
		case <-exited:
			return
		case <-time.After(10 * time.Second):
		}
	}
	_ = cmd.Process.Kill()
	<-exited
}

// announcement reads the board's stdout as it comes, line by line, for the
// class code and the instructor's key, and keeps a copy in the log.
type announcement struct {
	log       io.Writer
	buf       []byte
	code, key string
	done      chan struct{}
	once      sync.Once
}

var (
	codeLine = regexp.MustCompile(`Class code: (\S+)`)
	keyLine  = regexp.MustCompile(`https?://\S+/\?key=([0-9a-fA-F]+)`)
)

func (a *announcement) Write(p []byte) (int, error) {
	_, _ = a.log.Write(p)
	a.buf = append(a.buf, p...)
	for {
		i := bytes.IndexByte(a.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		a.scan(string(a.buf[:i]))
		a.buf = a.buf[i+1:]
	}
}

func (a *announcement) scan(line string) {
	if m := codeLine.FindStringSubmatch(line); m != nil && a.code == "" {
		a.code = m[1]
	}
	if m := keyLine.FindStringSubmatch(line); m != nil && a.key == "" {
		a.key = m[1]
	}
	if a.code != "" && a.key != "" {
		a.once.Do(func() { close(a.done) })
	}
}

// peakRSS is the process's resident set's high-water mark (VmHWM) in KiB,
// 0 where /proc does not say (macOS, Windows, a process gone).
func peakRSS(pid int) int64 {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb
		}
	}
	return 0
}
