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

// Package perturb replays one scenario of a CronJob's life against the
// Reconciler of this tree (yours, on a lab branch) while the loop around it
// is disturbed in one of the three ways Sieve (OSDI '22) names, and compares
// the end state with the reference's under the same perturbation
// (testdata/<perturbation>.golden):
//
//   - stale: the cache is held back while the Reconciler runs twice;
//   - unobserved: one event never asks for a reconcile (the Job's
//     completion), as when events are coalesced or a watch is re-listed;
//   - intermediate-N: the manager stops right after the N-th write, and a
//     new one starts from what the API server has.
//
// A level-based Reconciler that treats AlreadyExists and NotFound on its own
// objects as done ends where the reference ends under each of them, which
// is where it ends undisturbed (TestNoPerturbationMovesTheReferencesEndState).
// Five more paths (crash_test.go: each concurrency policy with the previous
// run running, a failed Job, history cleanup keeping one of each) are
// stopped after each of their writes in turn, and each must still end
// where it ends undisturbed.
// `bin/lab perturb KIND` runs one and draws its trace (docs/trace.md). It
// works from stage 06 on, so the scenario uses nothing a later stage has
// the attendee write: it holds the cache back itself (held_test.go), not
// through stage 13's test/lag. The tool names a file in
// CRONLAB_PERTURB_END_STATE, where the end state is written only once the
// scenario has played to its end: a run that stopped on the way compared
// nothing.
package perturb
