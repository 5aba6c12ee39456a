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

// Package carry carries an attendee's own code from their lab branch into
// the starter of the next stage, file by file with git merge-file, with the
// reference as the base: what merges cleanly is committed, a conflict is
// left with its markers in the working tree, and the stubs they never wrote
// come from the reference. lab start (package start) decides when to carry.
package carry
