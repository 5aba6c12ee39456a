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

package controller

import "cronlab.dev/cronlab/internal/ownwrites"

// Guards are the fields of the Reconciler that only the guards of stage 15
// use (catchUp, in status.go). They sit in a struct of their own, which the
// Reconciler embeds, so that the struct stages 04 to 14 read lists only
// what those stages teach; Go promotes the fields, so r.OwnWrites reads as
// if the Reconciler declared it.
type Guards struct {
	// OwnWrites remembers this manager's own writes (internal/ownwrites),
	// so that catchUp can wait for the cache to show them; nil remembers
	// none.
	OwnWrites *ownwrites.Memory
}
