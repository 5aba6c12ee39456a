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

// Package functions turns a check's results into a result per function the
// stage asks for (stage.yaml's functions table): passed, failed, waiting
// for a function it calls, does not compile, or not run. An attendee writes
// functions, not specs, so lab check shows this table first, and
// lab check --json reports it.
package functions
