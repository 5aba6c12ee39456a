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

// Package run builds and runs the tests of a stage, as a check: the test
// binaries built at once (vetted beside the build), run as go test would,
// with the shared API server when a suite needs one; a function that does
// not compile is stubbed so that the rest is still checked; conflict
// markers are named before anything is built. It prints as it goes, through
// package report, as much as a Verbosity asks.
package run
