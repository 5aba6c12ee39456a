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

package progress

import "testing"

func TestTheStatusBar(t *testing.T) {
	for _, c := range []struct {
		done, all int
		want      string
	}{{0, 16, "[----------------]"}, {3, 16, "[###-------------]"}, {16, 16, "[################]"}, {0, 0, "[----------------]"},
		{1, 17, "[#---------------]"}} { // one of 17 passed shows {
		if got := Bar(c.done, c.all, 16); got != c.want {
			t.Errorf("bar(%d, %d) = %s, want %s", c.done, c.all, got, c.want)
		}
	}
}
