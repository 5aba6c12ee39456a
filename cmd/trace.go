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

// --trace FILE (make run TRACE=file): the reconcile loop recorded for
// `bin/lab trace` to draw (internal/trace/record says what each lane
// records). The controller is the lesson's, built by SetupWithManager; the
// recorder stands around it (controller.Around) and around its clients.

import (
	"context"

	kbatchv1 "k8s.io/api/batch/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	batchv1 "cronlab.dev/cronlab/api/v1"
	"cronlab.dev/cronlab/internal/controller"
	"cronlab.dev/cronlab/internal/trace"
	"cronlab.dev/cronlab/internal/trace/record"
)

// traced makes r record into path before SetupWithManager builds its
// controller. It is for watching a few CronJobs in a lesson: every read and
// write is one more line in the file. Close the recorder when the manager
// has stopped.
func traced(ctx context.Context, mgr ctrl.Manager, r *controller.CronJobReconciler, path, namespace string) (*record.Recorder, error) {
	rec, err := record.Create(path, record.Options{Scheme: mgr.GetScheme(), Namespace: namespace})
	if err != nil {
		return nil, err
	}
	// The API server's lane: a watch of our own, beside the cache's, of
	// what the cache holds (cacheOptions: cronlab's Jobs only).
	direct, err := client.NewWithWatch(mgr.GetConfig(), client.Options{Scheme: mgr.GetScheme()})
	if err != nil {
		return nil, err
	}
	var where []client.ListOption
	if namespace != "" {
		where = append(where, client.InNamespace(namespace))
	}
	if err := rec.WatchAPI(ctx, direct, &batchv1.CronJobList{}, where...); err != nil {
		return nil, err
	}
	if err := rec.WatchAPI(ctx, direct, &kbatchv1.JobList{}, append(where, client.HasLabels{batchv1.CronJobLabel})...); err != nil {
		return nil, err
	}
	r.Client = rec.Client(r.Client, trace.FromCache)
	r.APIReader = rec.Reader(r.APIReader)
	r.Around = rec
	return rec, nil
}
