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

package stalecache

import (
	"context"
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	kbatchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"cronlab.dev/cronlab/test/say"
	"cronlab.dev/cronlab/test/utils"
)

// A mutant is the reference Reconciler made intolerant of one kind of lag,
// from outside: its client or its API reader behaves differently. bug names
// its spec; what says the same in the tests' language, for the failure.
type mutant struct {
	bug       string
	what      string
	caughtBy  string // the function of yours whose lag this mutant does not tolerate
	funcs     interceptor.Funcs
	apiReader func(client.Reader) client.Reader
}

var mutants = []*mutant{{
	bug:      "AlreadyExists is an error: the Reconciler cannot look the Job up to adopt it (c-lag)",
	caughtBy: "cLag",
	what: say.Both("AlreadyExists is an error: the Reconciler cannot look the Job up to adopt it (c-lag)",
		"把 AlreadyExists 当作错误：调和器无法从 API 服务器读取那个 Job，也就无法接管它（c-lag）"),
	apiReader: func(r client.Reader) client.Reader {
		return failingJobReads{r}
	},
}, {
	bug:      "the status is written with Update from the cached copy, so a stale copy conflicts (u-lag)",
	caughtBy: "uLag",
	what: say.Both("the status is written with Update from the cached copy, so a stale copy conflicts (u-lag)",
		"用 Update 从缓存里的副本写入状态，副本陈旧时就会冲突（u-lag）"),
	funcs: interceptor.Funcs{SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, _ client.Patch, _ ...client.SubResourcePatchOption) error {
		return c.SubResource(sub).Update(ctx, obj)
	}},
}, {
	bug:      "NotFound on deleting a Job is an error (d-lag)",
	caughtBy: "dLag",
	what: say.Both("NotFound on deleting a Job is an error (d-lag)",
		"把删除 Job 时的 NotFound 当作错误（d-lag）"),
	funcs: interceptor.Funcs{Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
		err := c.Delete(ctx, obj, opts...)
		if apierrors.IsNotFound(err) {
			return apierrors.NewInternalError(fmt.Errorf("delete %s: %w", obj.GetName(), err))
		}
		return err
	}},
}}

// failingJobReads fails every read of a Job.
type failingJobReads struct{ client.Reader }

func (f failingJobReads) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if _, ok := obj.(*kbatchv1.Job); ok {
		return apierrors.NewServiceUnavailable("no reads of Jobs from the API server")
	}
	return f.Reader.Get(ctx, key, obj, opts...)
}

var yourSpecs = []struct {
	name string
	spec func(*world)
}{{"cLag", cLag}, {"uLag", uLag}, {"dLag", dLag}}

var _ = Describe("Your specs catch a Reconciler where", func() {
	for _, m := range mutants {
		It(m.bug, func() {
			var caughtBy []string
			for _, s := range yourSpecs {
				if err := utils.SpecFailure(func() { s.spec(newWorld(m, s.name)) }); err != nil {
					caughtBy = append(caughtBy, s.name)
					GinkgoWriter.Printf("%s fails as it should: %v\n", s.name, err)
				}
			}
			Expect(caughtBy).NotTo(BeEmpty(),
				say.Both("every spec in specs_test.go passed against a Reconciler made wrong on purpose, where %s, so none of them would catch that mistake (how they do against your own Reconciler is reported apart): make the spec that injects this lag assert that Reconcile succeeds and converges",
					"拿一个故意做错的调和器（Reconciler）来跑，它的缺陷是：%s，"+
						"specs_test.go 中的每个测试用例却都通过了，所以它们发现不了这个错误（它们在你自己的调和器上的结果另外报告）。"+
						"让注入这种滞后的那个测试用例断言 Reconcile 成功并且收敛", m.what))
		})
	}
})
