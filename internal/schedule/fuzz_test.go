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

package schedule

import (
	"errors"
	"testing"
	"time"

	"cronlab.dev/cronlab/test/say"
)

// FuzzParse feeds arbitrary schedules and time zones to Parse and to the
// arithmetic of whatever it accepts. The webhook and the controller call
// these with user input, so no input may panic them, and every refusal must
// be an *InvalidError that names its field. `go test` runs the seeds;
// `go test -fuzz=FuzzParse ./internal/schedule` searches for more.
func FuzzParse(f *testing.F) {
	for _, seed := range []struct{ spec, zone string }{
		{"*/5 * * * *", "Europe/Berlin"}, {"0 0 30 2 *", "Etc/UTC"}, {"@every 1s", ""}, {"@every -5m", ""},
		{"TZ=Asia/Tokyo 0 9 * * *", ""}, {"61 * * * *", "Mars/Base"}, {"*/0 * * * *", "../../etc"},
		{"0-59/60 0 1 1 0", "UTC"}, {"@daily", "Asia/Shanghai"}, {"1,2,3-5/2 * L * *", "Etc/GMT+14"},
	} {
		f.Add(seed.spec, seed.zone)
	}
	last := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, spec, zone string) {
		s, err := Parse(spec, zone)
		if err != nil {
			var invalid *InvalidError
			if !errors.As(err, &invalid) || (invalid.Field != "schedule" && invalid.Field != "timeZone") {
				t.Fatal(say.Both("Parse(%q, %q) = %v, want an *InvalidError for schedule or timeZone",
					"Parse(%q, %q) = %v，应为针对 schedule 或 timeZone 的 *InvalidError", spec, zone, err))
			}
			return
		}
		deadline := 30 * time.Second
		for _, now := range []time.Time{last, last.Add(time.Minute), last.Add(400 * 24 * time.Hour)} {
			due := s.Due(last, now, nil)
			if !due.Run.IsZero() && (due.Run.After(now) || !due.Run.After(last)) {
				t.Fatal(say.Both("%q: Due(%v, %v).Run = %v, outside (last, now]",
					"%q：Due(%v, %v).Run = %v，不在 (last, now] 之内", spec, last, now, due.Run))
			}
			if !due.Next.IsZero() && !due.Next.After(now) {
				t.Fatal(say.Both("%q: Due(%v, %v).Next = %v, not after now",
					"%q：Due(%v, %v).Next = %v，不在 now 之后", spec, last, now, due.Next))
			}
			s.Due(last, now, &deadline)
		}
	})
}
