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
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"time"

	"k8s.io/client-go/kubernetes"

	"cronlab.dev/cronlab/hack/internal/httpget"
)

// managerPprof is where the bench asks cronlab's manager to serve Go's
// profiler (--pprof-bind-address) when -profile is on.
const managerPprof = "127.0.0.1:18082"

// profileSeconds is how long a profile lasts: the burst at the top of a
// minute, where the skew is made, and its tail.
const profileSeconds = 15

// profile takes CPU profiles from one second before at until
// profileSeconds later, in the background: the API server's (its
// /debug/pprof, which kube-apiserver serves unless --profiling=false), and
// the controller's: cronlab's manager through its profiler, the floors
// through the bench's own (they run in it). Upstream's kube-controller-
// manager serves its profiler behind authentication on its secure port, so
// only the API server is profiled for it. The files go to out as
// <controller>-<n>-apiserver.pprof and <controller>-<n>-controller.pprof;
// read them with `go tool pprof -top FILE`. The returned function waits for
// both.
func profile(ctx context.Context, kube kubernetes.Interface, out, ctl string, n int, at time.Time) (wait func()) {
	done := make(chan struct{}, 2)
	name := func(what string) string { return filepath.Join(out, fmt.Sprintf("%s-%d-%s.pprof", ctl, n, what)) }
	go func() {
		defer func() { done <- struct{}{} }()
		if sleepUntil(ctx, at.Add(-time.Second)) != nil {
			return
		}
		raw, err := kube.CoreV1().RESTClient().Get().AbsPath("/debug/pprof/profile").
			Param("seconds", fmt.Sprint(profileSeconds)).Timeout((profileSeconds + 30) * time.Second).DoRaw(ctx)
		save(name("apiserver"), raw, err)
	}()
	go func() {
		defer func() { done <- struct{}{} }()
		if sleepUntil(ctx, at.Add(-time.Second)) != nil {
			return
		}
		switch ctl {
		case "cronlab", "cronlab-alt":
			raw, err := httpget.Body(ctx, fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", managerPprof, profileSeconds))
			save(name("controller"), raw, err)
		case "floor", "crfloor", "evfloor", "evsinkfloor", "watchfloor":
			var buf bytes.Buffer
			if err := pprof.StartCPUProfile(&buf); err != nil {
				progress("profile: %v", err)
				return
			}
			_ = sleepUntil(ctx, time.Now().Add(profileSeconds*time.Second))
			pprof.StopCPUProfile()
			save(name("controller"), buf.Bytes(), nil)
		}
	}()
	return func() { <-done; <-done }
}

func save(path string, raw []byte, err error) {
	if err == nil {
		err = os.WriteFile(path, raw, 0o644)
	}
	if err != nil {
		progress("profile: %s: %v", path, err)
		return
	}
	progress("profile: %s", path)
}
