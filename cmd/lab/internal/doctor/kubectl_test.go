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

package doctor

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
)

// fakeKubectl writes, in dir, a kubectl that says it is version 1.minor.
func fakeKubectl(t *testing.T, dir, minor string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "kubectl")
	script := fmt.Sprintf("#!/bin/sh\necho '{\"clientVersion\":{\"major\":\"1\",\"minor\":\"%s\"}}'\n", minor)
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestTheDoctorWantsAKubectlWithinOneMinorVersionOfTheWorkshops(t *testing.T) {
	l := i18n.English
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "Makefile"), []byte("KUBE_VERSION ?= v1.36.3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name         string
		onPath       string // the PATH kubectl's minor version; "" for none
		cached       string // the one make cluster built; "" for none
		wantOK       bool
		wantOnPath   bool     // the kubectl to use is the one on PATH, not the cached one
		wantInReport []string // in the error and the fix
	}{
		{name: "1.32 on PATH, 1.36 built", onPath: "32", cached: "36",
			wantInReport: []string{"on PATH", "is 1.32", "first on PATH", "1.35 to 1.37"}},
		{name: "1.37 on PATH", onPath: "37", cached: "36", wantOK: true, wantOnPath: true},
		{name: "1.35+ on PATH (a vendor's build)", onPath: "35+", wantOK: true, wantOnPath: true},
		{name: "none on PATH, 1.36 built", cached: "36", wantOK: true},
		{name: "1.38 on PATH, none built", onPath: "38",
			wantInReport: []string{"is 1.38", "make cluster", "1.35 to 1.37"}},
		{name: "none at all", wantInReport: []string{"not on PATH", "make cluster"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bin, cache := t.TempDir(), t.TempDir()
			t.Setenv("PATH", bin)
			t.Setenv("XDG_CACHE_HOME", cache)
			var pathKubectl, cachedKubectl string
			if tc.onPath != "" {
				pathKubectl = fakeKubectl(t, bin, tc.onPath)
			}
			if tc.cached != "" {
				cachedKubectl = fakeKubectl(t, filepath.Join(cache, "cronlab", "kubernetes-v1."+tc.cached+".3"), tc.cached)
			}
			k := checkKubectl(l, root)
			if (k.err == nil) != tc.wantOK {
				t.Fatalf("ok %v, want %v: %v", k.err == nil, tc.wantOK, k.err)
			}
			switch {
			case tc.wantOnPath && k.path != pathKubectl:
				t.Errorf("uses %q, want the one on PATH", k.path)
			case !tc.wantOnPath && tc.cached != "" && k.path != cachedKubectl:
				t.Errorf("uses %q, want the one make cluster built", k.path)
			}
			if k.err != nil {
				report := k.err.Error() + " / " + k.fix
				for _, want := range tc.wantInReport {
					if !strings.Contains(report, want) {
						t.Errorf("the doctor says %q: it should say %q", report, want)
					}
				}
			}
		})
	}
}
