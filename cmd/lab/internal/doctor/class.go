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

// A class kubeconfig (bin/lab class setup) reaches a cluster shared by a
// whole class, where the attendee may act in one namespace only. When the
// current context is one, the doctor asks the API server what it may do
// there (kubectl auth can-i), so that a token that expired, or a Role that
// lacks something, is found before make run fails half-way.

import (
	"strings"

	"cronlab.dev/cronlab/cmd/lab/internal/base"
	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
)

// classContextPrefix is how bin/lab class setup names its contexts
// (roster.ContextPrefix; the doctor is a floor below and cannot import it).
const classContextPrefix = "cronlab-class-"

// classNeeds are what the lab does in the attendee's namespace: kubectl
// auth can-i's arguments.
var classNeeds = [][]string{
	{"create", "cronjobs.batch.cronlab.dev"},
	{"watch", "cronjobs.batch.cronlab.dev"},
	{"patch", "cronjobs.batch.cronlab.dev", "--subresource=status"},
	{"create", "jobs.batch"},
	{"delete", "jobs.batch"},
	{"list", "pods"},
	{"create", "events.events.k8s.io"},
	{"update", "leases.coordination.k8s.io"},
}

// canI answers kubectl auth can-i's question in the namespace.
type canI func(ns string, args ...string) (bool, error)

func kubectlCanI(kubectl string) canI {
	return func(ns string, args ...string) (bool, error) {
		out, err := base.Output("", kubectl, append([]string{"auth", "can-i", "-n", ns, "--request-timeout=5s"}, args...)...)
		answer := strings.TrimSpace(base.LastLines(out, 1))
		if answer == "no" { // can-i exits 1 for no
			return false, nil
		}
		return answer == "yes", err
	}
}

// classFinding checks a class kubeconfig's context; ok is false when the
// context is not one.
func classFinding(l i18n.Lang, context, ns string, ask canI) (finding, bool) {
	if !strings.HasPrefix(context, classContextPrefix) {
		return finding{}, false
	}
	f := finding{what: l.Tr("the class kubeconfig (namespace ", "班级 kubeconfig（名字空间 ") + ns + l.Tr("): what the lab needs there", "）：实验在那里需要的权限")}
	var refused []string
	for _, need := range classNeeds {
		yes, err := ask(ns, need...)
		if err != nil && !yes {
			f.err = i18n.Errorf("kubectl auth can-i did not answer: %v", "kubectl auth can-i 没有回答：%v", err)
			f.fix = l.Tr("check the cluster's address with the instructor; the token may have expired", "和讲师核对集群地址；令牌可能已过期")
			return f, true
		}
		if !yes {
			refused = append(refused, strings.Join(need, " "))
		}
	}
	if len(refused) > 0 {
		f.err = i18n.Errorf("may not: %s", "不允许：%s", strings.Join(refused, "; "))
		f.fix = l.Tr("ask the instructor for a fresh kubeconfig (bin/lab class setup again gives one; a token that expired is refused everything)",
			"请讲师给你一个新的 kubeconfig（再运行一次 bin/lab class setup 就会生成；令牌过期后一切都会被拒绝）")
	}
	return f, true
}
