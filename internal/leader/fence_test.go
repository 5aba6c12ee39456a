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

package leader

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
)

var start = time.Date(2030, time.January, 7, 10, 0, 0, 0, time.UTC)

// lease is a Lease lock in memory. Its writes take `takes` on the fake clock,
// as a request to the API server takes time, and fail with err when set.
type lease struct {
	clock  *clocktesting.FakeClock
	takes  time.Duration
	err    error
	record resourcelock.LeaderElectionRecord
}

func (l *lease) Get(context.Context) (*resourcelock.LeaderElectionRecord, []byte, error) {
	r := l.record
	return &r, nil, nil
}
func (l *lease) Create(_ context.Context, r resourcelock.LeaderElectionRecord) error {
	return l.write(r)
}
func (l *lease) Update(_ context.Context, r resourcelock.LeaderElectionRecord) error {
	return l.write(r)
}
func (l *lease) RecordEvent(string) {}
func (l *lease) Identity() string   { return "me" }
func (l *lease) Describe() string   { return "test/lease" }

func (l *lease) write(r resourcelock.LeaderElectionRecord) error {
	l.clock.Step(l.takes)
	if l.err != nil {
		return l.err
	}
	l.record = r
	return nil
}

func TestTheFenceIsOpenOnlyWithinRenewDeadlineOfTheLastRenewal(t *testing.T) {
	clock := clocktesting.NewFakeClock(start)
	fence := &Fence{Within: RenewDeadline, Clock: clock}
	inner := &lease{clock: clock, takes: 300 * time.Millisecond}
	lock := fence.Lock(inner)
	ours := resourcelock.LeaderElectionRecord{HolderIdentity: "me"}

	steps := []struct {
		what     string
		do       func() error
		wantOpen bool
	}{
		{"a manager that never held the Lease", nil, false},
		{"acquiring it (Create)", func() error { return lock.Create(context.Background(), ours) }, true},
		{"9.7 s after the acquisition started", func() error { clock.Step(9400 * time.Millisecond); return nil }, true},
		{"10 s after it started, 9.7 s after it returned: the window runs from the request's start", func() error {
			clock.Step(300 * time.Millisecond)
			return nil
		}, false},
		{"a renewal (Update) that succeeds", func() error { return lock.Update(context.Background(), ours) }, true},
		{"frozen for 20 s, past the Lease's 15 s", func() error { clock.Step(20 * time.Second); return nil }, false},
		{"a renewal that fails: another manager holds the Lease", func() error {
			inner.err = errors.New("conflict")
			err := lock.Update(context.Background(), ours)
			inner.err = nil
			if err == nil {
				return errors.New("the failed renewal reported success")
			}
			return nil
		}, false},
		{"a release (ReleaseOnCancel writes no holder)", func() error {
			return lock.Update(context.Background(), resourcelock.LeaderElectionRecord{})
		}, false},
		{"acquiring it again", func() error { return lock.Update(context.Background(), ours) }, true},
	}
	for _, s := range steps {
		if s.do != nil {
			if err := s.do(); err != nil {
				t.Fatalf("%s: %v", s.what, err)
			}
		}
		if got := fence.Open(); got != s.wantOpen {
			t.Errorf("%s: fence open = %v, want %v", s.what, got, s.wantOpen)
		}
	}
}

// writes are the writes of client.Writer and of the subresource writers,
// each made on c: every one of them must meet the fence.
func writes(c client.Client) map[string]func() error {
	ctx := context.Background()
	existing := func() *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "there"}}
	}
	newObject := func() *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "new"}}
	}
	pod := func() *corev1.Pod { return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p"}} }
	merge := func(body string) client.Patch { return client.RawPatch("application/merge-patch+json", []byte(body)) }
	return map[string]func() error{
		"Create":      func() error { return c.Create(ctx, newObject()) },
		"Update":      func() error { return c.Update(ctx, existing()) },
		"Patch":       func() error { return c.Patch(ctx, existing(), merge(`{"data":{"a":"b"}}`)) },
		"Apply":       func() error { return c.Apply(ctx, corev1ac.ConfigMap("new", "ns"), client.FieldOwner("test")) },
		"Delete":      func() error { return c.Delete(ctx, existing()) },
		"DeleteAllOf": func() error { return c.DeleteAllOf(ctx, &corev1.ConfigMap{}, client.InNamespace("ns")) },
		"Status().Patch": func() error {
			return c.Status().Patch(ctx, pod(), merge(`{"status":{"phase":"Running"}}`))
		},
		"Status().Update": func() error { return c.Status().Update(ctx, pod()) },
		"Status().Apply": func() error {
			return c.Status().Apply(ctx, corev1ac.Pod("p", "ns"), client.FieldOwner("test"))
		},
		"SubResource(status).Patch": func() error { return c.SubResource("status").Patch(ctx, pod(), merge(`{}`)) },
		"SubResource(eviction).Create": func() error {
			return c.SubResource("eviction").Create(ctx, pod(), &policyv1.Eviction{})
		},
		"SubResource(status).Update": func() error { return c.SubResource("status").Update(ctx, pod()) },
		"SubResource(status).Apply": func() error {
			return c.SubResource("status").Apply(ctx, corev1ac.Pod("p", "ns"), client.FieldOwner("test"))
		},
	}
}

func TestAClosedFenceRefusesEveryWriteAndLetsReadsThrough(t *testing.T) {
	clock := clocktesting.NewFakeClock(start)
	fence := &Fence{Within: RenewDeadline, Clock: clock}
	fence.Renewed(start)
	existing := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "there"}}
	c := fence.Client(fake.NewClientBuilder().WithObjects(existing).WithStatusSubresource(&corev1.Pod{}).Build())
	ctx := context.Background()

	clock.Step(RenewDeadline) // the fence closes
	for name, write := range writes(c) {
		if err := write(); !errors.Is(err, ErrNotLeading) {
			t.Errorf("%s with the fence closed: got %v, want ErrNotLeading", name, err)
		}
	}
	var got corev1.ConfigMap
	if err := c.Get(ctx, client.ObjectKeyFromObject(existing), &got); err != nil {
		t.Errorf("a read with the fence closed: %v", err)
	}
	if err := c.Get(ctx, types.NamespacedName{Namespace: "ns", Name: "new"}, &got); err == nil {
		t.Errorf("the refused Create wrote the object")
	}

	fence.Renewed(clock.Now())
	if err := writes(c)["Create"](); err != nil {
		t.Errorf("Create after a renewal: %v", err)
	}
}

// TestAnOpenFenceHandsEveryWriteOnAndItsAnswerBack: through an open fence,
// each write reaches the client it wraps, and what that client answers (here
// an error for every write) comes back unchanged: a Conflict or a NotFound
// must reach the Reconciler, which decides on it.
func TestAnOpenFenceHandsEveryWriteOnAndItsAnswerBack(t *testing.T) {
	answer := errors.New("the API server's answer")
	var reached []string
	note := func(what string) error { reached = append(reached, what); return answer }
	inner := interceptor.NewClient(fake.NewClientBuilder().Build(), interceptor.Funcs{
		Create: func(context.Context, client.WithWatch, client.Object, ...client.CreateOption) error {
			return note("Create")
		},
		Update: func(context.Context, client.WithWatch, client.Object, ...client.UpdateOption) error {
			return note("Update")
		},
		Patch: func(context.Context, client.WithWatch, client.Object, client.Patch, ...client.PatchOption) error {
			return note("Patch")
		},
		Apply: func(context.Context, client.WithWatch, runtime.ApplyConfiguration, ...client.ApplyOption) error {
			return note("Apply")
		},
		Delete: func(context.Context, client.WithWatch, client.Object, ...client.DeleteOption) error {
			return note("Delete")
		},
		DeleteAllOf: func(context.Context, client.WithWatch, client.Object, ...client.DeleteAllOfOption) error {
			return note("DeleteAllOf")
		},
		SubResourceCreate: func(_ context.Context, _ client.Client, sub string, _, _ client.Object, _ ...client.SubResourceCreateOption) error {
			return note("SubResource(" + sub + ").Create")
		},
		SubResourceUpdate: func(_ context.Context, _ client.Client, sub string, _ client.Object, _ ...client.SubResourceUpdateOption) error {
			return note("SubResource(" + sub + ").Update")
		},
		SubResourcePatch: func(_ context.Context, _ client.Client, sub string, _ client.Object, _ client.Patch, _ ...client.SubResourcePatchOption) error {
			return note("SubResource(" + sub + ").Patch")
		},
		SubResourceApply: func(_ context.Context, _ client.Client, sub string, _ runtime.ApplyConfiguration, _ ...client.SubResourceApplyOption) error {
			return note("SubResource(" + sub + ").Apply")
		},
	})
	clock := clocktesting.NewFakeClock(start)
	fence := &Fence{Within: RenewDeadline, Clock: clock}
	fence.Renewed(start)
	c := fence.Client(inner)

	for name, write := range writes(c) {
		reached = nil
		if err := write(); !errors.Is(err, answer) {
			t.Errorf("%s with the fence open: got %v, want the wrapped client's answer", name, err)
		}
		want := strings.Replace(name, "Status()", "SubResource(status)", 1)
		if len(reached) != 1 || reached[0] != want {
			t.Errorf("%s with the fence open reached %q of the wrapped client, want %q", name, reached, want)
		}
	}
}

// TestNewFenceRunsOnTheRealClock: the fence cmd/main.go builds has no Clock
// of its own, and reads the process's clock.
func TestNewFenceRunsOnTheRealClock(t *testing.T) {
	fence := NewFence()
	if fence.Within != RenewDeadline {
		t.Errorf("NewFence().Within = %v, want RenewDeadline (%v)", fence.Within, RenewDeadline)
	}
	if fence.Open() {
		t.Errorf("a new fence is open before any renewal")
	}
	fence.Renewed(time.Now())
	if !fence.Open() {
		t.Errorf("a fence renewed a moment ago on the real clock is closed")
	}
	fence.Renewed(time.Now().Add(-time.Hour))
	if !fence.Open() {
		t.Errorf("a renewal that started before the last one moved the fence back")
	}
}

func TestWithoutLeaderElectionThereIsNoFence(t *testing.T) {
	var fence *Fence
	c := fake.NewClientBuilder().Build()
	if fence.Client(c) != c {
		t.Errorf("a nil Fence wrapped the client: `make run` without leader election must write as before")
	}
}
