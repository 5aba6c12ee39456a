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

	"cronlab.dev/cronlab/cmd/lab/internal/base"
	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
)

// firstBuildBytes is about what the first build leaves in Go's caches:
// modules, the compiled packages of kube-apiserver and its kin, the binaries.
const firstBuildBytes = 10 << 30

func laptopFindings(l i18n.Lang, root string) []finding {
	procVersion, _ := os.ReadFile("/proc/version")
	out := []finding{platformFinding(l, runtime.GOOS, runtime.GOARCH, string(procVersion), root)}

	bash, err := exec.Command("bash", "-c", "echo $BASH_VERSION").Output()
	out = append(out, versionFinding(l, "bash", string(bash), err, `^(\d+)\.(\d+)`, 3, 2,
		l.Tr("install bash (it comes with macOS, Linux and WSL2)", "安装 bash（macOS、Linux 和 WSL2 自带）")))
	mk, err := exec.Command("make", "--version").Output()
	out = append(out, versionFinding(l, "make", string(mk), err, `GNU Make (\d+)\.(\d+)`, 3, 81,
		l.Tr("install GNU make (macOS: xcode-select --install; Debian/Ubuntu: sudo apt-get install make)",
			"安装 GNU make（macOS：xcode-select --install；Debian/Ubuntu：sudo apt-get install make）")))

	cache, _ := exec.Command("go", "env", "GOCACHE").Output()
	dir := strings.TrimSpace(string(cache))
	free, err := freeBytes(dir)
	_, built := os.Stat(filepath.Join(root, "bin", "envtest-assets-path"))
	out = append(out, diskFinding(l, dir, free, err, built == nil))
	return out
}

// platformFinding names the system; on WSL2 it checks that the clone is on
// the Linux file system, not on the Windows one under /mnt.
func platformFinding(l i18n.Lang, goos, goarch, procVersion, root string) finding {
	wsl := goos == "linux" && strings.Contains(strings.ToLower(procVersion), "microsoft")
	what := fmt.Sprintf(l.Tr("system: %s/%s", "系统：%s/%s"), goos, goarch)
	if wsl {
		what += " (Windows, WSL2)"
	}
	if wsl && strings.HasPrefix(root, "/mnt/") {
		return finding{what, fmt.Errorf(l.Tr("the clone is on the Windows file system (%s)", "克隆位于 Windows 文件系统上（%s）"), root),
			l.Tr("clone it into your Linux home instead (cd ~ && git clone ...): builds are several times faster there, and file events arrive",
				"改为克隆到 Linux 的主目录（cd ~ && git clone ...）：在那里构建快好几倍，而且能收到文件事件")}
	}
	return finding{what: what}
}

// versionFinding checks a tool's version against a minimum major.minor.
func versionFinding(l i18n.Lang, tool, out string, err error, pattern string, major, minor int, fix string) finding {
	what := fmt.Sprintf(l.Tr("%s %d.%d or newer", "%s %d.%d 或更新版本"), tool, major, minor)
	if err != nil {
		return finding{what, fmt.Errorf(l.Tr("%s does not run: %v", "%s 无法运行：%v"), tool, err), fix}
	}
	m := regexp.MustCompile(pattern).FindStringSubmatch(out)
	if m == nil {
		return finding{what, fmt.Errorf(l.Tr("%s says %q", "%s 输出 %q"), tool, base.FirstLine(out)), fix}
	}
	gotMajor, _ := strconv.Atoi(m[1])
	gotMinor, _ := strconv.Atoi(m[2])
	if gotMajor < major || gotMajor == major && gotMinor < minor {
		return finding{what, fmt.Errorf(l.Tr("%s is %d.%d", "%s 是 %d.%d"), tool, gotMajor, gotMinor), fix}
	}
	return finding{what: fmt.Sprintf("%s (%d.%d)", what, gotMajor, gotMinor)}
}

// diskFinding: room in Go's build cache for the first build, which builds
// (or downloads) the Kubernetes binaries; after it, nothing large is left.
func diskFinding(l i18n.Lang, dir string, free uint64, err error, built bool) finding {
	what := l.Tr("free disk for the first build (about 10 GiB in Go's cache)", "第一次构建所需的空闲磁盘（Go 的缓存约占 10 GiB）")
	switch {
	case built:
		return finding{what: l.Tr("free disk: the first build is done", "空闲磁盘：第一次构建已经完成")}
	case err != nil:
		return finding{what: fmt.Sprintf(l.Tr("%s: cannot tell (%s)", "%s：无法判断（%s）"), what, i18n.Message(l, err))}
	case free < firstBuildBytes:
		return finding{what, fmt.Errorf(l.Tr("%s has %.1f GiB free", "%s 只有 %.1f GiB 空闲"), dir, float64(free)/(1<<30)),
			l.Tr("free some space there, or move Go's cache to a disk with room: go env -w GOCACHE=/path/with/room",
				"在那里腾出空间，或者把 Go 的缓存移到有空间的磁盘：go env -w GOCACHE=/有空间的/路径")}
	}
	return finding{what: fmt.Sprintf(l.Tr("%s (%.0f GiB free in %s)", "%s（%.0f GiB 空闲，位于 %s）"), what, float64(free)/(1<<30), dir)}
}
