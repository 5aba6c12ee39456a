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

// Package roster is lab class setup and teardown: a class on one real
// cluster, each attendee in a namespace of their own. For every name of the
// roster it makes a namespace, a ServiceAccount, a Role with exactly what
// the lab needs there, a RoleBinding, and a kubeconfig with a time-bound
// token from the TokenRequest API, for the instructor to hand out; the CRD
// is installed once. Teardown removes what setup made, found by its labels,
// and nothing else. docs/class.md is the instructor's guide.
//
// It is a room of its own because it is the only part of the tool that
// changes a cluster's permissions: it imports none of the packages that run
// checks, and they do not import it.
package roster
