//go:build e2e

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

// Package e2e runs the operator against a whole cluster: the real Job
// controller runs the Jobs, the scheduler places their pods, the garbage
// collector removes what the operator deletes. `make test-e2e` runs it
// against the cluster of the current kubeconfig (`make cluster` gives one
// without Docker, where kwok plays the kubelets). The manager runs as a
// process, as with `make run`, so the suite can stop, restart and double it.
//
// Unlike the envtest suite, time here is real: the CronJobs run every few
// seconds and the tests wait for them with Eventually and explicit timeouts.
package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	batchv1 "cronlab.dev/cronlab/api/v1"
)

var (
	ctx       = context.Background()
	k8sClient client.Client
	// managerBinary is built once from ./cmd by BeforeSuite.
	managerBinary string
	// theManager runs for the whole suite except where a test stops it.
	theManager *manager
)

func TestE2E(t *testing.T) {
	RegisterFailHandler(Fail)
	_, _ = fmt.Fprintf(GinkgoWriter, "Starting cronlab end-to-end suite\n")
	RunSpecs(t, "cronlab e2e suite")
}

var _ = BeforeSuite(func() {
	Expect(batchv1.AddToScheme(scheme.Scheme)).To(Succeed())
	Expect(apiextensionsv1.AddToScheme(scheme.Scheme)).To(Succeed())

	cfg, err := ctrl.GetConfig()
	Expect(err).NotTo(HaveOccurred(), "no cluster: start one with `make cluster` (or `make kind-cluster`)")
	k8sClient, err = client.New(cfg, client.Options{Scheme: scheme.Scheme})
	Expect(err).NotTo(HaveOccurred())

	By("checking that the CronJob CRD is installed (make test-e2e runs make install)")
	var crd apiextensionsv1.CustomResourceDefinition
	Expect(k8sClient.Get(ctx, client.ObjectKey{Name: "cronjobs.batch.cronlab.dev"}, &crd)).To(Succeed(),
		"the CRD is missing: run `make install`")

	By("building the manager")
	root, err := filepath.Abs(filepath.Join("..", ".."))
	Expect(err).NotTo(HaveOccurred())
	managerBinary = filepath.Join(root, "bin", "manager-e2e")
	build := exec.Command("go", "build", "-o", managerBinary, "./cmd")
	build.Dir = root
	out, err := build.CombinedOutput()
	Expect(err).NotTo(HaveOccurred(), string(out))

	theManager = startManager("main")
})

var _ = AfterSuite(func() {
	if theManager != nil {
		theManager.stop()
	}
})

// manager is one manager process with its log in a buffer.
type manager struct {
	name string
	cmd  *exec.Cmd
	log  *syncBuffer
	done chan struct{}
}

// syncBuffer is a log buffer that the process writes while a test reads.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// startManager starts the manager as `make run` does; extra flags are added.
// Metrics and probes are off so that several managers fit on one machine.
func startManager(name string, flags ...string) *manager {
	GinkgoHelper()
	args := append([]string{"--metrics-bind-address=0", "--health-probe-bind-address=0"}, flags...)
	m := &manager{name: name, log: &syncBuffer{}, done: make(chan struct{})}
	m.cmd = exec.Command(managerBinary, args...)
	m.cmd.Stdout, m.cmd.Stderr = m.log, m.log
	m.cmd.Env = append(os.Environ(), "ENABLE_WEBHOOKS=false")
	Expect(m.cmd.Start()).To(Succeed())
	go func() { _ = m.cmd.Wait(); close(m.done) }()
	By(fmt.Sprintf("started manager %q (pid %d)", name, m.cmd.Process.Pid))
	return m
}

// stop sends SIGTERM, as Ctrl-C or a pod deletion would, and waits.
func (m *manager) stop() {
	GinkgoHelper()
	_ = m.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-m.done:
	case <-time.After(30 * time.Second):
		_ = m.cmd.Process.Kill()
		<-m.done
	}
	By(fmt.Sprintf("stopped manager %q", m.name))
}

// ReportAfterEach prints the managers' logs of a failed test.
var _ = ReportAfterEach(func(report SpecReport) {
	if report.Failed() && theManager != nil {
		_, _ = fmt.Fprintf(GinkgoWriter, "--- log of manager %q ---\n%s\n", theManager.name, theManager.log.String())
	}
})
