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

package utils

import (
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// A CRD whose CEL rule does not compile: the API server refuses it, as it
// refuses an attendee's rule over the cost budget.
const refusedCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.cronlab.dev
spec:
  group: example.cronlab.dev
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-validations:
        - rule: "self.size( >"
`

func TestAFailedStartLeavesNoAPIServerRunning(t *testing.T) {
	assets, err := EnvtestAssets(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "widgets.yaml"), []byte(refusedCRD), 0o644); err != nil {
		t.Fatal(err)
	}
	env := &envtest.Environment{
		CRDDirectoryPaths: []string{dir}, ErrorIfCRDPathMissing: true,
		BinaryAssetsDirectory: assets, UseExistingCluster: ptr.To(false),
	}
	if _, err := StartEnvtest(env); err == nil {
		_ = env.Stop()
		t.Fatal("the API server accepted a CRD with a rule that does not compile")
	}
	addr := env.ControlPlane.APIServer.SecureServing.ListenAddr
	hostPort := net.JoinHostPort(addr.Address, addr.Port)
	if conn, err := net.DialTimeout("tcp", hostPort, time.Second); err == nil {
		_ = conn.Close()
		t.Errorf("kube-apiserver still listens on %s after the failed start", hostPort)
	}
}
