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

package verify

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// Verify's parts finish in any order; what verify prints must still read
// stage after stage, and two parts must never share a slot (a starter tree
// and an API server) at the same time.
func TestVerifyPartsRunAtOnceButPrintInOrder(t *testing.T) {
	const n, jobs = 7, 3
	var mu sync.Mutex
	inUse := map[int]bool{}
	// Part i waits until part i+1 has finished, if there is one running,
	// so that later parts finish first.
	gates := make([]chan struct{}, n+1)
	for i := range gates {
		gates[i] = make(chan struct{})
	}
	close(gates[n])
	var out bytes.Buffer
	reports := inOrder(n, jobs, &out, func(i, slot int) ([]byte, partReport) {
		mu.Lock()
		if inUse[slot] {
			t.Errorf("part %d got slot %d, which another part holds", i, slot)
		}
		if slot < 1 || slot > jobs {
			t.Errorf("part %d got slot %d, not one of 1 to %d", i, slot, jobs)
		}
		inUse[slot] = true
		mu.Unlock()
		if i%jobs != jobs-1 && i+1 < n { // the last part of each batch goes first
			<-gates[i+1]
		}
		mu.Lock()
		inUse[slot] = false
		mu.Unlock()
		close(gates[i])
		return []byte(fmt.Sprintf("part %d\n", i)), partReport{Problems: []string{fmt.Sprint(i)}}
	})
	var want []string
	for i := range n {
		want = append(want, fmt.Sprintf("part %d", i))
		if len(reports[i].Problems) != 1 || reports[i].Problems[0] != fmt.Sprint(i) {
			t.Errorf("report %d is %v, the report of another part", i, reports[i])
		}
	}
	if got := strings.TrimSpace(out.String()); got != strings.Join(want, "\n") {
		t.Errorf("printed\n%s\nwant the parts in order", got)
	}
}
