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

// Package utils holds what several test suites share.
package utils

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/onsi/gomega"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/yaml"

	batchv1 "cronlab.dev/cronlab/api/v1"
	"cronlab.dev/cronlab/internal/controlplane"
)

// EnvtestAssets finds the directory with etcd and kube-apiserver for
// envtest (controlplane.Assets: KUBEBUILDER_ASSETS, or the path that
// `make setup-envtest` leaves in bin/envtest-assets-path under root).
var EnvtestAssets = controlplane.Assets

// TB is what StartAPIServer and Scheme need of a test: a *testing.T, or
// Ginkgo's GinkgoT().
type TB interface {
	Helper()
	Fatal(args ...any)
}

// StartAPIServer returns the config of an etcd and kube-apiserver with
// cronlab's CRDs (from config/crd/bases under root). The first test of a
// package that asks starts them; the package's later tests share them, and
// RunTests stops them after the last test. Starting a pair takes seconds,
// and a test needs a namespace of its own, not an API server of its own:
// the tests that call this create their objects in fresh namespaces, as
// they do on bin/lab's shared API server. The lesson of how envtest works
// is stage 07 (exercises/envtest).
func StartAPIServer(t TB, root string) *rest.Config {
	t.Helper()
	if !shared.managed {
		t.Fatal("utils.StartAPIServer shares one API server among the package's tests: " +
			"add `func TestMain(m *testing.M) { os.Exit(utils.RunTests(m)) }` so that it is stopped after them")
	}
	shared.once.Do(func() {
		assets, err := EnvtestAssets(root)
		if err != nil {
			shared.err = err
			return
		}
		shared.env = WithoutWatchCache(&envtest.Environment{
			CRDDirectoryPaths:     []string{filepath.Join(root, "config", "crd", "bases")},
			ErrorIfCRDPathMissing: true,
			BinaryAssetsDirectory: assets,
		})
		shared.cfg, shared.err = StartEnvtest(shared.env)
	})
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return rest.CopyConfig(shared.cfg)
}

// StartEnvtest starts env and stops etcd and kube-apiserver again when
// the CRDs cannot be installed (controlplane.Start).
var StartEnvtest = controlplane.Start

// shared is the API server of StartAPIServer, one per test binary.
var shared struct {
	managed bool // RunTests runs the tests, and stops the server after them
	once    sync.Once
	env     *envtest.Environment
	cfg     *rest.Config
	err     error
}

// RunTests runs a package's tests (call it from TestMain) and then stops
// the API server that StartAPIServer started for them, if any.
func RunTests(m *testing.M) int {
	shared.managed = true
	code := m.Run()
	if shared.env != nil {
		if err := shared.env.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "stopping etcd and kube-apiserver:", err)
		}
	}
	return code
}

// WithoutWatchCache makes env's kube-apiserver read from etcd instead of
// its watch cache, and returns env (controlplane.WithoutWatchCache says why).
var WithoutWatchCache = controlplane.WithoutWatchCache

// APIServerFlags are the flags WithoutWatchCache gives kube-apiserver.
var APIServerFlags = controlplane.APIServerFlags

// CRDServingV2 is cronlab's CRD from config/crd/bases under root with v2
// served, as config/with-webhooks serves it (crd_conversion_patch.yaml):
// for an API server that has the conversion webhook, which envtest adds
// when the scheme knows v1 and v2.
func CRDServingV2(root string) (*apiextensionsv1.CustomResourceDefinition, error) {
	path := filepath.Join(root, "config", "crd", "bases", "batch.cronlab.dev_cronjobs.yaml")
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal(raw, &crd); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for i := range crd.Spec.Versions {
		if crd.Spec.Versions[i].Name == "v2" {
			crd.Spec.Versions[i].Served = true
			return &crd, nil
		}
	}
	return nil, fmt.Errorf("the CRD in %s has no version v2: make manifests", path)
}

// Scheme knows the built-in kinds and cronlab's.
func Scheme(t TB) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, batchv1.AddToScheme} {
		if err := add(s); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// SpecFailure runs a Ginkgo spec body and returns why it failed, or nil if
// it passed, without failing the running spec: the mutation checks of lab
// stages 07 and 15 run the attendee's specs against Reconcilers with bugs,
// and expect failures. A Gomega assertion that fails stops the body, as in
// a real run; so does a panic, such as an index out of range.
func SpecFailure(body func()) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return gomega.InterceptGomegaFailure(body)
}
