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

package board

import (
	"testing"

	"cronlab.dev/cronlab/cmd/lab/internal/classwire"
)

// A lab tool from before stages had names sends their numbers (06, and
// hints 06.1); the board stores what came, as it did then, so a board
// database of that time holds the same. Both are the stages and hints of
// today's slugs, when they arrive and after a restart rebuilds the class
// from the database.
func TestMessagesWithTheNumbersOfBeforeAreTheSameStages(t *testing.T) {
	tb := newTestBoard(t)
	ada := tb.join("ada")
	old := tb.result(2, "06", 3, "x")
	old.Result.Specs[0].Hint = "06.1"
	tb.send(ada, tb.result(1, "05", 2), old, classwire.Message{Seq: 3, At: tb.clock.now(), Hand: &classwire.Hand{Stage: "06", Text: "help"}})
	for _, when := range []string{"as they arrive", "after a restart"} {
		a := tb.attendee("ada")
		if a.Current != "scheduling" || a.Cells["scheduling"].State != "failing" || a.Cells["secondary-resources"].State != "passed" {
			t.Errorf("%s: ada is on %q with cells %+v", when, a.Current, a.Cells)
		}
		if _, numbered := a.Cells["06"]; numbered {
			t.Errorf("%s: a column named 06 beside scheduling: %+v", when, a.Cells)
		}
		s := tb.Snapshot()
		if len(s.Failing) != 1 || s.Failing[0].Stage != "scheduling" || s.Failing[0].Hint != "scheduling.1" {
			t.Errorf("%s: what the room fails: %+v", when, s.Failing)
		}
		if len(s.Hands) != 1 || tb.handState(ada).Stage != "scheduling" {
			t.Errorf("%s: the hand: %+v, %+v", when, s.Hands, tb.handState(ada))
		}
		tb.restart()
	}
}
