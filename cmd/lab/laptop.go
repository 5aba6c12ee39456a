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

// What the doctor says about the laptop itself: the system, the shell and
// make that run the Makefile and hack/*.sh (written for the bash 3.2 and make
// 3.81 of a stock Mac, see docs/laptops.md), and room for the first build.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
)

// firstBuildBytes is about what the first build leaves in Go's caches:
// modules, the compiled packages of kube-apiserver and its kin, the binaries.
const firstBuildBytes = 10 << 30

func laptopFindings(root string) []finding {
	procVersion, _ := os.ReadFile("/proc/version")
	out := []finding{platformFinding(runtime.GOOS, runtime.GOARCH, string(procVersion), root)}

	bash, err := exec.Command("bash", "-c", "echo $BASH_VERSION").Output()
	out = append(out, versionFinding("bash", string(bash), err, `^(\d+)\.(\d+)`, 3, 2,
		"install bash (it comes with macOS, Linux and WSL2)"))
	mk, err := exec.Command("make", "--version").Output()
	out = append(out, versionFinding("make", string(mk), err, `GNU Make (\d+)\.(\d+)`, 3, 81,
		"install GNU make (macOS: xcode-select --install; Debian/Ubuntu: sudo apt-get install make)"))

	cache, _ := exec.Command("go", "env", "GOCACHE").Output()
	dir := strings.TrimSpace(string(cache))
	free, err := freeBytes(dir)
	_, built := os.Stat(filepath.Join(root, "bin", "envtest-assets-path"))
	out = append(out, diskFinding(dir, free, err, built == nil))
	return out
}

// platformFinding names the system; on WSL2 it checks that the clone is on
// the Linux file system, not on the Windows one under /mnt.
func platformFinding(goos, goarch, procVersion, root string) finding {
	wsl := goos == "linux" && strings.Contains(strings.ToLower(procVersion), "microsoft")
	what := fmt.Sprintf("system: %s/%s", goos, goarch)
	if wsl {
		what += " (Windows, WSL2)"
	}
	if wsl && strings.HasPrefix(root, "/mnt/") {
		return finding{what, fmt.Errorf("the clone is on the Windows file system (%s)", root),
			"clone it into your Linux home instead (cd ~ && git clone ...): builds are several times faster there, and file events arrive"}
	}
	return finding{what: what}
}

// versionFinding checks a tool's version against a minimum major.minor.
func versionFinding(tool, out string, err error, pattern string, major, minor int, fix string) finding {
	what := fmt.Sprintf("%s %d.%d or newer", tool, major, minor)
	if err != nil {
		return finding{what, fmt.Errorf("%s does not run: %v", tool, err), fix}
	}
	m := regexp.MustCompile(pattern).FindStringSubmatch(out)
	if m == nil {
		return finding{what, fmt.Errorf("%s says %q", tool, firstLine(out)), fix}
	}
	gotMajor, _ := strconv.Atoi(m[1])
	gotMinor, _ := strconv.Atoi(m[2])
	if gotMajor < major || gotMajor == major && gotMinor < minor {
		return finding{what, fmt.Errorf("%s is %d.%d", tool, gotMajor, gotMinor), fix}
	}
	return finding{what: fmt.Sprintf("%s (%d.%d)", what, gotMajor, gotMinor)}
}

// diskFinding: room in Go's build cache for the first build, which builds
// (or downloads) the Kubernetes binaries; after it, nothing large is left.
func diskFinding(dir string, free uint64, err error, built bool) finding {
	what := "free disk for the first build (about 10 GiB in Go's cache)"
	switch {
	case built:
		return finding{what: "free disk: the first build is done"}
	case err != nil:
		return finding{what: what + ": cannot tell (" + err.Error() + ")"}
	case free < firstBuildBytes:
		return finding{what, fmt.Errorf("%s has %.1f GiB free", dir, float64(free)/(1<<30)),
			"free some space there, or move Go's cache to a disk with room: go env -w GOCACHE=/path/with/room"}
	}
	return finding{what: fmt.Sprintf("%s (%.0f GiB free in %s)", what, float64(free)/(1<<30), dir)}
}
