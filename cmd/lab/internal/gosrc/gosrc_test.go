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

package gosrc

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestACompileErrorIsPlacedInItsFunctionEvenWhenTheFileDoesNotParse(t *testing.T) {
	file := filepath.Join(t.TempDir(), "x.go")
	src := "package x\n\nfunc good() {}\n\nfunc broken() {\n\tif {\n}\n\nfunc (r *Reconciler) alsoBroken() {\n\tfor {\n}\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := EnclosingFunc(file, 6); got != "broken" {
		t.Errorf("line 6: %q, want broken", got)
	}
	if got := EnclosingFunc(file, 11); got != "Reconciler.alsoBroken" {
		t.Errorf("line 11: %q, want Reconciler.alsoBroken", got)
	}
	if got := EnclosingFunc(file, 1); got != "" {
		t.Errorf("line 1 is in no function, got %q", got)
	}
}

// A function whose body still holds the stub's TODO is not written yet,
// whether the TODO is in what it returns or in a comment; a function that
// only mentions the stage elsewhere is written.
func TestStillStubsAreTheFunctionsWhoseBodyHoldsTheTODO(t *testing.T) {
	dir := t.TempDir()
	src := `package controller

type labTODO string

func (e labTODO) Error() string { return string(e) }

type R struct{}

func (r *R) startDueRun() error {
	return labTODO("TODO(lab 06): write this (在此编写); see exercises/06-scheduling/README.md")
}

func nextRunMessage() string {
	// TODO(lab 06): write this (在此编写); see exercises/06-scheduling/README.md
	return ""
}

// Due is written; this comment names TODO(lab 06): write this, outside any body.
func Due() int { return 1 }
`
	if err := os.WriteFile(filepath.Join(dir, "status.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	got := StillStubs(dir, map[string]bool{"status.go": true, "README.md": true}, "TODO(lab 06): write this")
	if want := []string{"R.startDueRun", "nextRunMessage"}; !reflect.DeepEqual(got, want) {
		t.Errorf("StillStubs = %v, want %v", got, want)
	}
}
