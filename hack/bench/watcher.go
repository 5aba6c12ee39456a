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
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	kbatchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/watch"

	batchv1 "cronlab.dev/cronlab/api/v1"
)

// The bench sees a run start when its Job's ADDED event reaches it. The
// floors write from the bench's own process, 32 requests at a time at the
// top of every minute. A watch read in that process waits for the CPU
// behind those writers, falls behind, and the API server closes it as too
// slow: in the set of 2026-11-26 18:53 the bench opened its watch again in
// every CR floor run, and the Jobs of that gap were measured late, so the
// floor's p99 was partly the bench's own lag. The watch therefore runs in a
// process of its own, the bench started again with -watch-jobs: the
// operating system gives it its share of the CPU, whoever writes. It takes
// the time each Job is first seen and sends it to the bench on stdout, one
// line each, which the bench turns into observations. (That the floors'
// late Jobs were partly the bench's lag is likely, not proven: the CR
// floor's minutes still differed with the watch apart.)
//
//	ready                          the resourceVersion to watch from is fixed: no later Job is missed
//	job NAME SCHEDULED SEEN        SCHEDULED in RFC 3339, SEEN in Unix nanoseconds
//	reopened                       the watch was opened again (see watchJobs)
//	error TEXT                     the watch reported an error
//
// The watcher ends when the bench closes its stdin, or dies.

// watchFlag is the hidden flag that makes the bench the watcher.
const watchFlag = "watch-jobs"

// openWatch opens the watch a watcher relays, and calls reopened each time
// it opens it again. The watch ends when ctx does.
type openWatch func(ctx context.Context, reopened func()) (watch.Interface, error)

// watchNamespace opens the watch of the Jobs of ns in the cluster of the
// kubeconfig: the watcher's, outside tests.
func watchNamespace(ns string) openWatch {
	return func(ctx context.Context, reopened func()) (watch.Interface, error) {
		cfg, err := loadConfig()
		if err != nil {
			return nil, err
		}
		return watchJobs(ctx, cfg, ns, reopened)
	}
}

// serveJobWatch is the watcher: it relays what the watch open opens sees to
// out until in ends.
func serveJobWatch(in io.Reader, out io.Writer, open openWatch) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		_, _ = io.Copy(io.Discard, in)
		cancel()
	}()
	var mu sync.Mutex
	say := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		_, _ = fmt.Fprintf(out, format+"\n", args...)
	}
	w, err := open(ctx, func() { say("reopened") })
	if err != nil {
		return err
	}
	defer w.Stop()
	say("ready")
	relay(w, say, time.Now)
	if ctx.Err() == nil {
		return errors.New("the Job watch ended early: runs after now are not seen")
	}
	return nil
}

// relay says, for each Job added to w, its name, its scheduled time and
// when it was seen (now), until w ends; and each error w reports.
func relay(w watch.Interface, say func(format string, args ...any), now func() time.Time) {
	for ev := range w.ResultChan() {
		if ev.Type == watch.Error {
			say("error %s", strings.ReplaceAll(apierrors.FromObject(ev.Object).Error(), "\n", " "))
			continue
		}
		job, ok := ev.Object.(*kbatchv1.Job)
		if !ok || ev.Type != watch.Added {
			continue
		}
		if scheduled := scheduledTime(job); scheduled != "" {
			say("job %s %s %d", job.Name, scheduled, now().UnixNano())
		}
	}
}

// scheduledTime is the run a Job is for, as its controller wrote it.
func scheduledTime(job *kbatchv1.Job) string {
	if stamp := job.Annotations[upstreamAnnotation]; stamp != "" {
		return stamp
	}
	return job.Annotations[batchv1.ScheduledTimeAnnotation]
}

// watcherStderr is where the watcher's own errors go: the bench's stderr.
var watcherStderr io.Writer = os.Stderr

// jobWatch is the bench's end of a watcher.
type jobWatch struct {
	seen     *observations
	reopened atomic.Int64
	stdin    io.Closer
	cmd      *exec.Cmd
	ended    chan struct{} // closed when the watcher's stdout ends
}

// startJobWatch starts a watcher of the Jobs of ns and returns once its
// watch is open, so that no Job created after it returns is missed.
func startJobWatch(ctx context.Context, ns string) (*jobWatch, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self, "-"+watchFlag, ns)
	cmd.Stderr = watcherStderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the Job watcher: %w", err)
	}
	jw := &jobWatch{seen: &observations{at: map[string]observation{}}, stdin: stdin, cmd: cmd, ended: make(chan struct{})}
	ready := make(chan struct{})
	go func() {
		defer close(jw.ended)
		jw.read(stdout, ready)
	}()
	select {
	case <-ready:
		return jw, nil
	case <-time.After(time.Minute):
		jw.stop()
		return nil, errors.New("the Job watcher did not open its watch within a minute: is the API server answering?")
	case <-jw.ended:
		jw.stop()
		return nil, errors.New("the Job watcher stopped before its watch was open (its error is above)")
	case <-ctx.Done():
		jw.stop()
		return nil, fmt.Errorf("interrupted: %w", ctx.Err())
	}
}

// read takes the watcher's lines until its stdout ends, and closes ready
// at the first "ready".
func (jw *jobWatch) read(stdout io.Reader, ready chan struct{}) {
	lines := bufio.NewScanner(stdout)
	lines.Buffer(make([]byte, 64*1024), 1024*1024)
	var once sync.Once
	for lines.Scan() {
		kind, rest, _ := strings.Cut(lines.Text(), " ")
		switch kind {
		case "ready":
			once.Do(func() { close(ready) })
		case "reopened":
			jw.reopened.Add(1)
		case "error":
			progress("the Job watch failed: %s", rest)
		case "job":
			if err := jw.seen.add(rest); err != nil {
				progress("the Job watcher: %v", err)
			}
		}
	}
	if err := lines.Err(); err != nil {
		progress("the Job watcher's output could not be read, so runs after now are not seen: %v", err)
	}
}

// watcherGrace is how long stop waits for the watcher to end by itself
// before it kills it.
var watcherGrace = 10 * time.Second

// stop ends the watcher and waits for it, up to watcherGrace.
func (jw *jobWatch) stop() {
	_ = jw.stdin.Close()
	select {
	case <-jw.ended:
	case <-time.After(watcherGrace):
		_ = jw.cmd.Process.Kill()
		// Wait closes stdout: read it to its end first, which the kill
		// brings at once (unless a process of the watcher's own holds it).
		select {
		case <-jw.ended:
		case <-time.After(watcherGrace):
		}
	}
	if err := jw.cmd.Wait(); err != nil {
		progress("the Job watcher: %v", err)
	}
}

// add records a "job" line's Job: its scheduled time, and how long after
// it the watcher first saw the Job.
func (o *observations) add(line string) error {
	fields := strings.Fields(line)
	if len(fields) != 3 {
		return fmt.Errorf("%q is not NAME SCHEDULED SEEN", line)
	}
	scheduled, err := time.Parse(time.RFC3339, fields[1])
	if err != nil {
		return err
	}
	nanos, err := strconv.ParseInt(fields[2], 10, 64)
	if err != nil {
		return err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if _, dup := o.at[fields[0]]; !dup {
		o.at[fields[0]] = observation{scheduled: scheduled, skew: time.Unix(0, nanos).Sub(scheduled).Seconds()}
	}
	return nil
}
