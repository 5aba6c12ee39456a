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

// Package gotest reads what a test run said: go test -json events, Ginkgo's
// JSON report, go vet's findings and compiler messages, into Results (the
// passes, the failures with their place, values or panic, the compile
// errors placed in their functions). It runs nothing: building and running
// the tests is package run's, explaining a result in words package report's.
package gotest
