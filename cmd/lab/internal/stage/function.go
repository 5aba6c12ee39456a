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

package stage

import "strings"

// Function is a row of the table: a function of the stage (or a region
// that holds none, by its name) and the specs that check it.
type Function struct {
	Name  string   `json:"name"`
	Specs []string `json:"specs"`
}

// Checks reports whether a test or spec name (or a setup failure such as
// BeforeSuite) is one of f's specs.
func (f Function) Checks(name string) bool {
	for _, part := range f.Specs {
		// Go subtests and test names have no spaces; the table may.
		if strings.Contains(name, part) || strings.Contains(name, strings.ReplaceAll(part, " ", "_")) {
			return true
		}
	}
	return false
}
