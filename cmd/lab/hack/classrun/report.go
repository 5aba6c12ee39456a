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

// The report: the same Markdown on stdout and in -out, so that a CI log
// and docs/bench/class-cluster.md read alike.

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"
)

// dist is a distribution, by nearest rank.
type dist struct{ p50, p99, max time.Duration }

func distOf(ds []time.Duration) dist {
	if len(ds) == 0 {
		return dist{}
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	rank := func(p int) time.Duration { return s[max((p*len(s)+99)/100-1, 0)] }
	return dist{p50: rank(50), p99: rank(99), max: s[len(s)-1]}
}

func kib(kb int64) string { return fmt.Sprintf("%.1f MiB", float64(kb)/1024) }

func secs(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }

// figures is what the report says, gathered once.
type figures struct {
	r                *run
	when             time.Time
	host, cpu        string
	wall             time.Duration
	ready            dist
	hwmMean, hwmMax  int64
	hwmSum           int64
	created, seen    dist
	perAttendeeSetup time.Duration
}

func (r *run) figures() figures {
	f := figures{r: r, when: time.Now().UTC(), wall: time.Since(r.began), cpu: cpuModel()}
	f.host, _ = os.Hostname()
	var readies []time.Duration
	for _, m := range r.managers {
		if !m.ready.IsZero() {
			readies = append(readies, m.ready.Sub(m.started))
		}
		f.hwmSum += m.hwm
		f.hwmMax = max(f.hwmMax, m.hwm)
	}
	if len(r.managers) > 0 {
		f.hwmMean = f.hwmSum / int64(len(r.managers))
	}
	f.ready = distOf(readies)
	f.created, f.seen = distOf(r.verdict.skewCreated), distOf(r.verdict.skewSeen)
	if len(r.attendees) > 0 {
		f.perAttendeeSetup = r.setupTime / time.Duration(len(r.attendees))
	}
	return f
}

func cpuModel() string {
	raw, _ := os.ReadFile("/proc/cpuinfo")
	for _, line := range strings.Split(string(raw), "\n") {
		if name, ok := strings.CutPrefix(line, "model name"); ok {
			return strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(name), ":"))
		}
	}
	return ""
}

func markdown(f figures) string {
	var b bytes.Buffer
	r, c := f.r, f.r.cfg
	fmt.Fprintf(&b, "# A class on one cluster\n\n")
	fmt.Fprintf(&b, "Measured %s UTC on %s (%d CPUs: %s), %s, against Kubernetes %s (context %s); the run took %v:\n\n",
		f.when.Format("2006-01-02 15:04"), f.host, runtime.NumCPU(), f.cpu, runtime.Version(), r.server, contextOf(r), f.wall.Round(time.Second))
	fmt.Fprintf(&b, "    %s\n\n", c.command)
	if len(r.failures) == 0 {
		fmt.Fprintf(&b, "**PASS**: every run due started once, no foreign Job, every refusal a 403, no manager refused or restarted.\n\n")
	} else {
		fmt.Fprintf(&b, "**FAIL**, %d problems:\n\n", len(r.failures))
		for _, p := range r.failures {
			fmt.Fprintf(&b, "- %s\n", p)
		}
		b.WriteString("\n")
	}
	writeClass(&b, f)
	if r.finished {
		writeRuns(&b, f)
		writeMemory(&b, f)
	}
	writeIsolation(&b, f)
	return b.String()
}

func contextOf(r *run) string {
	if r.admin == nil {
		return "none"
	}
	return r.admin.Context
}

func writeClass(b *bytes.Buffer, f figures) {
	r := f.r
	fmt.Fprintf(b, "## The class\n\n")
	fmt.Fprintf(b, "%d attendees, prepared on the cluster by `%s` in %v (%v per attendee): for each, a namespace, the ServiceAccount `attendee`, the Role `cronlab-attendee` and its RoleBinding, and a kubeconfig with a %g-hour token from the TokenRequest API.\n\n",
		len(r.attendees), strings.ReplaceAll(r.setupCommand, r.work, "$WORK"), r.setupTime.Round(10*time.Millisecond), f.perAttendeeSetup.Round(time.Millisecond), r.cfg.hours)
	if len(r.managers) == 0 {
		return
	}
	fmt.Fprintf(b, "Each attendee runs their own manager, as `make run NAMESPACE=<ns>` does on their laptop: `ENABLE_WEBHOOKS=false KUBECONFIG=<theirs> bin/manager --namespace <ns> --leader-elect --metrics-bind-address 0 --health-probe-bind-address 0`, all %d on this machine. Its workers ran %v after its start at the median, %v at the most (leader election included; the run checks that each log says the manager acquired its Lease in its own namespace).\n\n",
		len(r.managers), f.ready.p50.Round(10*time.Millisecond), f.ready.max.Round(10*time.Millisecond))
}

func writeRuns(b *bytes.Buffer, f figures) {
	r, v := f.r, f.r.verdict
	fmt.Fprintf(b, "## Runs\n\n")
	fmt.Fprintf(b, "Each attendee created, with their own kubeconfig, a CronJob `every-minute` on `*/1 * * * *`; then the class ran for %v. Judged: every minute from the first one after the CronJob's creation to the last one at least %v before the end (%s to %s UTC), seen by the instructor's own watch of every Job of the cluster.\n\n",
		r.cfg.dur, r.cfg.margin, v.firstDue.UTC().Format(time.TimeOnly), v.lastDue.UTC().Format(time.TimeOnly))
	b.WriteString("| attendees | runs due | started | started twice | missed | foreign Jobs |\n|---|---|---|---|---|---|\n")
	fmt.Fprintf(b, "| %d | %d | %d | %d | %d | %d |\n\n", len(r.attendees), v.expected, v.started, v.duplicated, len(v.missed), len(v.foreign))
	b.WriteString("Skew, how late a run's Job was created after its scheduled time (the controller's annotation `batch.cronlab.dev/cronjob-scheduled-timestamp`), measured two ways:\n\n")
	b.WriteString("| skew by | p50 | p99 | max |\n|---|---|---|---|\n")
	fmt.Fprintf(b, "| the Job's creationTimestamp (the API server records whole seconds) | %s | %s | %s |\n", secs(f.created.p50), secs(f.created.p99), secs(f.created.max))
	fmt.Fprintf(b, "| when the instructor's watch first saw the Job (to the millisecond; at most a little late) | %s | %s | %s |\n\n", secs(f.seen.p50), secs(f.seen.p99), secs(f.seen.max))
	if v.relists > 0 {
		fmt.Fprintf(b, "The watch had to list again %d times: a Job found by a list counts as seen then.\n\n", v.relists)
	}
	fmt.Fprintf(b, "A Job is foreign when it is in a class namespace and its controller is not that namespace's CronJob, or elsewhere with one of this run's CronJobs as its controller. %s. %d runs came due after the judged window and were not judged.",
		r.cronJobsAtEnd, v.afterWindow)
	if len(v.otherCronlab) > 0 {
		fmt.Fprintf(b, " Other cronlab Jobs appeared on the cluster meanwhile, not this run's (another user's work): %v.", v.otherCronlab)
	}
	b.WriteString("\n\n")
}

func writeMemory(b *bytes.Buffer, f figures) {
	r := f.r
	n := int64(max(len(r.managers), 1))
	fmt.Fprintf(b, "## What a classroom server needs\n\n")
	b.WriteString("| managers | peak RSS per manager, mean | max | sum of the peaks | per attendee | highest sum sampled (every 5 s) |\n|---|---|---|---|---|---|\n")
	fmt.Fprintf(b, "| %d | %s | %s | %s | %s | %s |\n\n", len(r.managers), kib(f.hwmMean), kib(f.hwmMax), kib(f.hwmSum), kib(f.hwmSum/n), kib(r.peakRSSSum))
	fmt.Fprintf(b, "The peak is each manager's VmHWM at the end, from /proc. In their logs: %d lines that mention a refusal (forbidden), %d managers that started more than once or exited by themselves, %d of %d that logged a clean stop on SIGTERM, %d `Reconciler error` lines in all.\n\n",
		r.logs.forbidden, r.logs.restarts, r.logs.cleanStops, len(r.managers), r.logs.reconcileErrs)
	for _, n := range r.notes {
		fmt.Fprintf(b, "- %s\n", n)
	}
	if len(r.notes) > 0 {
		b.WriteString("\n")
	}
}

func writeIsolation(b *bytes.Buffer, f figures) {
	r := f.r
	if len(r.refusals) == 0 {
		return
	}
	a, bb := r.attendees[0], r.attendees[1]
	fmt.Fprintf(b, "## Isolation\n\n")
	fmt.Fprintf(b, "With %s's kubeconfig (namespace %s), against %s's namespace %s and the cluster; each must be refused with 403 Forbidden:\n\n", a.name, a.ns, bb.name, bb.ns)
	b.WriteString("| request | answer |\n|---|---|\n")
	for _, at := range r.refusals {
		answer := "**allowed**"
		switch {
		case at.Forbidden:
			answer = "403 Forbidden"
		case at.Err != "":
			answer = "**not 403**: " + at.Err
		}
		fmt.Fprintf(b, "| %s | %s |\n", at.What, answer)
	}
	if r.neighbourSame {
		fmt.Fprintf(b, "\nAfterwards %s's CronJob `%s` had the resourceVersion it had before, and was the only one in %s.\n", bb.name, neighbourName, bb.ns)
	}
	fmt.Fprintf(b, "\nThe API server's answer to the first:\n\n    %s\n\nThe same with kubectl, as an attendee would ask:\n\n```\n", r.refusals[0].Err)
	var shown []kubectlRun
	for _, k := range r.kubectlRuns {
		if !k.Judged {
			shown = append(shown, k)
			continue
		}
		fmt.Fprintf(b, "$ %s\n%s\n", k.Command, k.Output)
	}
	b.WriteString("```\n")
	for _, k := range shown {
		why := "kubectl takes the bare name `cronjobs` for the built-in `cronjobs.batch`, not the lab's (`cronjobs.batch.cronlab.dev`, or `ccj`)"
		if strings.HasPrefix(k.Output, "Error from server (Forbidden)") {
			why += "; the attendee's Role does not grant those, even in their own namespace"
		}
		fmt.Fprintf(b, "\n%s:\n\n```\n$ %s\n%s\n```\n", why, k.Command, k.Output)
	}
}
