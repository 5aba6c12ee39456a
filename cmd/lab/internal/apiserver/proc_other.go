//go:build !unix

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

// On Windows itself the lab is not supported (docs/laptops.md: run it in
// WSL2); the tool builds there so that CI can prove the rest of it portable.
// Without the processes and locks below, a shared server could be neither
// found alive nor held by one check at a time: it is off (Enabled), and
// every test starts its own API server, as plain go test does.

import (
	"os"
	"syscall"
)

// sharedSupported: no shared API server here.
const sharedSupported = false

func alive(int) bool { return false }

func terminate(pid int) { kill(pid) }
func kill(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}

func detached() *syscall.SysProcAttr { return nil }

func lock(*os.File, bool) error { return nil }
