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
