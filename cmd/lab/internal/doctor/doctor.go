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
	"os/exec"
	"path/filepath"
	"runtime"

	"cronlab.dev/cronlab/cmd/lab/internal/base"
	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
)

// CmdDoctor checks the machine for what the workshop needs.
func CmdDoctor(l i18n.Lang, root string) error {
	ok := true
	check := func(what string, err error, fix string) {
		if err == nil {
			fmt.Printf("  ok    %s\n", what)
			return
		}
		ok = false
		fmt.Printf(l.Tr("  MISSING %s: %s\n        fix: %s\n", "  缺少  %s：%s\n        解决：%s\n"), what, i18n.Message(l, err), fix)
	}
	for _, f := range laptopFindings(l, root) {
		check(f.what, f.err, f.fix)
	}
	check(fmt.Sprintf(l.Tr("Go 1.26 or newer (%s)", "Go 1.26 或更新版本（%s）"), runtime.Version()), goVersionOK(l), l.Tr("install Go 1.26 from https://go.dev/dl", "从 https://go.dev/dl 安装 Go 1.26"))
	_, err := exec.LookPath("git")
	check("git", err, l.Tr("install git", "安装 git"))

	kubectl := checkKubectl(l, root)
	check(kubectl.what, kubectl.err, kubectl.fix)
	// Two ways to a cluster: kind (Docker and the pinned kind) or the local
	// cluster (kwokctl in bin/). What the kind path lacks is a note, not a
	// failure, as long as one of the two works.
	docker, kind := checkKindPath(l, root)
	for _, f := range []finding{docker, kind} {
		if f.err == nil {
			check(f.what, nil, "")
		} else {
			fmt.Printf(l.Tr("  note  %s: %s\n        fix: %s\n", "  注意  %s：%s\n        解决：%s\n"), f.what, i18n.Message(l, f.err), f.fix)
		}
	}
	_, kwokErr := os.Stat(filepath.Join(root, "bin", "kwokctl"))
	switch {
	case kwokErr == nil:
		check(l.Tr("the local cluster tools (kwokctl in bin/)", "本地集群工具（bin/ 中的 kwokctl）"), nil, "")
	case docker.err != nil || kind.err != nil:
		check(l.Tr("a way to run a cluster", "运行集群的办法"), fmt.Errorf("%s", l.Tr("neither kind with a running Docker, nor kwokctl in bin/", "既没有能用的 kind 加运行中的 Docker，bin/ 中也没有 kwokctl")),
			l.Tr("run `make cluster` (no Docker needed), or fix Docker and kind as the notes above say", "运行 `make cluster`（不需要 Docker），或者按上面的注意事项修好 Docker 和 kind"))
	}
	if kubectl.path != "" {
		out, err := base.Output(root, kubectl.path, "--request-timeout=5s", "get", "--raw", "/readyz")
		if err != nil {
			err = fmt.Errorf("%s", base.LastLines(out, 1))
		}
		check(l.Tr("a reachable cluster (current kubeconfig context)", "可以连接的集群（当前 kubeconfig 上下文）"), err, l.Tr("start one: `make cluster` (no Docker) or `make kind-cluster`", "启动一个：`make cluster`（不需要 Docker）或 `make kind-cluster`"))
	}
	_, err = os.Stat(filepath.Join(root, "bin", "envtest-assets-path"))
	check(l.Tr("envtest binaries (etcd, kube-apiserver)", "envtest 的二进制文件（etcd、kube-apiserver）"), err, l.Tr("run `make setup-envtest` (downloads, or builds them from the Go module proxy once)", "运行 `make setup-envtest`（下载它们，或者从 Go 模块代理构建一次）"))
	if !ok {
		return fmt.Errorf("%s", l.Tr("some parts are missing; fix them as shown and run `lab doctor` again", "缺少一些东西；按上面说的补上，再运行一次 `lab doctor`"))
	}
	fmt.Println(l.Tr("\nAll set.", "\n一切就绪。"))
	return nil
}

func goVersionOK(l i18n.Lang) error {
	var major, minor int
	if _, err := fmt.Sscanf(runtime.Version(), "go%d.%d", &major, &minor); err != nil {
		return nil // a development build: assume it is new enough
	}
	if major > 1 || minor >= 26 {
		return nil
	}
	return fmt.Errorf(l.Tr("this is %s", "当前是 %s"), runtime.Version())
}
