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
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	kbatchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	toolswatch "k8s.io/client-go/tools/watch"
	"k8s.io/utils/ptr"
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
}

// A fault is what is done at the top of a minute, and which managers run.
type fault struct {
	name, what string
	managers   int // cronlab managers with leader election; 0: upstream's controller
}

var faults = []fault{
	{"kill", "the manager is killed (SIGKILL) a second into the minute and started again 5 s later", 1},
	{"leader", "two managers; the leader is killed (SIGKILL) a second into the minute", 2},
	{"apiserver", "kube-apiserver is frozen (SIGSTOP) a second into the minute, then continued", 1},
	{"etcd", "etcd is frozen (SIGSTOP) a second into the minute, then continued", 1},
	{"freeze", "two managers; the leader is frozen (SIGSTOP) past its lease, the other takes over, then the first continues", 2},
	{"upstream-kill", "kube-controller-manager (upstream's CronJob controller) is killed a second into the minute and started again 5 s later", 0},
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
	// (the freeze fault only; -1 elsewhere), and StaleDetail what it was.
	StaleWrites       int
	StaleDetail       string
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
	var rows []row
	for _, name := range o.faults {
		f, ok := findFault(name)
		if !ok {
			return fmt.Errorf("no fault %q", name)
		}
		r, err := runFault(ctx, o, cfg, c, f, sup)
		if err != nil {
			return fmt.Errorf("fault %s: %w", f.name, err)
		}
		rows = append(rows, r)
		progress("%s: due %d, started %d, duplicates %d, lost %d, foreign Jobs touched %d, recovery p50 %s max %s, status converged after %s, writes by a stale leader %s",
			r.Fault, r.Due, r.Started, r.Duplicates, r.Lost, r.ForeignTouched, r.RecoveryP50, r.RecoveryMax, converged(r.Converged), stale(r))
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

func findFault(name string) (fault, bool) {
	for _, f := range faults {
		if f.name == name {
			return f, true
		}
	}
	return fault{}, false
}

// runFault sets up a namespace, injects one fault and audits it.
func runFault(ctx context.Context, o options, cfg *rest.Config, c client.Client, f fault, sup *supervisor) (row, error) {
	r := row{Fault: f.name, What: f.what, N: fmt.Sprint(o.n), Every: fmt.Sprint(o.every)}
	upstream := f.managers == 0
	ns := fmt.Sprintf("chaos-%s-%d", f.name, time.Now().Unix())
	progress("%s: %s", f.name, f.what)
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		return r, err
	}
	defer func() {
		_ = c.Delete(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	}()
	// The auditor's own watch, from before the first Job.
	seen := newSightings()
	watchCtx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	if err := seen.watch(watchCtx, cfg, ns, upstream); err != nil {
		return r, err
	}
	cjs, err := createCronJobs(ctx, c, ns, o, upstream)
	if err != nil {
		return r, err
	}
	foreign, err := createForeignJobs(ctx, c, ns, o.foreign, cjs, upstream)
	if err != nil {
		return r, err
	}
	progress("%s: %d CronJobs and %d foreign Jobs in namespace %s", f.name, len(cjs), len(foreign), ns)

	var healthy []span
	var managers []*manager
	defer func() {
		for _, m := range managers {
			m.stop()
		}
	}()
	start := func(name string) (*manager, error) {
		m, err := startManager(o.manager, o.out, f.name+"-"+name, ns)
		if err == nil {
			managers = append(managers, m)
		}
		return m, err
	}
	leaderOf := func() *manager {
		for _, m := range managers {
			if !m.exited() && !m.leadingSince().IsZero() {
				return m
			}
		}
		return nil
	}
	from := time.Now()
	for i := 0; i < f.managers; i++ {
		if _, err := start(fmt.Sprint(i)); err != nil {
			return r, err
		}
	}
	if f.managers > 0 {
		first, err := waitAnyLeading(managers, time.Minute)
		if err != nil {
			return r, err
		}
		from = first
	}
	// A whole minute of calm first: the audit starts at its top.
	top := nextMinute(time.Now())
	progress("%s: waiting for %s, then a minute of calm", f.name, top.Format(time.TimeOnly))
	sleepUntil(top.Add(time.Minute + time.Second))
	faultAt := time.Now()
	progress("%s: now", f.name)
	var back time.Time
	var frozen *manager
	switch f.name {
	case "kill":
		m := leaderOf()
		_ = m.signal(syscall.SIGKILL)
		<-m.done
		time.Sleep(5 * time.Second)
		again, err := start("again")
		if err != nil {
			return r, err
		}
		if back, err = again.waitLeading(time.Minute); err != nil {
			return r, err
		}
	case "leader":
		m := leaderOf()
		_ = m.signal(syscall.SIGKILL)
		<-m.done
		for _, other := range managers {
			if other != m {
				if back, err = other.waitLeading(time.Minute); err != nil {
					return r, err
				}
			}
		}
	case "apiserver", "etcd":
		component := map[string]string{"apiserver": "kube-apiserver", "etcd": "etcd"}[f.name]
		if err := freeze(component, o.hold); err != nil {
			return r, err
		}
		back = time.Now()
	case "freeze":
		m := leaderOf()
		frozen = m
		_ = m.signal(syscall.SIGSTOP)
		var other *manager
		for _, x := range managers {
			if x != m {
				other = x
			}
		}
		if back, err = other.waitLeading(time.Minute); err != nil {
			_ = m.signal(syscall.SIGCONT)
			return r, err
		}
		time.Sleep(time.Until(faultAt.Add(o.hold)))
		_ = m.signal(syscall.SIGCONT) // it believes it leads, for a moment
	case "upstream-kill":
		if err := restartProcess("kube-controller-manager", 5*time.Second); err != nil {
			return r, err
		}
		back = time.Now() // it still has to sync its caches: that is in its recovery time
	}
	// A manager that could not renew its lease in time exits, by design
	// (leader election lost), and its Deployment would start it again: so
	// does this tool, and the controller is back when the new one leads.
	if f.managers > 0 {
		time.Sleep(2 * time.Second)
		alive := false
		for _, m := range managers {
			alive = alive || !m.exited()
		}
		if !alive {
			progress("%s: the manager exited (it lost its lease while the fault lasted); starting it again, as its Deployment would", f.name)
			again, err := start("restarted")
			if err != nil {
				return r, err
			}
			if back, err = again.waitLeading(time.Minute); err != nil {
				return r, err
			}
		}
	}
	healthy = append(healthy, span{From: from, To: faultAt}, span{From: back, To: time.Now().Add(24 * time.Hour)})
	// Components that lost their lease in the fault exit; bring them back
	// while the watch goes on (a second, as a kubelet would take).
	go func() {
		for end := time.Now().Add(o.after); time.Now().Before(end); time.Sleep(time.Second) {
			if restarted, err := sup.restartExited(); err != nil {
				progress("%s: %v", f.name, err)
			} else if len(restarted) > 0 {
				progress("%s: %s exited (lost its lease) and was started again, as a kubelet would", f.name, strings.Join(restarted, " and "))
			}
		}
	}()
	progress("%s: recovered after %.1fs; watching for %s", f.name, back.Sub(faultAt).Seconds(), o.after)
	end := time.Now().Add(o.after)
	convergedAt := waitConverged(ctx, c, ns, upstream, cjs, end)
	sleepUntil(end)
	stopWatch()

	jobs, foreignTouched := seen.result(foreign)
	if seen.relists > 0 {
		progress("%s: the auditor's watch had to list again %d time(s); Jobs it first saw in such a list count as seen then", f.name, seen.relists)
	}
	v, err := audit(cjs, jobs, healthy, top, end.Add(-10*time.Second), 8*time.Second)
	if err != nil {
		return r, err
	}
	r.Due, r.Started, r.Duplicates, r.Lost, r.Skipped = v.Due, v.Started, v.Duplicates, len(v.Lost), v.Skipped
	r.LostRuns = v.Lost
	r.ForeignTouched = foreignTouched
	r.RecoveryP50, r.RecoveryMax = quantile(v.Recovery, 0.5), quantile(v.Recovery, 1)
	r.Back = back.Sub(faultAt).Round(100 * time.Millisecond)
	r.StaleWrites = -1
	if frozen != nil {
		if r.StaleWrites, r.StaleDetail, err = staleWrites(ctx, c, ns, jobs, fieldManager(frozen.name), back); err != nil {
			return r, err
		}
	}
	r.Converged = -1
	if !convergedAt.IsZero() {
		r.Converged = max(0, convergedAt.Sub(back)).Round(100 * time.Millisecond)
	}
	raw, _ := json.MarshalIndent(map[string]any{"cronJobs": cjs, "jobs": jobs, "healthy": healthy, "verdict": v}, "", " ")
	_ = os.WriteFile(filepath.Join(o.out, f.name+".json"), raw, 0o644)
	return r, nil
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

// createCronJobs makes the CronJobs of a fault: o.n on "*/1 * * * *" (a
// tenth Forbid and a tenth Allow, with pods that finish in a few seconds;
// the rest Replace with suspended Jobs, which make no pods, as hack/bench's)
// and o.every on "@every 10s" (Replace, suspended). upstream: batch/v1
// CronJobs, on "*/1" only (upstream has no @every).
func createCronJobs(ctx context.Context, c client.Client, ns string, o options, upstream bool) ([]cronJob, error) {
	var out []cronJob
	var mu sync.Mutex
	total := o.n + o.every
	if upstream {
		total = o.n
	}
	err := parallel(total, func(i int) error {
		schedule, policy, suspend := "*/1 * * * *", batchv1.ReplaceConcurrent, true
		switch {
		case i >= o.n:
			schedule = "@every 10s"
		case i%10 == 1:
			policy, suspend = batchv1.ForbidConcurrent, false
		case i%10 == 2:
			policy, suspend = batchv1.AllowConcurrent, false
		}
		meta := metav1.ObjectMeta{Name: fmt.Sprintf("cj-%04d", i), Namespace: ns}
		template := kbatchv1.JobTemplateSpec{Spec: kbatchv1.JobSpec{
			Suspend: ptr.To(suspend),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{"pod-complete.stage.kwok.x-k8s.io/delay": "3s"}},
				Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever,
					Containers: []corev1.Container{{Name: "c", Image: "busybox"}}},
			},
		}}
		var obj client.Object
		if upstream {
			obj = &kbatchv1.CronJob{ObjectMeta: meta, Spec: kbatchv1.CronJobSpec{Schedule: schedule,
				ConcurrencyPolicy: kbatchv1.ConcurrencyPolicy(policy), JobTemplate: template}}
		} else {
			obj = &batchv1.CronJob{ObjectMeta: meta, Spec: batchv1.CronJobSpec{Schedule: schedule,
				ConcurrencyPolicy: policy, JobTemplate: template}}
		}
		if err := c.Create(ctx, obj); err != nil {
			return err
		}
		mu.Lock()
		out = append(out, cronJob{Key: ns + "/" + meta.Name, UID: obj.GetUID(), Schedule: schedule,
			Forbid: policy == batchv1.ForbidConcurrent, Created: obj.GetCreationTimestamp().Time})
		mu.Unlock()
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out, err
}

// createForeignJobs makes Jobs that are not cronlab's to touch: half with
// no owner, half with an owner reference to one of the CronJobs that is not
// a controller reference (so neither adoptable nor the CronJob's history).
// They are suspended: nothing else changes them either.
func createForeignJobs(ctx context.Context, c client.Client, ns string, n int, cjs []cronJob, upstream bool) ([]types.UID, error) {
	uids := make([]types.UID, n)
	err := parallel(n, func(i int) error {
		job := &kbatchv1.Job{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("foreign-%03d", i), Namespace: ns, Labels: map[string]string{"app": "foreign"}},
			Spec: kbatchv1.JobSpec{Suspend: ptr.To(true), Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}},
		}
		if i%2 == 1 && len(cjs) > 0 {
			// The owner must exist as named, or the garbage collector
			// deletes the Job: upstream's CronJobs are batch/v1.
			owner := cjs[i%len(cjs)]
			apiVersion := batchv1.GroupVersion.String()
			if upstream {
				apiVersion = kbatchv1.SchemeGroupVersion.String()
			}
			job.OwnerReferences = []metav1.OwnerReference{{APIVersion: apiVersion, Kind: "CronJob",
				Name: strings.TrimPrefix(owner.Key, ns+"/"), UID: owner.UID}}
		}
		if err := c.Create(ctx, job); err != nil {
			return err
		}
		uids[i] = job.UID
		return nil
	})
	return uids, err
}

// parallel runs do(0..n-1), 16 at a time, and returns the first error.
func parallel(n int, do func(i int) error) error {
	sem := make(chan struct{}, 16)
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if err := do(i); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// sightings is what the auditor's watch saw of the namespace's Jobs.
type sightings struct {
	mu       sync.Mutex
	jobs     map[types.UID]*job
	deleted  map[types.UID]bool
	modified map[types.UID]bool // a foreign Job whose owners or labels changed
	relists  int                // times the watch had to list again
}

func newSightings() *sightings {
	return &sightings{jobs: map[types.UID]*job{}, deleted: map[types.UID]bool{}, modified: map[types.UID]bool{}}
}

// watch follows the Jobs of ns with a watch of its own until ctx ends. A
// RetryWatcher reconnects by itself, but gives up when the API server says
// that its resourceVersion is too old (after a freeze, say): then the
// auditor lists again, records what it had missed, and watches from there.
func (s *sightings) watch(ctx context.Context, cfg *rest.Config, ns string, upstream bool) error {
	c, err := client.NewWithWatch(cfg, client.Options{})
	if err != nil {
		return err
	}
	annotation := batchv1.ScheduledTimeAnnotation
	if upstream {
		annotation = upstreamAnnotation
	}
	start := func() (watch.Interface, error) {
		var list kbatchv1.JobList
		if err := c.List(ctx, &list, client.InNamespace(ns)); err != nil {
			return nil, err
		}
		for i := range list.Items {
			s.saw(watch.Added, &list.Items[i], annotation)
		}
		return toolswatch.NewRetryWatcherWithContext(ctx, list.ResourceVersion, &lister{c: c, ns: ns})
	}
	w, err := start()
	if err != nil {
		return err
	}
	go func() {
		for {
			for e := range w.ResultChan() {
				if j, ok := e.Object.(*kbatchv1.Job); ok {
					s.saw(e.Type, j, annotation)
				}
			}
			w.Stop()
			for ctx.Err() == nil {
				if w, err = start(); err == nil {
					break
				}
				time.Sleep(time.Second)
			}
			if ctx.Err() != nil {
				return
			}
			s.mu.Lock()
			s.relists++
			s.mu.Unlock()
		}
	}()
	return nil
}

func (s *sightings) saw(t watch.EventType, j *kbatchv1.Job, annotation string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	if t == watch.Deleted {
		s.deleted[j.UID] = true
		if rec, ok := s.jobs[j.UID]; ok && rec.Gone.IsZero() {
			rec.Gone = now
		}
		return
	}
	rec, ok := s.jobs[j.UID]
	if !ok {
		rec = &job{Key: j.Namespace + "/" + j.Name, UID: j.UID, Seen: now}
		if ref := metav1.GetControllerOf(j); ref != nil {
			rec.Owner = ref.UID
		}
		if v, ok := j.Annotations[annotation]; ok {
			rec.Scheduled, _ = time.Parse(time.RFC3339, v)
		}
		s.jobs[j.UID] = rec
	} else if j.Labels["app"] == "foreign" && (metav1.GetControllerOf(j) != nil || len(j.Labels) != 1) {
		s.modified[j.UID] = true
	}
	for _, c := range j.Status.Conditions {
		if (c.Type == kbatchv1.JobComplete || c.Type == kbatchv1.JobFailed) && c.Status == corev1.ConditionTrue && rec.Finished.IsZero() {
			rec.Finished = now
		}
	}
}

// result is every Job seen, and how many foreign Jobs were deleted or changed.
func (s *sightings) result(foreign []types.UID) ([]job, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var jobs []job
	for _, j := range s.jobs {
		jobs = append(jobs, *j)
	}
	touched := 0
	for _, uid := range foreign {
		if s.deleted[uid] || s.modified[uid] {
			touched++
		}
	}
	return jobs, touched
}

// lister gives the RetryWatcher its watches.
type lister struct {
	c  client.WithWatch
	ns string
}

func (l *lister) WatchWithContext(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	return l.c.Watch(ctx, &kbatchv1.JobList{}, client.InNamespace(l.ns), &client.ListOptions{Raw: &opts})
}

// waitConverged waits until every CronJob's status says what its Jobs say
// (status.active lists exactly the running Jobs, lastScheduleTime is the
// latest run), and returns when it first did, or zero if not before end.
func waitConverged(ctx context.Context, c client.Client, ns string, upstream bool, cjs []cronJob, end time.Time) time.Time {
	for time.Now().Before(end) {
		if ok, _ := statusAgrees(ctx, c, ns, upstream); ok {
			return time.Now()
		}
		time.Sleep(time.Second)
	}
	return time.Time{}
}

func statusAgrees(ctx context.Context, c client.Client, ns string, upstream bool) (bool, error) {
	var jobs kbatchv1.JobList
	if err := c.List(ctx, &jobs, client.InNamespace(ns)); err != nil {
		return false, err
	}
	running := map[types.UID]map[types.UID]bool{}
	latest := map[types.UID]time.Time{}
	annotation := batchv1.ScheduledTimeAnnotation
	if upstream {
		annotation = upstreamAnnotation
	}
	for _, j := range jobs.Items {
		ref := metav1.GetControllerOf(&j)
		if ref == nil {
			continue
		}
		if running[ref.UID] == nil {
			running[ref.UID] = map[types.UID]bool{}
		}
		if !finished(&j) {
			running[ref.UID][j.UID] = true
		}
		if t, err := time.Parse(time.RFC3339, j.Annotations[annotation]); err == nil && t.After(latest[ref.UID]) {
			latest[ref.UID] = t
		}
	}
	type status struct {
		uid    types.UID
		active []corev1.ObjectReference
		last   *metav1.Time
	}
	var all []status
	if upstream {
		var list kbatchv1.CronJobList
		if err := c.List(ctx, &list, client.InNamespace(ns)); err != nil {
			return false, err
		}
		for _, cj := range list.Items {
			all = append(all, status{cj.UID, cj.Status.Active, cj.Status.LastScheduleTime})
		}
	} else {
		var list batchv1.CronJobList
		if err := c.List(ctx, &list, client.InNamespace(ns)); err != nil {
			return false, err
		}
		for _, cj := range list.Items {
			all = append(all, status{cj.UID, cj.Status.Active, cj.Status.LastScheduleTime})
		}
	}
	for _, st := range all {
		if len(st.active) != len(running[st.uid]) {
			return false, nil
		}
		for _, ref := range st.active {
			if !running[st.uid][ref.UID] {
				return false, nil
			}
		}
		if t := latest[st.uid]; !t.IsZero() && (st.last == nil || !st.last.Time.Equal(t)) {
			return false, nil
		}
	}
	return true, nil
}

func finished(j *kbatchv1.Job) bool {
	for _, c := range j.Status.Conditions {
		if (c.Type == kbatchv1.JobComplete || c.Type == kbatchv1.JobFailed) && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
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
	}
	return b.String()
}

// stale is the table's cell for the writes of a stale leader.
func stale(r row) string {
	switch {
	case r.StaleWrites < 0:
		return "-"
	case r.StaleWrites == 0:
		return "0"
	}
	return fmt.Sprintf("%d (%s)", r.StaleWrites, r.StaleDetail)
}

// staleWrites lists the Events and CronJobs of namespace ns for
// countStaleWrites.
func staleWrites(ctx context.Context, c client.Client, ns string, jobs []job, fieldManager string, since time.Time) (int, string, error) {
	var events eventsv1.EventList
	if err := c.List(ctx, &events, client.InNamespace(ns)); err != nil {
		return 0, "", err
	}
	var cjs batchv1.CronJobList
	if err := c.List(ctx, &cjs, client.InNamespace(ns)); err != nil {
		return 0, "", err
	}
	total, detail := countStaleWrites(events.Items, cjs.Items, jobs, fieldManager, since)
	return total, detail, nil
}

// countStaleWrites counts what the manager whose writes the API server names
// fieldManager did after since, when another manager held the Lease:
//
//   - the Jobs it created and deleted: its SuccessfulCreate and
//     SuccessfulDelete Events say which, and the auditor's watch says when
//     each Job appeared or went. The Event's own time will not do: a request
//     sent just before a freeze is answered, and its Event recorded, only
//     when the process continues, although the write was made before;
//   - the CronJob statuses it changed: the time of its entry in their
//     managedFields, which the API server stamps.
//
// A write the watch did not time is counted by its Event's time, which is
// never earlier than the write: nothing is hidden.
func countStaleWrites(events []eventsv1.Event, cjs []batchv1.CronJob, jobs []job, fieldManager string, since time.Time) (int, string) {
	wroteBy := func(obj metav1.Object, subresource string) (time.Time, bool) {
		for _, e := range obj.GetManagedFields() {
			if e.Manager == fieldManager && e.Subresource == subresource && e.Time != nil {
				return e.Time.Time, true
			}
		}
		return time.Time{}, false
	}
	byName := map[string]job{}
	for _, j := range jobs {
		byName[j.Key[strings.Index(j.Key, "/")+1:]] = j
	}
	counts := map[string]int{}
	for i := range events {
		ev := &events[i]
		if _, ours := wroteBy(ev, ""); !ours {
			continue
		}
		when := ev.EventTime.Time
		switch ev.Reason {
		case "SuccessfulCreate":
			if j, ok := byName[strings.TrimPrefix(ev.Note, "Created job ")]; ok {
				when = j.Seen
			}
		case "SuccessfulDelete":
			if j, ok := byName[strings.TrimPrefix(ev.Note, "Deleted job ")]; ok && !j.Gone.IsZero() {
				when = j.Gone
			}
		default:
			continue
		}
		if !when.Before(since) {
			counts[ev.Reason]++
		}
	}
	for i := range cjs {
		// managedFields keep whole seconds: a write in since's second counts.
		if t, ours := wroteBy(&cjs[i], "status"); ours && !t.Before(since.Truncate(time.Second)) {
			counts["status"]++
		}
	}
	total, parts := 0, []string{}
	for _, what := range []string{"SuccessfulCreate", "SuccessfulDelete", "status"} {
		total += counts[what]
		if counts[what] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[what], what))
		}
	}
	return total, strings.Join(parts, ", ")
}
