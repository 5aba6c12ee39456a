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

package starter

import (
	"reflect"
	"testing"

	"cronlab.dev/cronlab/cmd/lab/internal/regions"
	"cronlab.dev/cronlab/cmd/lab/internal/stage"
)

// A starter stubs the regions of its stage and of every later one; the
// stages before it stay solved.
func TestAStarterStubsItsStageAndTheLaterOnes(t *testing.T) {
	stages := []stage.Stage{
		{Slug: "one", Num: "01", Dir: "exercises/01-one", Regions: []string{"one"}},
		{Slug: "two", Num: "02", Dir: "exercises/02-two", Regions: []string{"two", "two-b"}},
		{Slug: "three", Num: "03", Dir: "exercises/03-three", Regions: []string{"three"}},
	}
	want := map[string]regions.Stub{
		"two":   {Stage: "two", Readme: "exercises/02-two/README.md"},
		"two-b": {Stage: "two", Readme: "exercises/02-two/README.md"},
		"three": {Stage: "three", Readme: "exercises/03-three/README.md"},
	}
	if got := StubsFrom(stages, stages[1]); !reflect.DeepEqual(got, want) {
		t.Errorf("the starter of 02 stubs %v, want %v", got, want)
	}
}
