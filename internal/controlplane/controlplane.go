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

// Package controlplane is the etcd and kube-apiserver that envtest starts:
// where their binaries are, how they are started and stopped, and the flags
// cronlab gives kube-apiserver. The test suites use it through test/utils,
// and bin/lab's shared API server (cmd/lab/internal/apiserver) directly: a
// tool must not import test helpers, which bring Gomega and testing along.
package controlplane

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// Assets finds the directory with etcd and kube-apiserver for
// envtest. `make test` sets KUBEBUILDER_ASSETS; for `go test` or an editor,
// `make setup-envtest` leaves the path in bin/envtest-assets-path under the
// repository root, which root names relative to the calling test.
func Assets(root string) (string, error) {
	if dir := os.Getenv("KUBEBUILDER_ASSETS"); dir != "" {
		return dir, nil
	}
	b, err := os.ReadFile(filepath.Join(root, "bin", "envtest-assets-path"))
	if err != nil {
		return "", errors.New("no envtest binaries: run `make setup-envtest` once (or run the tests with `make test`)")
	}
	return strings.TrimSpace(string(b)), nil
}

// Start starts env. envtest starts etcd and kube-apiserver first and
// installs the CRDs after; when that fails (a CRD that the API server
// refuses, such as a CEL rule over its cost budget), Start returns the error
// and leaves the two running, with no one to stop them: two orphans on the
// attendee's machine for every failed check. Start stops them.
func Start(env *envtest.Environment) (*rest.Config, error) {
	cfg, err := env.Start()
	if err != nil {
		if stopErr := env.Stop(); stopErr != nil {
			err = fmt.Errorf("%w (and stopping etcd and kube-apiserver again: %v)", err, stopErr)
		}
	}
	return cfg, err
}

// WithoutWatchCache makes env's kube-apiserver read from etcd instead of its
// watch cache, and returns env. Since Kubernetes 1.34 a list served by the
// watch cache first waits until the cache has caught up with etcd, which
// the API server learns from a progress notification it asks etcd for every
// 100 ms (k8s.io/apiserver/pkg/storage/cacher/progress). A test that writes
// and then lists waits for it, up to 100 ms a list, for hundreds of lists;
// etcd with a few hundred objects answers in a millisecond. Clusters keep
// the cache: it protects etcd from many clients, which a test does not have.
// A list without a resourceVersion is as consistent from etcd as from the
// cache, and a watch delivers the same changes in the same order, with one
// exception: etcd starts a watch without a resourceVersion a moment after
// the API server has answered it, from what etcd then holds, and on a busy
// machine delivers its first events late. Changes made in that moment
// reach such a watch late, or not at all (an object created and deleted
// in it): exercises/stale-cache waits for its trace's watch (settle).
func WithoutWatchCache(env *envtest.Environment) *envtest.Environment {
	for flag, value := range APIServerFlags {
		env.ControlPlane.GetAPIServer().Configure().Set(flag, value)
	}
	return env
}

// APIServerFlags are the flags WithoutWatchCache gives kube-apiserver.
var APIServerFlags = map[string]string{"watch-cache": "false"}
