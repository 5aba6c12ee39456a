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
	goruntime "runtime"
	"strconv"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"

	"cronlab.dev/cronlab/hack/internal/httpget"
	"cronlab.dev/cronlab/hack/internal/localcluster"
)

// series is apiserver_request_total, by "verb|group|resource|subresource|code".
type series map[string]float64

// metrics reads the API server's /metrics.
func metrics(ctx context.Context, kube kubernetes.Interface) (map[string]*dto.MetricFamily, error) {
	raw, err := kube.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading the API server's /metrics: %w", err)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	return parser.TextToMetricFamilies(bytes.NewReader(raw))
}

// scraped is what the bench reads of the API server's /metrics at each end
// of the window.
type scraped struct {
	requests series
	// latency is apiserver_request_duration_seconds, by
	// "verb|group|resource|subresource": how long the API server took to
	// answer, from the request's arrival to its answer.
	latency map[string]latencyTotal
}

// latencyTotal is a histogram's count and sum of seconds.
type latencyTotal struct{ count, seconds float64 }

// scrape reads the API server's request counters and latencies.
func scrape(ctx context.Context, kube kubernetes.Interface) (scraped, error) {
	families, err := metrics(ctx, kube)
	if err != nil {
		return scraped{}, err
	}
	out := scraped{requests: series{}, latency: map[string]latencyTotal{}}
	family, ok := families["apiserver_request_total"]
	if !ok {
		return scraped{}, fmt.Errorf("the API server's /metrics has no apiserver_request_total")
	}
	for _, m := range family.GetMetric() {
		l := labels(m)
		key := strings.Join([]string{l["verb"], l["group"], l["resource"], l["subresource"], l["code"]}, "|")
		out.requests[key] += m.GetCounter().GetValue()
	}
	for _, m := range families["apiserver_request_duration_seconds"].GetMetric() {
		l := labels(m)
		key := strings.Join([]string{l["verb"], l["group"], l["resource"], l["subresource"]}, "|")
		t := out.latency[key]
		t.count += float64(m.GetHistogram().GetSampleCount())
		t.seconds += m.GetHistogram().GetSampleSum()
		out.latency[key] = t
	}
	return out, nil
}

func labels(m *dto.Metric) map[string]string {
	l := map[string]string{}
	for _, p := range m.GetLabel() {
		l[p.GetName()] = p.GetValue()
	}
	return l
}

// writeKind names a request that is one of a run's writes: a Job create or
// delete, a write of a CronJob (or of its status) in group; "" for any
// other request.
func writeKind(verb, g, resource, sub, group string) string {
	switch {
	case g == "batch" && resource == "jobs" && sub == "" && verb == "POST":
		return "job create"
	case g == "batch" && resource == "jobs" && sub == "" && verb == "DELETE":
		return "job delete"
	case g == group && resource == "cronjobs" && sub == "status" && isWrite(verb):
		return "cronjob status " + strings.ToLower(verb)
	case g == group && resource == "cronjobs" && sub == "" && isWrite(verb) && verb != "POST" && verb != "DELETE":
		return "cronjob " + strings.ToLower(verb)
	}
	return ""
}

// serverLatency is, for each kind of a run's writes and for Event creates
// and patches (both API groups), how long the API server took to answer
// one on average between two scrapes, in milliseconds. It tells whether a
// controller's runs start later because the API server answers its writes
// later, or because of what the controller does between them.
func serverLatency(before, after map[string]latencyTotal, ctl string) map[string]float64 {
	group := cronJobGroup(ctl)
	sums := map[string]latencyTotal{}
	for key, a := range after {
		f := strings.Split(key, "|")
		verb, g, resource, sub := f[0], f[1], f[2], f[3]
		kind := writeKind(verb, g, resource, sub, group)
		if kind == "" {
			kind = eventKind(verb, g, resource)
		}
		if kind == "" {
			continue
		}
		t := sums[kind]
		t.count += a.count - before[key].count
		t.seconds += a.seconds - before[key].seconds
		sums[kind] = t
	}
	out := map[string]float64{}
	for kind, t := range sums {
		if t.count > 0 {
			out[kind] = 1000 * t.seconds / t.count
		}
	}
	return out
}

// writes sums, between two scrapes, the writes a CronJob controller makes:
// Job creates and deletes, and CronJob (status) writes in its own API
// group. Events are left out: the Job controller writes core Events too.
// Conflicts are the 409 answers to any of them but creates (409 to a create
// is AlreadyExists, counted apart).
func writes(before, after series, ctl string) (map[string]float64, float64) {
	group := cronJobGroup(ctl)
	out := map[string]float64{}
	conflicts := 0.0
	for key, v := range after {
		delta := v - before[key]
		if delta <= 0 {
			continue
		}
		f := strings.Split(key, "|")
		verb, g, resource, sub, code := f[0], f[1], f[2], f[3], f[4]
		kind := writeKind(verb, g, resource, sub, group)
		if kind == "" {
			continue
		}
		if code == "409" {
			if verb == "POST" {
				// AlreadyExists: a second attempt at a run's Job, from a
				// cache that had not seen the first yet. Counted as a
				// write, not as a conflict.
				kind = "job create, already exists"
			} else {
				conflicts += delta
			}
		}
		out[kind] += delta
	}
	return out, conflicts
}

// reads sums, between two scrapes, the requests that read one Job or one
// CronJob of the controller's group from the API server itself (GET of a
// single object). A controller that reads its cache makes none of them in
// steady state; cronlab makes them where a stale cache would mislead it
// (APIReader in internal/controller), so they show how often it was.
// Lists and watches are left out: informers make them once, not per run.
func reads(before, after series, ctl string) float64 {
	group := cronJobGroup(ctl)
	total := 0.0
	for key, v := range after {
		f := strings.Split(key, "|")
		verb, g, resource, sub := f[0], f[1], f[2], f[3]
		if verb == "GET" && sub == "" && ((g == "batch" && resource == "jobs") || (g == group && resource == "cronjobs")) {
			total += v - before[key]
		}
	}
	return total
}

// eventWrites sums, between two scrapes, the Events created or patched that the
// API server accepted (a series of the same Event is a patch), in both of
// their API groups and by anyone: one controller runs at a time, and the
// Job controller's are counted too (docs/performance.md).
func eventWrites(before, after series) float64 {
	total := 0.0
	for key, v := range after {
		f := strings.Split(key, "|")
		verb, g, resource, code := f[0], f[1], f[2], f[4]
		if eventKind(verb, g, resource) != "" && strings.HasPrefix(code, "2") {
			total += v - before[key]
		}
	}
	return total
}

// eventKind names an Event create or patch ("event create", "event
// patch"), in either API group of Events; "" for any other request.
func eventKind(verb, g, resource string) string {
	if resource != "events" || (g != "" && g != "events.k8s.io") {
		return ""
	}
	switch verb {
	case "POST":
		return "event create"
	case "PATCH":
		return "event patch"
	}
	return ""
}

// managerMetrics is where the bench asks cronlab's manager to serve its
// metrics.
const managerMetrics = "127.0.0.1:18080"

// managerTotals are what the bench reads of cronlab's manager's metrics,
// for its controller.
type managerTotals struct {
	reconciles float64 // controller_runtime_reconcile_total, every result
	// queued is workqueue_queue_duration_seconds: how long each request
	// waited in the queue for a worker, once it was due.
	queued latencyTotal
	// reconciling is controller_runtime_reconcile_time_seconds.
	reconciling latencyTotal
	// eventsWaiting is cronlab_events_waiting at the moment of reading:
	// the Events recorded and not yet written (internal/eventsink). It is
	// a level, not a total: read at the window's start and end, it says
	// whether the Events kept up with the runs.
	eventsWaiting float64
	// eventsDropped is cronlab_events_dropped_total: the Events recorded
	// while too many waited, never written; -1 from a manager without
	// that counter (before 2026-11-27).
	eventsDropped float64
}

// readManager reads the totals of cronlab's manager.
func readManager(ctx context.Context) (managerTotals, error) {
	raw, err := httpget.Body(ctx, "http://"+managerMetrics+"/metrics")
	if err != nil {
		return managerTotals{}, fmt.Errorf("reading the manager's metrics: %w", err)
	}
	t, err := parseManager(raw)
	if err != nil {
		return managerTotals{}, fmt.Errorf("reading the manager's metrics: %w", err)
	}
	return t, nil
}

// parseManager picks the totals out of the manager's /metrics text.
func parseManager(raw []byte) (managerTotals, error) {
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(raw))
	if err != nil {
		return managerTotals{}, err
	}
	var t managerTotals
	for _, m := range families["cronlab_events_waiting"].GetMetric() {
		t.eventsWaiting += m.GetGauge().GetValue()
	}
	t.eventsDropped = -1
	if family, ok := families["cronlab_events_dropped_total"]; ok {
		t.eventsDropped = 0
		for _, m := range family.GetMetric() {
			t.eventsDropped += m.GetCounter().GetValue()
		}
	}
	for _, m := range families["controller_runtime_reconcile_total"].GetMetric() {
		if labels(m)["controller"] == "cronjob" {
			t.reconciles += m.GetCounter().GetValue()
		}
	}
	for family, total := range map[string]*latencyTotal{
		"workqueue_queue_duration_seconds":          &t.queued,
		"controller_runtime_reconcile_time_seconds": &t.reconciling,
	} {
		for _, m := range families[family].GetMetric() {
			if labels(m)["controller"] == "cronjob" {
				total.count += float64(m.GetHistogram().GetSampleCount())
				total.seconds += m.GetHistogram().GetSampleSum()
			}
		}
	}
	return t, nil
}

// meanMs is the mean, in milliseconds, of what was observed between two
// readings of a histogram; -1 when nothing was.
func meanMs(before, after latencyTotal) float64 {
	if after.count <= before.count {
		return -1
	}
	return 1000 * (after.seconds - before.seconds) / (after.count - before.count)
}

// cronJobGroup is the API group of the CronJobs that the controller ctl
// handles: upstream's are batch/v1, cronlab's its own.
func cronJobGroup(ctl string) string {
	if ctl == "upstream" {
		return "batch"
	}
	return "batch.cronlab.dev"
}

func isWrite(verb string) bool {
	switch verb {
	case "POST", "PUT", "PATCH", "DELETE", "APPLY":
		return true
	}
	return false
}

// process is what is measured of a controller's process.
type process interface {
	cpuSeconds() float64
	peakRSSMiB() float64
}

// pidProcess reads /proc/<pid>.
type pidProcess int

// clockTicks is USER_HZ, the unit of utime and stime in /proc/<pid>/stat:
// 100 on every Linux this runs on.
const clockTicks = 100

func (p pidProcess) cpuSeconds() float64 {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", int(p)))
	if err != nil {
		return 0
	}
	// The command name may hold spaces; the fields after it are plain.
	s := string(raw)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	utime, _ := strconv.ParseFloat(fields[11], 64)
	stime, _ := strconv.ParseFloat(fields[12], 64)
	return (utime + stime) / clockTicks
}

func (p pidProcess) peakRSSMiB() float64 {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", int(p)))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			return kb / 1024
		}
	}
	return 0
}

func numCPU() int { return goruntime.NumCPU() }

// reconcileErrors counts the failed syncs of the CronJobs in namespace ns,
// in the controller's log: controller-runtime logs "Reconciler error" for
// every Reconcile that returns an error (the manager's log is new for each
// run), kube-controller-manager's CronJob controller "error syncing
// CronJobController <namespace>/<name>". The floor
// has no reconciles; a log that cannot be read gives -1.
func reconcileErrors(o options, ctl, ns string) int {
	var logs []string
	var marker string
	switch ctl {
	case "cronlab", "cronlab-alt":
		logs, marker = []string{filepath.Join(o.out, "manager.log")}, "Reconciler error"
	case "upstream":
		logs = []string{localcluster.Log("kube-controller-manager")}
		marker = "error syncing CronJobController " + ns + "/"
	default:
		return 0
	}
	if len(logs) == 0 {
		return -1
	}
	n := 0
	for _, path := range logs {
		raw, err := os.ReadFile(path)
		if err != nil {
			return -1
		}
		for _, line := range strings.Split(string(raw), "\n") {
			if strings.Contains(line, marker) {
				n++
			}
		}
	}
	return n
}

// watchJobs watches the Jobs of namespace ns from now on. At the top of a
// minute the API server sends thousands of events in a second; a reader that
// falls behind has its watch closed by the API server
// (apiserver_terminated_watchers_total). So the watch decodes protobuf,
// cheaper than JSON, and a RetryWatcher opens a new watch from the last
// resourceVersion it saw: no Job is missed. reopened is called each time it
// opens one again, for any reason (a watch the API server closed as too
// slow, or one that ended otherwise, or a failed try): set beside
// apiserver_terminated_watchers_total, no call says that none of the
// watches closed was the bench's.
func watchJobs(ctx context.Context, cfg *rest.Config, ns string, reopened func()) (watch.Interface, error) {
	pb := rest.CopyConfig(cfg)
	pb.ContentType = runtime.ContentTypeProtobuf
	pb.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
	kube, err := kubernetes.NewForConfig(pb)
	if err != nil {
		return nil, err
	}
	jobs := kube.BatchV1().Jobs(ns)
	list, err := jobs.List(ctx, metav1.ListOptions{Limit: 1})
	if err != nil {
		return nil, err
	}
	opened := false
	return watchtools.NewRetryWatcherWithContext(ctx, list.ResourceVersion, &cache.ListWatch{
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			if opened {
				reopened()
			}
			opened = true
			return jobs.Watch(ctx, opts)
		},
	})
}

// terminatedWatchers reads how many Job watches the API server has closed
// because their reader was too slow.
func terminatedWatchers(ctx context.Context, kube kubernetes.Interface) float64 {
	families, err := metrics(ctx, kube)
	if err != nil {
		return 0
	}
	total := 0.0
	for _, m := range families["apiserver_terminated_watchers_total"].GetMetric() {
		if labels(m)["resource"] == "jobs" {
			total += m.GetCounter().GetValue()
		}
	}
	return total
}

// serverProcesses are the local cluster's kube-apiserver and etcd, whose
// CPU time is what a controller's requests cost the cluster.
type serverProcesses []pidProcess

// clusterServers finds them by the PIDs kwokctl recorded, or returns nil,
// and says so, when either is missing (a cluster not made by make cluster).
func clusterServers() serverProcesses {
	var ps serverProcesses
	for _, component := range []string{"kube-apiserver", "etcd"} {
		pid, err := localcluster.Process(component)
		if err != nil {
			progress("the cluster's CPU is not measured: %v", err)
			return nil
		}
		ps = append(ps, pidProcess(pid))
	}
	return ps
}

func (ps serverProcesses) cpuSeconds() float64 {
	total := 0.0
	for _, p := range ps {
		total += p.cpuSeconds()
	}
	return total
}
