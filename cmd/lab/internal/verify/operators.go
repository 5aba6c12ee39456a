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

// The two families of mutation operators (package mutants): the generic
// ones, and the ones that model mistakes with the Kubernetes API. The
// report shows a row's score for each apart, and a row remembers which
// operators it was measured with: adding one changes the row's mutants
// without changing its code, so neither the row's digest nor its kill
// matrix can tell that the row is behind; this can.

import (
	"maps"
	"slices"
	"strings"

	"cronlab.dev/cronlab/cmd/lab/internal/mutants"
)

// allOperators are the names of the operators that make mutants now.
func allOperators() []string {
	var out []string
	for _, op := range append(slices.Clone(mutants.Generic), mutants.Kubernetes...) {
		out = append(out, string(op))
	}
	return out
}

// opOf is the operator of a mutant, read from its name or its key
// ("file:line op (func): ..." or "file op (func): ...").
func opOf(name string) mutants.Op {
	k := keyOf(name)
	_, rest, _ := strings.Cut(k, " ")
	op, _, _ := strings.Cut(rest, " (")
	return mutants.Op(op)
}

// missingOperators are the operators of today that the row was not
// measured with. A row written before rows kept their operators was
// measured with the generic ones.
func missingOperators(m mutationScore) []string {
	had := m.Operators
	if len(had) == 0 {
		for _, op := range mutants.Generic {
			had = append(had, string(op))
		}
	}
	today := allOperators()
	if m.Stage == schemaRow {
		today = schemaOperators()
	}
	return slices.DeleteFunc(today, func(op string) bool { return slices.Contains(had, op) })
}

// measuredWithKubernetes tells a row whose last measure made the mutants
// of the Kubernetes operators.
func (m mutationScore) measuredWithKubernetes() bool {
	return slices.ContainsFunc(m.Operators, func(op string) bool { return mutants.Op(op).IsKubernetes() })
}

// family is the row with only the mutants of one family of operators: the
// Kubernetes ones (kube), or the generic ones. The row keeps by name the
// mutants that survived, were caught later, were set aside as equivalent
// or could not be checked, and counts how many of the Kubernetes family
// were made and did not compile; the killed are what is left.
func (m mutationScore) family(kube bool) mutationScore {
	in := func(name string) bool { return opOf(name).IsKubernetes() == kube }
	f := m
	f.Survivors = slices.DeleteFunc(slices.Clone(m.Survivors), func(n string) bool { return !in(n) })
	f.Equivalent = slices.DeleteFunc(slices.Clone(m.Equivalent), func(n string) bool { return !in(n) })
	f.Unmade = slices.DeleteFunc(slices.Clone(m.Unmade), func(n string) bool { return !in(n) })
	f.CaughtLater = maps.Clone(m.CaughtLater)
	maps.DeleteFunc(f.CaughtLater, func(n, _ string) bool { return !in(n) })
	var kube0 int // the Kubernetes mutants that were neither killed nor refused by the compiler
	for _, list := range [][]string{m.Survivors, m.Equivalent, m.Unmade, slices.Collect(maps.Keys(m.CaughtLater))} {
		for _, n := range list {
			if opOf(n).IsKubernetes() {
				kube0++
			}
		}
	}
	kubeKilled := max(0, m.KubeMutants-m.KubeNotCompile-kube0)
	if kube {
		f.Mutants, f.NotCompile, f.Killed = m.KubeMutants, m.KubeNotCompile, kubeKilled
	} else {
		f.Mutants, f.NotCompile, f.Killed = m.Mutants-m.KubeMutants, m.NotCompile-m.KubeNotCompile, m.Killed-kubeKilled
	}
	return f
}
