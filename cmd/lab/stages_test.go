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
	"strings"
	"testing"
)

// An attendee starts a stage from its README: it must name every function
// the stage asks for, so that what `bin/lab start` lists is explained there.
func TestEveryStageREADMENamesTheFunctionsToWrite(t *testing.T) {
	root := filepath.Join("..", "..")
	stages, err := loadStages(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range stages {
		readme, err := os.ReadFile(filepath.Join(root, s.readme()))
		if err != nil || len(strings.TrimSpace(string(readme))) == 0 {
			t.Errorf("stage %s has no README (%s)", s.ID, s.readme())
			continue
		}
		wanted := map[string]bool{}
		for _, r := range s.Regions {
			wanted[r] = true
		}
		for _, path := range regionFiles(root, "HEAD", s) {
			src, err := os.ReadFile(filepath.Join(root, path))
			if err != nil {
				t.Fatal(err)
			}
			regions, err := findRegions(path, src)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range regions {
				if !wanted[r.name] {
					continue
				}
				for _, fn := range functionsIn(path, string(src), r) {
					if !strings.Contains(string(readme), fn) {
						t.Errorf("%s does not name %s (%s), which stage %s asks the attendee to write", s.readme(), fn, path, s.ID)
					}
				}
			}
		}
	}
}
