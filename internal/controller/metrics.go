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
	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

// jobCreationSkew is the one metric upstream's CronJob controller has:
// how late Jobs start. It is measured from the scheduled time to the start
// of the reconcile that created the Job (the `now` that every decision of
// that reconcile uses, on the Reconciler's clock), so the time the Create
// call itself takes is not in it. Registering it with
// controller-runtime's registry puts it on the manager's /metrics endpoint,
// next to the built-in reconcile and workqueue metrics.
var jobCreationSkew = prometheus.NewHistogram(prometheus.HistogramOpts{
	Namespace: "cronlab",
	Subsystem: "cronjob_controller",
	Name:      "job_creation_skew_duration_seconds",
	Help:      "Time between when a CronJob run is scheduled and when its Job is created.",
	// From 50ms to about 7 minutes: the interesting range is around a second.
	Buckets: prometheus.ExponentialBuckets(0.05, 2, 14),
})

func init() {
	metrics.Registry.MustRegister(jobCreationSkew)
}
