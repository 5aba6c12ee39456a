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

// Package board is lab board: the instructor's live class board. Attendees'
// bin/lab (package class) post each check's result; the board keeps them in
// one SQLite file (store.go), which no second board may open while it runs
// (lock.go), rebuilds the class from it (class.go), and
// serves one page (page/, embedded, nothing from the network) that draws a
// snapshot of the class (snapshot.go) and is told of every change by
// server-sent events (events.go). docs/class.md is the instructor's guide.
//
// It is a room of its own because it is the only part of the tool that
// serves: it imports none of the packages that run checks, and they do not
// import it; what crosses between the two is package classwire.
package board
