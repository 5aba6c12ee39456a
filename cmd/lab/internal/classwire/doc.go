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

// Package classwire is what crosses the network between an attendee's
// bin/lab and the instructor's board (bin/lab board): the requests, their
// limits, and the validation both sides share. docs/class.md lists every
// field, because it is all that leaves an attendee's laptop: the stage,
// the specs' names, statuses and hint ids, the functions' verdicts, counts,
// times, and a raised hand's text. No code, no test output, no file name.
//
// A message carries a sequence number of its attendee's, from 1: the board
// stores each (attendee, seq) once, so a message sent twice (the answer was
// lost, or the board was killed before answering) is counted once.
package classwire
