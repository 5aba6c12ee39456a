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

package apiserver

// Processes and locks on Linux and macOS (and WSL2, which is Linux). The lab
// tool also builds for Windows (proc_other.go), where the lab runs in WSL2.

import (
	"os"
	"syscall"
)

// sharedSupported: the shared API server runs here.
const sharedSupported = true

// alive tells whether a process with this PID exists.
func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

// terminate asks a process to stop; kill stops it now.
func terminate(pid int) { _ = syscall.Kill(pid, syscall.SIGTERM) }
func kill(pid int)      { _ = syscall.Kill(pid, syscall.SIGKILL) }

// detached runs a command in a session of its own, so that a Ctrl-C in the
// terminal that started it does not reach it.
func detached() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

// lock takes an exclusive lock on f; wait says whether to wait for it.
func lock(f *os.File, wait bool) error {
	how := syscall.LOCK_EX
	if !wait {
		how |= syscall.LOCK_NB
	}
	return syscall.Flock(int(f.Fd()), how)
}
