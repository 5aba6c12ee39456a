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

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The API server's lines, as klog writes them at verbosity 1: the bench
// tells its own watch, a manager's cache and kube-controller-manager's
// informers apart by key and labels.
func TestClosedWatchesAreCountedByWhoseTheyWere(t *testing.T) {
	log := strings.Join([]string{
		`I1126 21:00:01.100000   4242 cache_watcher.go:203] Forcing jobs.batch watcher close due to unresponsiveness: key: "/jobs/", labels: "batch.cronlab.dev/cronjob", fields: "". len(c.input) = 10, len(c.result) = 10, graceful = false`,
		`I1126 21:00:01.200000   4242 httplog.go:134] "HTTP" verb="GET" URI="/api/v1/namespaces/default"`,
		`I1126 21:00:02.300000   4242 cache_watcher.go:203] Forcing jobs.batch watcher close due to unresponsiveness: key: "/jobs/bench-crfloor-500/", labels: "", fields: "". len(c.input) = 10, len(c.result) = 10, graceful = true`,
		`I1126 21:00:03.400000   4242 cache_watcher.go:203] Forcing jobs.batch watcher close due to unresponsiveness: key: "/jobs/", labels: "batch.cronlab.dev/cronjob", fields: "". len(c.input) = 10, len(c.result) = 10, graceful = false`,
		`I1126 21:00:04.500000   4242 cache_watcher.go:203] Forcing cronjobs.batch.cronlab.dev watcher close due to unresponsiveness: key: "/batch.cronlab.dev/cronjobs/", labels: "", fields: "". len(c.input) = 10, len(c.result) = 10, graceful = false`,
	}, "\n")
	got, closed, err := closedWatches(strings.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(log, "\n"); !slices.Equal(closed, []string{lines[0], lines[2], lines[3], lines[4]}) {
		t.Errorf("the closed watches' lines:\n%s\nwant the four Forcing lines, with their times, in the log's order", strings.Join(closed, "\n"))
	}
	want := []string{
		`2 × jobs.batch key: "/jobs/", labels: "batch.cronlab.dev/cronjob"`,
		`1 × cronjobs.batch.cronlab.dev key: "/batch.cronlab.dev/cronjobs/", labels: ""`,
		`1 × jobs.batch key: "/jobs/bench-crfloor-500/", labels: ""`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("closed watches:\n got %q\nwant %q (the most first, then by name)", got, want)
	}
}

// The verbosity that the bench sets back is the one the API server was
// started with, in any of the spellings its flags accept.
func TestTheAPIServersVerbosityIsReadFromItsCommandLine(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"kube-apiserver", "--etcd-servers=x", "--v=4"}, "4"},
		{[]string{"kube-apiserver", "-v=2"}, "2"},
		{[]string{"kube-apiserver", "--v", "3", "--secure-port=1"}, "3"},
		{[]string{"kube-apiserver", "--v=1", "--v=5"}, "5"},
		{[]string{"kube-apiserver", "--vmodule=x=5", "--secure-port=1"}, "0"},
		{[]string{"kube-apiserver", "--v"}, "0"},
	} {
		if got := verbosityIn(tc.args); got != tc.want {
			t.Errorf("a process started with %q: verbosity %q; want %q", tc.args, got, tc.want)
		}
	}
}

// Only the lines written after the window began are the run's.
func TestOnlyTheLinesAfterTheOffsetAreCounted(t *testing.T) {
	line := func(key string) string {
		return `I1126 21:00:01.100000   4242 cache_watcher.go:203] Forcing jobs.batch watcher close due to unresponsiveness: key: "` + key + `", labels: "", fields: "". len(c.input) = 10, len(c.result) = 10, graceful = false` + "\n"
	}
	before := line("/jobs/an-earlier-run/")
	path := filepath.Join(t.TempDir(), "kube-apiserver.log")
	if err := os.WriteFile(path, []byte(before+line("/jobs/this-run/")), 0o644); err != nil {
		t.Fatal(err)
	}
	got, _, err := (&apiServerLog{path: path, offset: int64(len(before))}).whose()
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{`1 × jobs.batch key: "/jobs/this-run/", labels: ""`}; !slices.Equal(got, want) {
		t.Errorf("the run's closed watches: %q; want only the line after the offset, %q", got, want)
	}
}

// A run keeps at most maxClosedLines of the lines, and counts them all.
func TestTheClosedWatchLinesKeptAreBounded(t *testing.T) {
	line := `I1127 02:09:00.100000   4242 cache_watcher.go:203] Forcing jobs.batch watcher close due to unresponsiveness: key: "/jobs/", labels: "batch.cronlab.dev/cronjob", fields: "". len(c.input) = 43, len(c.result) = 43, graceful = false` + "\n"
	counted, closed, err := closedWatches(strings.NewReader(strings.Repeat(line, maxClosedLines+50)))
	if err != nil {
		t.Fatal(err)
	}
	if len(closed) != maxClosedLines {
		t.Errorf("%d lines kept of %d; want the first %d", len(closed), maxClosedLines+50, maxClosedLines)
	}
	if want := []string{fmt.Sprintf(`%d × jobs.batch key: "/jobs/", labels: "batch.cronlab.dev/cronjob"`, maxClosedLines+50)}; !slices.Equal(counted, want) {
		t.Errorf("counted %q; want every line, %q", counted, want)
	}
}
