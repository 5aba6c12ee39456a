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
	"testing"
	"time"
)

// TestNextRunMessage: what Ready says about the next run, in the CronJob's
// time zone, and when there is none (a schedule whose next match is more
// than the parser looks ahead, such as 29 February across 2100).
func TestNextRunMessage(t *testing.T) {
	shanghai, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Fatal(err)
	}
	run := time.Date(2030, time.January, 7, 10, 5, 0, 0, time.UTC)
	for _, tc := range []struct {
		next time.Time
		loc  *time.Location
		want string
	}{
		{run, time.UTC, "next run at 2030-01-07T10:05:00Z"},
		{run, shanghai, "next run at 2030-01-07T18:05:00+08:00"},
		{time.Time{}, shanghai, "the schedule has no further runs"},
	} {
		if got := nextRunMessage(tc.next, tc.loc); got != tc.want {
			t.Errorf("nextRunMessage(%v, %v) = %q, want %q", tc.next, tc.loc, got, tc.want)
		}
	}
}
