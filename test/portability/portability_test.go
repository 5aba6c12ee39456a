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

// Package portability checks that what an attendee runs (the scripts in
// hack/ and the Makefile's recipes) uses nothing that a stock Mac lacks:
// macOS has bash 3.2, BSD sed, grep, date, stat and mktemp, make 3.81, and no
// timeout, sha256sum or nproc. No Mac runs in CI, so this reads the scripts
// for the constructs that would fail there; docs/laptops.md says what it
// proves and what it does not. It also checks that no Go file is chosen by
// the processor's architecture, which lets CI cross-build one Mac of two.
package portability

import (
	"errors"
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// A rule is one construct that fails on a stock Mac, and why.
type rule struct {
	re  *regexp.Regexp
	why string
}

var rules = []rule{
	{regexp.MustCompile(`\b(declare|local|typeset) +-[a-zA-Z]*A`), "associative arrays need bash 4; macOS has 3.2"},
	{regexp.MustCompile(`\b(mapfile|readarray)\b`), "mapfile and readarray need bash 4"},
	{regexp.MustCompile(`\$\{[A-Za-z_][A-Za-z0-9_]*(,,?|\^\^?)\}`), "case conversion ${x,,} ${x^^} needs bash 4"},
	{regexp.MustCompile(`\|&|&>>|\bcoproc\b`), "|&, &>> and coproc need bash 4"},
	{regexp.MustCompile(`\bwait +-n\b`), "wait -n needs bash 4.3"},
	{regexp.MustCompile(`(^|[;&|({]|\$\(|\bthen|\bdo|\belse)\s*timeout\s`), "timeout is GNU coreutils; use go run ./hack/deadline"},
	{regexp.MustCompile(`\b(sha256sum|sha1sum|md5sum)\b`), "sha256sum is GNU coreutils; check sums in Go (hack/fetch)"},
	{regexp.MustCompile(`\bnproc\b`), "nproc is GNU coreutils"},
	{regexp.MustCompile(`\bsed +(-[a-zA-Z]*i\b|-i)`), "sed -i takes a suffix argument on BSD and none on GNU: write to a file and mv"},
	{regexp.MustCompile(`\bsed +-[a-zA-Z]*r\b`), "sed -r is GNU; use sed -E"},
	{regexp.MustCompile(`\b(sed|grep)\b[^|;]*\\[sSwW]`), `\s \S \w \W are GNU extensions; use [[:space:]] and the like`},
	{regexp.MustCompile(`\bgrep\b[^|;]*'[^']*\\\|`), `\| in a basic regular expression is GNU; use grep -E 'a|b'`},
	{regexp.MustCompile(`\bgrep +-[a-zA-Z]*P`), "grep -P is GNU"},
	{regexp.MustCompile(`\breadlink +-f\b`), "readlink -f is GNU (macOS 12 and older)"},
	{regexp.MustCompile(`\bdate +-d\b`), "date -d is GNU; BSD date uses -j -f"},
	{regexp.MustCompile(`\bstat +-c\b`), "stat -c is GNU; BSD stat uses -f"},
	{regexp.MustCompile(`\bmktemp\b[^)]*X{3,}[^X"')\s]`), "BSD mktemp replaces only trailing X's: end the template with them"},
}

// problems returns "line N: why" for each construct of the rules in src,
// skipping comment lines.
func problems(src string) []string {
	var out []string
	for i, line := range strings.Split(src, "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "#") {
			continue
		}
		for _, r := range rules {
			if r.re.MatchString(line) {
				out = append(out, "line "+strconv.Itoa(i+1)+": "+r.why+": "+trimmed)
			}
		}
	}
	return out
}

// Every rule catches what it is about: each line of testdata/linux-only.sh
// after its comments breaks one rule.
func TestEveryRuleCatchesItsConstruct(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "linux-only.sh"))
	if err != nil {
		t.Fatal(err)
	}
	caught := map[string]bool{}
	for i, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		found := problems(line)
		if len(found) == 0 {
			t.Errorf("line %d is not caught: %s", i+1, line)
		}
		for _, r := range rules {
			if r.re.MatchString(line) {
				caught[r.why] = true
			}
		}
	}
	for _, r := range rules {
		if !caught[r.why] {
			t.Errorf("no line of testdata/linux-only.sh shows the rule %q", r.why)
		}
	}
}

// The rules must not refuse what the scripts need and macOS has.
func TestTheRulesLetPortableLinesThrough(t *testing.T) {
	for _, line := range []string{
		`helm install x chart --wait --timeout 3m`,
		`go test ./test/e2e/ -timeout 30m`,
		`go run ./hack/deadline 300 setup-envtest use 1.36`,
		`sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p' file`,
		`grep -Eo 'no such host|i/o timeout' log`,
		`work=$(mktemp -d "${dest%/}/.build.XXXXXX")`,
		`readlink -- "$link"`,
		`date +%H:%M:%S`,
	} {
		if p := problems(line); len(p) > 0 {
			t.Errorf("a portable line is refused: %v", p)
		}
	}
}

// TestWhatAttendeesRunWorksOnAStockMac: hack/*.sh and the Makefile.
func TestWhatAttendeesRunWorksOnAStockMac(t *testing.T) {
	root := filepath.Join("..", "..")
	files, err := filepath.Glob(filepath.Join(root, "hack", "*.sh"))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, filepath.Join(root, "Makefile"))
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range problems(string(raw)) {
			t.Errorf("%s %s", filepath.ToSlash(strings.TrimPrefix(f, root+string(filepath.Separator))), p)
		}
	}
}

// TestNoGoFileIsChosenByArchitecture backs CI's cross-build, which builds
// darwin/arm64 and leaves darwin/amd64 out (.ci/run): that is sound for
// cronlab's own code only while both Macs build the same files of every
// package, by Go's own rules (file names such as x_amd64.go, //go:build and
// // +build lines, with the e2e and browser tests' tags). The standard
// library and the dependencies do differ by architecture; docs/laptops.md
// says so.
func TestNoGoFileIsChosenByArchitecture(t *testing.T) {
	mac := func(arch string) build.Context {
		c := build.Default
		c.GOOS, c.GOARCH, c.CgoEnabled = "darwin", arch, false
		c.BuildTags = []string{"e2e", "browser"}
		// The tool tags name this machine's architecture level
		// (amd64.v1); each Mac gets the default level of its own.
		c.ToolTags = []string{map[string]string{"amd64": "amd64.v1", "arm64": "arm64.v8.0"}[arch]}
		for _, tag := range build.Default.ToolTags {
			if !strings.Contains(tag, ".v") {
				c.ToolTags = append(c.ToolTags, tag)
			}
		}
		return c
	}
	intel, apple := mac("amd64"), mac("arm64")
	root := filepath.Join("..", "..")
	packages := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if path != root {
			// What go build ./... leaves out: dot and underscore folders,
			// testdata, and other modules (hack/benchplot); bin holds tools.
			name := d.Name()
			if strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "bin" {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir
			}
		}
		a, errA := intel.ImportDir(path, 0)
		b, errB := apple.ImportDir(path, 0)
		var none *build.NoGoError
		if errors.As(errA, &none) && errors.As(errB, &none) {
			return nil
		}
		if errA != nil || errB != nil {
			t.Errorf("%s: darwin/amd64: %v; darwin/arm64: %v", path, errA, errB)
			return nil
		}
		packages++
		if x, y := chosen(a), chosen(b); x != y {
			t.Errorf("%s: darwin/amd64 builds %s, darwin/arm64 builds %s", path, x, y)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if packages < 10 {
		t.Fatalf("only %d packages found under %s: the walk is wrong", packages, root)
	}
}

// chosen lists the files of a package that a build for its context uses.
func chosen(p *build.Package) string {
	var files []string
	for _, list := range [][]string{p.GoFiles, p.TestGoFiles, p.XTestGoFiles, p.SFiles} {
		files = append(files, list...)
	}
	sort.Strings(files)
	return strings.Join(files, " ")
}
