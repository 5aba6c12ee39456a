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

// Package class is an attendee's side of the class board: bin/lab join,
// leave and hand, and the results every check sends once joined.
//
// A check never waits for the board. Its result is written to a queue on
// disk first (bin/lab-state/class/queue/, a file per message, named by its
// sequence number), then sent in the background: by a detached `bin/lab
// class-send` after bin/lab check, by a goroutine in bin/lab watch. When
// the board cannot be reached the files stay, and go with the next send, in
// order; the board stores each sequence number once, so a message sent
// twice (its answer lost) is counted once. docs/class.md says what is sent.
package class
