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
	"errors"
	"strings"
	"testing"

	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
)

func TestTheDoctorKnowsTheLaptop(t *testing.T) {
	l := i18n.English
	for _, c := range []struct {
		name    string
		got     finding
		wantErr string // "" for ok
		wantFix string
	}{
		{"a stock Mac's bash", versionFinding(l, "bash", "3.2.57(1)-release\n", nil, `^(\d+)\.(\d+)`, 3, 2, "fix"), "", ""},
		{"an old bash", versionFinding(l, "bash", "3.1.17(1)-release\n", nil, `^(\d+)\.(\d+)`, 3, 2, "install bash"), "bash is 3.1", "install bash"},
		{"a stock Mac's make", versionFinding(l, "make", "GNU Make 3.81\nCopyright (C) 2006\n", nil, `GNU Make (\d+)\.(\d+)`, 3, 81, "fix"), "", ""},
		{"BSD make", versionFinding(l, "make", "usage: make [-BeikNnqrstWwX]\n", nil, `GNU Make (\d+)\.(\d+)`, 3, 81, "install GNU make"), "make says", "install GNU make"},
		{"no make", versionFinding(l, "make", "", errors.New("not found"), `GNU Make (\d+)\.(\d+)`, 3, 81, "xcode-select --install"), "make does not run", "xcode-select"},
		{"Linux", platformFinding(l, "linux", "amd64", "Linux version 6.8.0 (gcc 12)", "/home/a/cronlab"), "", ""},
		{"a Mac", platformFinding(l, "darwin", "arm64", "", "/Users/a/cronlab"), "", ""},
		{"WSL2, clone in the Linux home", platformFinding(l, "linux", "amd64", "Linux version 5.15.153.1-microsoft-standard-WSL2", "/home/a/cronlab"), "", ""},
		{"WSL2, clone on C:", platformFinding(l, "linux", "amd64", "Linux version 5.15.153.1-microsoft-standard-WSL2", "/mnt/c/Users/a/cronlab"),
			"on the Windows file system", "cd ~ && git clone"},
		{"room", diskFinding(l, "/home/a/.cache/go-build", 50<<30, nil, false), "", ""},
		{"no room", diskFinding(l, "/home/a/.cache/go-build", 3<<30, nil, false), "has 3.0 GiB free", "GOCACHE"},
		{"built already", diskFinding(l, "/home/a/.cache/go-build", 1<<30, nil, true), "", ""},
	} {
		expectFinding(t, c.name, c.got, c.wantErr, c.wantFix)
	}
	if got := platformFinding(l, "linux", "amd64", "Linux version 5.15.153.1-microsoft-standard-WSL2", "/home/a/cronlab"); !strings.Contains(got.what, "WSL2") {
		t.Errorf("WSL2 is not named: %q", got.what)
	}
}

// The doctor checks the go that builds the attendee's code, the one on PATH,
// not the one bin/lab was built with, and says so when they differ.
func TestTheDoctorChecksTheGoOnPath(t *testing.T) {
	l := i18n.English
	what, err := goOnPath(l, "go1.26.8", func() (string, error) { return "go1.24.3", nil })
	if err == nil || !strings.Contains(what, "go1.24.3") || !strings.Contains(what, "bin/lab was built with go1.26.8") {
		t.Errorf("an old go on PATH: %q, %v", what, err)
	}
	if what, err := goOnPath(l, "go1.26.8", func() (string, error) { return "go1.26.8", nil }); err != nil || strings.Contains(what, "built with") {
		t.Errorf("the same go: %q, %v", what, err)
	}
	if _, err := goOnPath(l, "go1.26.8", func() (string, error) { return "", errors.New("exec: \"go\": executable file not found in $PATH") }); err == nil {
		t.Error("no go on PATH must fail")
	}
}
