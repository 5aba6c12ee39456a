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
	"fmt"
	"path/filepath"
	"testing"
	"time"

	kbatchv1 "k8s.io/api/batch/v1"
	"k8s.io/utils/ptr"

	batchv1 "cronlab.dev/cronlab/api/v1"
	"cronlab.dev/cronlab/test/say"
	"cronlab.dev/cronlab/test/utils"
)

// A path is one way through the controller, as a list of moments: at each,
// the clock moves, running Jobs may end, and a requeue may ask for a
// reconcile; the events then bring the reconciles they bring.
type path struct {
	name  string
	spec  func(*batchv1.CronJobSpec)
	steps []moment
}

type moment struct {
	at      time.Duration             // after 10:00
	end     kbatchv1.JobConditionType // every running Job ends so; "": none
	requeue bool                      // a requeue asks for a reconcile
}

// paths are the controller's paths through a crash: each concurrency
// policy with the previous run still running, a failed Job, and history
// cleanup keeping one Job of each kind.
var paths = []path{
	{name: "Forbid while the previous run runs", spec: func(s *batchv1.CronJobSpec) { s.ConcurrencyPolicy = batchv1.ForbidConcurrent },
		steps: []moment{{at: 30 * time.Second, requeue: true}, {at: time.Hour + 30*time.Second, requeue: true},
			{at: time.Hour + 5*time.Minute, end: kbatchv1.JobComplete}}},
	{name: "Replace while the previous run runs", spec: func(s *batchv1.CronJobSpec) { s.ConcurrencyPolicy = batchv1.ReplaceConcurrent },
		steps: []moment{{at: 30 * time.Second, requeue: true}, {at: time.Hour + 30*time.Second, requeue: true}}},
	{name: "Allow while the previous run runs", spec: func(s *batchv1.CronJobSpec) { s.ConcurrencyPolicy = batchv1.AllowConcurrent },
		steps: []moment{{at: 30 * time.Second, requeue: true}, {at: time.Hour + 30*time.Second, requeue: true}}},
	{name: "a failed Job, no failed one kept", spec: func(s *batchv1.CronJobSpec) { s.FailedJobsHistoryLimit = ptr.To[int32](0) },
		steps: []moment{{at: 30 * time.Second, requeue: true}, {at: 90 * time.Second, end: kbatchv1.JobFailed},
			{at: time.Hour + 30*time.Second, requeue: true}}},
	{name: "history cleanup keeping one of each", spec: func(s *batchv1.CronJobSpec) {
		s.SuccessfulJobsHistoryLimit, s.FailedJobsHistoryLimit = ptr.To[int32](1), ptr.To[int32](1)
	}, steps: []moment{{at: 30 * time.Second, requeue: true}, {at: 90 * time.Second, end: kbatchv1.JobComplete},
		{at: time.Hour + 30*time.Second, requeue: true}, {at: time.Hour + 90*time.Second, end: kbatchv1.JobFailed},
		{at: 2*time.Hour + 30*time.Second, requeue: true}, {at: 2*time.Hour + 90*time.Second, end: kbatchv1.JobComplete},
		{at: 3*time.Hour + 30*time.Second, requeue: true}}},
}

// Beyond upstream, no write of a path loses what the status keeps: for each
// path, a manager that stops after its N-th write, whatever N, and a new
// one that starts from what the API server has, end where the path ends
// undisturbed (docs/reliability.md, "A crash between two writes").
func TestEveryWriteOfEachPathCanBeTheLast(t *testing.T) {
	cfg := utils.StartAPIServer(t, filepath.Join("..", ".."))
	scheme := utils.Scheme(t)
	for _, p := range paths {
		t.Run(p.name, func(t *testing.T) {
			undisturbed, writes := p.play(t, func(t *testing.T) *world {
				return newWorld(t, cfg, scheme, perturbation{name: "none"})
			})
			if writes == 0 {
				t.Fatal(say.Both("the path made no write", "这条路径没有任何写入"))
			}
			for n := 1; n <= writes; n++ {
				t.Run(fmt.Sprintf("stopped after write %d of %d", n, writes), func(t *testing.T) {
					got, _ := p.play(t, func(t *testing.T) *world {
						return newWorld(t, cfg, scheme, perturbation{name: fmt.Sprintf("intermediate-%d", n), stopAfter: n})
					})
					if got != undisturbed {
						t.Error(say.Both("a manager stopped after write %d ends elsewhere than the path undisturbed.\nstopped:\n%s\nundisturbed:\n%s",
							"在第 %d 次写入之后停止的管理器，结束状态与不加扰动时不同。\n停止的：\n%s\n不加扰动的：\n%s", n, got, undisturbed))
					}
				})
			}
		})
	}
}

// play runs the path in a new world and returns its end state and how many
// writes it made.
func (p path) play(t *testing.T, world func(*testing.T) *world) (string, int) {
	w := world(t)
	w.createCronJob(p.spec)
	for _, m := range p.steps {
		w.clock.SetTime(tenAM.Add(m.at))
		if m.end != "" {
			w.endJobs(tenAM.Add(m.at-30*time.Second), m.end)
		}
		if m.requeue {
			w.reconcile()
		}
		w.settle()
	}
	return w.endState(), w.writes
}
