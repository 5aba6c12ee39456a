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

package perturb

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
)

// The kinds lab perturb offers are the ones test/perturb plays: each has
// the reference's end state there, and nothing else has one.
func TestEveryKindHasTheReferencesEndState(t *testing.T) {
	goldens, err := filepath.Glob(filepath.Join("..", "..", "..", "..", "test", "perturb", "testdata", "*.golden"))
	if err != nil {
		t.Fatal(err)
	}
	var played []string
	for _, g := range goldens {
		played = append(played, strings.TrimSuffix(filepath.Base(g), ".golden"))
	}
	slices.Sort(played)
	offered := slices.Sorted(slices.Values(kinds))
	if !slices.Equal(played, offered) {
		t.Errorf("lab perturb offers %v; test/perturb has the reference's end state of %v", offered, played)
	}
}

func TestAnUnknownKindIsRefusedWithTheList(t *testing.T) {
	err := CmdPerturb(i18n.English, ".", []string{"sideways"})
	if err == nil || !strings.Contains(err.Error(), `no perturbation "sideways"`) {
		t.Errorf("got %v", err)
	}
	if err := CmdPerturb(i18n.Chinese, ".", nil); err == nil || !strings.Contains(i18n.Message(i18n.Chinese, err), "请指定一种扰动") {
		t.Errorf("without a kind: got %v", err)
	}
}
