//go:build unix

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

// Command chaos breaks things at the worst moment, the top of a minute with
// hundreds of runs in flight, and checks cronlab's promise
// (docs/reliability.md): no run started twice, none lost while a healthy
// controller could start it, nothing touched that is not cronlab's, and a
// status that converges. `make chaos` runs it on the local cluster.
//
// For each fault it makes a namespace with N CronJobs on "*/1 * * * *" and
// some on "@every 10s" (Replace, Forbid and Allow), and foreign Jobs; starts
// the manager(s); lets a minute pass; injects the fault a second after the
// top of a minute; lets two more minutes pass; and audits what its own watch
// of Jobs saw (audit.go).

package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	batchv1 "cronlab.dev/cronlab/api/v1"
)

// upstreamAnnotation is where kube-controller-manager's CronJob controller
// writes a Job's scheduled time.
const upstreamAnnotation = "batch.kubernetes.io/cronjob-scheduled-timestamp"

type options struct {
	n, every, foreign int
	faults            []string
	manager, out      string
	hold              time.Duration // how long a freeze lasts
	after             time.Duration // how long to watch after the fault
	// together runs the faults at the same time instead of one after the
	// other: each trial has its own namespace and managers scoped to it, so
	// faults that disturb only their own managers cannot see each other.
	together bool
}

// A fault is what is done at the top of a minute, and which managers run.
type fault struct {
	name, what string
	managers   int // cronlab managers with leader election; 0: upstream's controller
	// shared: the fault disturbs what every trial shares (the API server,
	// etcd, kube-controller-manager), so it cannot run beside another.
	shared bool
}

var faults = []fault{
	{"kill", "the manager is killed (SIGKILL) a second into the minute and started again 5 s later", 1, false},
	{"leader", "two managers; the leader is killed (SIGKILL) a second into the minute", 2, false},
	{"apiserver", "kube-apiserver is frozen (SIGSTOP) a second into the minute, then continued", 1, true},
	{"etcd", "etcd is frozen (SIGSTOP) a second into the minute, then continued", 1, true},
	{"freeze", "two managers; the leader is frozen (SIGSTOP) past its lease, the other takes over, then the first continues", 2, false},
	{"upstream-kill", "kube-controller-manager (upstream's CronJob controller) is killed a second into the minute and started again 5 s later", 0, true},
}

func main() {
	var o options
	var which string
	flag.IntVar(&o.n, "n", 300, "CronJobs on */1 * * * * per fault")
	flag.IntVar(&o.every, "every", 20, "CronJobs on @every 10s per fault")
	flag.IntVar(&o.foreign, "foreign", 20, "Jobs of no CronJob, and of no cronlab controller, that must survive")
	flag.StringVar(&which, "faults", "kill,leader,apiserver,etcd,freeze,upstream-kill", "the faults to inject, in order")
	flag.StringVar(&o.manager, "manager", "bin/manager", "the manager binary (make build)")
	flag.StringVar(&o.out, "out", "bin/chaos", "where the logs, raw data and the table go")
	flag.DurationVar(&o.hold, "hold", 20*time.Second, "how long a frozen process stays frozen (the freeze fault holds the leader past its 15 s lease)")
	flag.DurationVar(&o.after, "after", 2*time.Minute, "how long to watch after a fault")
	flag.BoolVar(&o.together, "together", false, "run the faults at the same time, each in its namespace (only kill, leader and freeze, which disturb their own managers alone)")
	flag.Parse()
	o.faults = strings.Split(which, ",")
	if err := run(context.Background(), o); err != nil {
		fmt.Fprintln(os.Stderr, "chaos:", err)
		os.Exit(1)
	}
}

func progress(format string, args ...any) {
	fmt.Printf("%s  %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

// row is the table's line for one fault.
type row struct {
	Fault, What                    string
	Due, Started, Duplicates, Lost int
	Skipped                        int
	ForeignTouched                 int
	RecoveryP50, RecoveryMax       time.Duration
	Converged                      time.Duration // after the fault ended; -1: not within the watch
	Back                           time.Duration // from the fault to a healthy controller
	// StaleWrites is what a manager wrote while another held its Lease
	// (the freeze fault only; -1 elsewhere), StaleDetail what it was, and
	// StaleEach each write, named.
	StaleWrites       int
	StaleDetail       string
	StaleEach         []string
	LostRuns          []string
	Manager, N, Every string
}

func run(ctx context.Context, o options) error {
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	cfg, err := ctrl.GetConfig()
	if err != nil {
		return fmt.Errorf("no cluster: %w (make cluster)", err)
	}
	cfg.QPS, cfg.Burst = 200, 400
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return err
	}
	if err := batchv1.AddToScheme(scheme); err != nil {
		return err
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return err
	}
	// kube-controller-manager and kube-scheduler exit when a frozen API
	// server costs them their lease; a supervisor brings them back, as the
	// kubelet would (faults.go).
	sup, err := newSupervisor("kube-controller-manager", "kube-scheduler")
	if err != nil {
		return err
	}
	var chosen []fault
	for _, name := range o.faults {
		f, ok := findFault(name)
		if !ok {
			return fmt.Errorf("no fault %q", name)
		}
		if o.together && f.shared {
			return fmt.Errorf("-together: the fault %s disturbs what every trial shares, so it cannot run beside another; run it alone (-faults %s, without -together)", f.name, f.name)
		}
		chosen = append(chosen, f)
	}
	rows, err := runFaults(ctx, o, cfg, c, chosen, sup)
	if err != nil {
		return err
	}
	table := markdown(rows, o)
	fmt.Println()
	fmt.Print(table)
	raw, _ := json.MarshalIndent(rows, "", "  ")
	if err := os.WriteFile(filepath.Join(o.out, "results.json"), raw, 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(o.out, "results.md"), []byte(table), 0o644); err != nil {
		return err
	}
	for _, r := range rows {
		if r.Duplicates > 0 || r.Lost > 0 || r.ForeignTouched > 0 || r.Converged < 0 || r.StaleWrites > 0 {
			return fmt.Errorf("the promise does not hold under %s (the table above; logs and raw data in %s)", r.Fault, o.out)
		}
	}
	return nil
}

// runFaults runs the faults one after the other, or all at once with
// -together, and returns their rows in the order they were named.
func runFaults(ctx context.Context, o options, cfg *rest.Config, c client.Client, faults []fault, sup *supervisor) ([]row, error) {
	rows := make([]row, len(faults))
	errs := make([]error, len(faults))
	one := func(i int) {
		r, err := runFault(ctx, o, cfg, c, faults[i], sup)
		if err != nil {
			errs[i] = fmt.Errorf("fault %s: %w", faults[i].name, err)
			return
		}
		rows[i] = r
		progress("%s: due %d, started %d, duplicates %d, lost %d, foreign Jobs touched %d, recovery p50 %s max %s, status converged after %s, writes by a stale leader %s",
			r.Fault, r.Due, r.Started, r.Duplicates, r.Lost, r.ForeignTouched, r.RecoveryP50, r.RecoveryMax, converged(r.Converged), stale(r))
	}
	if !o.together {
		for i := range faults {
			if one(i); errs[i] != nil {
				return nil, errs[i]
			}
		}
		return rows, nil
	}
	var wg sync.WaitGroup
	for i := range faults {
		wg.Go(func() { one(i) })
	}
	wg.Wait()
	return rows, errors.Join(errs...)
}

func findFault(name string) (fault, bool) {
	for _, f := range faults {
		if f.name == name {
			return f, true
		}
	}
	return fault{}, false
}

func nextMinute(t time.Time) time.Time { return t.Truncate(time.Minute).Add(time.Minute) }

func sleepUntil(t time.Time) { time.Sleep(time.Until(t)) }

func converged(d time.Duration) string {
	if d < 0 {
		return "never (within the watch)"
	}
	return d.String()
}

func quantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[int(q*float64(len(s)-1)+0.5)].Round(100 * time.Millisecond)
}

// markdown is the table of docs/reliability.md.
func markdown(rows []row, o options) string {
	var b strings.Builder
	host, _ := os.Hostname()
	fmt.Fprintf(&b, "%s, %s, %d CPUs: %d CronJobs on */1 * * * * and %d on @every 10s per fault, %d foreign Jobs.\n\n",
		time.Now().Format("2006-01-02 15:04"), host, numCPU(), o.n, o.every, o.foreign)
	b.WriteString("| fault | runs due | started | duplicates | lost | foreign Jobs touched | recovery p50 | recovery max | status converged after | controller back after | writes by a stale leader |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %d | %s | %s | %s | %s | %s |\n", r.Fault, r.Due, r.Started, r.Duplicates, r.Lost,
			r.ForeignTouched, r.RecoveryP50, r.RecoveryMax, converged(r.Converged), r.Back, stale(r))
	}
	for _, r := range rows {
		for _, l := range r.LostRuns {
			fmt.Fprintf(&b, "\nlost under %s: %s", r.Fault, l)
		}
		for _, w := range r.StaleEach {
			fmt.Fprintf(&b, "\nwritten by a stale leader under %s: %s", r.Fault, w)
		}
	}
	return b.String()
}
