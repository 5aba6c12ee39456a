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

package leader

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"k8s.io/client-go/rest"
)

// TestTheLeaseLockAsksAsLeaderElectionAndGivesUpHalfwayToTheDeadline: the
// lock's requests name themselves (an audit log tells them from the
// Reconciler's) and carry a timeout of RenewDeadline/2, so that one hung
// request leaves time for another try before the Lease is lost. The API
// server here is a recorder that answers 404 to everything.
func TestTheLeaseLockAsksAsLeaderElectionAndGivesUpHalfwayToTheDeadline(t *testing.T) {
	var mu sync.Mutex
	var asked []*http.Request
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked = append(asked, r)
		mu.Unlock()
		http.NotFound(w, r)
	}))
	defer server.Close()

	lock, err := NewLeaseLock(&rest.Config{Host: server.URL}, "team", "cronlab-lock")
	if err != nil {
		t.Fatalf("NewLeaseLock with a namespace: %v", err)
	}
	host, _ := os.Hostname()
	if !strings.HasPrefix(lock.Identity(), host+"_") {
		t.Errorf("the lock's identity %q does not start with the host's name %q: `kubectl get lease` could not tell which manager holds it", lock.Identity(), host)
	}
	if lock.Describe() != "team/cronlab-lock" {
		t.Errorf("the lock describes itself as %q, want team/cronlab-lock", lock.Describe())
	}
	if _, _, err := lock.Get(context.Background()); err == nil {
		t.Fatalf("Get of a Lease the server does not have succeeded")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asked) == 0 {
		t.Fatalf("the lock's Get never reached the API server")
	}
	r := asked[0]
	if !strings.HasSuffix(r.URL.Path, "/namespaces/team/leases/cronlab-lock") {
		t.Errorf("the lock asked for %s, want the Lease team/cronlab-lock", r.URL.Path)
	}
	if ua := r.Header.Get("User-Agent"); !strings.HasSuffix(ua, "/leader-election") {
		t.Errorf("the lock's User-Agent is %q, want one that ends in /leader-election", ua)
	}
	if got, want := r.URL.Query().Get("timeout"), (RenewDeadline / 2).String(); got != want {
		t.Errorf("the lock's requests time out after %q, want %q (half the RenewDeadline)", got, want)
	}
}

// TestWithoutANamespaceTheLeaseLockTakesThePods: without a namespace, the
// lock takes the pod's own, from the service account's volume; a manager run
// outside a pod (make run) is told which flag to set, and a file it cannot
// read is an error, not the namespace "".
func TestWithoutANamespaceTheLeaseLockTakesThePods(t *testing.T) {
	dir := t.TempDir()
	inPod := filepath.Join(dir, "namespace")
	if err := os.WriteFile(inPod, []byte("team\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, file, wantLock, wantErr string
	}{
		{"in a pod of namespace team", inPod, "team/cronlab-lock", ""},
		{"outside a pod (make run)", filepath.Join(dir, "absent"), "", "--leader-election-namespace"},
		{"a volume that cannot be read", dir, "", "is a directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func(was string) { podNamespaceFile = was }(podNamespaceFile)
			podNamespaceFile = tc.file
			lock, err := NewLeaseLock(&rest.Config{Host: "http://127.0.0.1:1"}, "", "cronlab-lock")
			switch {
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("NewLeaseLock: %v, want an error that says %q", err, tc.wantErr)
			case tc.wantErr == "" && err != nil:
				t.Errorf("NewLeaseLock: %v", err)
			case tc.wantErr == "" && lock.Describe() != tc.wantLock:
				t.Errorf("the lock is %s, want %s", lock.Describe(), tc.wantLock)
			}
		})
	}
}

// TestAHostWithoutANameIsAnError: the lock's identity starts with the
// host's name; without one there is no identity to hold the Lease by.
func TestAHostWithoutANameIsAnError(t *testing.T) {
	defer func(was func() (string, error)) { hostname = was }(hostname)
	unnamed := errors.New("uname: no name")
	hostname = func() (string, error) { return "", unnamed }
	if _, err := NewLeaseLock(&rest.Config{Host: "http://127.0.0.1:1"}, "team", "cronlab-lock"); !errors.Is(err, unnamed) {
		t.Errorf("NewLeaseLock on a host without a name: %v, want the host's error", err)
	}
}

// TestABadConfigIsRefusedByName: a rest.Config the clientset cannot use is
// an error that says which client it was for.
func TestABadConfigIsRefusedByName(t *testing.T) {
	_, err := NewLeaseLock(&rest.Config{Host: "http://127.0.0.1:1", QPS: 5, Burst: 0}, "team", "cronlab-lock")
	if err == nil || !strings.Contains(err.Error(), "leader election client") {
		t.Errorf("NewLeaseLock with a QPS and no burst: %v, want an error that names the leader election client", err)
	}
}
