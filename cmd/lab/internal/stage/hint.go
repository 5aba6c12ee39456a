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
	"fmt"
	"strings"

	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
)

type Hint struct {
	// When ties the hint to failures whose name or message contains it.
	When string `json:"when,omitempty"`
	En   string `json:"en"`
	// Zh is the Chinese text, which the Chinese edition adds (issue 18).
	Zh string `json:"zh,omitempty"`
	ID string `json:"-"` // set by loadStages
}

// Text is the hint in l (its English where it has no Chinese).
func (h Hint) Text(l i18n.Lang) string {
	if l == i18n.Chinese && strings.TrimSpace(h.Zh) != "" {
		return strings.TrimSpace(h.Zh)
	}
	return strings.TrimSpace(h.En)
}

// checkHints checks the hints of a stage when it is loaded: some text, and
// at least one general level.
func checkHints(s Stage) error {
	if len(s.Levels()) == 0 {
		return fmt.Errorf("%s/stage.yaml: hints: no general hint (one without when)", s.Dir)
	}
	for _, h := range s.Hints {
		if strings.TrimSpace(h.En) == "" {
			return fmt.Errorf("%s/stage.yaml: hint %s has no text (en)", s.Dir, h.ID)
		}
	}
	return nil
}

// Levels are the general hints, in order.
func (s Stage) Levels() []Hint {
	var out []Hint
	for _, h := range s.Hints {
		if h.When == "" {
			out = append(out, h)
		}
	}
	return out
}
