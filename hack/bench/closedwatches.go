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
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"
	"time"

	"k8s.io/client-go/kubernetes"

	"cronlab.dev/cronlab/hack/internal/localcluster"
)

// apiserver_terminated_watchers_total counts the watches the API server
// closed because their reader was too slow, but not whose they were. The
// API server's log says whose, at verbosity 1: the resource, and the
// watch's storage key and label selector, which tell the watchers of a run
// apart:
//
//	key "/jobs/bench-…/"                       the bench's watcher (one namespace)
//	key "/jobs/", labels "batch.cronlab.dev/…" a cronlab manager's cache, or the watch floor's
//	key "/jobs/", labels ""                    kube-controller-manager's informers
//
// A CronJob watch with no label may be a cronlab manager's cache or
// kube-controller-manager's metadata informers (garbage collector, quota),
// which watch every custom resource: the key cannot tell them apart.
//
// kwokctl starts kube-apiserver at verbosity 0, so the bench raises it to 1
// for the window through /debug/flags/v (the API server serves it with
// profiling, which is on by default), and sets it back afterwards.

// closedWatchLine is the API server's line for a watch it closed
// (k8s.io/apiserver, storage/cacher/cache_watcher.go).
var closedWatchLine = regexp.MustCompile(`Forcing (\S+) watcher close due to unresponsiveness: (key: "[^"]*", labels: "[^"]*")`)

// apiServerLog is where the log of the local cluster's API server stood
// when the window began.
type apiServerLog struct {
	path   string
	offset int64
	// verbosity is what the API server's -v was before the bench raised it.
	verbosity string
}

// watchClosedWatches raises the API server's verbosity to 1 and notes
// where its log ends, or says why it cannot (a cluster not made by make
// cluster) and returns nil.
func watchClosedWatches(ctx context.Context, kube kubernetes.Interface) *apiServerLog {
	pid, err := localcluster.Process("kube-apiserver")
	if err != nil {
		progress("whose watches were closed is not found: %v", err)
		return nil
	}
	l := &apiServerLog{path: localcluster.Log("kube-apiserver"), verbosity: verbosityFlag(pid)}
	info, err := os.Stat(l.path)
	if err != nil {
		progress("whose watches were closed is not found: %v", err)
		return nil
	}
	l.offset = info.Size()
	if err := setVerbosity(ctx, kube, "1"); err != nil {
		progress("whose watches were closed is not found: the API server's verbosity: %v", err)
		return nil
	}
	return l
}

// restore sets the API server's verbosity back, even when the bench was
// interrupted.
func (l *apiServerLog) restore(kube kubernetes.Interface) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := setVerbosity(ctx, kube, l.verbosity); err != nil {
		progress("the API server's verbosity was not set back to %s: %v", l.verbosity, err)
	}
}

// whose returns what the API server's log says of the watches it closed
// since the window began: one "N × resource key, labels" each, the most
// first; and the lines themselves, which say when, and how full the
// watch's buffers were.
func (l *apiServerLog) whose() (counted, lines []string, err error) {
	f, err := os.Open(l.path)
	if err != nil {
		return nil, nil, err
	}
	defer func() { _ = f.Close() }()
	if _, err := f.Seek(l.offset, io.SeekStart); err != nil {
		return nil, nil, err
	}
	return closedWatches(f)
}

// maxClosedLines is how many closed-watch lines a run keeps: enough for
// every burst of a run that went well, and a bound on results.json for one
// that did not (the counts are always whole).
const maxClosedLines = 100

// closedWatches counts the API server's closed-watch lines in log by
// resource and watch, and returns the first maxClosedLines of them, in the
// log's order.
func closedWatches(log io.Reader) (counted, closed []string, err error) {
	counts := map[string]int{}
	lines := bufio.NewScanner(log)
	lines.Buffer(make([]byte, 64*1024), 1024*1024)
	for lines.Scan() {
		if m := closedWatchLine.FindStringSubmatch(lines.Text()); m != nil {
			counts[m[1]+" "+m[2]]++
			if len(closed) < maxClosedLines {
				closed = append(closed, lines.Text())
			}
		}
	}
	watches := make([]string, 0, len(counts))
	for w := range counts {
		watches = append(watches, w)
	}
	sort.Slice(watches, func(i, j int) bool {
		if counts[watches[i]] != counts[watches[j]] {
			return counts[watches[i]] > counts[watches[j]]
		}
		return watches[i] < watches[j]
	})
	for i, w := range watches {
		watches[i] = fmt.Sprintf("%d × %s", counts[w], w)
	}
	return watches, closed, lines.Err()
}

// verbosityFlag is the -v (or --v) the process pid was started with; "0"
// when it has none.
func verbosityFlag(pid int) string {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return "0"
	}
	return verbosityIn(strings.Split(string(raw), "\x00"))
}

// verbosityIn is the value of the last -v or --v flag in args (the one the
// flag package keeps); "0" when there is none.
func verbosityIn(args []string) string {
	v := "0"
	for i, arg := range args {
		for _, name := range []string{"-v", "--v"} {
			if value, ok := strings.CutPrefix(arg, name+"="); ok {
				v = value
			} else if arg == name && i+1 < len(args) {
				v = args[i+1]
			}
		}
	}
	return v
}

func setVerbosity(ctx context.Context, kube kubernetes.Interface, v string) error {
	return kube.CoreV1().RESTClient().Put().AbsPath("/debug/flags/v").Body([]byte(v)).Do(ctx).Error()
}
