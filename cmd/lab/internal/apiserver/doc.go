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

// Package apiserver is the shared API server of the checks: one etcd and
// kube-apiserver that a clone's checks reuse instead of starting a pair
// every time, cleaned between checks, restarted when the CRDs change, and
// stopped after 30 idle minutes or by lab stop. Its bookkeeping (PID,
// kubeconfig, log, lock) lives in bin/lab-state/apiserver; no process is
// ever found by its name.
package apiserver
