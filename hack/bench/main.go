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

// Command bench measures how punctually CronJobs start their Jobs, for the
// upstream CronJob controller (in kube-controller-manager) and for cronlab's,
// on the cluster of the current kubeconfig (`make bench` uses the local
// cluster). See docs/performance.md.
//
// For each N it creates N CronJobs on "*/1 * * * *" in a namespace of their
// own, one controller after the other, never both at once: the machine has
// two cores, and two controllers busy at the same minute would slow each
// other and the API server, so neither figure would be the controller's own.
//
// The CronJobs use concurrencyPolicy Replace and a Job template with
// suspend: true. Every minute each CronJob deletes its previous Job and
// creates a new one, so the number of Jobs stays at N, and no pod is ever
// made: what is measured is the CronJob controller, not the scheduler or
// kwok.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	kbatchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	batchv1 "cronlab.dev/cronlab/api/v1"

	"cronlab.dev/cronlab/hack/internal/localcluster"
)

// upstreamAnnotation is where the upstream controller writes the scheduled
// time of a Job (cronlab's is batchv1.ScheduledTimeAnnotation).
const upstreamAnnotation = "batch.kubernetes.io/cronjob-scheduled-timestamp"

type options struct {
	sizes       []int
	minutes     int
	manager     string
	managerArgs []string
	// altManagerArgs are the flags of "cronlab-alt": the same manager
	// with other flags, measured in the same set as "cronlab", so that
	// the two are compared pair by pair rather than half an hour apart.
	altManagerArgs []string
	out            string
	controllers    []string
	foreignJobs    int
	// finishJobs gives the CronJobs Jobs that end (finishingJob) under
	// ConcurrencyPolicy Allow, so that each run is also recorded as a
	// success and its Job deleted by history cleanup.
	finishJobs bool
	profile    bool
	// repeat is how many times each N's controllers are measured, one
	// after the other in turn (A, B, A, B...): one run's p99 moves by
	// about 15 %, so a ratio is judged by the median of K pairs.
	repeat int
}

func main() {
	var o options
	var sizes, managerArgs, altManagerArgs string
	flag.StringVar(&sizes, "n", "100,500", "comma-separated numbers of CronJobs")
	flag.IntVar(&o.minutes, "minutes", 3, "scheduled minutes to measure for each N and controller")
	flag.StringVar(&o.manager, "manager", "bin/manager", "the cronlab manager binary (make build)")
	flag.StringVar(&managerArgs, "manager-args", "", "extra flags for the cronlab manager, space-separated")
	flag.StringVar(&altManagerArgs, "alt-manager-args", "", "extra flags for the manager measured as cronlab-alt, space-separated")
	flag.StringVar(&o.out, "out", "bench-results", "directory for results.md and results.json")
	var controllers string
	flag.StringVar(&controllers, "controllers", "upstream,cronlab", "what to measure, in order: "+strings.Join(controllerNames, ", "))
	flag.BoolVar(&o.profile, "profile", false, "take CPU profiles of the API server and the controller over the first measured minute's burst (see profile.go)")
	flag.IntVar(&o.repeat, "repeat", 1, "measure each N's controllers this many times, in turn, and report the median of the pairwise ratios")
	flag.BoolVar(&o.finishJobs, "finish-jobs", false, "Jobs whose pod the local cluster runs to completion, under ConcurrencyPolicy Allow, with no history kept: each run is started, recorded as a success and deleted (the default: suspended Jobs that Replace deletes a minute later)")
	flag.IntVar(&o.foreignJobs, "foreign-jobs", 0, "Jobs of no CronJob to create first in namespace "+foreignNamespace+", as other workloads of a cluster")
	var watchedNamespace string
	flag.StringVar(&watchedNamespace, watchFlag, "", "not for people: the bench starts itself with it to watch a namespace's Jobs in a process of its own (watcher.go)")
	flag.Parse()
	if watchedNamespace != "" {
		if err := serveJobWatch(os.Stdin, os.Stdout, watchNamespace(watchedNamespace)); err != nil {
			fail(err)
		}
		return
	}
	for _, ctl := range strings.Split(controllers, ",") {
		ctl = strings.TrimSpace(ctl)
		if !slices.Contains(controllerNames, ctl) {
			fail(fmt.Errorf("-controllers: %q is none of %s", ctl, strings.Join(controllerNames, ", ")))
		}
		o.controllers = append(o.controllers, ctl)
	}
	for _, s := range strings.Split(sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n <= 0 {
			fail(fmt.Errorf("-n: %q is not a positive number", s))
		}
		o.sizes = append(o.sizes, n)
	}
	if o.repeat < 1 {
		fail(fmt.Errorf("-repeat: %d is not a positive number", o.repeat))
	}
	o.managerArgs = strings.Fields(managerArgs)
	o.altManagerArgs = strings.Fields(altManagerArgs)
	if slices.Contains(o.controllers, "cronlab-alt") && len(o.altManagerArgs) == 0 {
		fail(fmt.Errorf("-controllers: cronlab-alt is the manager with -alt-manager-args, and they are empty"))
	}
	// Ctrl-C stops the measurement, and still deletes what it created.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "bench:", err)
	os.Exit(1)
}

func progress(format string, args ...any) {
	fmt.Printf("[bench %s] %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

// result is one controller's figures for one N.
type result struct {
	Controller string `json:"controller"`
	N          int    `json:"n"`
	// Repeat numbers the runs of one controller and N under -repeat (1,
	// 2, ...); 0 when each was measured once.
	Repeat   int     `json:"repeat,omitempty"`
	Minutes  int     `json:"minutes"`
	Expected int     `json:"expectedRuns"`
	Started  int     `json:"startedRuns"`
	SkewP50  float64 `json:"skewP50Seconds"`
	SkewP99  float64 `json:"skewP99Seconds"`
	SkewMax  float64 `json:"skewMaxSeconds"`
	// PerMinute is the p99 skew of each scheduled minute.
	PerMinute []float64 `json:"p99SkewPerMinuteSeconds"`
	// Percentiles are the skews at 0, 1, ... 100 % of the runs started,
	// what hack/benchplot draws the distribution from.
	Percentiles []float64 `json:"skewPercentilesSeconds,omitempty"`
	// Writes are the API server's write requests for Jobs and CronJobs
	// during the window, by kind of write; WritesPerRun divides their sum
	// by the runs started.
	Writes       map[string]float64 `json:"writes"`
	WritesPerRun float64            `json:"writesPerRun"`
	// ReadsPerRun are the GETs of single Jobs and CronJobs (see reads) by
	// the runs started.
	ReadsPerRun float64 `json:"readsPerRun"`
	// EventsPerRun are all the Events created or patched in the window,
	// divided by the runs started: the controller's, and the Job
	// controller's (one for each new Job, when it is not rate-limited).
	EventsPerRun float64 `json:"eventsPerRun"`
	// ReconcilesPerRun are cronlab's reconciles (controller-runtime's
	// controller_runtime_reconcile_total) in the window by the runs
	// started; -1 when not measured (the other controllers, or the
	// manager's metrics could not be read).
	ReconcilesPerRun float64 `json:"reconcilesPerRun"`
	Conflicts        float64 `json:"conflicts"`
	// ReconcileErrors are the failed syncs of the controller's CronJobs in
	// this run, counted in its log (-1: no log found).
	ReconcileErrors int     `json:"reconcileErrors"`
	CPUSeconds      float64 `json:"cpuSeconds"`
	// ServerCPUSeconds is the CPU time of kube-apiserver and etcd in the
	// window: the work that the controller's requests cost the cluster,
	// measured whole (a profile of the API server sees 15 s of it); -1
	// when the local cluster's processes were not found.
	ServerCPUSeconds float64 `json:"serverCPUSeconds"`
	PeakRSSMiB       float64 `json:"peakRSSMiB"`
	// ClosedWatches are the watches the API server closed as too slow in
	// the run, by resource and watch, as its log names them (see
	// closedwatches.go); empty when it closed none, or its log was not read.
	ClosedWatches []string `json:"closedWatches,omitempty"`
	// QueueWaitMs and ReconcileMs are, for cronlab's manager, how long a
	// reconcile waited in the work queue for a worker once it was due, and
	// how long it took, on average over the window (every reconcile, a
	// run's and the short ones after it); -1 for the others.
	QueueWaitMs float64 `json:"queueWaitMs"`
	ReconcileMs float64 `json:"reconcileMs"`
	// EventsWaitingAtStart and EventsWaitingAtEnd are, for cronlab's
	// manager, how many Events it had recorded and not yet written when the
	// window began and when it ended (cronlab_events_waiting); more at the
	// end than at the start means the Events fell behind the runs. -1 for
	// the others.
	EventsWaitingAtStart float64 `json:"eventsWaitingAtStart"`
	EventsWaitingAtEnd   float64 `json:"eventsWaitingAtEnd"`
	// EventsDropped is, for cronlab's manager, how many Events it dropped
	// in the window, recorded while too many others waited
	// (cronlab_events_dropped_total); -1 for the others, and for a manager
	// without that counter.
	EventsDropped float64 `json:"eventsDropped"`
	// ServerLatencyMs is how long the API server took on average to answer
	// each kind of the run's writes, and the Events, in the window
	// (serverLatency), in milliseconds.
	ServerLatencyMs map[string]float64 `json:"serverLatencyMs,omitempty"`
	// ClosedWatchLog are the API server's lines for them: when each was
	// closed, and how full its buffers were.
	ClosedWatchLog []string `json:"closedWatchLog,omitempty"`
	// WatcherReopened is how many times the bench's watcher opened its
	// watch again (watcher.go); 0 says none of the closed watches was its.
	WatcherReopened int64  `json:"watcherReopened"`
	Note            string `json:"note,omitempty"`
}

// controllerNames are what -controllers can measure: the two controllers,
// cronlab with other flags, and the floors (floor.go).
var controllerNames = []string{"upstream", "cronlab", "cronlab-alt", "floor", "crfloor", "evfloor", "evsinkfloor", "watchfloor"}

// loadConfig is the current kubeconfig's cluster, with no client-side
// throttling: the bench's own client creates thousands of objects (the API
// server's priority and fairness still applies).
func loadConfig() (*rest.Config, error) {
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(
		clientcmd.NewDefaultClientConfigLoadingRules(), &clientcmd.ConfigOverrides{}).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("no cluster: %w (start one with `make cluster`)", err)
	}
	cfg.QPS, cfg.Burst = -1, -1
	return cfg, nil
}

func run(ctx context.Context, o options) error {
	// The watch floor's cache logs through controller-runtime's logger.
	ctrllog.SetLogger(klog.NewKlogr())
	cfg, err := loadConfig()
	if err != nil {
		return err
	}
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	floorKube, err := floorClient(cfg)
	if err != nil {
		return err
	}
	c, err := client.New(cfg, client.Options{})
	if err != nil {
		return err
	}
	if err := batchv1.AddToScheme(c.Scheme()); err != nil {
		return err
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	if o.foreignJobs > 0 {
		if err := createForeignJobs(ctx, c, o.foreignJobs); err != nil {
			return err
		}
		defer deleteNamespace(c, foreignNamespace)
	}
	var results []result
	for _, n := range o.sizes {
		for rep := 1; rep <= o.repeat; rep++ {
			for _, ctl := range o.controllers {
				r, err := measure(ctx, o, cfg, kube, floorKube, c, ctl, n, rep)
				if err != nil {
					return fmt.Errorf("%s, N=%d: %w", ctl, n, err)
				}
				if o.repeat > 1 {
					r.Repeat = rep
				}
				results = append(results, r)
				progress("%s N=%d%s: skew p50 %.2fs p99 %.2fs max %.2fs, %d/%d runs, %.2f writes/run, %.2f reads/run, %.2f events/run, %s reconciles/run, %d conflicts, %d reconcile errors, CPU %.1fs, server CPU %.1fs, peak RSS %.0f MiB",
					ctl, n, repeatLabel(r), r.SkewP50, r.SkewP99, r.SkewMax, r.Started, r.Expected, r.WritesPerRun, r.ReadsPerRun, r.EventsPerRun, perRun(r.ReconcilesPerRun),
					int(r.Conflicts), r.ReconcileErrors, r.CPUSeconds, r.ServerCPUSeconds, r.PeakRSSMiB)
				if err := write(o.out, results); err != nil {
					return err
				}
			}
		}
	}
	progress("results in %s/results.md and %s/results.json", o.out, o.out)
	return nil
}

func measure(ctx context.Context, o options, cfg *rest.Config, kube, floorKube kubernetes.Interface, c client.Client, ctl string, n, rep int) (result, error) {
	r := result{Controller: ctl, N: n, Minutes: o.minutes, Expected: n * o.minutes}
	ns := fmt.Sprintf("bench-%s-%d", ctl, n)
	progress("%s N=%d: namespace %s", ctl, n, ns)
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		return r, fmt.Errorf("creating namespace %s (left over from an earlier run? kubectl delete ns %s): %w", ns, ns, err)
	}
	defer deleteNamespace(c, ns)

	var proc process
	switch ctl {
	case "cronlab", "cronlab-alt":
		args := o.managerArgs
		if ctl == "cronlab-alt" {
			args = o.altManagerArgs
			r.Note = "the cronlab manager with " + strings.Join(args, " ")
		}
		mgr, err := startManager(o, args)
		if err != nil {
			return r, err
		}
		defer mgr.stop()
		proc = mgr
	case "upstream":
		pid, err := localcluster.Process("kube-controller-manager")
		if err != nil {
			return r, err
		}
		proc = pidProcess(pid)
		r.Note = "CPU is the whole kube-controller-manager's (all its controllers) in the window; RSS is its peak since it started"
	case "floor":
		proc = pidProcess(os.Getpid())
		r.Note = "not a controller: the bench itself deletes and creates the Jobs (see docs/performance.md); " + floorProcess
	case "crfloor":
		proc = pidProcess(os.Getpid())
		r.Note = "not a controller: the bench itself replaces the Jobs, with a controller reference, and patches each CronJob's status (see docs/performance.md); " + floorProcess
	case "evfloor":
		proc = pidProcess(os.Getpid())
		r.Note = "not a controller: the CR floor, and the two Events per run that cronlab records (see docs/performance.md); " + floorProcess
	case "evsinkfloor":
		proc = pidProcess(os.Getpid())
		r.Note = "not a controller: the CR floor, and the two Events per run that cronlab records, written one at a time as cronlab writes them (see docs/performance.md); " + floorProcess
	case "watchfloor":
		proc = pidProcess(os.Getpid())
		r.Note = "not a controller: the CR floor, with the informer cache that cronlab's manager keeps of its Jobs and CronJobs (see docs/performance.md); " + floorProcess
	}

	// Watch Jobs from now on: the time a Job is first seen is its start.
	// It is watched by a process of its own (watcher.go).
	jobs, err := startJobWatch(ctx, ns)
	if err != nil {
		return r, err
	}
	defer jobs.stop()
	seen := jobs.seen
	terminatedBefore := terminatedWatchers(ctx, kube)
	apiLog := watchClosedWatches(ctx, kube)
	if apiLog != nil {
		defer apiLog.restore(kube)
	}

	if ctl != "floor" {
		progress("%s N=%d: creating %d CronJobs", ctl, n, n)
		if err := createCronJobs(ctx, c, ctl, ns, n, o.finishJobs); err != nil {
			return r, err
		}
	}
	// Measure whole minutes in steady state: the first run after creation
	// has no earlier Job to replace, so skip a minute. (The minute is taken
	// after creating the CronJobs: 10,000 take most of a minute.)
	start := time.Now().Truncate(time.Minute).Add(2 * time.Minute)
	end := start.Add(time.Duration(o.minutes) * time.Minute)
	switch ctl {
	case "floor":
		floorCtx, stopFloor := context.WithDeadline(ctx, end)
		defer stopFloor()
		go runFloor(floorCtx, floorKube, ns, n, start.Add(-time.Minute)) // a warm-up minute first
	case "crfloor", "evfloor", "evsinkfloor", "watchfloor":
		floorCtx, stopFloor := context.WithDeadline(ctx, end)
		defer stopFloor()
		var extra crFloorExtras
		switch ctl {
		case "evfloor":
			rec, stopRecording, err := eventRecorder(floorCtx, cfg, c.Scheme())
			if err != nil {
				return r, err
			}
			defer stopRecording()
			extra.recorder = rec
		case "evsinkfloor":
			rec, stopRecording, err := oneWriterRecorder(cfg, c.Scheme())
			if err != nil {
				return r, err
			}
			defer stopRecording()
			extra.recorder = rec
		case "watchfloor":
			// The cache is started after the CronJobs are created and
			// before the warm-up minute, and it stops when the window
			// ends. (A manager's starts before them, and lives on.)
			if err := startCache(floorCtx, cfg, c.Scheme()); err != nil {
				return r, err
			}
			extra.labeled = true
		}
		go runCRFloor(floorCtx, floorKube, c, ns, n, start.Add(-time.Minute), extra)
	}
	progress("%s N=%d: warming up; measuring the runs of %s to %s", ctl, n, start.Format("15:04"), end.Add(-time.Minute).Format("15:04"))
	// The writes counted are those between just before the first measured
	// minute (the warm-up minute's runs are done by then, or late) and the
	// start of the minute after the window.
	if err := sleepUntil(ctx, start.Add(-2*time.Second)); err != nil {
		return r, err
	}
	before, err := scrape(ctx, kube)
	if err != nil {
		return r, err
	}
	cpuBefore := proc.cpuSeconds()
	server := clusterServers()
	serverBefore := server.cpuSeconds()
	r.ReconcilesPerRun = -1
	r.QueueWaitMs, r.ReconcileMs = -1, -1
	r.EventsWaitingAtStart, r.EventsWaitingAtEnd, r.EventsDropped = -1, -1, -1
	var managerBefore managerTotals
	countReconciles := isManager(ctl)
	if countReconciles {
		if managerBefore, err = readManager(ctx); err != nil {
			progress("%s N=%d: reconciles not counted: %v", ctl, n, err)
			countReconciles = false
		} else {
			r.EventsWaitingAtStart = managerBefore.eventsWaiting
		}
	}
	if o.profile && rep == 1 {
		defer profile(ctx, kube, o.out, ctl, n, start)()
	}
	if err := sleepUntil(ctx, end); err != nil {
		return r, err
	}
	after, err := scrape(ctx, kube)
	if err != nil {
		return r, err
	}
	r.CPUSeconds = proc.cpuSeconds() - cpuBefore
	r.ServerCPUSeconds = -1
	if server != nil {
		r.ServerCPUSeconds = server.cpuSeconds() - serverBefore
	}
	var reconcileCount float64
	if countReconciles {
		if after, err := readManager(ctx); err != nil {
			progress("%s N=%d: reconciles not counted: %v", ctl, n, err)
			countReconciles = false
		} else {
			reconcileCount = after.reconciles - managerBefore.reconciles
			r.QueueWaitMs = meanMs(managerBefore.queued, after.queued)
			r.ReconcileMs = meanMs(managerBefore.reconciling, after.reconciling)
			progress("%s N=%d: a reconcile waited %.0f ms in the queue and took %.0f ms, on average", ctl, n, r.QueueWaitMs, r.ReconcileMs)
			r.EventsWaitingAtEnd = after.eventsWaiting
			if after.eventsDropped >= 0 && managerBefore.eventsDropped >= 0 {
				r.EventsDropped = after.eventsDropped - managerBefore.eventsDropped
			}
			progress("%s N=%d: Events recorded and not yet written: %.0f when the window began, %.0f when it ended; %.0f dropped in the window",
				ctl, n, r.EventsWaitingAtStart, r.EventsWaitingAtEnd, r.EventsDropped)
		}
	}
	// Then wait for the last minute's stragglers: up to a minute.
	for time.Now().Before(end.Add(59 * time.Second)) {
		got := seen.inWindow(start, end)
		progress("%s N=%d: %d of %d runs started", ctl, n, len(got), r.Expected)
		if len(got) >= r.Expected {
			break
		}
		if err := sleepUntil(ctx, time.Now().Add(5*time.Second)); err != nil {
			return r, err
		}
	}
	r.PeakRSSMiB = proc.peakRSSMiB()
	if apiLog != nil {
		if r.ClosedWatches, r.ClosedWatchLog, err = apiLog.whose(); err != nil {
			progress("%s N=%d: whose watches were closed is not found: %v", ctl, n, err)
		}
	}
	r.WatcherReopened = jobs.reopened.Load()
	var warnings []string
	if closed := terminatedWatchers(ctx, kube) - terminatedBefore; closed > 0 || r.WatcherReopened > 0 {
		// Not only the bench's watch may have been closed, but it may: say so.
		warnings = append(warnings, fmt.Sprintf("the API server closed %.0f Job watches as too slow "+
			"during this run, and the bench opened its own watch again %d times; it resumes where it stopped, but a Job it saw late has a skew too large",
			closed, r.WatcherReopened))
	}
	if len(r.ClosedWatches) > 0 {
		warnings = append(warnings, "the API server's log names the watches it closed as too slow (of all resources): "+strings.Join(r.ClosedWatches, "; "))
	}
	if len(warnings) > 0 {
		r.Note = strings.TrimPrefix(r.Note+"; "+strings.Join(warnings, "; "), "; ")
		progress("%s N=%d: warning: %s", ctl, n, r.Note)
	}
	r.ReconcileErrors = reconcileErrors(o, ctl, ns)

	skews := seen.inWindow(start, end)
	r.Started = len(skews)
	all := make([]float64, 0, len(skews))
	byMinute := map[int64][]float64{} // by Unix minute
	for _, s := range skews {
		all = append(all, s.skew)
		byMinute[s.scheduled.Unix()/60] = append(byMinute[s.scheduled.Unix()/60], s.skew)
	}
	r.SkewP50, r.SkewP99, r.SkewMax = quantile(all, 0.5), quantile(all, 0.99), quantile(all, 1)
	if len(all) > 0 {
		for p := 0; p <= 100; p++ {
			r.Percentiles = append(r.Percentiles, quantile(all, float64(p)/100))
		}
	}
	for m := start; m.Before(end); m = m.Add(time.Minute) {
		r.PerMinute = append(r.PerMinute, quantile(byMinute[m.Unix()/60], 0.99))
	}
	r.Writes, r.Conflicts = writes(before.requests, after.requests, ctl)
	r.ServerLatencyMs = serverLatency(before.latency, after.latency, ctl)
	if len(r.ServerLatencyMs) > 0 {
		kinds := slices.Sorted(maps.Keys(r.ServerLatencyMs))
		for i, k := range kinds {
			kinds[i] = fmt.Sprintf("%s %.0f", k, r.ServerLatencyMs[k])
		}
		progress("%s N=%d: the API server answered in (mean ms): %s", ctl, n, strings.Join(kinds, ", "))
	}
	total := 0.0
	for _, v := range r.Writes {
		total += v
	}
	if r.Started > 0 {
		r.WritesPerRun = total / float64(r.Started)
		r.ReadsPerRun = reads(before.requests, after.requests, ctl) / float64(r.Started)
		r.EventsPerRun = eventWrites(before.requests, after.requests) / float64(r.Started)
		if countReconciles {
			r.ReconcilesPerRun = reconcileCount / float64(r.Started)
		}
	}
	return r, nil
}

// floorProcess is what the floors' CPU and RSS are: the bench's process,
// which writes for them, and not its watcher.
const floorProcess = "CPU and RSS are the bench's, without its watcher process"

// floorClient is the floors' client. It sends and receives Jobs as
// protobuf, as kube-controller-manager's and controller-runtime's clients
// do: in JSON, the floors would cost the API server work that no
// controller makes it do.
func floorClient(cfg *rest.Config) (kubernetes.Interface, error) {
	proto := rest.CopyConfig(cfg)
	proto.ContentType = "application/vnd.kubernetes.protobuf"
	return kubernetes.NewForConfig(proto)
}

// suspendedJob is the Job template of every CronJob of the bench: a Job
// that never makes a pod.
func suspendedJob() kbatchv1.JobSpec {
	return kbatchv1.JobSpec{
		Suspend: ptr.To(true),
		Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyNever,
			Containers:    []corev1.Container{{Name: "c", Image: "busybox"}},
		}},
	}
}

// finishingJob is the Job template of -finish-jobs: a Job whose one pod
// the local cluster's kwok stages run to completion (hack/local-cluster.sh),
// so that the Job ends, its CronJob records the success, and history
// cleanup deletes it: the path whose writes cronlab orders apart from
// upstream (docs/reliability.md).
func finishingJob() kbatchv1.JobSpec {
	spec := suspendedJob()
	spec.Suspend = nil
	return spec
}

// createCronJobs creates n CronJobs of the controller's kind.
func createCronJobs(ctx context.Context, c client.Client, ctl, ns string, n int, finish bool) error {
	template := kbatchv1.JobTemplateSpec{Spec: suspendedJob()}
	policy, upstreamPolicy := batchv1.ReplaceConcurrent, kbatchv1.ReplaceConcurrent
	if finish {
		template.Spec = finishingJob()
		policy, upstreamPolicy = batchv1.AllowConcurrent, kbatchv1.AllowConcurrent
	}
	return createAll(ctx, c, n, func(i int) client.Object {
		meta := metav1.ObjectMeta{Name: fmt.Sprintf("cj-%05d", i), Namespace: ns}
		if ctl == "upstream" {
			return &kbatchv1.CronJob{ObjectMeta: meta, Spec: kbatchv1.CronJobSpec{
				Schedule: "*/1 * * * *", ConcurrencyPolicy: upstreamPolicy, JobTemplate: template,
				SuccessfulJobsHistoryLimit: ptr.To[int32](0), FailedJobsHistoryLimit: ptr.To[int32](0),
			}}
		}
		return &batchv1.CronJob{ObjectMeta: meta, Spec: batchv1.CronJobSpec{
			Schedule: "*/1 * * * *", ConcurrencyPolicy: policy, JobTemplate: template,
			SuccessfulJobsHistoryLimit: ptr.To[int32](0), FailedJobsHistoryLimit: ptr.To[int32](0),
		}}
	})
}

// foreignNamespace holds the Jobs of -foreign-jobs.
const foreignNamespace = "bench-foreign"

// createForeignJobs makes n Jobs that no CronJob owns, as the other
// workloads of a cluster would: a controller that caches every Job of the
// cluster holds them too, one that selects its own does not.
func createForeignJobs(ctx context.Context, c client.Client, n int) error {
	progress("creating %d Jobs of no CronJob in namespace %s", n, foreignNamespace)
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: foreignNamespace}}); err != nil {
		return fmt.Errorf("creating namespace %s (left over from an earlier run? kubectl delete ns %s): %w", foreignNamespace, foreignNamespace, err)
	}
	return createAll(ctx, c, n, func(i int) client.Object {
		return &kbatchv1.Job{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("other-%05d", i), Namespace: foreignNamespace,
				Labels: map[string]string{"app": "other"}},
			Spec: suspendedJob(),
		}
	})
}

// createAll creates the n objects that object(i) makes, 16 at a time.
func createAll(ctx context.Context, c client.Client, n int, object func(i int) client.Object) error {
	objects := make(chan client.Object)
	errs := make(chan error, 16)
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for obj := range objects {
				if err := c.Create(ctx, obj); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	for i := range n {
		select {
		case objects <- object(i):
		case err := <-errs:
			close(objects)
			return err
		}
	}
	close(objects)
	wg.Wait()
	select {
	case err := <-errs:
		return err
	default:
		return nil
	}
}

type observation struct {
	scheduled time.Time
	skew      float64
}

type observations struct {
	mu sync.Mutex
	at map[string]observation // by Job name
}

func (o *observations) inWindow(start, end time.Time) []observation {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []observation
	for _, ob := range o.at {
		if !ob.scheduled.Before(start) && ob.scheduled.Before(end) {
			out = append(out, ob)
		}
	}
	return out
}

// sleepUntil waits until t, or returns ctx's error if it ends first.
func sleepUntil(ctx context.Context, t time.Time) error {
	timer := time.NewTimer(time.Until(t))
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("interrupted: %w", ctx.Err())
	}
}

func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	i := int(q*float64(len(s))+0.5) - 1
	return s[min(max(i, 0), len(s)-1)]
}

// deleteNamespace deletes a namespace of the bench and waits, up to five
// minutes, until the namespace controller has deleted what was in it.
func deleteNamespace(c client.Client, ns string) {
	progress("deleting namespace %s", ns)
	_ = c.Delete(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	for range 300 {
		if err := c.Get(context.Background(), client.ObjectKey{Name: ns}, &corev1.Namespace{}); err != nil {
			return
		}
		time.Sleep(time.Second)
	}
}

func write(dir string, results []result) error {
	raw, err := json.MarshalIndent(results, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "results.json"), raw, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "results.md"), []byte(markdown(results)), 0o644)
}

func markdown(results []result) string {
	var b strings.Builder
	host, _ := os.Hostname()
	fmt.Fprintf(&b, "Measured %s on %s (%d CPUs), `make bench`.\n\n", time.Now().UTC().Format("2006-01-02 15:04 MST"), host, numCPU())
	b.WriteString("| N | controller | runs started | skew p50 | skew p99 | skew max | writes/run | reads/run | events/run | reconciles/run | conflicts | reconcile errors | CPU s | server CPU s | peak RSS MiB |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	// byRun finds a controller's result by N and repeat.
	type run struct {
		n, repeat int
		ctl       string
	}
	byRun := map[run]result{}
	var ns []int
	repeats := 0
	for _, r := range results {
		if !slices.Contains(ns, r.N) {
			ns = append(ns, r.N)
		}
		byRun[run{r.N, r.Repeat, r.Controller}] = r
		repeats = max(repeats, r.Repeat)
		errs := "-"
		if r.ReconcileErrors >= 0 {
			errs = strconv.Itoa(r.ReconcileErrors)
		}
		fmt.Fprintf(&b, "| %d | %s%s | %d/%d | %.2fs | %.2fs | %.2fs | %.2f | %.2f | %.2f | %s | %.0f | %s | %.1f | %s | %.0f |\n",
			r.N, r.Controller, repeatLabel(r), r.Started, r.Expected, r.SkewP50, r.SkewP99, r.SkewMax, r.WritesPerRun, r.ReadsPerRun,
			r.EventsPerRun, perRun(r.ReconcilesPerRun), r.Conflicts, errs, r.CPUSeconds, seconds(r.ServerCPUSeconds), r.PeakRSSMiB)
	}
	sort.Ints(ns)
	for _, q := range ratioTables {
		header := fmt.Sprintf("\n%s / %s:\n\n| N | runs started | skew p50 | skew p99 | skew max | writes/run | reads/run | CPU s | peak RSS | server CPU |\n|---|---|---|---|---|---|---|---|---|---|\n", q.of, q.to)
		for _, n := range ns {
			// One row for each repeat that measured both, and with more
			// than one, their median: the ratio to judge by.
			var pairs [][]float64
			for rep := 0; rep <= repeats; rep++ {
				u, okU := byRun[run{n, rep, q.to}]
				c, okC := byRun[run{n, rep, q.of}]
				if !okU || !okC {
					continue
				}
				pairs = append(pairs, []float64{ratio(float64(c.Started), float64(u.Started)),
					ratio(c.SkewP50, u.SkewP50), ratio(c.SkewP99, u.SkewP99), ratio(c.SkewMax, u.SkewMax),
					ratio(c.WritesPerRun, u.WritesPerRun), ratio(c.ReadsPerRun, u.ReadsPerRun), ratio(c.CPUSeconds, u.CPUSeconds),
					ratio(c.PeakRSSMiB, u.PeakRSSMiB), ratio(c.ServerCPUSeconds, u.ServerCPUSeconds)})
				label := strconv.Itoa(n)
				if rep > 0 {
					label += fmt.Sprintf(" #%d", rep)
				}
				b.WriteString(header)
				header = ""
				ratioRow(&b, label, pairs[len(pairs)-1])
			}
			if len(pairs) > 1 {
				medians := make([]float64, len(pairs[0]))
				for i := range medians {
					var column []float64
					for _, p := range pairs {
						if p[i] >= 0 {
							column = append(column, p[i])
						}
					}
					medians[i] = median(column)
				}
				ratioRow(&b, fmt.Sprintf("%d, median of %d", n, len(pairs)), medians)
			}
		}
	}
	noted := map[string]bool{}
	for _, r := range results {
		if r.Note != "" && !noted[r.Controller] {
			noted[r.Controller] = true
			fmt.Fprintf(&b, "\n%s: %s.\n", r.Controller, r.Note)
		}
	}
	return b.String()
}

// ratioTables are the ratios results.md gives, where both were measured:
// cronlab against each other controller, the alternative manager against
// the floors and against cronlab, and what the Events alone and the cache
// alone cost.
var ratioTables = []struct{ of, to string }{
	{"cronlab", "upstream"}, {"cronlab", "floor"}, {"cronlab", "crfloor"}, {"cronlab", "evfloor"},
	{"cronlab-alt", "crfloor"}, {"cronlab-alt", "evfloor"}, {"cronlab", "cronlab-alt"},
	{"evfloor", "crfloor"}, {"cronlab", "watchfloor"}, {"watchfloor", "crfloor"},
	{"cronlab", "evsinkfloor"}, {"evsinkfloor", "crfloor"}, {"evsinkfloor", "evfloor"},
}

// repeatLabel is " #K" for the K-th run of a controller under -repeat.
func repeatLabel(r result) string {
	if r.Repeat == 0 {
		return ""
	}
	return fmt.Sprintf(" #%d", r.Repeat)
}

func ratioRow(b *strings.Builder, label string, ratios []float64) {
	b.WriteString("| " + label + " |")
	for _, v := range ratios {
		if v < 0 {
			b.WriteString(" - |")
		} else {
			fmt.Fprintf(b, " %.2f |", v)
		}
	}
	b.WriteString("\n")
}

// median of xs, -1 (not measured) when there are none.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return -1
	}
	s := slices.Sorted(slices.Values(xs))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// seconds writes a CPU time, or "-" for one not measured (-1).
func seconds(v float64) string {
	if v < 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f", v)
}

// perRun writes a figure per run, or "-" for one not measured (-1).
func perRun(v float64) string {
	if v < 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", v)
}

// ratio is a/b, or -1 when either was not measured or b is 0.
func ratio(a, b float64) float64 {
	if a < 0 || b <= 0 {
		return -1
	}
	return a / b
}

// isManager tells the controllers that are cronlab's manager, with its own
// flags or the alternative ones.
func isManager(ctl string) bool { return ctl == "cronlab" || ctl == "cronlab-alt" }

// startManager runs cronlab's manager as a process, webhooks off, with its
// metrics and probes on ports of their own, and extra flags.
func startManager(o options, extra []string) (*managerProcess, error) {
	args := []string{"--metrics-bind-address=" + managerMetrics, "--health-probe-bind-address=127.0.0.1:18081"}
	if o.profile {
		args = append(args, "--pprof-bind-address="+managerPprof)
	}
	args = append(args, extra...)
	cmd := exec.Command(o.manager, args...)
	cmd.Env = append(os.Environ(), "ENABLE_WEBHOOKS=false")
	logFile, err := os.Create(filepath.Join(o.out, "manager.log"))
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s (make build): %w", o.manager, err)
	}
	return &managerProcess{cmd: cmd, log: logFile}, nil
}

type managerProcess struct {
	cmd *exec.Cmd
	log *os.File
}

func (m *managerProcess) stop() {
	_ = m.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { _ = m.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = m.cmd.Process.Kill()
		<-done
	}
	_ = m.log.Close()
}

func (m *managerProcess) cpuSeconds() float64 { return pidProcess(m.cmd.Process.Pid).cpuSeconds() }
func (m *managerProcess) peakRSSMiB() float64 { return pidProcess(m.cmd.Process.Pid).peakRSSMiB() }
