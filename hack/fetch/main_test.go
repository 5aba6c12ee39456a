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

package main

import (
	"context"
	"crypto/sha256"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestFetchKeepsAFileOnlyWhenItsPublishedSumMatches(t *testing.T) {
	binary := []byte("kube-apiserver, or so")
	sum := fmt.Sprintf("%x", sha256.Sum256(binary))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/kube-apiserver":
			w.Write(binary)
		case "/kube-apiserver.sha256": // dl.k8s.io: the bare sum
			fmt.Fprintln(w, sum)
		case "/SHA256SUMS": // etcd: sum and name per line
			fmt.Fprintf(w, "%x  other.tar.gz\n%s  kube-apiserver\n", sha256.Sum256([]byte("x")), sum)
		case "/wrong.sha256":
			fmt.Fprintf(w, "%x\n", sha256.Sum256([]byte("something else")))
		case "/slow":
			time.Sleep(2 * time.Second)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	dir := t.TempDir()
	ctx := context.Background()

	for _, c := range []struct{ sum, name string }{{"/kube-apiserver.sha256", ""}, {"/SHA256SUMS", "kube-apiserver"}} {
		dest := filepath.Join(dir, "ok")
		if err := fetch(ctx, srv.URL+"/kube-apiserver", srv.URL+c.sum, c.name, dest); err != nil {
			t.Fatalf("%s: %v", c.sum, err)
		}
		if got, _ := os.ReadFile(dest); string(got) != string(binary) {
			t.Errorf("%s: wrote %q", c.sum, got)
		}
	}

	dest := filepath.Join(dir, "bad")
	err := fetch(ctx, srv.URL+"/kube-apiserver", srv.URL+"/wrong.sha256", "", dest)
	if err == nil || !strings.Contains(err.Error(), "the published sum is") {
		t.Errorf("a wrong sum: want an error that says so, got %v", err)
	}
	if _, statErr := os.Stat(dest); statErr == nil {
		t.Error("a file whose sum does not match was kept")
	}
	if err := fetch(ctx, srv.URL+"/kube-apiserver", srv.URL+"/SHA256SUMS", "etcd.tar.gz", dest); err == nil || !strings.Contains(err.Error(), "no sum for etcd.tar.gz") {
		t.Errorf("a name missing from the list: got %v", err)
	}

	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	if err := fetch(short, srv.URL+"/slow", srv.URL+"/kube-apiserver.sha256", "", dest); err == nil {
		t.Error("a download past its deadline did not fail")
	}
}
