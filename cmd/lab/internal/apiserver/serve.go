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

package apiserver

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"syscall"
	"time"

	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"cronlab.dev/cronlab/cmd/lab/internal/base"
	"cronlab.dev/cronlab/internal/controlplane"
)

// Serve is the shared server itself (`lab serve-apiserver DIR
// HASH`, run by start with KUBEBUILDER_ASSETS set): envtest's etcd and
// kube-apiserver, kept until a signal, sharedIdle without a check, or its
// clone forgets it.
func Serve(dir, hash string) error {
	s := Server{dir: dir}
	env := controlplane.WithoutWatchCache(&envtest.Environment{UseExistingCluster: ptr.To(false)})
	if _, err := controlplane.Start(env); err != nil {
		return err
	}
	defer func() {
		_ = os.Remove(s.path("server.json"))
		if err := env.Stop(); err != nil {
			fmt.Println("stopping etcd and kube-apiserver:", err)
		}
		fmt.Println("stopped")
	}()
	if err := base.WriteFileAtomic(s.path("kubeconfig"), env.KubeConfig); err != nil {
		return err
	}
	s.touch()
	state := serverState{Server: processOf(os.Getpid()), CRDHash: hash, Children: childrenOf(os.Getpid()), Started: time.Now()}
	raw, _ := json.Marshal(state)
	if err := base.WriteFileAtomic(s.path("server.json"), raw); err != nil {
		return err
	}
	fmt.Printf("serving %s; etcd and kube-apiserver: %v; idle stop after %s\n", env.Config.Host, state.Children, sharedIdle)

	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	tick := time.NewTicker(5 * time.Second)
	defer tick.Stop()
	for {
		select {
		case sig := <-signals:
			fmt.Println("stopping on", sig)
			return nil
		case <-tick.C:
			if s.forgotten() {
				fmt.Printf("stopping: %s no longer names this server\n", s.path("server.json"))
				return nil
			}
			if idle := s.idleFor(); idle > sharedIdle {
				fmt.Printf("stopping: no check for %s\n", idle.Round(time.Second))
				return nil
			}
		}
	}
}

// crdHash identifies the CRDs that the tests of the tree at dir install,
// and the flags the server starts with.
func crdHash(dir string) (string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "config", "crd", "bases", "*.yaml"))
	if err != nil {
		return "", err
	}
	sort.Strings(files)
	h := sha256.New()
	// How the server is started counts too: a server a lab tool of before
	// started with other flags is replaced.
	fmt.Fprintf(h, "flags %v\n", controlplane.APIServerFlags)
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s %d\n", filepath.Base(f), len(raw))
		h.Write(raw)
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}
