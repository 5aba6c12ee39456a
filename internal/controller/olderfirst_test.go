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

package controller

import (
	"slices"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	kbatchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"cronlab.dev/cronlab/test/say"
)

// olderFirst is the order in which history cleanup deletes. The envtest
// specs see only Jobs with a start time; these are the other cases. No
// stage's label: olderFirst is given, not written, in every stage.
var _ = Describe("olderFirst, the order of history cleanup", func() {
	at := func(minute int) *metav1.Time {
		return &metav1.Time{Time: time.Date(2030, 1, 7, 10, minute, 0, 0, time.UTC)}
	}
	job := func(name string, started *metav1.Time) *kbatchv1.Job {
		return &kbatchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: kbatchv1.JobStatus{StartTime: started}}
	}

	It("puts the Job that started first first, one that never started (its Pod never ran) last, and goes by name when the starts are the same", func() {
		for _, tc := range []struct {
			name string
			a, b *kbatchv1.Job
			want int // the sign of olderFirst(a, b)
		}{
			{"the earlier start first", job("b", at(1)), job("a", at(2)), -1},
			{"the later start after", job("a", at(2)), job("b", at(1)), 1},
			{"the same start: by name", job("a", at(1)), job("b", at(1)), -1},
			{"the same start, names the other way", job("b", at(1)), job("a", at(1)), 1},
			{"one never started: after one that did", job("a", nil), job("b", at(1)), 1},
			{"one that started: before one that never did", job("b", at(1)), job("a", nil), -1},
			{"neither started: by name", job("a", nil), job("b", nil), -1},
			{"neither started, names the other way", job("b", nil), job("a", nil), 1},
			{"the same Job", job("a", at(1)), job("a", at(1)), 0},
		} {
			got := olderFirst(tc.a, tc.b)
			Expect((got > 0) == (tc.want > 0) && (got < 0) == (tc.want < 0)).To(BeTrue(),
				say.Both("%s: olderFirst(%s, %s) = %d, want a result of sign %d", "%s：olderFirst(%s, %s) = %d，结果的符号应为 %d",
					tc.name, tc.a.Name, tc.b.Name, got, tc.want))
		}
	})

	It("sorts the Jobs of a group so that two reconciles pick the same ones to delete", func() {
		jobs := []*kbatchv1.Job{job("e", nil), job("d", at(3)), job("c", nil), job("b", at(1)), job("a", at(3))}
		slices.SortFunc(jobs, olderFirst)
		var names []string
		for _, j := range jobs {
			names = append(names, j.Name)
		}
		Expect(names).To(Equal([]string{"b", "a", "d", "c", "e"}), say.Both("sorted oldest first", "按从旧到新排序"))
	})
})
