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

// Package gosrc reads Go source the way the lab tool needs it: the function
// around a line (a compiler message is about a function the attendee
// writes), a method's receiver type, and the call graph of a stage's files
// (a function that calls a broken one waits for it), and the sentences a
// test file writes in two languages (twins.go: the say.Both calls, found by
// their shape). It parses files that do not compile, and knows nothing of
// stages.
package gosrc
