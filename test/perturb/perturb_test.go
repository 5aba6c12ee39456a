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

package perturb

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	kbatchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	batchv1 "cronlab.dev/cronlab/api/v1"
	"cronlab.dev/cronlab/internal/runs"
	"cronlab.dev/cronlab/internal/trace"
	"cronlab.dev/cronlab/test/say"
	"cronlab.dev/cronlab/test/utils"
)

// endStateFile names the file where bin/lab perturb wants the end state,
// written only when the scenario has played to its end: a run that stopped
// on the way (an error, a panic, a build that failed) has compared nothing,
// and the tool must not call that a difference from the reference.
const endStateFile = "CRONLAB_PERTURB_END_STATE"

var update = flag.Bool("update", false, "write testdata/<perturbation>.golden from this tree's Reconciler (the reference's)")

func TestMain(m *testing.M) { os.Exit(utils.RunTests(m)) }

// tenAM is when the first run of the scenario is due.
var tenAM = time.Date(2030, time.January, 7, 10, 0, 0, 0, time.UTC)

const cronJobName = "hourly"

// A perturbation is one way of disturbing the loop (package doc).
type perturbation struct {
	name       string
	stale      bool // step 1 runs twice with the cache held back
	unobserved bool // step 2's event, the Job finishing, asks for no reconcile
	stopAfter  int  // intermediate-N: the manager stops after the N-th write
}

var perturbations = []perturbation{
	{name: "none"},
	{name: "stale", stale: true},
	{name: "unobserved", unobserved: true},
	{name: "intermediate-1", stopAfter: 1},
	{name: "intermediate-2", stopAfter: 2},
	{name: "intermediate-3", stopAfter: 3},
	{name: "intermediate-4", stopAfter: 4},
	{name: "intermediate-5", stopAfter: 5},
}

// The scenario: an hourly CronJob that keeps no finished Job; its 10:00
// run starts, finishes at 10:01, and at 11:00 the next run starts and the
// first Job goes. Each subtest plays it under one perturbation and
// compares the end state with the reference's.
func TestPerturbed(t *testing.T) {
	cfg := utils.StartAPIServer(t, filepath.Join("..", ".."))
	scheme := utils.Scheme(t)
	for _, p := range perturbations {
		t.Run(p.name, func(t *testing.T) {
			w := newWorld(t, cfg, scheme, p)
			w.createCronJob()

			// 1. 10:00:30: the 10:00 run is due. A requeue asks for the reconcile.
			if p.stale {
				w.held.hold()
				w.rec.Note(trace.LaneCache, say.Both("stale: the cache is held back", "stale：缓存被扣住"))
				w.reconcile()
				w.reconcile() // a second request before the cache has seen the first one's writes
				w.held.release()
				w.rec.Note(trace.LaneCache, say.Both("stale: the cache is let go", "stale：缓存被放行"))
			} else {
				w.reconcile()
			}
			w.settle()

			// 2. 10:01:30: the Job has finished; its event asks for a reconcile.
			w.clock.SetTime(tenAM.Add(90 * time.Second))
			w.mu.Lock()
			w.dropNext = p.unobserved
			w.mu.Unlock()
			w.finishJobs(tenAM.Add(time.Minute))
			w.settle()

			// 3. 11:00:30: the next run is due; the requeue asks again.
			w.clock.SetTime(tenAM.Add(time.Hour + 30*time.Second))
			w.reconcile()
			w.settle()

			if p.stopAfter > 0 && w.writes < p.stopAfter {
				t.Skip(say.Both("the scenario made %d writes: the manager never stopped after write %d",
					"这个场景只写入了 %d 次：管理器从未在第 %d 次写入之后停止", w.writes, p.stopAfter))
			}
			w.compareEndState()
		})
	}
}

func (w *world) createCronJob(tweaks ...func(*batchv1.CronJobSpec)) {
	ctx := context.Background()
	cj := &batchv1.CronJob{
		ObjectMeta: metav1.ObjectMeta{Name: cronJobName, Namespace: w.ns},
		Spec: batchv1.CronJobSpec{
			Schedule:                   "0 * * * *",
			TimeZone:                   ptr.To("Etc/UTC"),
			SuccessfulJobsHistoryLimit: ptr.To[int32](0),
			JobTemplate: kbatchv1.JobTemplateSpec{Spec: kbatchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever,
				Containers:    []corev1.Container{{Name: "c", Image: "busybox"}},
			}}}},
		},
	}
	for _, tweak := range tweaks {
		tweak(&cj.Spec)
	}
	must(w.t, w.direct.Create(ctx, cj))
	cj.Status.LastScheduleTime = &metav1.Time{Time: tenAM.Add(-time.Hour)}
	must(w.t, w.direct.Status().Update(ctx, cj))
	w.settleQuietly()
}

// settleQuietly lets the cache catch up with the setup and drops the
// requests it made: the scenario's steps say when to reconcile.
func (w *world) settleQuietly() {
	for w.waitForRequest() {
	}
}

// finishJobs marks every running Job finished at end, as the Job
// controller would.
func (w *world) finishJobs(end time.Time) { w.endJobs(end, kbatchv1.JobComplete) }

// endJobs ends every running Job at end, complete or failed, as the Job
// controller would.
func (w *world) endJobs(end time.Time, how kbatchv1.JobConditionType) {
	ctx := context.Background()
	var jobs kbatchv1.JobList
	must(w.t, w.direct.List(ctx, &jobs, client.InNamespace(w.ns)))
	for _, job := range jobs.Items {
		if finished, _ := runs.JobFinished(&job); finished {
			continue
		}
		start, done := metav1.NewTime(end.Add(-30*time.Second)), metav1.NewTime(end)
		job.Status.StartTime = &start
		if how == kbatchv1.JobFailed {
			job.Status.Failed = 1
			job.Status.Conditions = []kbatchv1.JobCondition{
				{Type: kbatchv1.JobFailureTarget, Status: corev1.ConditionTrue, LastTransitionTime: done},
				{Type: kbatchv1.JobFailed, Status: corev1.ConditionTrue, LastTransitionTime: done},
			}
		} else {
			job.Status.CompletionTime, job.Status.Succeeded = &done, 1
			job.Status.Conditions = []kbatchv1.JobCondition{
				{Type: kbatchv1.JobSuccessCriteriaMet, Status: corev1.ConditionTrue, LastTransitionTime: done},
				{Type: kbatchv1.JobComplete, Status: corev1.ConditionTrue, LastTransitionTime: done},
			}
		}
		must(w.t, w.direct.Status().Update(ctx, &job))
	}
}

// endState is what the scenario leaves, in words that do not change from
// run to run: the Jobs, by the run each is for (its scheduled time, not its
// name: two Jobs of one run show as two lines), and whether they finished;
// the CronJob's status; and how many reconciles returned an error.
func (w *world) endState() string {
	ctx := context.Background()
	var b strings.Builder
	var jobs kbatchv1.JobList
	must(w.t, w.direct.List(ctx, &jobs, client.InNamespace(w.ns)))
	var lines []string
	for _, job := range jobs.Items {
		state := "running"
		if finished, how := runs.JobFinished(&job); finished {
			state = string(how)
		}
		run := job.Annotations[batchv1.ScheduledTimeAnnotation]
		if run == "" {
			run = "(no scheduled time)"
		}
		lines = append(lines, fmt.Sprintf("  the %s run: %s\n", run, state))
	}
	sort.Strings(lines)
	fmt.Fprintln(&b, "jobs:")
	for _, line := range lines {
		b.WriteString(line)
	}
	var cj batchv1.CronJob
	must(w.t, w.direct.Get(ctx, client.ObjectKey{Namespace: w.ns, Name: cronJobName}, &cj))
	fmt.Fprintln(&b, "status:")
	var active []string
	for _, ref := range cj.Status.Active {
		active = append(active, ref.Name)
	}
	sort.Strings(active)
	fmt.Fprintf(&b, "  active: %d Job(s)\n", len(active))
	fmt.Fprintf(&b, "  lastScheduleTime: %s\n", stamp(cj.Status.LastScheduleTime))
	fmt.Fprintf(&b, "  lastSuccessfulTime: %s\n", stamp(cj.Status.LastSuccessfulTime))
	for _, kind := range []string{batchv1.ConditionReady, batchv1.ConditionDegraded} {
		if c := meta.FindStatusCondition(cj.Status.Conditions, kind); c != nil {
			fmt.Fprintf(&b, "  %s: %s (%s)\n", kind, c.Status, c.Reason)
		}
	}
	// A Reconciler can end in the right state and still have failed on
	// the way: each error is a retry with backoff, and an Event, in a real
	// controller.
	fmt.Fprintf(&b, "reconciles that returned an error: %d\n", w.failed)
	var made []string
	for run, n := range w.created {
		made = append(made, fmt.Sprintf("  the %s run: %d\n", run, n))
	}
	sort.Strings(made)
	fmt.Fprintln(&b, "Jobs created:")
	b.WriteString(strings.Join(made, ""))
	return b.String()
}

func stamp(t *metav1.Time) string {
	if t == nil {
		return "none"
	}
	return t.UTC().Format(time.RFC3339)
}

// compareEndState fails when the end state is not the reference's under
// the same perturbation (testdata/<perturbation>.golden). The reference's
// is not always the undisturbed one: docs/trace.md, "What the
// perturbations found".
func (w *world) compareEndState() {
	golden := filepath.Join("testdata", w.p.name+".golden")
	got := w.endState()
	if path := os.Getenv(endStateFile); path != "" {
		must(w.t, os.WriteFile(path, []byte(got), 0o644))
	}
	if *update {
		must(w.t, os.WriteFile(golden, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(golden)
	must(w.t, err)
	if got != string(want) {
		w.t.Error(say.Both("under %q the scenario ends elsewhere than the reference's Reconciler under the same perturbation.\nyours:\n%s\nthe reference's:\n%s",
			"在 %q 扰动下，这个场景的结束状态与参考实现的调和器在同样扰动下的结束状态不同。\n你的：\n%s\n参考实现的：\n%s", w.p.name, got, string(want)))
	}
}

// versions is a list's objects and their resourceVersions, in one string.
func versions(list client.ObjectList) string {
	items, err := meta.ExtractList(list)
	if err != nil {
		return err.Error()
	}
	var out []string
	for _, item := range items {
		if obj, ok := item.(client.Object); ok {
			out = append(out, obj.GetName()+"@"+obj.GetResourceVersion())
		}
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

// The reference ends where it ends undisturbed under every perturbation:
// no stale read, lost event or stop between two writes changes what its
// CronJob's status keeps. Under intermediate-3 it once lost
// lastSuccessfulTime, when history cleanup deleted the finished Job before
// the status write recorded its success, as upstream's controller does
// (docs/reliability.md, "A crash between two writes").
func TestNoPerturbationMovesTheReferencesEndState(t *testing.T) {
	none, err := os.ReadFile(filepath.Join("testdata", "none.golden"))
	must(t, err)
	goldens, err := filepath.Glob(filepath.Join("testdata", "*.golden"))
	must(t, err)
	for _, g := range goldens {
		got, err := os.ReadFile(g)
		must(t, err)
		if string(got) != string(none) {
			t.Errorf("%s is not none.golden: the reference loses something under %s.\n%s", g, strings.TrimSuffix(filepath.Base(g), ".golden"), got)
		}
	}
}
