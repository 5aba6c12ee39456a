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

import (
	"maps"
	"testing"
)

// The API server's latency histograms, by verb|group|resource|subresource,
// become a mean answer time per kind of a run's writes, over the window
// only, with the Events of both API groups together.
func TestTheServersAnswerTimesAreMeansOverTheWindow(t *testing.T) {
	before := map[string]latencyTotal{
		"POST|batch|jobs|":                        {count: 100, seconds: 50},
		"DELETE|batch|jobs|":                      {count: 100, seconds: 1},
		"PATCH|batch.cronlab.dev|cronjobs|status": {count: 10, seconds: 1},
		"POST|events.k8s.io|events|":              {count: 5, seconds: 5},
	}
	after := map[string]latencyTotal{
		"POST|batch|jobs|":                        {count: 600, seconds: 100},   // 500 in 50 s
		"DELETE|batch|jobs|":                      {count: 600, seconds: 26},    // 500 in 25 s
		"PATCH|batch.cronlab.dev|cronjobs|status": {count: 510, seconds: 76},    // 500 in 75 s
		"POST|events.k8s.io|events|":              {count: 505, seconds: 15},    // with the core group's:
		"POST||events|":                           {count: 500, seconds: 10},    // 1000 in 20 s
		"PATCH||events|":                          {count: 4, seconds: 0.2},     // 4 in 0.2 s
		"GET|batch|jobs|":                         {count: 9000, seconds: 9000}, // a read: not a write
		"PATCH|batch|cronjobs|status":             {count: 10, seconds: 10},     // upstream's CronJob: not cronlab's group
	}
	got := serverLatency(before, after, "cronlab")
	want := map[string]float64{
		"job create":           100,
		"job delete":           50,
		"cronjob status patch": 150,
		"event create":         20,
		"event patch":          50,
	}
	if !maps.Equal(got, want) {
		t.Errorf("mean answer times (ms):\n got %v\nwant %v", got, want)
	}
}
