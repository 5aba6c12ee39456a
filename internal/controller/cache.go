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
	kbatchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	batchv1 "cronlab.dev/cronlab/api/v1"
)

// CacheOptions is the manager's cache for this controller. cmd/main.go
// passes it to ctrl.NewManager and the envtest suite does the same, so the
// tests read through the cache that runs in production.
//
// The informer cache keeps a copy of every object of every kind the
// controller watches, for as long as it runs: it is where the manager's
// memory goes (docs/performance.md measures it). Two settings keep it to
// what the controller reads:
//
//   - managedFields are dropped from every object. The controller never
//     reads them, and they are often the largest part of an object.
//   - Only Jobs with the CronJobLabel are listed and watched: those that this
//     controller created (runs.NewJob sets the label). The other Jobs of the
//     cluster, which may be thousands, cost nothing here, and their changes
//     are never sent to the manager. The API server does the filtering.
//
// The price of the selector: a Job whose label someone removes drops out of
// the cache as if it had been deleted. Reconcile then no longer sees it
// change, and asks jobGone whether it is gone (stage 15 writes how).
// createJob still finds a Job of the same name, because it asks the API
// server (APIReader), not the cache, and labels it again (labelAsOurs).
func CacheOptions() cache.Options {
	ours, err := labels.NewRequirement(batchv1.CronJobLabel, selection.Exists, nil)
	if err != nil {
		panic(err) // a constant key that is a valid label key: cannot happen
	}
	return cache.Options{
		DefaultTransform: cache.TransformStripManagedFields(),
		ByObject: map[client.Object]cache.ByObject{
			&kbatchv1.Job{}: {Label: labels.NewSelector().Add(*ours)},
		},
	}
}
