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

// Package envtestlab is stage 7 of the lab: tests against a real API server.
//
// suite_test.go starts etcd and kube-apiserver once for the package,
// world_test.go gives each spec a namespace, a fake clock and a Reconciler,
// specs_test.go holds the specs you write, and mutants_test.go checks that
// they would catch real bugs.
package envtestlab

import (
	"context"
	"path/filepath"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	batchv1 "cronlab.dev/cronlab/api/v1"
	"cronlab.dev/cronlab/internal/controller"
	"cronlab.dev/cronlab/test/say"
	"cronlab.dev/cronlab/test/utils"
)

var (
	ctx     context.Context
	cancel  context.CancelFunc
	scheme  = runtime.NewScheme()
	testEnv *envtest.Environment
	// k8sClient goes straight to the API server: specs create objects and
	// assert with it, so an assertion never reads a stale cache.
	k8sClient client.Client
	// mgr's cache is what the Reconciler reads, as in production.
	mgr ctrl.Manager
)

func TestEnvtestLesson(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Stage 07: envtest and Ginkgo")
}

var _ = BeforeSuite(func() {
	logf.SetLogger(zap.New(zap.WriteTo(GinkgoWriter), zap.UseDevMode(true)))
	ctx, cancel = context.WithCancel(context.Background())
	Expect(clientgoscheme.AddToScheme(scheme)).To(Succeed(),
		say.Both("the suite's setup: adding client-go's kinds to the scheme",
			"测试套件的准备步骤：把 client-go 的类别加入 scheme"))
	Expect(batchv1.AddToScheme(scheme)).To(Succeed(),
		say.Both("the suite's setup: adding the CronJob API to the scheme",
			"测试套件的准备步骤：把 CronJob 的 API 加入 scheme"))

	By("starting etcd and kube-apiserver, with cronlab's CRD installed")
	var err error
	testEnv, k8sClient, err = startAPIServer(scheme)
	Expect(err).NotTo(HaveOccurred(),
		say.Both("startAPIServer returned an error: envtest needs the CRD directory and the binaries of test/utils.EnvtestAssets (make setup-envtest)",
			"startAPIServer 返回了错误：envtest 需要 CRD 目录和 test/utils.EnvtestAssets 给出的二进制文件（make setup-envtest）"))
	DeferCleanup(func() {
		cancel()
		Expect(testEnv.Stop()).To(Succeed(),
			say.Both("the suite's teardown: stopping envtest",
				"测试套件的收尾步骤：停止 envtest"))
	})

	By("starting a manager: its cache is what the Reconciler reads")
	mgr, err = ctrl.NewManager(testEnv.Config, ctrl.Options{
		Scheme:  scheme,
		Metrics: metricsserver.Options{BindAddress: "0"},
	})
	Expect(err).NotTo(HaveOccurred(),
		say.Both("the suite's setup: a manager of the test API server",
			"测试套件的准备步骤：连接测试用 API 服务器的管理器"))
	Expect(controller.IndexJobsByOwner(ctx, mgr.GetFieldIndexer())).To(Succeed(),
		say.Both("the suite's setup: registering the field index of the Jobs by their controller",
			"测试套件的准备步骤：注册按控制者索引 Job 的字段索引"))
	go func() {
		defer GinkgoRecover()
		Expect(mgr.Start(ctx)).To(Succeed(),
			say.Both("the suite's manager stopped with an error",
				"测试套件的管理器出错停止了"))
	}()
	Expect(mgr.GetCache().WaitForCacheSync(ctx)).To(BeTrue(),
		say.Both("the suite's setup: the manager's cache did not sync",
			"测试套件的准备步骤：管理器的缓存没有完成同步"))
})

// lab:begin envtest-suite

// startAPIServer starts a throw-away control plane (etcd and kube-apiserver,
// nothing else: no scheduler, no kubelet, no Job controller) with the CRDs
// of config/crd/bases installed, and returns a client that talks to it
// directly.
func startAPIServer(scheme *runtime.Scheme) (*envtest.Environment, client.Client, error) {
	assets, err := utils.EnvtestAssets(filepath.Join("..", ".."))
	if err != nil {
		return nil, nil, err
	}
	env := &envtest.Environment{
		CRDDirectoryPaths: []string{filepath.Join("..", "..", "config", "crd", "bases")},
		// A wrong path must be an error, not an API server without our kind.
		ErrorIfCRDPathMissing: true,
		BinaryAssetsDirectory: assets,
	}
	cfg, err := env.Start()
	if err != nil {
		return nil, nil, err
	}
	direct, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, nil, err
	}
	return env, direct, nil
}

// lab:end
