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

package trace

import (
	"fmt"
	"regexp"
	"strings"
)

// Outline is what a trace of the reference shows that does not change from
// one run to the next: the writes, in order, with what the API server
// answered, and the stale reads, each with its lag and what it missed. The
// times, the resourceVersions, how many events a reconcile coalesced and
// which version a read returned when no lag was forced are left out: they
// depend on the scheduler. `make verify-traces` compares a fresh trace's
// outline with the one committed beside the answers' pictures, so that a
// picture cannot show what the reference no longer does.
func Outline(a *Analysis) string {
	var b strings.Builder
	for i, e := range a.Events {
		switch {
		case e.Kind == Write && e.Object != nil:
			outcome := "ok"
			if e.Error != "" {
				outcome = e.Error
			}
			who := "reconcile"
			if e.Actor != "" {
				who = e.Actor
			}
			fmt.Fprintf(&b, "%s: %s %s %s: %s\n", who, e.Verb, e.Object.Kind, steady(e.Object.Name), outcome)
		case e.Kind == Read:
			for _, s := range a.Stale {
				if s.Event == i {
					fmt.Fprintf(&b, "stale read (%s): %s %s %s from the cache, %s %s %s\n",
						s.Lag, e.Verb, readKind(e), readName(e), lagged[s.Lag], s.Object.Kind, steady(s.Object.Name))
				}
			}
		}
	}
	return b.String()
}

// lagged says what a stale read did not show of the object.
var lagged = map[string]string{CLag: "without", ULag: "an older", DLag: "still with the deleted"}

// generated is the suffix the API server adds to a generateName: five of
// the letters and digits that spell no word.
var generated = regexp.MustCompile(`-[bcdfghjklmnpqrstvwxz2456789]{5}$`)

// steady is a name as an outline shows it: a generated suffix, which is
// new in each run, as "-?????".
func steady(name string) string { return generated.ReplaceAllString(name, "-?????") }

func readKind(e Event) string {
	if e.List != nil {
		return e.List.Kind
	}
	if e.Object != nil {
		return e.Object.Kind
	}
	return ""
}

func readName(e Event) string {
	if e.List != nil {
		return "(list)"
	}
	if e.Object != nil {
		return e.Object.Name
	}
	return ""
}
