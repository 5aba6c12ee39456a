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

// Package ownwrites lets Reconcile wait for the cache to show the manager's
// own writes, instead of asking the API server what the cache lacks
// (refreshIfStale and jobGone in internal/controller/status.go). It is given,
// never written in the lab: catchUp, which stage 15 (the stale cache) asks
// for, calls it.
//
// A run writes three times: it deletes the Job it replaces, creates the new
// one, and patches the CronJob's status. Each write comes back as a watch
// event, and each event asks for a reconcile of the CronJob. The three
// events reach the cache in any order, so the reconciles they bring may
// see part of the run: the new Job but the old status, or the new status
// and the old Job. Such a reconcile can only go on by asking the API server
// (stage 15, the stale cache). Nothing is lost by stopping instead: the
// event that the cache lacks is on its way, and brings the next reconcile.
//
// The idea is that of Kubernetes 1.36's ReplicaSet controller with the
// feature gate StaleControllerConsistencyReplicaSet on (pkg/controller/util/
// consistency in k8s.io/kubernetes), done per object. Upstream compares the
// resourceVersion it wrote with the last one its informer's store has seen,
// for the whole resource: a relist moves the store past any write, so it
// needs no timeout. controller-runtime's cache does not tell that version,
// and its Delete does not return one, so this memory looks for the objects
// themselves, and gives up on one after Timeout. Stage 14's expectations are
// the older form of the idea, for creations only.
package ownwrites

import (
	"context"
	"sync"
	"time"

	kbatchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/resourceversion"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"

	batchv1 "cronlab.dev/cronlab/api/v1"
)

// Timeout is how long a write is waited for. The cache may never show it:
// a Job created and deleted again while the informer was listing anew is
// never seen, and a Job we created that someone else deletes before any
// reconcile saw it listed never will be. After this, Reconcile goes on as
// if it remembered nothing, and asks the API server where the cache
// disagrees.
const Timeout = 30 * time.Second

// Memory remembers the writes of this manager that its cache may not
// show yet: the resourceVersion of each CronJob's last status patch, the
// Jobs created for each CronJob, and the Jobs deleted. It is memory only: a
// manager that restarts, or a new leader, remembers nothing and relies on
// the API server reads alone. Safe for concurrent use by the workers.
type Memory struct {
	clock clock.PassiveClock

	mu       sync.Mutex
	statusRV map[types.UID]written                 // by CronJob UID
	created  map[types.UID]map[types.UID]time.Time // Job UIDs by CronJob UID
	deleted  map[types.UID]time.Time               // by Job UID
	swept    time.Time
}

type written struct {
	resourceVersion string
	at              time.Time
}

// New returns an empty Memory; c tells the time (nil: the real clock).
func New(c clock.PassiveClock) *Memory {
	if c == nil {
		c = clock.RealClock{}
	}
	return &Memory{clock: c, statusRV: map[types.UID]written{},
		created: map[types.UID]map[types.UID]time.Time{}, deleted: map[types.UID]time.Time{}}
}

// Waiting reports whether the cache has yet to show one of the writes
// remembered for cronJob: its status at the version we wrote, every Job we
// created for it, and none of the Jobs we deleted. retryIn is when to look
// again if no event comes first: when the oldest of those writes stops
// being waited for. A nil Memory never waits.
func (m *Memory) Waiting(cronJob *batchv1.CronJob, jobs []kbatchv1.Job) (retryIn time.Duration, waiting bool) {
	if m == nil {
		return 0, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.clock.Now()
	m.sweep(now)
	var oldest time.Time
	wait := func(at time.Time) {
		if now.Sub(at) < Timeout && (oldest.IsZero() || at.Before(oldest)) {
			oldest = at
		}
	}

	if s, ok := m.statusRV[cronJob.UID]; ok {
		if cmp, err := resourceversion.CompareResourceVersion(cronJob.ResourceVersion, s.resourceVersion); err == nil && cmp < 0 {
			wait(s.at)
		} else {
			delete(m.statusRV, cronJob.UID)
		}
	}
	listed := make(map[types.UID]bool, len(jobs))
	for i := range jobs {
		listed[jobs[i].UID] = true
		// A Job that a finalizer holds stays listed, with a deletion
		// timestamp: that update is the event of our delete.
		if at, ok := m.deleted[jobs[i].UID]; ok && jobs[i].DeletionTimestamp == nil {
			wait(at)
		}
	}
	for uid, at := range m.created[cronJob.UID] {
		if listed[uid] {
			delete(m.created[cronJob.UID], uid)
		} else {
			wait(at)
		}
	}
	if len(m.created[cronJob.UID]) == 0 {
		delete(m.created, cronJob.UID)
	}
	if oldest.IsZero() {
		return 0, false
	}
	return oldest.Add(Timeout).Sub(now), true
}

// sweep forgets the writes no longer waited for, at most twice per
// timeout: a deleted Job's entry has no other way out once the cache drops
// the Job, and a CronJob deleted while waiting is never reconciled again.
func (m *Memory) sweep(now time.Time) {
	if now.Sub(m.swept) < Timeout/2 {
		return
	}
	m.swept = now
	expired := func(at time.Time) bool { return now.Sub(at) >= Timeout }
	for uid, s := range m.statusRV {
		if expired(s.at) {
			delete(m.statusRV, uid)
		}
	}
	for owner, jobs := range m.created {
		for uid, at := range jobs {
			if expired(at) {
				delete(jobs, uid)
			}
		}
		if len(jobs) == 0 {
			delete(m.created, owner)
		}
	}
	for uid, at := range m.deleted {
		if expired(at) {
			delete(m.deleted, uid)
		}
	}
}

func (m *Memory) wroteStatus(cronJob client.Object) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.statusRV[cronJob.GetUID()] = written{resourceVersion: cronJob.GetResourceVersion(), at: m.clock.Now()}
}

func (m *Memory) createdJob(job client.Object) {
	owner := metav1.GetControllerOf(job)
	if owner == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.created[owner.UID] == nil {
		m.created[owner.UID] = map[types.UID]time.Time{}
	}
	m.created[owner.UID][job.GetUID()] = m.clock.Now()
}

func (m *Memory) deletedJob(uid types.UID) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.deleted[uid] = m.clock.Now()
}

// Client returns c, remembering in m each CronJob status patch, Job create
// and Job delete that the API server accepted; a deleted Job is known by the
// UID of the delete's precondition, or by the object's own UID when the
// delete had none. A
// nil Memory remembers nothing, and returns c itself.
func (m *Memory) Client(c client.Client) client.Client {
	if m == nil {
		return c
	}
	return &rememberingClient{Client: c, memory: m}
}

type rememberingClient struct {
	client.Client
	memory *Memory
}

func (c *rememberingClient) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	err := c.Client.Create(ctx, obj, opts...)
	if _, isJob := obj.(*kbatchv1.Job); isJob && err == nil {
		c.memory.createdJob(obj)
	}
	return err
}

func (c *rememberingClient) Delete(ctx context.Context, obj client.Object, opts ...client.DeleteOption) error {
	err := c.Client.Delete(ctx, obj, opts...)
	if _, isJob := obj.(*kbatchv1.Job); isJob && err == nil {
		var o client.DeleteOptions
		o.ApplyOptions(opts)
		if o.Preconditions != nil && o.Preconditions.UID != nil {
			c.memory.deletedJob(*o.Preconditions.UID)
		} else if obj.GetUID() != "" {
			c.memory.deletedJob(obj.GetUID())
		}
	}
	return err
}

// Status and SubResource("status") are the same writer, and both must be
// ours: the Reconciler writes with r.Status().Patch, where the embedded
// client's Status would call its own SubResource, not this one (Go has no
// virtual methods); a client that wraps this one may ask for either.
func (c *rememberingClient) Status() client.SubResourceWriter {
	return c.SubResource("status")
}

func (c *rememberingClient) SubResource(name string) client.SubResourceClient {
	if name != "status" {
		return c.Client.SubResource(name)
	}
	return &rememberingStatus{SubResourceClient: c.Client.SubResource(name), memory: c.memory}
}

type rememberingStatus struct {
	client.SubResourceClient
	memory *Memory
}

func (s *rememberingStatus) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
	err := s.SubResourceClient.Patch(ctx, obj, patch, opts...)
	if _, isCronJob := obj.(*batchv1.CronJob); isCronJob && err == nil {
		s.memory.wroteStatus(obj)
	}
	return err
}
