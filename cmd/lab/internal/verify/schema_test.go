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
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"cronlab.dev/cronlab/cmd/lab/internal/stage"
)

// The program each mistake is made in: a function, a method with an
// unnamed and a blank parameter and a variadic one, a generic function, a
// function without results, and an external test package.
const schemaProgram = `package main

import (
	"fmt"
	"strings"
)

// Counter counts.
type Counter struct{ n int }

func Add(a, b int) int { return a + b }

func (*Counter) Name(string, int) string { return "counter" }

func (c *Counter) Inc(_ int, by ...int) {
	for _, b := range by {
		c.n += b
	}
}

func Max[T int | float64](a, b T) T {
	if a > b {
		return a
	}
	return b
}

func shout(s string) string { return strings.ToUpper(s) }

func main() {
	c := &Counter{}
	c.Inc(0, 1, 2)
	fmt.Println(Add(2, 3), c.n, Max(4, 7), c.Name("", 0), shout("hi"))
}
`

const schemaExternalTest = `package main_test

import "testing"

func double(n int) int { return 2 * n }

func TestDouble(t *testing.T) {
	if double(2) != 4 {
		t.Fatal("double(2) is not 4")
	}
}
`

func TestMistakesThatOnlyEditFunctionBodiesShareOneBuild(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module schemademo\n\ngo 1.26\n")
	write("main.go", schemaProgram)
	write("main_test.go", schemaExternalTest)
	edit1 := func(name, file, replace, with string) stage.Mistake {
		return stage.Mistake{Name: name, Edits: []stage.Edit{{File: file, Replace: replace, With: with}}}
	}
	ms := []stage.Mistake{
		edit1("subtracts", "main.go", "return a + b", "return a - b"),
		{Name: "counts twice, and names itself wrong", Edits: []stage.Edit{
			{File: "main.go", Replace: "c.n += b", With: "c.n += 2 * b"},
			{File: "main.go", Replace: `return "counter"`, With: `return "Counter"`},
		}},
		edit1("takes the smaller", "main.go", "if a > b {", "if a < b {"),
		edit1("edits a comment", "main.go", "// Counter counts.", "// Counter adds."),
		edit1("stops using a package", "main.go", "return strings.ToUpper(s)", "return s"),
		edit1("adds a function", "main.go", "func main() {", "func helper() {}\n\nfunc main() {"),
		edit1("doubles wrong, in the test's package", "main_test.go", "return 2 * n", "return n + n + 1"),
	}
	at := t.TempDir()
	sch, err := makeSchema(dir, at, ms)
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]bool{0: true, 1: true, 2: true, 6: true}
	for i, m := range ms {
		if sch.holds[i] != want[i] {
			t.Errorf("mistake %q: in the schema %v, want %v", m.Name, sch.holds[i], want[i])
		}
	}

	goCmd := func(mistake int, args ...string) (string, error) {
		cmd := exec.Command("go", append([]string{args[0], "-overlay=" + sch.overlay}, args[1:]...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=", fmt.Sprintf("%s=%d", mistakeEnv, mistake))
		out, err := cmd.CombinedOutput()
		return strings.TrimSpace(string(out)), err
	}
	for mistake, wantOut := range map[int]string{
		0: "5 3 7 counter HI", // none: the reference
		1: "-1 3 7 counter HI",
		2: "5 6 7 Counter HI",
		3: "5 3 4 counter HI",
		7: "5 3 7 counter HI", // the test's mistake does not touch the program
	} {
		if out, err := goCmd(mistake, "run", "."); err != nil || out != wantOut {
			t.Errorf("%s=%d: go run printed %q (%v), want %q", mistakeEnv, mistake, out, err, wantOut)
		}
	}
	if out, err := goCmd(0, "test", "-count=1", "."); err != nil {
		t.Errorf("the reference's test fails in the schema: %v\n%s", err, out)
	}
	if out, err := goCmd(7, "test", "-count=1", "."); err == nil {
		t.Errorf("the test's own mistake is not made in the schema:\n%s", out)
	}
	if out, err := os.ReadFile(filepath.Join(dir, "main.go")); err != nil || string(out) != schemaProgram {
		t.Error("the schema changed main.go on disk")
	}
}
