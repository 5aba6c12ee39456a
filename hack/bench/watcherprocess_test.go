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
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	kbatchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	batchv1 "cronlab.dev/cronlab/api/v1"
)

// The tests below start real watcher processes. startJobWatch starts the
// test binary itself (os.Executable); with fakeWatcherEnv set, TestMain
// makes it one of these watchers instead of running the tests:
//
//	fake  the watcher, relaying a fake watch that holds one Job
//	deaf  says ready, then ignores its stdin: a watcher that hangs
const fakeWatcherEnv = "CRONLAB_BENCH_TEST_WATCHER"

// fakeRun is the run of the fake watcher's one Job.
var fakeRun = time.Date(2026, 11, 27, 1, 0, 0, 0, time.UTC)

func TestMain(m *testing.M) {
	switch os.Getenv(fakeWatcherEnv) {
	case "":
		os.Exit(m.Run())
	case "fake":
		if err := serveJobWatch(os.Stdin, os.Stdout, openFakeWatch); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	case "deaf":
		fmt.Println("ready")
		time.Sleep(time.Minute) // until stop kills it, or a minute if the test died first
		os.Exit(0)
	default:
		fmt.Fprintf(os.Stderr, "%s=%q is none of fake, deaf\n", fakeWatcherEnv, os.Getenv(fakeWatcherEnv))
		os.Exit(2)
	}
}

// openFakeWatch holds one Job added, and ends when ctx does, as the
// watcher's RetryWatcher does.
func openFakeWatch(ctx context.Context, _ func()) (watch.Interface, error) {
	w := watch.NewFakeWithChanSize(1, false)
	w.Add(&kbatchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "cj-00000-1",
		Annotations: map[string]string{batchv1.ScheduledTimeAnnotation: fakeRun.Format(time.RFC3339)}}})
	go func() {
		<-ctx.Done()
		w.Stop()
	}()
	return w, nil
}

// The bench ends its watcher by closing the watcher's stdin: the watcher's
// watch ends, and it exits by itself, having sent what it saw. (Were it to
// miss the end of its stdin, stop would kill it after watcherGrace, and it
// would not have exited with 0.)
func TestAWatcherEndsWhenTheBenchClosesItsStdin(t *testing.T) {
	t.Setenv(fakeWatcherEnv, "fake")
	jw, err := startJobWatch(t.Context(), "ns")
	if err != nil {
		t.Fatalf("starting the fake watcher: %v", err)
	}
	jw.stop()
	if state := jw.cmd.ProcessState; state == nil || !state.Success() {
		t.Errorf("the watcher, its stdin closed, ended with %v; want that it exited by itself with 0", state)
	}
	got, ok := jw.seen.at["cj-00000-1"]
	if !ok || !got.scheduled.Equal(fakeRun) {
		t.Errorf("the bench observed %v; want the watcher's Job, for the run of %s", jw.seen.at, fakeRun)
	}
}

// A watcher that does not end when its stdin closes is killed after
// watcherGrace, and stop returns.
func TestStopKillsAWatcherThatDoesNotEnd(t *testing.T) {
	t.Setenv(fakeWatcherEnv, "deaf")
	grace := watcherGrace
	watcherGrace = 100 * time.Millisecond
	t.Cleanup(func() { watcherGrace = grace })
	jw, err := startJobWatch(t.Context(), "ns")
	if err != nil {
		t.Fatalf("starting the deaf watcher: %v", err)
	}
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		jw.stop()
	}()
	select {
	case <-stopped:
	case <-time.After(time.Minute):
		t.Fatal("stop still waits a minute after its grace for a watcher that does not end")
	}
	if state := jw.cmd.ProcessState; state == nil || state.ExitCode() != -1 {
		t.Errorf("the deaf watcher ended with %v; want it killed by a signal", state)
	}
}
