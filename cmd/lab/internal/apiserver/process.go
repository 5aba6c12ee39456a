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

package apiserver

import (
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// A process is a PID and the command line it had, so that a PID the system
// has since given to another program is never signalled.
type process struct {
	PID  int    `json:"pid"`
	Args string `json:"args"`
}

// ours tells whether p is still the process that was recorded.
func (p process) ours() bool {
	return p.PID > 0 && p.Args != "" && alive(p.PID) && argsOf(p.PID) == p.Args
}

// lockFile takes an exclusive lock on path, calling waiting once if another
// process holds it, and returns the function that releases it.
func lockFile(path string, waiting func()) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := lock(f, false); err != nil {
		waiting()
		if err := lock(f, true); err != nil {
			_ = f.Close()
			return nil, err
		}
	}
	return func() { _ = f.Close() }, nil
}

func anyOurs(ps []process) bool {
	for _, p := range ps {
		if p.ours() {
			return true
		}
	}
	return false
}

// processOf records pid with its command line as ps shows it.
func processOf(pid int) process {
	return process{PID: pid, Args: argsOf(pid)}
}

func argsOf(pid int) string {
	out, err := exec.Command("ps", "-o", "args=", "-p", strconv.Itoa(pid)).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// childrenOf lists the processes whose parent is pid (ps -A works on Linux
// and macOS alike).
func childrenOf(pid int) []process {
	out, err := exec.Command("ps", "-A", "-o", "pid=,ppid=").Output()
	if err != nil {
		return nil
	}
	var children []process
	for _, line := range strings.Split(string(out), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 2 && fields[1] == strconv.Itoa(pid) {
			// ps itself is a child too, gone by the time it is asked.
			if child, err := strconv.Atoi(fields[0]); err == nil {
				if p := processOf(child); p.Args != "" {
					children = append(children, p)
				}
			}
		}
	}
	return children
}

func readFile(path string) string {
	raw, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return ""
	}
	return string(raw)
}
