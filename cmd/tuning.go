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

// The manager's tunables for load: what `make bench` turns
// (docs/performance.md) to measure cronlab at N = 500 and 5,000 CronJobs.
// Their defaults are the ones those measurements chose; a lesson never needs
// to set them, which is why they live here and not in main.go's list.

import (
	"flag"
	"fmt"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"

	"cronlab.dev/cronlab/internal/eventsink"
)

// tuning holds the tunables' flags.
type tuning struct {
	workers, apiBurst, eventWriters int
	apiQPS                          float64
	eventDelay                      time.Duration
	pprofAddr                       string
}

// tuningFlags declares the tunables on fs.
func tuningFlags(fs *flag.FlagSet) *tuning {
	t := &tuning{}
	// Every CronJob on the same schedule means a burst of writes at the top
	// of the minute, and a reconcile spends most of its time waiting for the
	// API server, so with 32 workers the runs of a burst waited in the queue
	// for a worker ("More workers" in docs/bench/history.md: 64 halved that
	// wait).
	fs.IntVar(&t.workers, "workers", 64,
		"How many CronJobs are reconciled at the same time (controller-runtime's MaxConcurrentReconciles).")
	// -1 is controller-runtime's own default (ctrl.GetConfig): no limit in
	// the client, the API server's Priority and Fairness protects itself.
	fs.Float64Var(&t.apiQPS, "kube-api-qps", -1,
		"Requests per second to the API server that the manager's client allows itself; -1 (the default) means no client-side limit.")
	fs.IntVar(&t.apiBurst, "kube-api-burst", 600, "Requests the manager's client may send at once above --kube-api-qps, when that is positive.")
	fs.IntVar(&t.eventWriters, "event-writers", 1,
		"How many Events the manager writes to the API server at once; the others wait their turn, so that in a burst of runs "+
			"they take a small share of the API server and are written mostly after it (internal/eventsink).")
	fs.DurationVar(&t.eventDelay, "event-delay", 0,
		"How long each Event waits after it is recorded before it takes its turn (e.g. 10s), so that the Events of a burst of runs "+
			"are written after it; 0 (the default) writes each as soon as a writer is free. Stopping the manager ends the delays.")
	fs.StringVar(&t.pprofAddr, "pprof-bind-address", "",
		"The address of Go's profiler (/debug/pprof/), such as 127.0.0.1:6060; off when empty. For profiling the manager, as under `make bench` (BENCH_MANAGER_ARGS).")
	return t
}

// check says what is wrong with the values given, and how to fix it.
func (t *tuning) check() error {
	if t.eventWriters < 1 {
		return fmt.Errorf("--event-writers=%d: at least one Event must be written at a time: set --event-writers to 1 or more", t.eventWriters)
	}
	if t.eventDelay < 0 {
		return fmt.Errorf("--event-delay=%s: an Event cannot be written before it is recorded: set --event-delay to 0 or more", t.eventDelay)
	}
	return nil
}

// client sets the manager's client-side limits on cfg.
func (t *tuning) client(cfg *rest.Config) {
	cfg.QPS, cfg.Burst = float32(t.apiQPS), t.apiBurst
}

// eventRecorder is the manager's Event recorder, which lets only
// --event-writers Events through to the API server at a time
// (internal/eventsink says why), and the function that stops it.
func (t *tuning) eventRecorder(mgr ctrl.Manager) (events.EventRecorder, func(), error) {
	return eventsink.NewRecorder(mgr.GetConfig(), mgr.GetHTTPClient(), mgr.GetScheme(),
		ctrl.Log.WithName("events"), "cronjob-controller", t.eventWriters, t.eventDelay)
}
