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

// The kind path, as the doctor sees it. kind supports a node image only with
// the kind release that built it, so the Makefile pins both (KIND_VERSION,
// KIND_NODE_IMAGE by digest) and installs that kind into bin/. The doctor
// says whether Docker answers and which kind would run, with the command that
// fixes each; neither is needed when the local cluster (make cluster) is used.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"cronlab.dev/cronlab/cmd/lab/internal/base"
	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
)

// makefileVar reads `NAME ?= value` from the Makefile at root.
func makefileVar(root, name string) (string, error) {
	raw, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		return "", err
	}
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + ` \?= (\S+)`).FindSubmatch(raw)
	if m == nil {
		return "", i18n.Errorf("the Makefile sets no %s ?= ...", "Makefile 没有设置 %s ?= ...", name)
	}
	return string(m[1]), nil
}

// A finding is one line of the doctor: what was checked, what is wrong (nil
// if nothing), and the command that fixes it.
type finding struct {
	what string
	err  error
	fix  string
}

// dockerFinding: whether the Docker daemon answers. lookErr is from finding
// the docker command, out and runErr from `docker info`.
func dockerFinding(l i18n.Lang, lookErr error, out string, runErr error) finding {
	what := l.Tr("Docker daemon (kind runs its nodes as containers)", "Docker 守护进程（kind 把节点作为容器运行）")
	fix := l.Tr("start Docker (Docker Desktop, or `sudo systemctl start docker` on Linux), or use `make cluster`, which needs no Docker",
		"启动 Docker（Docker Desktop，或在 Linux 上 `sudo systemctl start docker`），或者改用不需要 Docker 的 `make cluster`")
	switch {
	case lookErr != nil:
		return finding{what, fmt.Errorf("%s", l.Tr("no docker command", "没有 docker 命令")), l.Tr("install Docker (Docker Desktop on macOS and Windows), or use `make cluster`, which needs no Docker",
			"安装 Docker（macOS 和 Windows 上用 Docker Desktop），或者改用不需要 Docker 的 `make cluster`")}
	case runErr != nil:
		return finding{what, fmt.Errorf(l.Tr("`docker info` cannot reach it: %s", "`docker info` 连不上它：%s"), reasonOf(out, runErr)), fix}
	}
	return finding{what: fmt.Sprintf(l.Tr("%s: server %s", "%s：服务端 %s"), what, strings.TrimSpace(out))}
}

// kindFinding: whether the kind that `make kind-cluster` would run is the
// pinned release. out and runErr are from `kind version` ("kind v0.33.0
// go1.26.8 linux/amd64").
func kindFinding(l i18n.Lang, kind, pinned, nodeImage string, lookErr error, out string, runErr error) finding {
	what := fmt.Sprintf(l.Tr("kind %s, the release whose node image %s the workshop uses", "kind %s，工作坊所用节点镜像 %s 对应的版本"), pinned, nodeImage)
	fix := fmt.Sprintf(l.Tr("run `make kind`, which installs kind %s into bin/ (make kind-cluster uses it unless KIND is set)",
		"运行 `make kind`，它把 kind %s 安装到 bin/（除非设置了 KIND，make kind-cluster 会用它）"), pinned)
	switch {
	case lookErr != nil:
		return finding{what, fmt.Errorf(l.Tr("no kind (%s)", "没有 kind（%s）"), kind), fix}
	case runErr != nil:
		return finding{what, fmt.Errorf(l.Tr("%s version: %s", "%s version：%s"), kind, reasonOf(out, runErr)), fix}
	}
	got := regexp.MustCompile(`^kind (v\S+)`).FindStringSubmatch(strings.TrimSpace(out))
	if got == nil {
		return finding{what, fmt.Errorf(l.Tr("%s version says %q", "%s version 输出 %q"), kind, strings.TrimSpace(out)), fix}
	}
	if got[1] != pinned {
		return finding{what, fmt.Errorf(l.Tr("%s is %s, which does not support that node image", "%s 是 %s，不支持这个节点镜像"), kind, got[1]), fix}
	}
	return finding{what: fmt.Sprintf(l.Tr("kind %s (%s)", "kind %s（%s）"), got[1], kind)}
}

// reasonOf is the first line a failed command printed, or its error.
func reasonOf(out string, err error) string {
	if line := base.FirstLine(out); line != "" {
		return line
	}
	return err.Error()
}

// checkKindPath runs the two checks: the kind of KIND (if set in the
// environment), else bin/kind, else the one on PATH.
func checkKindPath(l i18n.Lang, root string) (docker, kind finding) {
	dockerPath, lookErr := exec.LookPath("docker")
	var out []byte
	var runErr error
	if lookErr == nil {
		out, runErr = exec.Command(dockerPath, "info", "--format", "{{.ServerVersion}}").CombinedOutput()
	}
	docker = dockerFinding(l, lookErr, string(out), runErr)

	pinned, err := makefileVar(root, "KIND_VERSION")
	if err != nil {
		return docker, finding{"kind", err, "run the doctor in a cronlab clone"}
	}
	image, _ := makefileVar(root, "KIND_NODE_IMAGE")
	bin := os.Getenv("KIND")
	if bin == "" {
		bin = filepath.Join(root, "bin", "kind")
		if _, err := os.Stat(bin); err != nil {
			bin = "kind"
		}
	}
	path, lookErr := exec.LookPath(bin)
	out, runErr = nil, nil
	if lookErr == nil {
		out, runErr = exec.Command(path, "version").CombinedOutput()
	}
	return docker, kindFinding(l, bin, pinned, image, lookErr, string(out), runErr)
}
