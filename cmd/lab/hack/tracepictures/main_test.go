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
	"os"
	"path/filepath"
	"testing"
)

// The answers' pictures are the drawings of their committed traces: a
// change to how traces are drawn must draw them again (make trace-pictures
// or, with the traces kept, go run ./cmd/lab/hack/tracepictures -write -traces
// bin/trace-pictures). make verify-traces also checks that the reference
// still does what they show, which needs the tests' fresh traces.
func TestThePicturesAreDrawingsOfTheirTraces(t *testing.T) {
	if err := os.Chdir(filepath.Join("..", "..", "..", "..")); err != nil {
		t.Fatal(err)
	}
	for _, p := range pictures {
		if err := p.drawn(); err != nil {
			t.Errorf("%s: %v", p.name, err)
		}
	}
}
