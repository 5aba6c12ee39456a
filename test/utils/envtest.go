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
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// EnvtestAssets finds the directory with etcd and kube-apiserver for
// envtest. `make test` sets KUBEBUILDER_ASSETS; for `go test` or an editor,
// `make setup-envtest` leaves the path in bin/envtest-assets-path under the
// repository root, which root names relative to the calling test.
func EnvtestAssets(root string) (string, error) {
	if dir := os.Getenv("KUBEBUILDER_ASSETS"); dir != "" {
		return dir, nil
	}
	b, err := os.ReadFile(filepath.Join(root, "bin", "envtest-assets-path"))
	if err != nil {
		return "", errors.New("no envtest binaries: run `make setup-envtest` once (or run the tests with `make test`)")
	}
	return strings.TrimSpace(string(b)), nil
}
