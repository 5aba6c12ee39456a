//go:build unix

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// runFault sets up a namespace, injects one fault and audits it.
func runFault(ctx context.Context, o options, cfg *rest.Config, c client.Client, f fault, sup *supervisor) (row, error) {
	r := row{Fault: f.name, What: f.what, N: fmt.Sprint(o.n), Every: fmt.Sprint(o.every)}
	t := &trial{o: o, f: f, c: c, upstream: f.managers == 0, ns: fmt.Sprintf("chaos-%s-%d", f.name, time.Now().Unix())}
	progress("%s: %s", f.name, f.what)
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: t.ns}}); err != nil {
		return r, err
	}
	defer func() {
		_ = c.Delete(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: t.ns}})
	}()
	// The auditor's own watch, from before the first Job.
	seen := newSightings()
	watchCtx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	if err := seen.watch(watchCtx, cfg, t.ns, t.upstream); err != nil {
		return r, err
	}
	cjs, err := createCronJobs(ctx, c, t.ns, o, t.upstream)
	if err != nil {
		return r, err
	}
	foreign, err := createForeignJobs(ctx, c, t.ns, o.foreign, cjs, t.upstream)
	if err != nil {
		return r, err
	}
	progress("%s: %d CronJobs and %d foreign Jobs in namespace %s", f.name, len(cjs), len(foreign), t.ns)
	defer t.stopManagers()
	from, err := t.startManagers()
	if err != nil {
		return r, err
	}
	// A whole minute of calm first: the audit starts at its top.
	top := nextMinute(time.Now())
	progress("%s: waiting for %s, then a minute of calm", f.name, top.Format(time.TimeOnly))
	sleepUntil(top.Add(time.Minute + time.Second))
	faultAt := time.Now()
	progress("%s: now", f.name)
	back, frozen, err := t.inject(faultAt)
	if err != nil {
		return r, err
	}
	if back, err = t.restartIfExited(back); err != nil {
		return r, err
	}
	healthy := []span{{From: from, To: faultAt}, {From: back, To: time.Now().Add(24 * time.Hour)}}
	go superviseFor(sup, f.name, o.after)
	progress("%s: recovered after %.1fs; watching for %s", f.name, back.Sub(faultAt).Seconds(), o.after)
	end := time.Now().Add(o.after)
	convergedAt := waitConverged(ctx, c, t.ns, t.upstream, cjs, end)
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
		if r.StaleWrites, r.StaleDetail, r.StaleEach, err = staleWrites(ctx, c, t.ns, jobs, fieldManager(frozen.name), back); err != nil {
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

// A trial is one fault's run: its namespace and the managers it started.
type trial struct {
	o        options
	f        fault
	c        client.Client
	ns       string
	upstream bool // upstream's controller (kube-controller-manager), no manager of ours
	managers []*manager
}

// start starts a manager of the trial, named after the fault and name.
func (t *trial) start(name string) (*manager, error) {
	m, err := startManager(t.o.manager, t.o.out, t.f.name+"-"+name, t.ns)
	if err == nil {
		t.managers = append(t.managers, m)
	}
	return m, err
}

// startManagers starts the fault's managers and returns when one leads
// (now, for upstream's controller, which runs all along).
func (t *trial) startManagers() (time.Time, error) {
	for i := 0; i < t.f.managers; i++ {
		if _, err := t.start(fmt.Sprint(i)); err != nil {
			return time.Time{}, err
		}
	}
	if t.f.managers == 0 {
		return time.Now(), nil
	}
	return waitAnyLeading(t.managers, time.Minute)
}

func (t *trial) stopManagers() {
	for _, m := range t.managers {
		m.stop()
	}
}

// leader is the manager that leads now, or nil.
func (t *trial) leader() *manager {
	for _, m := range t.managers {
		if !m.exited() && !m.leadingSince().IsZero() {
			return m
		}
	}
	return nil
}

// inject does the fault and returns when a controller is healthy again
// (a manager leads), and the manager it froze, if any.
func (t *trial) inject(faultAt time.Time) (back time.Time, frozen *manager, err error) {
	switch t.f.name {
	case "kill":
		m := t.leader()
		_ = m.signal(syscall.SIGKILL)
		<-m.done
		time.Sleep(5 * time.Second)
		again, err := t.start("again")
		if err != nil {
			return back, nil, err
		}
		back, err = again.waitLeading(time.Minute)
		return back, nil, err
	case "leader":
		m := t.leader()
		_ = m.signal(syscall.SIGKILL)
		<-m.done
		for _, other := range t.managers {
			if other != m {
				if back, err = other.waitLeading(time.Minute); err != nil {
					return back, nil, err
				}
			}
		}
		return back, nil, nil
	case "apiserver", "etcd":
		component := map[string]string{"apiserver": "kube-apiserver", "etcd": "etcd"}[t.f.name]
		err := freeze(component, t.o.hold)
		return time.Now(), nil, err
	case "freeze":
		return t.freezeLeader(faultAt)
	case "upstream-kill":
		err := restartProcess("kube-controller-manager", 5*time.Second)
		return time.Now(), nil, err // it still has to sync its caches: that is in its recovery time
	}
	return back, nil, fmt.Errorf("no fault %q", t.f.name)
}

// freezeLeader stops the leader past its Lease, waits for the other
// manager to take over, and lets the first go on: it believes it leads,
// for a moment.
func (t *trial) freezeLeader(faultAt time.Time) (back time.Time, frozen *manager, err error) {
	m := t.leader()
	_ = m.signal(syscall.SIGSTOP)
	var other *manager
	for _, x := range t.managers {
		if x != m {
			other = x
		}
	}
	if back, err = other.waitLeading(time.Minute); err != nil {
		_ = m.signal(syscall.SIGCONT)
		return back, m, err
	}
	time.Sleep(time.Until(faultAt.Add(t.o.hold)))
	_ = m.signal(syscall.SIGCONT)
	return back, m, nil
}

// restartIfExited starts the manager again when every one has exited: a
// manager that could not renew its lease in time exits, by design (leader
// election lost), and its Deployment would start it again; the controller
// is back when the new one leads.
func (t *trial) restartIfExited(back time.Time) (time.Time, error) {
	if t.f.managers == 0 {
		return back, nil
	}
	time.Sleep(2 * time.Second)
	for _, m := range t.managers {
		if !m.exited() {
			return back, nil
		}
	}
	progress("%s: the manager exited (it lost its lease while the fault lasted); starting it again, as its Deployment would", t.f.name)
	again, err := t.start("restarted")
	if err != nil {
		return back, err
	}
	return again.waitLeading(time.Minute)
}

// superviseFor brings back, for d, the components that lost their lease
// in the fault and exited (a second, as a kubelet would take).
func superviseFor(sup *supervisor, fault string, d time.Duration) {
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(time.Second) {
		if restarted, err := sup.restartExited(); err != nil {
			progress("%s: %v", fault, err)
		} else if len(restarted) > 0 {
			progress("%s: %s exited (lost its lease) and was started again, as a kubelet would", fault, strings.Join(restarted, " and "))
		}
	}
}
