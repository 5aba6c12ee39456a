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

package controller

// The envtest suite of the reference controller, which the checks of stages
// 04 to 06 run (stage 07 writes one of its own in exercises/envtest):
// testing against a real API server.
//
// envtest starts etcd and kube-apiserver (no scheduler, no kubelet, no Job
// controller: nothing runs pods, and nothing marks Jobs finished unless the
// test does). The test talks to it twice over:
//   - k8sClient goes straight to the API server. Tests use it to set up
//     objects and to assert, so an assertion never reads a stale cache
//     (discussion question 6).
//   - the Reconciler gets the manager's cached client, as in production.

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	batchv1 "cronlab.dev/cronlab/api/v1"
	"cronlab.dev/cronlab/test/say"
	"cronlab.dev/cronlab/test/utils"
)

var (
	ctx       context.Context
	cancel    context.CancelFunc
	testEnv   *envtest.Environment
	cfg       *rest.Config
	k8sClient client.Client // direct: reads the API server
	mgr       ctrl.Manager  // its cache is what the Reconciler reads
)

func TestControllers(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Controller Suite")
}

var _ = BeforeSuite(func() {
	logf.SetLogger(zap.New(zap.WriteTo(GinkgoWriter), zap.UseDevMode(true)))
	ctx, cancel = context.WithCancel(context.TODO())

	Expect(batchv1.AddToScheme(scheme.Scheme)).To(Succeed(),
		say.Both("the suite's setup: adding the CronJob API to the scheme",
			"测试套件的准备步骤：把 CronJob 的 API 加入 scheme"))

	By("starting etcd and kube-apiserver")
	testEnv = utils.WithoutWatchCache(&envtest.Environment{
		CRDDirectoryPaths:     []string{filepath.Join("..", "..", "config", "crd", "bases")},
		ErrorIfCRDPathMissing: true,
		BinaryAssetsDirectory: envtestAssets(),
	})
	var err error
	cfg, err = utils.StartEnvtest(testEnv)
	Expect(err).NotTo(HaveOccurred(),
		say.Both("the suite's setup: starting envtest's etcd and kube-apiserver (make setup-envtest provides them)",
			"测试套件的准备步骤：启动 envtest 的 etcd 和 kube-apiserver（由 make setup-envtest 提供）"))

	k8sClient, err = client.New(cfg, client.Options{Scheme: scheme.Scheme})
	Expect(err).NotTo(HaveOccurred(),
		say.Both("the suite's setup: a client of the test API server",
			"测试套件的准备步骤：连接测试用 API 服务器的客户端"))

	By("starting a manager whose cache the Reconciler reads")
	mgr, err = ctrl.NewManager(cfg, ctrl.Options{
		Scheme:  scheme.Scheme,
		Metrics: metricsserver.Options{BindAddress: "0"},
		Cache:   CacheOptions(),
	})
	Expect(err).NotTo(HaveOccurred(),
		say.Both("the suite's setup: a manager with the controller's cache options",
			"测试套件的准备步骤：使用控制器缓存选项的管理器"))
	Expect(IndexJobsByOwner(ctx, mgr.GetFieldIndexer())).To(Succeed(),
		say.Both("IndexJobsByOwner (internal/controller/jobs.go) registers the index that listChildJobs lists by",
			"IndexJobsByOwner（internal/controller/jobs.go）注册了 listChildJobs 列举时所用的索引"))
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

var _ = AfterSuite(func() {
	cancel()
	Expect(testEnv.Stop()).To(Succeed(),
		say.Both("the suite's teardown: stopping envtest",
			"测试套件的收尾步骤：停止 envtest"))
})

// envtestAssets: see test/utils.EnvtestAssets.
func envtestAssets() string {
	dir, err := utils.EnvtestAssets(filepath.Join("..", ".."))
	if err != nil {
		Fail(err.Error())
	}
	return dir
}

// eventually is Eventually with the timeout and polling these tests use for
// waiting on the cache: it catches up in milliseconds, never in seconds.
func eventually(f any) AsyncAssertion {
	return Eventually(f).WithTimeout(10 * time.Second).WithPolling(10 * time.Millisecond)
}
