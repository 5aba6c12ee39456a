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

// What the verdict rests on is seen by the instructor, not reported by the
// managers: a watch of every Job of the cluster, with the instructor's
// rights, from before the first CronJob exists. A list at the end would
// miss the Jobs that the CronJobs' history limits deleted meanwhile, and a
// watch of the class's namespaces only would miss a Job made elsewhere.
// As in hack/bench and hack/chaos, the watch reopens itself from the last
// resourceVersion it saw, and lists again if the API server says that is
// too old, so that no Job goes unseen.

import (
	"context"
	"sync"
	"time"

	kbatchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"

	batchv1 "cronlab.dev/cronlab/api/v1"
)

// seenJob is one Job, as the watch first saw it.
type seenJob struct {
	ns, name  string
	uid       types.UID
	owner     *metav1.OwnerReference // its controller; nil for none
	label     string                 // its batch.cronlab.dev/cronjob label
	scheduled time.Time              // its scheduled-time annotation; zero without one
	created   time.Time              // its creationTimestamp (whole seconds)
	seen      time.Time              // when this watch first saw it
}

type jobWatch struct {
	mu      sync.Mutex
	jobs    map[types.UID]*seenJob
	relists int
	cancel  context.CancelFunc
	ended   chan struct{}
}

// watchAllJobs starts the watch; it runs until stop. It decodes protobuf,
// as hack/bench does: at the top of a minute every attendee's Job arrives
// at once, and a reader that falls behind has its watch closed.
func watchAllJobs(ctx context.Context, cfg *rest.Config) (*jobWatch, error) {
	pb := rest.CopyConfig(cfg)
	pb.ContentType = runtime.ContentTypeProtobuf
	pb.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
	kube, err := kubernetes.NewForConfig(pb)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	w := &jobWatch{jobs: map[types.UID]*seenJob{}, cancel: cancel, ended: make(chan struct{})}
	jobs := kube.BatchV1().Jobs(metav1.NamespaceAll)
	open := func() (watch.Interface, error) {
		list, err := jobs.List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, err
		}
		for i := range list.Items {
			w.saw(&list.Items[i])
		}
		return watchtools.NewRetryWatcherWithContext(ctx, list.ResourceVersion, &cache.ListWatch{
			WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
				return jobs.Watch(ctx, opts)
			},
		})
	}
	first, err := open()
	if err != nil {
		cancel()
		return nil, err
	}
	go w.follow(ctx, first, open)
	return w, nil
}

func (w *jobWatch) follow(ctx context.Context, cur watch.Interface, open func() (watch.Interface, error)) {
	defer close(w.ended)
	for {
		for ev := range cur.ResultChan() {
			if j, ok := ev.Object.(*kbatchv1.Job); ok && ev.Type != watch.Deleted {
				w.saw(j)
			}
		}
		cur.Stop()
		for {
			if ctx.Err() != nil {
				return
			}
			next, err := open()
			if err == nil {
				cur = next
				break
			}
			time.Sleep(time.Second)
		}
		w.mu.Lock()
		w.relists++
		w.mu.Unlock()
	}
}

// saw records a Job the first time it is seen; later events change nothing
// that the verdict reads.
func (w *jobWatch) saw(j *kbatchv1.Job) {
	now := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, ok := w.jobs[j.UID]; ok {
		return
	}
	s := &seenJob{ns: j.Namespace, name: j.Name, uid: j.UID, label: j.Labels[batchv1.CronJobLabel],
		created: j.CreationTimestamp.Time, seen: now}
	if ref := metav1.GetControllerOf(j); ref != nil {
		s.owner = ref.DeepCopy()
	}
	if v, ok := j.Annotations[batchv1.ScheduledTimeAnnotation]; ok {
		s.scheduled, _ = time.Parse(time.RFC3339, v)
	}
	w.jobs[j.UID] = s
}

// snapshot is every Job seen so far.
func (w *jobWatch) snapshot() ([]seenJob, int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]seenJob, 0, len(w.jobs))
	for _, j := range w.jobs {
		out = append(out, *j)
	}
	return out, w.relists
}

// countIn counts the Jobs seen in the given namespaces.
func (w *jobWatch) countIn(namespaces map[string]bool) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, j := range w.jobs {
		if namespaces[j.ns] {
			n++
		}
	}
	return n
}

func (w *jobWatch) stop() {
	w.cancel()
	select {
	case <-w.ended:
	case <-time.After(5 * time.Second):
	}
}

// createCronJobs creates every attendee's every-minute CronJob, each with
// the attendee's own client: creating in one's namespace is what the Role
// allows, and that it allows it is part of what is tested.
func (r *run) createCronJobs(ctx context.Context) error {
	for _, a := range r.attendees {
		cj := cronJob(a.ns, "every-minute", false)
		if err := a.c.Create(ctx, cj); err != nil {
			return err
		}
		a.cronJob = cj
	}
	return nil
}
