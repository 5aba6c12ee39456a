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

package roster

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
)

// Flags are lab class's.
type Flags struct {
	Class string
	Out   string
	Hours float64
}

// CmdClass is `lab class setup <roster>` and `lab class teardown`, on the
// current kubeconfig's cluster.
func CmdClass(l i18n.Lang, root string, args []string, f Flags) error {
	if len(args) == 0 || (args[0] != "setup" && args[0] != "teardown") || (args[0] == "setup") != (len(args) == 2) {
		return i18n.Errorf("usage: bin/lab class setup <roster> [--class lab] [--out dir] [--hours 12], or bin/lab class teardown [--class lab]",
			"用法：bin/lab class setup <名单> [--class lab] [--out 目录] [--hours 12]，或者 bin/lab class teardown [--class lab]")
	}
	c, err := Connect()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	if args[0] == "teardown" {
		fmt.Printf(l.Tr("Removing the class %q from the cluster of context %s ...\n", "正在移除班级 %q（上下文 %s 的集群）……\n"), f.Class, c.Context)
		gone, err := Teardown(ctx, l, c, f.Class)
		if err != nil || len(gone) == 0 {
			if err == nil {
				fmt.Println(l.Tr("Nothing of this class is on the cluster.", "集群上没有这个班级的任何东西。"))
			}
			return err
		}
		fmt.Println(l.Tr("Waiting until the namespaces are gone (their contents are deleted first) ...", "正在等待这些名字空间消失（其中的内容会先被删除）……"))
		if err := WaitGone(ctx, l, c, f.Class, 2*time.Minute); err != nil {
			return err
		}
		fmt.Println(l.Tr("The class is gone from the cluster.", "这个班级已从集群中移除。"))
		return nil
	}
	names, err := ReadNames(args[1])
	if err != nil {
		return err
	}
	if f.Out == "" {
		f.Out = filepath.Join(root, "dist", "class", f.Class)
	}
	o := Options{Class: f.Class, Out: f.Out, TTL: time.Duration(f.Hours * float64(time.Hour)), CRDDir: filepath.Join(root, "config", "crd", "bases")}
	fmt.Printf(l.Tr("Preparing the class %q for %d attendees on the cluster of context %s ...\n",
		"正在准备班级 %q：%d 个学员，上下文 %s 的集群……\n"), f.Class, len(names), c.Context)
	if _, err := Setup(ctx, l, c, names, o); err != nil {
		return err
	}
	fmt.Printf(l.Tr("\nHand each attendee their file from %s. In their clone they run:\n", "\n把 %s 中的文件分别交给每个学员。他们在自己的克隆中运行：\n"), f.Out)
	fmt.Printf("    export KUBECONFIG=$PWD/%s.kubeconfig\n    bin/lab doctor\n    make run NAMESPACE=%s\n", names[0], Namespace(f.Class, names[0]))
	fmt.Println(l.Tr("(docs/class.md: the lab on a class cluster). Running setup again gives everyone a fresh token; bin/lab class teardown removes the class.",
		"（docs/class.zh-CN.md：在班级集群上做实验）。再次运行 setup 会给每个人一个新令牌；bin/lab class teardown 移除这个班级。"))
	return nil
}
