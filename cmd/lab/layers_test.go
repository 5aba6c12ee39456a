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

package main

import (
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// layers are the floors of the lab tool's packages (cmd/lab/internal/...),
// from the ground up: a package imports only packages of the floors below
// its own, its tests included. cmd/lab/README.md draws them and says what
// each package owns; a new package takes the floor above everything it
// imports.
var layers = [][]string{
	{"i18n", "gosrc"}, // the two languages; reading Go source
	{"base", "stage", "regions", "classwire", "traceview"},                                // commands and git; stage.yaml; regions and stubs; what crosses to the class board; a trace drawn
	{"gotest", "starter", "apiserver", "doctor", "labtest", "mutants", "board", "roster"}, // test output; a starter; the shared API server; lab doctor; generic mutants; the class board; a class on one cluster
	{"functions", "progress"}, // per-function results; the progress file
	{"hints", "carry"},        // which hint; carrying code forward
	{"report"},                // a result in words and as JSON
	{"run", "class"},          // building and running a stage's tests; an attendee in a class
	{"check", "watch", "start", "verify", "perturb"}, // the commands
}

// floorOf is the floor of a package of the tool, or -1.
func floorOf(name string) int {
	for i, floor := range layers {
		if slices.Contains(floor, name) {
			return i
		}
	}
	return -1
}

const (
	module   = "cronlab.dev/cronlab/"
	internal = module + "cmd/lab/internal/"
)

type listedPackage struct {
	ImportPath   string
	Imports      []string
	TestImports  []string
	XTestImports []string
}

// listPackages is `go list -deps=false -json` of the lab tool's packages.
func listPackages(t *testing.T, args ...string) []listedPackage {
	t.Helper()
	out, err := exec.Command("go", append([]string{"list", "-json"}, args...)...).Output()
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			t.Fatalf("go list %s: %v\n%s", args, err, exit.Stderr)
		}
		t.Fatal(err)
	}
	var pkgs []listedPackage
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p listedPackage
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// The lab tool's imports run one way: down the layers.
func TestImportsRunDownTheLayers(t *testing.T) {
	pkgs := listPackages(t, "./...")
	if len(pkgs) < len(slices.Concat(layers...)) {
		t.Fatalf("go list found %d packages, fewer than the layers name", len(pkgs))
	}
	for _, p := range pkgs {
		name, inside := strings.CutPrefix(p.ImportPath, internal)
		if !inside {
			continue // the command line itself may import every package
		}
		floor := floorOf(name)
		if floor < 0 {
			t.Errorf("%s is on no floor: give it its place in layers (cmd/lab/layers_test.go) and in cmd/lab/README.md", p.ImportPath)
			continue
		}
		for _, imp := range slices.Concat(p.Imports, p.TestImports, p.XTestImports) {
			other, ours := strings.CutPrefix(imp, internal)
			if !ours || other == name {
				continue
			}
			if floorOf(other) >= floor {
				t.Errorf("%s (floor %d) imports %s (floor %d), which is not below it: move what it needs down, or the code that needs it up",
					name, floor, other, floorOf(other))
			}
		}
	}
}

// The tool is not built from test helpers: test/utils brings Gomega and
// the testing package into the binary (what it shares with the tests is in
// internal/controlplane).
func TestTheToolImportsNoTestHelpers(t *testing.T) {
	for _, p := range listPackages(t, "./...") {
		for _, imp := range p.Imports {
			if strings.HasPrefix(imp, module+"test/") || (imp == internal+"labtest" && !strings.HasSuffix(p.ImportPath, "/labtest")) {
				t.Errorf("%s imports %s: only its tests may", p.ImportPath, imp)
			}
		}
	}
	tool := listPackages(t, "-deps", ".")
	for _, p := range tool {
		if p.ImportPath == "testing" || p.ImportPath == "github.com/onsi/gomega" {
			t.Errorf("bin/lab is built with %s", p.ImportPath)
		}
	}
}
