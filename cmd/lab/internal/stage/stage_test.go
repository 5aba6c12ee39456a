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

package stage

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestEveryStageHasAGeneralHint(t *testing.T) {
	stages, err := Load(filepath.Join("..", "..", "..", ".."))
	if err != nil {
		t.Fatal(err) // loadStages refuses a stage without one (checkHints)
	}
	for _, s := range stages {
		if s.Levels()[0].ID != s.Slug+".1" && s.Hints[0].When == "" {
			t.Errorf("stage %s: the first hint's id is %s", s.Num, s.Levels()[0].ID)
		}
	}
}

// A stage's title and every hint are in both languages: an attendee who
// reads Chinese never meets a hint that only exists in English.
func TestEveryStageSpeaksBothLanguages(t *testing.T) {
	stages, err := Load(filepath.Join("..", "..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range stages {
		if strings.TrimSpace(s.TitleZh) == "" {
			t.Errorf("%s/stage.yaml has no titleZh", s.Dir)
		}
		for _, h := range s.Hints {
			if strings.TrimSpace(h.Zh) == "" {
				t.Errorf("%s/stage.yaml: hint %s has no zh", s.Dir, h.ID)
			}
		}
		for _, m := range s.Mistakes {
			if strings.TrimSpace(m.NameZh) == "" {
				t.Errorf("%s/stage.yaml: mistake %q has no nameZh", s.Dir, m.Name)
			}
		}
	}
}
