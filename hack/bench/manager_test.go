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

import "testing"

// The manager's /metrics, as controller-runtime and internal/eventsink
// write them: the bench keeps the cronjob controller's reconciles and
// queue, not another controller's, and the Events waiting as a level.
const managerText = `# TYPE controller_runtime_reconcile_total counter
controller_runtime_reconcile_total{controller="cronjob",result="success"} 900
controller_runtime_reconcile_total{controller="cronjob",result="requeue_after"} 100
controller_runtime_reconcile_total{controller="other",result="success"} 7
# TYPE workqueue_queue_duration_seconds histogram
workqueue_queue_duration_seconds_bucket{controller="cronjob",name="cronjob",le="+Inf"} 1000
workqueue_queue_duration_seconds_sum{controller="cronjob",name="cronjob"} 1500
workqueue_queue_duration_seconds_count{controller="cronjob",name="cronjob"} 1000
workqueue_queue_duration_seconds_bucket{controller="other",name="other",le="+Inf"} 3
workqueue_queue_duration_seconds_sum{controller="other",name="other"} 99
workqueue_queue_duration_seconds_count{controller="other",name="other"} 3
# TYPE controller_runtime_reconcile_time_seconds histogram
controller_runtime_reconcile_time_seconds_bucket{controller="cronjob",le="+Inf"} 1000
controller_runtime_reconcile_time_seconds_sum{controller="cronjob"} 100
controller_runtime_reconcile_time_seconds_count{controller="cronjob"} 1000
# TYPE cronlab_events_waiting gauge
cronlab_events_waiting 4321
# TYPE cronlab_events_dropped_total counter
cronlab_events_dropped_total 17
`

func TestTheManagersMetricsGiveItsReconcilesQueueAndWaitingEvents(t *testing.T) {
	got, err := parseManager([]byte(managerText))
	if err != nil {
		t.Fatalf("the manager's metrics must parse: %v", err)
	}
	if got.reconciles != 1000 {
		t.Errorf("reconciles: got %v, want the cronjob controller's 1000 of every result", got.reconciles)
	}
	if got.queued != (latencyTotal{count: 1000, seconds: 1500}) {
		t.Errorf("queue wait: got %+v, want the cronjob controller's 1000 in 1500 s", got.queued)
	}
	if got.reconciling != (latencyTotal{count: 1000, seconds: 100}) {
		t.Errorf("reconcile time: got %+v, want 1000 in 100 s", got.reconciling)
	}
	if got.eventsWaiting != 4321 {
		t.Errorf("Events waiting: got %v, want the gauge's 4321", got.eventsWaiting)
	}
	if got.eventsDropped != 17 {
		t.Errorf("Events dropped: got %v, want the counter's 17", got.eventsDropped)
	}
	older, err := parseManager([]byte("# TYPE cronlab_events_waiting gauge\ncronlab_events_waiting 3\n"))
	if err != nil {
		t.Fatal(err)
	}
	if older.eventsDropped != -1 {
		t.Errorf("Events dropped by a manager without the counter: got %v, want -1 (not counted)", older.eventsDropped)
	}
}
