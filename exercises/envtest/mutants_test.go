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

package envtestlab

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	kbatchv1 "k8s.io/api/batch/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	batchv1 "cronlab.dev/cronlab/api/v1"
	"cronlab.dev/cronlab/test/say"
	"cronlab.dev/cronlab/test/utils"
)

// A mutant is the reference Reconciler with one bug, put in from outside:
// its client lies (controller-runtime's interceptor client) or its clock
// runs fast. The reference code is not changed. bug names its spec; what
// says the same in the tests' language, for the failure.
type mutant struct {
	bug        string
	what       string
	funcs      interceptor.Funcs
	clockAhead time.Duration
}

var mutants = []*mutant{{
	bug:  "the Job is never created",
	what: say.Both("the Job is never created", "从不创建 Job"),
	funcs: interceptor.Funcs{Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
		if _, ok := obj.(*kbatchv1.Job); ok {
			return nil
		}
		return c.Create(ctx, obj, opts...)
	}},
}, {
	bug:  "the Job is created without an owner reference",
	what: say.Both("the Job is created without an owner reference", "创建的 Job 没有属主引用"),
	funcs: interceptor.Funcs{Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
		if _, ok := obj.(*kbatchv1.Job); ok {
			obj.SetOwnerReferences(nil)
		}
		return c.Create(ctx, obj, opts...)
	}},
}, {
	bug:  "the status is never written",
	what: say.Both("the status is never written", "从不写入状态"),
	funcs: interceptor.Funcs{SubResourcePatch: func(context.Context, client.Client, string, client.Object, client.Patch, ...client.SubResourcePatchOption) error {
		return nil
	}},
}, {
	bug:  "spec.suspend is ignored",
	what: say.Both("spec.suspend is ignored", "忽略 spec.suspend"),
	funcs: interceptor.Funcs{Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
		err := c.Get(ctx, key, obj, opts...)
		if cj, ok := obj.(*batchv1.CronJob); ok {
			cj.Spec.Suspend = nil
		}
		return err
	}},
}, {
	bug:        "the clock runs a minute fast, so runs start early",
	what:       say.Both("the clock runs a minute fast, so runs start early", "时钟快一分钟，运行因此提前开始"),
	clockAhead: time.Minute,
}}

// yourSpecs are the functions of specs_test.go, by name.
var yourSpecs = []struct {
	name string
	spec func(*world)
}{
	{"aDueRunStartsOneJobItControls", aDueRunStartsOneJobItControls},
	{"theRunIsRecordedInTheStatus", theRunIsRecordedInTheStatus},
	{"aSuspendedCronJobStartsNothing", aSuspendedCronJobStartsNothing},
	{"nothingStartsEarly", nothingStartsEarly},
}

var _ = Describe("Your specs catch the bug when", func() {
	for _, m := range mutants {
		It(m.bug, func() {
			var caughtBy []string
			for _, s := range yourSpecs {
				if err := utils.SpecFailure(func() { s.spec(newWorld(m)) }); err != nil {
					caughtBy = append(caughtBy, s.name)
					GinkgoWriter.Printf("%s fails as it should: %v\n", s.name, err)
				}
			}
			Expect(caughtBy).NotTo(BeEmpty(),
				say.Both("every spec in specs_test.go passed against a Reconciler made wrong on purpose, where %s, so none of them would catch that mistake: write an assertion that fails on it",
					"拿一个故意做错的调和器（Reconciler）来跑，它的缺陷是：%s，specs_test.go 中的每个测试用例却都通过了，所以它们发现不了这个错误。写一个在这个调和器上会失败的断言", m.what))
		})
	}
})
