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

package localcluster

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A component of this HOME's cluster is found through kwokctl's PID file:
// another kube-controller-manager on the machine (another user's cluster,
// this test's own process standing in for it) is never taken for it.
func TestAComponentOfThisHOMEsClusterOnlyIsFound(t *testing.T) {
	workdir := t.TempDir()
	t.Setenv("KWOK_WORKDIR", workdir)
	t.Setenv("CLUSTER_NAME", "cronlab")
	pids := filepath.Join(workdir, "clusters", "cronlab", "pids")

	if _, err := Process("kube-controller-manager"); err == nil || !strings.Contains(err.Error(), "make cluster") {
		t.Errorf("no cluster: want an error that says to run make cluster, got %v", err)
	}

	if err := os.MkdirAll(pids, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(pid int) {
		if err := os.WriteFile(filepath.Join(pids, "kube-controller-manager.pid"), []byte(fmt.Sprintf("%d\n", pid)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(os.Getpid())
	if pid, err := Process("kube-controller-manager"); err != nil || pid != os.Getpid() {
		t.Errorf("got %d, %v; want the PID in the file, %d", pid, err, os.Getpid())
	}

	write(1 << 30) // no such process: the cluster is gone, its file left behind
	if _, err := Process("kube-controller-manager"); err == nil || !strings.Contains(err.Error(), "not running") {
		t.Errorf("a stale PID file: want an error that says so, got %v", err)
	}
}
