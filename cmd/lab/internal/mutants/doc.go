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

// Package mutants makes the mistakes that nobody listed. A stage's
// catalogue (stage.yaml) holds the mistakes its authors imagined, and its
// specs were written by the same hands; the mutants here are made by rule
// from the reference instead, in the regions the stage asks the attendee to
// write: a statement left out, a condition negated, a boundary moved by
// one, one side of && or || dropped, an error swallowed, a function that
// returns zero values. Mutants of a model solution reproduce most of the
// faults that learners make (Clegg et al. 2021), so the share of them that
// a stage's check catches says how much of what attendees will get wrong it
// catches.
//
// Those are the generic operators (mutants.go). The Kubernetes operators
// (kube.go) make the mistakes that people make with the Kubernetes API and
// that no single-token change makes: a sibling API for another, the cache
// for the API server, the wall clock for the injected one, an enumeration's
// case for another, a condition read more loosely, an option, a field of
// ObjectMeta or a watch left out, a sort reversed. They follow the same
// rule: each applies wherever the code matches, by its AST.
//
// A mutant is a catalogue entry like any other (Mutant.Mistake): lab
// verify builds and checks it the same way. This package only makes them;
// it runs nothing.
package mutants
