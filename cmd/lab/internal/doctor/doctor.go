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
	"strings"

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
	goWhat, goErr := goOnPath(l, runtime.Version(), func() (string, error) {
		out, err := exec.Command("go", "env", "GOVERSION").Output()
		return strings.TrimSpace(string(out)), err
	})
	check(goWhat, goErr, l.Tr("install Go 1.26 from https://go.dev/dl, and put its bin first on PATH", "从 https://go.dev/dl 安装 Go 1.26，并把它的 bin 目录放到 PATH 的最前面"))
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
		context, _ := base.Output(root, kubectl.path, "config", "current-context")
		ns, _ := base.Output(root, kubectl.path, "config", "view", "--minify", "-o", "jsonpath={.contexts[0].context.namespace}")
		if f, ok := classFinding(l, strings.TrimSpace(context), strings.TrimSpace(ns), kubectlCanI(kubectl.path)); ok {
			check(f.what, f.err, f.fix)
		}
	}
	_, err = os.Stat(filepath.Join(root, "bin", "envtest-assets-path"))
	check(l.Tr("envtest binaries (etcd, kube-apiserver)", "envtest 的二进制文件（etcd、kube-apiserver）"), err, l.Tr("run `make setup-envtest` (downloads, or builds them from the Go module proxy once)", "运行 `make setup-envtest`（下载它们，或者从 Go 模块代理构建一次）"))
	if !ok {
		return fmt.Errorf("%s", l.Tr("some parts are missing; fix them as shown and run `bin/lab doctor` again", "缺少一些东西；按上面说的补上，再运行一次 `bin/lab doctor`"))
	}
	fmt.Println(l.Tr("\nAll set.", "\n一切就绪。"))
	return nil
}

// goOnPath checks the go on PATH, which builds the attendee's code and
// tests (bin/lab's own Go, built, may be another): 1.26 or newer. The line
// says both when they differ.
func goOnPath(l i18n.Lang, built string, goVersion func() (string, error)) (string, error) {
	v, err := goVersion()
	if err != nil || v == "" {
		return l.Tr("Go 1.26 or newer on PATH", "PATH 上有 Go 1.26 或更新版本"),
			fmt.Errorf(l.Tr("go does not run (%v)", "go 无法运行（%v）"), err)
	}
	what := fmt.Sprintf(l.Tr("Go 1.26 or newer on PATH (%s)", "PATH 上有 Go 1.26 或更新版本（%s）"), v)
	if v != built {
		what = fmt.Sprintf(l.Tr("Go 1.26 or newer on PATH (%s; bin/lab was built with %s, which builds nothing of yours)",
			"PATH 上有 Go 1.26 或更新版本（%s；bin/lab 是用 %s 构建的，它不构建你的代码）"), v, built)
	}
	var major, minor int
	if _, err := fmt.Sscanf(v, "go%d.%d", &major, &minor); err != nil {
		return what, nil // a development build: assume it is new enough
	}
	if major > 1 || minor >= 26 {
		return what, nil
	}
	return what, fmt.Errorf(l.Tr("the go on PATH is %s", "PATH 上的 go 是 %s"), v)
}
