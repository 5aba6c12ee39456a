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

// Package leader keeps a manager that may no longer lead from acting.
//
// Leader election (client-go's, which controller-runtime runs) hands a Lease
// to one manager at a time, but a manager learns that it lost the Lease only
// when it next tries to renew it, and gives up only after RenewDeadline of
// failed tries. A manager that was frozen (a stopped VM, a long GC pause, a
// SIGSTOP) past the Lease's duration resumes believing that it leads: its
// queued reconciles run at once, beside the manager that took over, for up to
// RenewDeadline. `make chaos` saw exactly that (docs/reliability.md, fault
// `freeze`): Jobs created and deleted by a manager whose Lease another held.
//
// The cure is a fence: a manager acts only while its last successful renewal
// is recent. Another candidate takes the Lease only after LeaseDuration
// without seeing a renewal, so a manager that acts only within RenewDeadline
// of the start of its last renewal never acts beside a new leader; the
// difference (5 s with the defaults) covers requests already on their way.
// The fence learns of renewals by wrapping the Lease lock (Lock), and stands
// in the way of every write the Reconciler makes through its client (Client):
// a reconcile that comes while the fence is closed fails at its first write,
// and is retried. Events go through the recorder, which the fence does not
// cover: a manager fenced off may still record an Event, never change an
// object.
package leader

import (
	"context"
	"errors"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// ErrNotLeading is what a fenced write returns. A reconcile that gets it
// fails and is retried: by this manager if its next renewal succeeds, or by
// the new leader, which reconciles every CronJob when it starts. Nothing is
// lost, and nothing is done twice.
var ErrNotLeading = errors.New("this manager's Lease may have passed to another manager: not acting until it renews it")

// Fence is open while the manager's last successful Lease renewal started
// less than Within ago.
type Fence struct {
	// Within is how long a renewal keeps the fence open: the elector's
	// RenewDeadline, shorter than the LeaseDuration the other candidates wait.
	Within time.Duration
	// Clock is nil for the real clock. Go's clock is monotonic, and it keeps
	// running while the process is stopped: that is what makes the fence
	// close across a freeze.
	Clock clock.PassiveClock

	mu      sync.Mutex
	renewed time.Time // zero until the first renewal: closed
}

// Open reports whether the manager may act now.
func (f *Fence) Open() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return !f.renewed.IsZero() && f.now().Sub(f.renewed) < f.Within
}

// Renewed records a renewal that started at t and succeeded.
func (f *Fence) Renewed(t time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if t.After(f.renewed) {
		f.renewed = t
	}
}

func (f *Fence) now() time.Time {
	if f.Clock == nil {
		return time.Now()
	}
	return f.Clock.Now()
}

// Lock wraps the Lease lock that the manager's leader election uses
// (ctrl.Options.LeaderElectionResourceLockInterface). Every Create or Update
// that succeeds and names this manager as the holder is a renewal: the API
// server accepted it only because the Lease was still ours (an Update carries
// the resourceVersion it read). It is stamped with the time the request
// started, so the fence never trusts a renewal longer than it should.
func (f *Fence) Lock(inner resourcelock.Interface) resourcelock.Interface {
	return &fencedLock{Interface: inner, fence: f}
}

type fencedLock struct {
	resourcelock.Interface
	fence *Fence
}

func (l *fencedLock) Create(ctx context.Context, ler resourcelock.LeaderElectionRecord) error {
	return l.stamp(ler, func() error { return l.Interface.Create(ctx, ler) })
}

func (l *fencedLock) Update(ctx context.Context, ler resourcelock.LeaderElectionRecord) error {
	return l.stamp(ler, func() error { return l.Interface.Update(ctx, ler) })
}

func (l *fencedLock) stamp(ler resourcelock.LeaderElectionRecord, write func() error) error {
	started := l.fence.now()
	if err := write(); err != nil {
		return err
	}
	// A release (ReleaseOnCancel) writes an empty holder: not a renewal.
	if ler.HolderIdentity == l.Identity() {
		l.fence.Renewed(started)
	}
	return nil
}

// Client wraps the client the Reconciler writes with: a reconcile that
// started while the fence was open, and was frozen in the middle, must not
// finish its writes after the fence closed. Reads go through. A nil Fence
// (no leader election: `make run`) returns c itself.
func (f *Fence) Client(c client.Client) client.Client {
	if f == nil {
		return c
	}
	return &fencedClient{Client: c, fence: f}
}

func (f *Fence) check() error {
	if !f.Open() {
		return ErrNotLeading
	}
	return nil
}

// fencedClient checks the fence before every write of client.Writer, and
// hands out fenced writers for the status and other subresources.
type fencedClient struct {
	client.Client
	fence *Fence
}

func (c *fencedClient) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	if err := c.fence.check(); err != nil {
		return err
	}
	return c.Client.Create(ctx, obj, opts...)
}

func (c *fencedClient) Update(ctx context.Context, obj client.Object, opts ...client.UpdateOption) error {
	if err := c.fence.check(); err != nil {
		return err
	}
	return c.Client.Update(ctx, obj, opts...)
}

func (c *fencedClient) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
	if err := c.fence.check(); err != nil {
		return err
	}
	return c.Client.Patch(ctx, obj, patch, opts...)
}

func (c *fencedClient) Apply(ctx context.Context, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
	if err := c.fence.check(); err != nil {
		return err
	}
	return c.Client.Apply(ctx, obj, opts...)
}

func (c *fencedClient) Delete(ctx context.Context, obj client.Object, opts ...client.DeleteOption) error {
	if err := c.fence.check(); err != nil {
		return err
	}
	return c.Client.Delete(ctx, obj, opts...)
}

func (c *fencedClient) DeleteAllOf(ctx context.Context, obj client.Object, opts ...client.DeleteAllOfOption) error {
	if err := c.fence.check(); err != nil {
		return err
	}
	return c.Client.DeleteAllOf(ctx, obj, opts...)
}

func (c *fencedClient) Status() client.SubResourceWriter {
	return &fencedSubResource{SubResourceClient: c.Client.SubResource("status"), fence: c.fence}
}

func (c *fencedClient) SubResource(name string) client.SubResourceClient {
	return &fencedSubResource{SubResourceClient: c.Client.SubResource(name), fence: c.fence}
}

type fencedSubResource struct {
	client.SubResourceClient
	fence *Fence
}

func (s *fencedSubResource) Create(ctx context.Context, obj, sub client.Object, opts ...client.SubResourceCreateOption) error {
	if err := s.fence.check(); err != nil {
		return err
	}
	return s.SubResourceClient.Create(ctx, obj, sub, opts...)
}

func (s *fencedSubResource) Update(ctx context.Context, obj client.Object, opts ...client.SubResourceUpdateOption) error {
	if err := s.fence.check(); err != nil {
		return err
	}
	return s.SubResourceClient.Update(ctx, obj, opts...)
}

func (s *fencedSubResource) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
	if err := s.fence.check(); err != nil {
		return err
	}
	return s.SubResourceClient.Patch(ctx, obj, patch, opts...)
}

func (s *fencedSubResource) Apply(ctx context.Context, obj runtime.ApplyConfiguration, opts ...client.SubResourceApplyOption) error {
	if err := s.fence.check(); err != nil {
		return err
	}
	return s.SubResourceClient.Apply(ctx, obj, opts...)
}
