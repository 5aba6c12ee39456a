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

// fetch downloads a release file and checks its SHA-256 against the sum its
// publisher put beside it, with a deadline. It replaces curl + sha256sum in
// hack/kube-binaries.sh: stock macOS has no sha256sum, and a check written in
// Go runs the same on every laptop (docs/laptops.md).
//
//	go run ./hack/fetch [-timeout 10m] -sum URL [-name FILE] URL DEST
//
// -sum names the checksum file: either the bare sum (dl.k8s.io's
// <file>.sha256) or lines of "sum  name" (etcd's SHA256SUMS), in which case
// -name says which line. DEST is written only when the sum matches.
package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"cronlab.dev/cronlab/hack/internal/httpget"
)

func main() {
	timeout := flag.Duration("timeout", 10*time.Minute, "give up after this long")
	sumURL := flag.String("sum", "", "URL of the SHA-256 sum (required)")
	name := flag.String("name", "", "the file's name in a checksum list such as SHA256SUMS")
	flag.Parse()
	if flag.NArg() != 2 || *sumURL == "" {
		fmt.Fprintln(os.Stderr, "usage: fetch [-timeout 10m] -sum URL [-name FILE] URL DEST")
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	if err := fetch(ctx, flag.Arg(0), *sumURL, *name, flag.Arg(1)); err != nil {
		fmt.Fprintln(os.Stderr, "fetch:", err)
		os.Exit(1)
	}
}

func fetch(ctx context.Context, url, sumURL, name, dest string) error {
	sums, err := httpget.Body(ctx, sumURL)
	if err != nil {
		return err
	}
	want, err := sumFor(string(sums), name)
	if err != nil {
		return fmt.Errorf("%s: %w", sumURL, err)
	}
	body, err := httpget.Body(ctx, url)
	if err != nil {
		return err
	}
	got := sha256.Sum256(body)
	if hex.EncodeToString(got[:]) != want {
		return fmt.Errorf("%s: SHA-256 is %x, the published sum is %s", url, got, want)
	}
	tmp, err := os.CreateTemp(filepath.Dir(dest), ".fetch-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(body); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), dest)
}

// sumFor finds the sum in a checksum file: the whole file when name is
// empty, else the line that ends with name.
func sumFor(sums, name string) (string, error) {
	for _, line := range strings.Split(sums, "\n") {
		fields := strings.Fields(line)
		switch {
		case name == "" && len(fields) >= 1:
			return strings.ToLower(fields[0]), nil
		case name != "" && len(fields) == 2 && strings.TrimPrefix(fields[1], "*") == name:
			return strings.ToLower(fields[0]), nil
		}
	}
	if name == "" {
		return "", fmt.Errorf("no sum in it")
	}
	return "", fmt.Errorf("no sum for %s in it", name)
}
