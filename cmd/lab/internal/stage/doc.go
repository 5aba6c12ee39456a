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

// Package stage is the model of the workshop: a stage is a directory
// exercises/<slug>/, in the order of exercises/stages.yaml, with a README (what the attendee reads) and a
// stage.yaml (what the tool needs: the regions to write, the tests that
// check them, the hints, which specs check which function, and the
// catalogue of mistakes). Load reads and checks every stage.yaml; the
// types here are its schema, and nothing here runs a test or writes a file
// but a mistake's edits (Mistake.Apply).
//
// Every package that knows what a stage is imports this one; it imports
// only i18n (a stage's title and hints are in both languages).
package stage
