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

// Package traceview is lab trace: a trace of the reconcile loop (package
// internal/trace, recorded by a spec of each of stages 12 to 15 (three in stage
// 15) and by `make run TRACE=file`) drawn as the course draws it, three lanes side by side: the
// API server, the informer's cache, and the Reconcile. In the terminal as
// columns of text (lanes.go), in a page of its own as an SVG timeline
// (svg.go), and as one line for bin/lab check (Summary).
//
// It is a room of its own because it reads only a trace file: nothing of
// the stages, the tests or the class. It imports no Kubernetes client.
package traceview
