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

package verify

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
	"cronlab.dev/cronlab/cmd/lab/internal/labtest"
)

// TestSyncRefusesAChangeNotCommitted: lab dev verify and lab dev mutants read the
// last commit, so a sync over uncommitted changes would measure the tree
// without them and call it up to date. It refuses, naming the files and
// saying what to do, before it runs anything.
func TestSyncRefusesAChangeNotCommitted(t *testing.T) {
	root, stages := labtest.TinyLab(t)
	if err := os.WriteFile(filepath.Join(root, "p", "p.go"), []byte("package p\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, l := range []i18n.Lang{i18n.English, i18n.Chinese} {
		err := CmdSync(l, root, stages, filepath.Join(root, "docs", "mutation.json"))
		if err == nil || !strings.Contains(err.Error(), "p/p.go") || !strings.Contains(err.Error(), l.Tr("commit them", "请先提交")) {
			t.Errorf("%s: lab dev sync over an uncommitted change: %v", l, err)
		}
	}
}
