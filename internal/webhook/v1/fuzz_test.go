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

package v1

import (
	"testing"

	"k8s.io/utils/ptr"
)

// FuzzValidateCronJob: whatever a user sends, validation answers with field
// errors and never panics (a panic in a webhook is a failed API request).
// `go test -fuzz=FuzzValidateCronJob ./internal/webhook/v1` searches further.
func FuzzValidateCronJob(f *testing.F) {
	f.Add("*/5 * * * *", "Europe/Berlin", "report")
	f.Add("0 0 1 , 0", "", "x")
	f.Add("TZ=UTC @daily", "Etc/GMT-14", "a-very-long-name-that-goes-on-and-on-and-on-past-fifty-two")
	f.Add("@every 0.5s", "../../../etc/passwd", "")
	f.Fuzz(func(t *testing.T, schedule, zone, name string) {
		cj := validCronJob("ns", name)
		cj.Spec.Schedule = schedule
		cj.Spec.TimeZone = ptr.To(zone)
		for _, e := range ValidateCronJob(cj, nil) {
			if e.Field == "" || e.Detail == "" && e.Type != "FieldValueNotSupported" {
				t.Fatalf("error without a field or a reason: %#v", e)
			}
		}
	})
}
