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

// Which kubectl the workshop uses. Kubernetes supports kubectl within one
// minor version of the API server, older or newer; an attendee whose PATH
// has an older kubectl (1.32 against the workshop's 1.36, say) gets a
// warning on every command and, past the skew, fields it does not know.
// `make cluster` builds the matching kubectl into the cache, and the
// Makefile and scripts use that one; the doctor says when the one on PATH
// is too far off.

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"

	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
)

// workshopMinor is the Kubernetes minor version of the workshop's clusters
// and envtest: the Makefile's KUBE_VERSION.
func workshopMinor(root string) (int, error) {
	raw, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		return 0, err
	}
	m := regexp.MustCompile(`(?m)^KUBE_VERSION \?= v1\.(\d+)\.`).FindSubmatch(raw)
	if m == nil {
		return 0, i18n.Errorf("the Makefile sets no KUBE_VERSION ?= v1.N.P", "Makefile 没有设置 KUBE_VERSION ?= v1.N.P")
	}
	return strconv.Atoi(string(m[1]))
}

// kubectlMinor asks a kubectl binary for its own minor version.
func kubectlMinor(kubectl string) (int, error) {
	out, err := exec.Command(kubectl, "version", "--client", "-o", "json").Output()
	if err != nil {
		return 0, i18n.Errorf("%s version --client: %w", "%s version --client 出错：%w", kubectl, err)
	}
	var v struct {
		ClientVersion struct {
			Major, Minor string
		} `json:"clientVersion"`
	}
	if err := json.Unmarshal(out, &v); err != nil {
		return 0, i18n.Errorf("%s version --client: %w", "%s version --client 出错：%w", kubectl, err)
	}
	// Some builds say "36+".
	m := regexp.MustCompile(`^\d+`).FindString(v.ClientVersion.Minor)
	if v.ClientVersion.Major != "1" || m == "" {
		return 0, i18n.Errorf("%s says it is version %s.%s", "%s 说它的版本是 %s.%s", kubectl, v.ClientVersion.Major, v.ClientVersion.Minor)
	}
	return strconv.Atoi(m)
}

// withinSkew tells whether kubectl 1.client is supported against an API
// server 1.server.
func withinSkew(client, server int) bool {
	return client >= server-1 && client <= server+1
}

// cachedKubectls are the kubectls that `make cluster` built, newest last,
// in the Makefile's KUBE_BIN_CACHE: under $XDG_CACHE_HOME or ~/.cache, also
// on macOS (where os.UserCacheDir would say ~/Library/Caches).
func cachedKubectls() []string {
	cache := os.Getenv("XDG_CACHE_HOME")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache")
	}
	matches, _ := filepath.Glob(filepath.Join(cache, "cronlab", "kubernetes-*", "kubectl"))
	return matches
}

// A kubectlCheck is the doctor's finding about kubectl: the one to use
// (if any), the line to print, and what is wrong and how to fix it.
type kubectlCheck struct {
	path, what string
	err        error
	fix        string
}

// checkKubectl finds the kubectl to use against the workshop's cluster: the
// one on PATH if it is within the skew, else the one `make cluster` built.
func checkKubectl(l i18n.Lang, root string) kubectlCheck {
	server, err := workshopMinor(root)
	if err != nil {
		return kubectlCheck{what: "kubectl", err: err, fix: l.Tr("run the doctor in a cronlab clone", "在 cronlab 的克隆中运行 doctor")}
	}
	what := fmt.Sprintf(l.Tr("kubectl within one minor version of Kubernetes 1.%d", "与 Kubernetes 1.%d 相差不超过一个次版本的 kubectl"), server)
	supported := fmt.Sprintf(l.Tr("a kubectl 1.%d to 1.%d", "1.%d 到 1.%d 的 kubectl"), server-1, server+1)
	onPath, pathErr := exec.LookPath("kubectl")
	var pathProblem error
	if pathErr == nil {
		minor, err := kubectlMinor(onPath)
		switch {
		case err != nil:
			pathProblem = err
		case withinSkew(minor, server):
			return kubectlCheck{path: onPath, what: fmt.Sprintf("%s (%s: 1.%d)", what, onPath, minor)}
		default:
			pathProblem = fmt.Errorf(l.Tr("the kubectl on PATH (%s) is 1.%d", "PATH 上的 kubectl（%s）是 1.%d"), onPath, minor)
		}
	}
	cached := cachedKubectls()
	for i := len(cached) - 1; i >= 0; i-- {
		minor, err := kubectlMinor(cached[i])
		if err != nil || !withinSkew(minor, server) {
			continue
		}
		if pathProblem != nil {
			// The Makefile and the scripts use the cached one; a kubectl
			// typed by hand is the one on PATH.
			return kubectlCheck{path: cached[i], what: what,
				err: fmt.Errorf(l.Tr("%w; the one `make cluster` built (%s, 1.%d) is right", "%w；`make cluster` 构建的那个（%s，1.%d）版本合适"), pathProblem, cached[i], minor),
				fix: fmt.Sprintf(l.Tr("put %s first on PATH, or install %s", "把 %s 放到 PATH 的最前面，或者安装 %s"), filepath.Dir(cached[i]), supported)}
		}
		return kubectlCheck{path: cached[i], what: fmt.Sprintf(l.Tr("%s (%s: 1.%d; not on PATH, the Makefile uses it)", "%s（%s：1.%d；不在 PATH 上，Makefile 会用它）"), what, cached[i], minor)}
	}
	if pathProblem != nil {
		return kubectlCheck{path: onPath, what: what, err: pathProblem,
			fix: fmt.Sprintf(l.Tr("run `make cluster`, which builds a matching kubectl (the Makefile uses it), or install %s",
				"运行 `make cluster`，它会构建一个版本匹配的 kubectl（Makefile 会用它），或者安装 %s"), supported)}
	}
	return kubectlCheck{what: what, err: fmt.Errorf("%s", l.Tr("not on PATH, and `make cluster` has not built one", "不在 PATH 上，`make cluster` 也还没有构建")),
		fix: fmt.Sprintf(l.Tr("run `make cluster`, which builds one, or install %s", "运行 `make cluster` 构建一个，或者安装 %s"), supported)}
}
