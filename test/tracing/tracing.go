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

// Package tracing records the trace of one spec (internal/trace/record)
// into the file where bin/lab check looks for it when the spec fails:
// bin/lab-state/traces/<stage folder>/<the spec's name>.jsonl; with
// CRONLAB_TRACE_DIR set, <that folder>/<stage folder>/ (make trace-pictures).
// CRONLAB_TRACE=off records nothing (to measure what recording costs).
package tracing

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	kbatchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	batchv1 "cronlab.dev/cronlab/api/v1"
	"cronlab.dev/cronlab/internal/trace"
	"cronlab.dev/cronlab/internal/trace/record"
	"cronlab.dev/cronlab/test/say"
)

// Spec is what a spec's trace needs to know.
type Spec struct {
	Root   string // the repository's root, relative to the test's folder
	Name   string // the spec's name: the trace's file is named after it
	Config *rest.Config
	Scheme *runtime.Scheme
	// Cache is the manager's cache whose lane is recorded (nil: none).
	Cache cache.Cache
	// Clock is the Reconciler's fake clock, if the spec has one.
	Clock     clock.PassiveClock
	Namespace string
}

// Start records CronJobs and Jobs of the spec's namespace in the api lane
// (a watch of its own, on s.Config, which must not lag) and in the cache
// lane. It returns nil (record nothing) when CRONLAB_TRACE is off, and the
// file's path from the repository's root (File finds it from the test's
// folder).
func Start(ctx context.Context, s Spec) (*record.Recorder, string, error) {
	if os.Getenv("CRONLAB_TRACE") == "off" {
		return nil, "", nil
	}
	path := Path(s.Root, s.Name)
	rec, err := record.Create(path, record.Options{Scheme: s.Scheme, Clock: s.Clock, Namespace: s.Namespace})
	if err != nil {
		return nil, "", err
	}
	direct, err := client.NewWithWatch(s.Config, client.Options{Scheme: s.Scheme})
	if err != nil {
		return nil, "", err
	}
	for _, list := range []client.ObjectList{&batchv1.CronJobList{}, &kbatchv1.JobList{}} {
		if err := rec.WatchAPI(ctx, direct, list, client.InNamespace(s.Namespace)); err != nil {
			_ = rec.Close()
			return nil, "", fmt.Errorf("watching for the trace: %w", err)
		}
	}
	if s.Cache != nil {
		if err := rec.WatchCache(ctx, s.Cache, &batchv1.CronJob{}, &kbatchv1.Job{}); err != nil {
			_ = rec.Close()
			return nil, "", fmt.Errorf("watching the cache for the trace: %w", err)
		}
	}
	return rec, shown(s.Root, path), nil
}

// shown is path as the repository's root sees it, where bin/lab runs; a
// path outside the repository (CRONLAB_TRACE_DIR) is shown whole.
func shown(root, path string) string {
	abs, err1 := filepath.Abs(path)
	rootAbs, err2 := filepath.Abs(root)
	if err1 != nil || err2 != nil {
		return path
	}
	if rel, err := filepath.Rel(rootAbs, abs); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return abs
}

// File is the file at a path Start returned, from a test's folder.
func File(root, path string) string {
	if filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(root, path)
}

// Pointer is the line a test prints under its failure to say where its
// trace is, or "" when bin/lab runs it (CRONLAB_TRACE_POINTER=off): the
// check says it itself, with what the trace shows.
func Pointer(path string) string {
	if path == "" || os.Getenv("CRONLAB_TRACE_POINTER") == "off" {
		return ""
	}
	return say.Both("the trace of this run: bin/lab trace %s", "这次运行的追踪记录：bin/lab trace %s", path)
}

// Stop waits for the lanes to show the end state, and closes the file.
func Stop(ctx context.Context, rec *record.Recorder) error {
	rec.Sync(ctx)
	return rec.Close()
}

var taken = struct {
	sync.Mutex
	names map[string]int
}{names: map[string]int{}}

// Path is the file of the spec's trace. A spec that records more than one
// trace (a mutant's run of each of your specs) numbers the later ones.
func Path(root, spec string) string {
	dir := os.Getenv("CRONLAB_TRACE_DIR")
	if dir == "" {
		dir = filepath.Join(root, "bin", "lab-state", "traces")
	}
	wd, _ := os.Getwd()
	dir = filepath.Join(dir, filepath.Base(wd))
	name := trace.FileName(spec)
	taken.Lock()
	taken.names[name]++
	if n := taken.names[name]; n > 1 {
		name = fmt.Sprintf("%s-%d.jsonl", name[:len(name)-len(".jsonl")], n)
	}
	taken.Unlock()
	return filepath.Join(dir, name)
}
