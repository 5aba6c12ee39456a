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

package mutants

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// markedSample has a marker of each kind the operators change, one that
// they leave alone, a rule whose strings hold operators, and rules kept
// apart from their field's doc by a blank line, as api/v1 keeps them.
const markedSample = `package v1

// +kubebuilder:validation:Enum=Allow;Forbid
type Policy string

// +kubebuilder:validation:XValidation:rule="size(self.metadata.name) <= 52",message="at most 52"
// +kubebuilder:object:root=true
type Thing struct {
	// +optional
	// +kubebuilder:default=3
	// +kubebuilder:validation:Minimum=0
	Limit *int32 ` + "`json:\"limit,omitempty\"`" + `

	// +kubebuilder:validation:XValidation:rule=` + "`!self.contains('a && b') || self != 'x'`" + `,message=` + "`no TZ`" + `

	// zone is a time zone.
	// +kubebuilder:validation:Pattern=` + "`^[a-z]+$`" + `
	Zone string ` + "`json:\"zone\"`" + `
}
`

func markerMutantsOf(t *testing.T) []Mutant {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "api", "v1"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "api", "v1", "types.go"), []byte(markedSample), 0o644); err != nil {
		t.Fatal(err)
	}
	ms, err := Markers(dir, []string{"api/v1/types.go"})
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

func TestEachMarkerOperatorBeforeAndAfter(t *testing.T) {
	ms := markerMutantsOf(t)
	var got []string
	for _, m := range ms {
		got = append(got, m.Name())
	}
	want := []string{
		"api/v1/types.go:3 drop marker (Policy): Enum=Allow;Forbid",
		"api/v1/types.go:3 drop enum value (Policy): Enum=Allow;Forbid -> without Allow",
		"api/v1/types.go:3 drop enum value (Policy): Enum=Allow;Forbid -> without Forbid",
		"api/v1/types.go:6 drop marker (Thing): XValidation (at most 52)",
		"api/v1/types.go:6 flip rule (Thing): XValidation (at most 52): etadata.name) <= 52 -> etadata.name) < 52",
		"api/v1/types.go:6 shift number (Thing): XValidation (at most 52): data.name) <= 52 -> data.name) <= 51",
		"api/v1/types.go:6 shift number (Thing): XValidation (at most 52): data.name) <= 52 -> data.name) <= 53",
		"api/v1/types.go:10 drop marker (Thing.Limit): default=3",
		"api/v1/types.go:10 shift number (Thing.Limit): default=3 -> default=2",
		"api/v1/types.go:10 shift number (Thing.Limit): default=3 -> default=4",
		"api/v1/types.go:11 drop marker (Thing.Limit): Minimum=0",
		"api/v1/types.go:11 shift number (Thing.Limit): Minimum=0 -> Minimum=-1",
		"api/v1/types.go:11 shift number (Thing.Limit): Minimum=0 -> Minimum=1",
		"api/v1/types.go:14 drop marker (Thing.Zone): XValidation (no TZ)",
		"api/v1/types.go:14 flip rule (Thing.Zone): XValidation (no TZ): !self.contains( -> self.contains(",
		"api/v1/types.go:14 flip rule (Thing.Zone): XValidation (no TZ): ins('a && b') || self != 'x' -> ins('a && b') && self != 'x'",
		"api/v1/types.go:14 flip rule (Thing.Zone): XValidation (no TZ): & b') || self != 'x' -> & b') || self == 'x'",
		"api/v1/types.go:17 drop marker (Thing.Zone): Pattern=`^[a-z]+$`",
	}
	if !slices.Equal(got, want) {
		t.Errorf("the mutants of the sample's markers are\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, m := range ms {
		if !m.Op.IsKubernetes() || !slices.Contains(Schema, m.Op) {
			t.Errorf("%s: a marker's operator is one of mutants.Schema, counted with the Kubernetes operators", m.Name())
		}
	}
}

// TestAMarkerMutantChangesItsLineAlone: the mutant is made on its line of
// the file, and nowhere else; a dropped marker takes its line with it.
func TestAMarkerMutantChangesItsLineAlone(t *testing.T) {
	src := []byte(markedSample)
	for _, m := range markerMutantsOf(t) {
		mutated, err := m.OnLine(src)
		if err != nil {
			t.Fatal(err)
		}
		before, after := strings.Split(markedSample, "\n"), strings.Split(string(mutated), "\n")
		if m.Op == DropMarker {
			if len(after) != len(before)-1 || !slices.Equal(after, slices.Delete(slices.Clone(before), m.Line-1, m.Line)) {
				t.Errorf("%s: the marker's line alone should go", m.Name())
			}
			continue
		}
		for i := range before {
			if changed := before[i] != after[i]; changed != (i == m.Line-1) {
				t.Errorf("%s: line %d changed: %v", m.Name(), i+1, changed)
			}
		}
	}
	// A file that moved under the mutant is refused, not mutated elsewhere.
	m := markerMutantsOf(t)[0]
	if _, err := m.OnLine([]byte("package v1\n\n" + markedSample)); err == nil {
		t.Error("a mutant made on a line that is no longer its own should be refused")
	}
}

// TestTheReferencesMarkersHaveMutants: both versions of the API have
// mutants of every operator (the row config/crd measures both), and no two
// have one name.
func TestTheReferencesMarkersHaveMutants(t *testing.T) {
	ms, err := Markers(filepath.Join("..", "..", "..", ".."), []string{"api/v1/cronjob_types.go", "api/v2/cronjob_types.go"})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	ops := map[Op]int{}
	for _, m := range ms {
		if seen[m.Name()] {
			t.Errorf("two mutants are named %s", m.Name())
		}
		seen[m.Name()] = true
		ops[m.Op]++
	}
	for _, op := range Schema {
		if ops[op] == 0 {
			t.Errorf("no mutant of the reference's markers by %q", op)
		}
	}
}
