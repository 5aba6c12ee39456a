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

package doctor

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
)

func TestTheDoctorComparesKindWithThePinnedReleaseAndAsksDockerItself(t *testing.T) {
	l := i18n.English
	const image = "kindest/node:v1.36.4@sha256:099e"
	exit1 := errors.New("exit status 1")
	for _, c := range []struct {
		name    string
		got     finding
		wantErr string // "" for ok
		wantFix string
	}{
		{"the pinned kind", kindFinding(l, "bin/kind", "v0.33.0", image, nil, "kind v0.33.0 go1.26.8 linux/amd64\n", nil), "", ""},
		{"an older kind on PATH", kindFinding(l, "kind", "v0.33.0", image, nil, "kind v0.29.0 go1.24.2 darwin/arm64\n", nil),
			"kind is v0.29.0, which does not support that node image", "make kind"},
		{"no kind", kindFinding(l, "kind", "v0.33.0", image, errors.New("not found"), "", nil), "no kind (kind)", "make kind"},
		{"a kind that fails", kindFinding(l, "kind", "v0.33.0", image, nil, "\nBad CPU type in executable\n", exit1),
			"kind version: Bad CPU type in executable", "make kind"},
		{"Docker answers", dockerFinding(l, nil, "28.2.2\n", nil), "", ""},
		{"no docker command", dockerFinding(l, errors.New("not found"), "", nil), "no docker command", "make cluster"},
		{"a daemon that does not answer", dockerFinding(l, nil, "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?\n", exit1),
			"`docker info` cannot reach it: Cannot connect to the Docker daemon", "systemctl start docker"},
	} {
		expectFinding(t, c.name, c.got, c.wantErr, c.wantFix)
	}
}

// The Makefile pins kind and names the node image by digest; the doctor
// reads both from there.
func TestTheMakefilePinsKindAndItsNodeImageByDigest(t *testing.T) {
	root := filepath.Join("..", "..", "..", "..")
	version, err := makefileVar(root, "KIND_VERSION")
	if err != nil || !regexp.MustCompile(`^v\d+\.\d+\.\d+$`).MatchString(version) {
		t.Errorf("KIND_VERSION: %q, %v", version, err)
	}
	image, err := makefileVar(root, "KIND_NODE_IMAGE")
	if err != nil || !regexp.MustCompile(`^kindest/node:v1\.\d+\.\d+@sha256:[0-9a-f]{64}$`).MatchString(image) {
		t.Errorf("KIND_NODE_IMAGE must be kindest/node:vX.Y.Z@sha256:<64 hex digits>: %q, %v", image, err)
	}
	minor, err := workshopMinor(root)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(image, "kindest/node:v1."+strconv.Itoa(minor)+".") {
		t.Errorf("KIND_NODE_IMAGE %s is not Kubernetes 1.%d, the minor of KUBE_VERSION (envtest and make cluster)", image, minor)
	}
	raw, _ := os.ReadFile(filepath.Join(root, "docs", "clusters.md"))
	if !strings.Contains(string(raw), image) || !strings.Contains(string(raw), version) {
		t.Errorf("docs/clusters.md should name the pinned kind %s and node image %s", version, image)
	}
}

// expectFinding checks one line of the doctor: ok when wantErr is "", else
// an error that contains wantErr and a fix that contains wantFix.
func expectFinding(t *testing.T, name string, got finding, wantErr, wantFix string) {
	t.Helper()
	switch {
	case wantErr == "" && got.err != nil:
		t.Errorf("%s: want ok, got %v", name, got.err)
	case wantErr != "" && (got.err == nil || !strings.Contains(got.err.Error(), wantErr)):
		t.Errorf("%s: want an error with %q, got %v", name, wantErr, got.err)
	case !strings.Contains(got.fix, wantFix):
		t.Errorf("%s: want a fix with %q, got %q", name, wantFix, got.fix)
	}
}
