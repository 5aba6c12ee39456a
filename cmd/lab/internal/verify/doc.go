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

// Package verify is lab dev verify, lab dev mistakes and lab dev mutants, the guarantee
// behind the stages: every starter compiles and vets, its tests fail on it
// and pass on the reference, the stage before still passes on it, and the
// stage's check catches every mistake of its catalogue (stage.yaml). Verify
// runs in parts, several at once, each a lab dev verify-part process with its
// own trees and API server (its slot). lab dev mutants (mutants.go) checks the
// mistakes nobody listed, made by rule from the stages' regions, and writes
// docs/mutation.md, and which specs kill each mutant (kills.go), so that
// after a change of specs only what it can move is checked again; lab
// mutants --guard (guard.go) is what CI runs of it.
package verify
