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
	"io"
	"os"
	"strings"
	"testing"
	"time"

	kbatchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	batchv1 "cronlab.dev/cronlab/api/v1"
)

// What the watcher process sees reaches the bench as observations: the
// watcher's relay and the bench's read, joined by a pipe as by the
// process's stdout.
func TestTheWatchersLinesBecomeObservations(t *testing.T) {
	scheduled := time.Date(2026, 11, 26, 21, 0, 0, 0, time.UTC)
	seenAt := scheduled.Add(1500 * time.Millisecond)
	job := func(name, annotation string, at time.Time) *kbatchv1.Job {
		return &kbatchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: name,
			Annotations: map[string]string{annotation: at.Format(time.RFC3339)}}}
	}
	events := watch.NewFake()
	pr, pw := io.Pipe()
	say := func(format string, args ...any) { _, _ = fmt.Fprintf(pw, format+"\n", args...) }
	go func() {
		say("ready")
		relay(events, say, func() time.Time { return seenAt })
		_ = pw.Close()
	}()
	jw := &jobWatch{seen: &observations{at: map[string]observation{}}}
	ready, ended := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(ended)
		jw.read(pr, ready)
	}()

	events.Add(job("cronlabs", batchv1.ScheduledTimeAnnotation, scheduled))
	events.Add(job("upstreams", upstreamAnnotation, scheduled.Add(time.Minute)))
	events.Modify(job("modified", batchv1.ScheduledTimeAnnotation, scheduled)) // not a new Job
	events.Add(&kbatchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "no-annotation"}})
	events.Error(&apierrors.NewGone("too old resource version").ErrStatus)
	events.Add(job("cronlabs", batchv1.ScheduledTimeAnnotation, scheduled.Add(-time.Hour))) // seen again after a reopened watch
	events.Stop()
	select {
	case <-ended:
	case <-time.After(time.Minute):
		t.Fatal("the bench's reader did not end when the watcher's output ended")
	}

	select {
	case <-ready:
	default:
		t.Error(`the watcher said "ready", and the bench's reader did not close ready`)
	}
	want := map[string]observation{
		"cronlabs":  {scheduled: scheduled, skew: 1.5},
		"upstreams": {scheduled: scheduled.Add(time.Minute), skew: -58.5},
	}
	if len(jw.seen.at) != len(want) {
		t.Errorf("the bench observed %v; want only the Jobs added with a scheduled time: %v", jw.seen.at, want)
	}
	for name, w := range want {
		got, ok := jw.seen.at[name]
		if !ok || !got.scheduled.Equal(w.scheduled) || got.skew != w.skew {
			t.Errorf("Job %s: observed %+v (found %v); want %+v, the first time it was seen", name, got, ok, w)
		}
	}
}

func TestTheBenchCountsTheWatchersReopenings(t *testing.T) {
	jw := &jobWatch{seen: &observations{at: map[string]observation{}}}
	jw.read(strings.NewReader("ready\nreopened\njob a 2026-11-26T21:00:00Z 1\nreopened\n"), make(chan struct{}))
	if got := jw.reopened.Load(); got != 2 {
		t.Errorf("the watcher said reopened twice; the bench counted %d", got)
	}
}

func TestAJobLineThatIsNotOneIsRefused(t *testing.T) {
	o := &observations{at: map[string]observation{}}
	for _, line := range []string{"a 2026-11-26T21:00:00Z", "a 21:00 1", "a 2026-11-26T21:00:00Z soon", "a 2026-11-26T21:00:00Z 1 2"} {
		if err := o.add(line); err == nil {
			t.Errorf("the job line %q was taken as NAME SCHEDULED SEEN", line)
		}
	}
	if len(o.at) != 0 {
		t.Errorf("lines that were refused left observations: %v", o.at)
	}
}

// A watcher that exits before it says "ready" is an error, not a hang. The
// test binary is what os.Executable names here, and it does not know
// -watch-jobs: it exits at once with a usage error, as a watcher that
// cannot reach its cluster would.
func TestAWatcherThatDiesBeforeReadyIsAnError(t *testing.T) {
	watcherStderr = io.Discard // its usage text
	t.Cleanup(func() { watcherStderr = os.Stderr })
	done := make(chan error, 1)
	go func() {
		_, err := startJobWatch(t.Context(), "no-such-namespace")
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "stopped before its watch was open") {
			t.Errorf("startJobWatch with a watcher that exits at once: %v; want that it stopped before its watch was open", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("startJobWatch still waits a minute after its watcher exited")
	}
}
