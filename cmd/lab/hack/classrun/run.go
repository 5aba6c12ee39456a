//go:build linux

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

// The run, step by step: the class, the isolation checks, the managers,
// the CronJobs, the minutes of watching, the verdict.

import (
	"context"
	"fmt"
	"sync"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"cronlab.dev/cronlab/cmd/lab/internal/roster"
)

type run struct {
	cfg         config
	began       time.Time
	work        string
	admin       *roster.Cluster
	adminClient client.Client
	server      string // the API server's version

	setupStarted bool
	setupCommand string
	setupOutput  string
	setupTime    time.Duration
	attendees    []*attendee

	refusals      []attempt
	kubectlRuns   []kubectlRun
	neighbourSame bool

	managers      []*manager
	watch         *jobWatch
	watchFrom     time.Time
	createdAt     time.Time // when the last CronJob was created
	end           time.Time // createdAt + -for
	peakRSSSum    int64     // kB, the highest sum of the managers' VmRSS sampled
	finished      bool
	verdict       verdict
	cronJobsAtEnd string

	logs     logTally
	notes    []string
	mu       sync.Mutex
	failures []string
}

func (r *run) failf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	msg := fmt.Sprintf(format, args...)
	r.failures = append(r.failures, msg)
	progress("FAIL: %s", msg)
}

// exercise is the run up to its verdict. An error is a step that could not
// be done; what was done and found wrong is a failure (failf), and the run
// goes on, so that the report shows everything that is wrong at once.
func (r *run) exercise(ctx context.Context) error {
	if err := r.connect(ctx); err != nil {
		return err
	}
	if err := r.clearLeftovers(ctx); err != nil {
		return err
	}
	if err := r.setUpClass(ctx); err != nil {
		return err
	}
	var err error
	r.watchFrom = time.Now()
	if r.watch, err = watchAllJobs(ctx, r.admin.Config); err != nil {
		return fmt.Errorf("watching the cluster's Jobs: %w", err)
	}
	if err := r.checkIsolation(ctx); err != nil {
		return err
	}
	if err := r.startManagers(ctx.Done()); err != nil {
		return err
	}
	readies := make([]time.Duration, 0, len(r.managers))
	for _, m := range r.managers {
		readies = append(readies, m.ready.Sub(m.started))
	}
	d := distOf(readies)
	progress("every manager's workers run: %v after its start at the median, %v at most", d.p50.Round(10*time.Millisecond), d.max.Round(10*time.Millisecond))
	if err := r.createCronJobs(ctx); err != nil {
		return fmt.Errorf("creating the CronJobs: %w", err)
	}
	r.createdAt = time.Now()
	r.end = r.createdAt.Add(r.cfg.dur)
	progress("%d CronJobs every-minute (*/1 * * * *) created, one per namespace, each by its attendee; watching until %s",
		len(r.attendees), r.end.Format(time.TimeOnly))
	if err := r.observe(ctx); err != nil {
		return err
	}
	return r.conclude(ctx)
}

func (r *run) connect(ctx context.Context) error {
	var err error
	if r.admin, err = roster.Connect(); err != nil {
		return err
	}
	// The instructor's client: as fast as the API server lets it, since it
	// only reads, and is the judge.
	r.admin.Config.QPS, r.admin.Config.Burst = 100, 200
	v, err := r.admin.Kube.Discovery().ServerVersion()
	if err != nil {
		return fmt.Errorf("no cluster answers at %s (context %s): %w; make cluster starts one", r.admin.Config.Host, r.admin.Context, err)
	}
	r.server = v.GitVersion
	scheme, err := newScheme()
	if err != nil {
		return err
	}
	r.adminClient, err = client.New(r.admin.Config, client.Options{Scheme: scheme})
	progress("cluster of context %s, Kubernetes %s", r.admin.Context, r.server)
	return err
}

// observe lets the class run for -for: the managers' memory every 5 s,
// a line of progress every 10 s.
func (r *run) observe(ctx context.Context) error {
	namespaces := map[string]bool{}
	for _, a := range r.attendees {
		namespaces[a.ns] = true
	}
	sample := time.NewTicker(5 * time.Second)
	defer sample.Stop()
	report := time.NewTicker(10 * time.Second)
	defer report.Stop()
	deadline := time.NewTimer(time.Until(r.end))
	defer deadline.Stop()
	dead := map[*manager]bool{}
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-deadline.C:
			r.sampleRSS()
			return nil
		case <-sample.C:
			sum, _ := r.sampleRSS()
			r.peakRSSSum = max(r.peakRSSSum, sum)
		case <-report.C:
			sum, alive := r.sampleRSS()
			r.peakRSSSum = max(r.peakRSSSum, sum)
			progress("%3.0fs: %d Jobs in the class's namespaces, %d/%d managers alive, their RSS %s in all",
				time.Since(r.createdAt).Seconds(), r.watch.countIn(namespaces), alive, len(r.managers), kib(sum))
			for _, m := range r.managers {
				if !m.alive() && !dead[m] {
					dead[m] = true
					progress("%s's manager exited (%v): %s", m.a.name, m.exitErr, lastLines(m.log, 3))
				}
			}
		}
	}
}

// conclude stops the managers and judges: the Jobs, the CronJobs, the logs.
func (r *run) conclude(ctx context.Context) error {
	r.stopManagers()
	r.checkManagers()
	if err := r.inventory(ctx); err != nil {
		return err
	}
	jobs, relists := r.watch.snapshot()
	r.verdict = r.judge(jobs)
	r.verdict.relists = relists
	r.finished = true
	return nil
}
