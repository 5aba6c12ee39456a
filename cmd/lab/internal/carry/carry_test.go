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

package carry

import (
	"strings"
	"testing"
)

// Both sides of a carry drop the imports their stubs no longer use: a
// conflict only in the import block is settled, and the file imports what
// its code uses.
func TestImportConflictsAreSettled(t *testing.T) {
	merged := `package p

import (
	"fmt"
<<<<<<< your code (lab/04)
	"strings"
=======
	"time"
	"os"
>>>>>>> the starter of stage 05
)

func A() string { return fmt.Sprint(time.Now()) + strings.ToUpper("a") }
`
	ref := "package p\n\nimport (\n\t\"fmt\"\n\t\"os\"\n\t\"sort\"\n\t\"time\"\n)\n"
	out, left := settleImportConflicts([]byte(merged), 1)
	if left != 0 {
		t.Fatalf("%d conflicts left:\n%s", left, out)
	}
	got := string(fixImports("p.go", out, []byte(ref)))
	want := "package p\n\nimport (\n\t\"fmt\"\n\t\"strings\"\n\t\"time\"\n)\n\nfunc A() string { return fmt.Sprint(time.Now()) + strings.ToUpper(\"a\") }\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	// An import the attendee put in another group than the reference, which
	// a settled conflict brings back: one of the two stays.
	twice := "package p\n\nimport (\n\t\"fmt\"\n\tmine \"example.com/m\"\n\n\t\"os\"\n\tmine \"example.com/m\"\n)\n\nvar _ = fmt.Sprint(mine.X, os.Args)\n"
	if got := string(fixImports("p.go", []byte(twice), []byte(ref))); strings.Count(got, `mine "example.com/m"`) != 1 {
		t.Errorf("an import twice:\n%s", got)
	}
	// A conflict in code stays.
	code := "package p\n\nfunc A() int {\n<<<<<<< mine\n\treturn 1\n=======\n\treturn 2\n>>>>>>> theirs\n}\n"
	if _, left := settleImportConflicts([]byte(code), 1); left != 1 {
		t.Error("a conflict outside the import block was settled")
	}
}
