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

package v1

// Two API servers run side by side: one that calls cronlab's webhooks, and
// one that does not, as in a cluster where ENABLE_WEBHOOKS=false. Every bad
// input goes to both, so the tests show what the CRD refuses by itself and
// what only the webhook can.

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	batchv1 "cronlab.dev/cronlab/api/v1"
	batchv2 "cronlab.dev/cronlab/api/v2"
	"cronlab.dev/cronlab/internal/controller"
	"cronlab.dev/cronlab/test/utils"
)

var (
	ctx    context.Context
	cancel context.CancelFunc
	// withWebhooks calls the webhooks; withoutWebhooks does not.
	withWebhooks, withoutWebhooks *apiServer
	// mgr serves withWebhooks' webhooks; its cache is what a Reconciler reads.
	mgr ctrl.Manager
)

type apiServer struct {
	env    *envtest.Environment
	cfg    *rest.Config
	client client.Client // as the envtest admin (system:masters)
}

func TestWebhooks(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Webhook Suite")
}

var _ = BeforeSuite(func() {
	logf.SetLogger(zap.New(zap.WriteTo(GinkgoWriter), zap.UseDevMode(true)))
	ctx, cancel = context.WithCancel(context.TODO())
	Expect(batchv1.AddToScheme(scheme.Scheme)).To(Succeed())
	// With v2 in the scheme, envtest points the CRD's conversion at the
	// manager's /convert, and the manager serves it (conversion_test.go).
	Expect(batchv2.AddToScheme(scheme.Scheme)).To(Succeed())

	By("starting an API server that calls the webhooks")
	withWebhooks = startAPIServer(&envtest.WebhookInstallOptions{Paths: []string{filepath.Join("..", "..", "..", "config", "webhook")}})
	opts := withWebhooks.env.WebhookInstallOptions
	var err error
	mgr, err = ctrl.NewManager(withWebhooks.cfg, ctrl.Options{
		Scheme:  scheme.Scheme,
		Metrics: metricsserver.Options{BindAddress: "0"},
		WebhookServer: webhook.NewServer(webhook.Options{
			Host: opts.LocalServingHost, Port: opts.LocalServingPort, CertDir: opts.LocalServingCertDir,
		}),
	})
	Expect(err).NotTo(HaveOccurred())
	Expect(SetupCronJobWebhookWithManager(mgr)).To(Succeed())
	// The controller's index, for the spec in which it reconciles a CronJob
	// written as v2 (conversion_test.go).
	Expect(controller.IndexJobsByOwner(ctx, mgr.GetFieldIndexer())).To(Succeed())
	go func() {
		defer GinkgoRecover()
		Expect(mgr.Start(ctx)).To(Succeed())
	}()
	addr := net.JoinHostPort(opts.LocalServingHost, fmt.Sprint(opts.LocalServingPort))
	Eventually(func() error {
		conn, err := tls.DialWithDialer(&net.Dialer{Timeout: time.Second}, "tcp", addr, &tls.Config{InsecureSkipVerify: true})
		if err != nil {
			return err
		}
		return conn.Close()
	}).WithTimeout(20 * time.Second).Should(Succeed())

	By("starting an API server without webhooks")
	withoutWebhooks = startAPIServer(nil)
})

var _ = AfterSuite(func() {
	cancel()
	for _, s := range []*apiServer{withWebhooks, withoutWebhooks} {
		if s != nil {
			Expect(s.env.Stop()).To(Succeed())
		}
	}
})

func startAPIServer(webhooks *envtest.WebhookInstallOptions) *apiServer {
	GinkgoHelper()
	env := utils.WithoutWatchCache(&envtest.Environment{
		CRDDirectoryPaths:     []string{filepath.Join("..", "..", "..", "config", "crd", "bases")},
		ErrorIfCRDPathMissing: true,
		BinaryAssetsDirectory: envtestAssets(),
		// Webhook configurations are cluster-wide: installed on a shared API
		// server (USE_EXISTING_CLUSTER, as bin/lab uses), they would outlive
		// this suite and refuse every later test's CronJobs. Always our own.
		UseExistingCluster: ptr.To(false),
	})
	if webhooks != nil {
		env.WebhookInstallOptions = *webhooks
		env.CRDDirectoryPaths = nil
		crd, err := utils.CRDServingV2(filepath.Join("..", "..", ".."))
		Expect(err).NotTo(HaveOccurred())
		env.CRDs = []*apiextensionsv1.CustomResourceDefinition{crd}
	}
	cfg, err := utils.StartEnvtest(env)
	Expect(err).NotTo(HaveOccurred())
	c, err := client.New(cfg, client.Options{Scheme: scheme.Scheme})
	Expect(err).NotTo(HaveOccurred())
	return &apiServer{env: env, cfg: cfg, client: c}
}

// envtestAssets: see test/utils.EnvtestAssets.
func envtestAssets() string {
	dir, err := utils.EnvtestAssets(filepath.Join("..", "..", ".."))
	if err != nil {
		Fail(err.Error())
	}
	return dir
}
