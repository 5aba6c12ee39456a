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

// Package localcluster finds the processes of the local cluster of `make
// cluster` (hack/local-cluster.sh) for the tools that measure or break it
// (hack/bench, hack/chaos). kwokctl keeps a directory per cluster, per HOME,
// with a PID file and a log for each component; a process is found by its
// PID file, never by its name: on a shared machine another user's cluster
// runs the same programs.
package localcluster

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Dir is the directory where kwokctl keeps the local cluster for this HOME
// (the same CLUSTER_NAME and KWOK_WORKDIR as hack/local-cluster.sh).
func Dir() string {
	name := os.Getenv("CLUSTER_NAME")
	if name == "" {
		name = "cronlab"
	}
	workdir := os.Getenv("KWOK_WORKDIR")
	if workdir == "" {
		home, _ := os.UserHomeDir()
		workdir = filepath.Join(home, ".kwok")
	}
	return filepath.Join(workdir, "clusters", name)
}

// Log is the log file of a component.
func Log(component string) string { return filepath.Join(Dir(), "logs", component+".log") }

// PIDFile is where kwokctl records the PID of a component.
func PIDFile(component string) string { return filepath.Join(Dir(), "pids", component+".pid") }

// Process is the PID of a component of this HOME's local cluster
// ("kube-apiserver", "etcd", "kube-controller-manager"), from its PID file.
func Process(component string) (int, error) {
	file := PIDFile(component)
	raw, err := os.ReadFile(file)
	if err != nil {
		return 0, fmt.Errorf("no %s of the local cluster (%v): run `make cluster` first", component, err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil {
		return 0, fmt.Errorf("%s: not a PID: %v", file, err)
	}
	// Signal 0 only asks whether the process exists.
	if p, err := os.FindProcess(pid); err != nil || p.Signal(syscall.Signal(0)) != nil {
		return 0, fmt.Errorf("%s names PID %d, which is not running: run `make cluster` again", file, pid)
	}
	return pid, nil
}
