//go:build unix

package main

import (
	"context"
	"sync"
	"time"

	kbatchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
	toolswatch "k8s.io/client-go/tools/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	batchv1 "cronlab.dev/cronlab/api/v1"
)

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
