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

// Package base is what every command of the lab tool needs and no concern
// owns: running a command and reading what it printed (Output), the git
// questions the tool asks of the clone (its root, the reference commit a
// lab branch was made from, committing as the tool), the state directory
// bin/lab-state, writing a file whole, and LAB_TRACE's timings. It is named
// after cmd/go's internal/base, which holds the same kind of thing.
//
// It imports only i18n: everything else may import it.
package base
