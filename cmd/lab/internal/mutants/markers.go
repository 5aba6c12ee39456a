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

// The CRD's schema is code too. controller-gen compiles the markers above
// the API's types (stage 02, declarative API design) into the CRD's OpenAPI
// schema and CEL rules, and the API server runs them after the mutating
// webhooks and before the validating one: a spec that sends a bad CronJob
// is refused there first, so no mutant of the validating webhook's Go code
// can make it fail. The operators
// below make the mistakes a person makes in those markers. The mutant is
// one line of the Go file changed; the CRD is then generated again from it
// (verify's row config/crd), and the tests run against that CRD.

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

const (
	// DropMarker leaves out a validation or default marker: the rule or
	// bound forgotten, the default the API server no longer fills in.
	DropMarker Op = "drop marker"
	// ShiftNumber moves a number of the schema by one: a bound
	// (Minimum, MaxLength…), a default, or a number a CEL rule compares
	// with. The value exactly at the limit.
	ShiftNumber Op = "shift number"
	// DropEnumValue forgets one of an enumeration's values.
	DropEnumValue Op = "drop enum value"
	// FlipRule changes one operator of a CEL rule, outside its strings:
	// && and ||, == and !=, < and <=, > and >=, a ! left out.
	FlipRule Op = "flip rule"
)

// Schema are the operators of the CRD's markers, in the order of the
// report. They are mistakes made with the Kubernetes API, so they count
// with the Kubernetes operators (IsKubernetes), but only the row of the
// markers makes them: they mutate no Go code.
var Schema = []Op{DropMarker, ShiftNumber, DropEnumValue, FlipRule}

// Markers makes the mutants of the validation and default markers of the
// named files of the tree at dir (relative, with slashes), in file and
// then line order. A mutant's Func names what the marker belongs to: a
// type, or a type's field (Type.Field).
func Markers(dir string, files []string) ([]Mutant, error) {
	var out []Mutant
	for _, rel := range files {
		src, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil {
			return nil, err
		}
		fset := token.NewFileSet()
		file, err := parser.ParseFile(fset, rel, src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		lines := strings.Split(string(src), "\n")
		for _, d := range markedDocs(file) {
			for _, c := range d.doc.List {
				line := fset.Position(c.Pos()).Line
				for _, m := range markerMutants(strings.TrimSpace(strings.TrimPrefix(c.Text, "//"))) {
					m.File, m.Func, m.Line = rel, d.owner, line
					m.whole = lines[line-1]
					m.mutated = strings.Replace(m.whole, m.whole[strings.Index(m.whole, "+"):], m.mutated, 1)
					out = append(out, m)
				}
			}
		}
	}
	return out, nil
}

// A markedDoc is a comment that may hold markers, and what it documents.
type markedDoc struct {
	owner string
	doc   *ast.CommentGroup
}

// markedDocs are the file's comments, each with the type or struct field
// declared after it: controller-gen reads a declaration's markers from its
// doc comment and from the comment just above that, after a blank line
// (where api/v1 keeps the schedule's long rules apart from its doc).
func markedDocs(file *ast.File) []markedDoc {
	type decl struct {
		pos   token.Pos
		owner string
	}
	var decls []decl
	for _, d := range file.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.TYPE {
			continue
		}
		for _, spec := range g.Specs {
			ts := spec.(*ast.TypeSpec)
			pos := ts.Pos()
			if len(g.Specs) == 1 {
				pos = g.Pos()
			}
			decls = append(decls, decl{pos, ts.Name.Name})
			st, ok := ts.Type.(*ast.StructType)
			if !ok {
				continue
			}
			for _, f := range st.Fields.List {
				name := ""
				if len(f.Names) > 0 {
					name = f.Names[0].Name
				} else if id, ok := f.Type.(*ast.Ident); ok {
					name = id.Name
				}
				decls = append(decls, decl{f.Type.Pos(), ts.Name.Name + "." + name})
			}
		}
	}
	var out []markedDoc
	for _, c := range file.Comments {
		for _, d := range decls {
			if d.pos > c.End() {
				out = append(out, markedDoc{d.owner, c})
				break
			}
		}
	}
	return out
}

const (
	validationMarker = "+kubebuilder:validation:"
	defaultMarker    = "+kubebuilder:default="
)

// numberMarkers are the markers whose value ShiftNumber may move by one.
var numberMarkers = []string{"default", "Minimum", "Maximum", "MinLength", "MaxLength", "MinItems", "MaxItems"}

// markerMutants are the mutants of one marker (the comment's text without
// its slashes); their mutated field holds the marker as it becomes ("" to
// leave it out), which Markers puts back on its line.
func markerMutants(marker string) []Mutant {
	if !strings.HasPrefix(marker, validationMarker) && !strings.HasPrefix(marker, defaultMarker) {
		return nil
	}
	out := []Mutant{{Op: DropMarker, Was: shortMarker(marker)}}
	name, value, _ := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(marker, validationMarker), "+kubebuilder:"), "=")
	switch {
	case slices.Contains(numberMarkers, name):
		if n, err := strconv.Atoi(value); err == nil {
			for _, d := range []int{-1, 1} {
				now := strings.TrimSuffix(marker, value) + strconv.Itoa(n+d)
				out = append(out, Mutant{Op: ShiftNumber, Was: shortMarker(marker), Now: shortMarker(now), mutated: now})
			}
		}
	case name == "Enum":
		values := strings.Split(value, ";")
		for i := range values {
			if len(values) < 2 {
				break
			}
			kept := strings.Join(append(append([]string{}, values[:i]...), values[i+1:]...), ";")
			out = append(out, Mutant{Op: DropEnumValue, Was: shortMarker(marker), Now: "without " + values[i], mutated: strings.TrimSuffix(marker, value) + kept})
		}
	case strings.HasPrefix(name, "XValidation:rule"):
		out = append(out, ruleMutants(marker)...)
	}
	return out
}

// shortMarker is a marker as a report names it: a CEL rule by its message,
// for the rules are long and several begin alike.
func shortMarker(marker string) string {
	m := strings.TrimPrefix(marker, "+kubebuilder:")
	m = strings.TrimPrefix(m, "validation:")
	if strings.HasPrefix(m, "XValidation:") {
		if msg, ok := ruleMessage(marker); ok {
			return "XValidation (" + abbreviate(msg, 60) + ")"
		}
	}
	return abbreviate(m, 80)
}

// ruleMessage is the message of an XValidation marker.
func ruleMessage(marker string) (string, bool) {
	i := strings.Index(marker, ",message=")
	if i < 0 {
		return "", false
	}
	_, text, ok := quoted(marker, i+len(",message="))
	return text, ok
}

func abbreviate(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// quoted reads the Go-marker string that begins at i (in double quotes or
// backquotes): where its text ends, and the text.
func quoted(s string, i int) (end int, text string, ok bool) {
	if i >= len(s) || (s[i] != '"' && s[i] != '`') {
		return 0, "", false
	}
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		if q == '"' && s[j] == '\\' {
			j++
			continue
		}
		if s[j] == q {
			return j, s[i+1 : j], true
		}
	}
	return 0, "", false
}

// flips are the operators of a CEL rule that FlipRule changes, the longer
// first, so that <= is not read as <.
var flips = []struct{ was, now string }{
	{"&&", "||"}, {"||", "&&"}, {"==", "!="}, {"!=", "=="},
	{"<=", "<"}, {">=", ">"}, {"<", "<="}, {">", ">="},
}

// ruleMutants are FlipRule's and ShiftNumber's mutants of one CEL rule.
// Strings in the rule (its regular expressions, its literals) are left as
// they are: what they match is the pattern's business, not the rule's.
func ruleMutants(marker string) []Mutant {
	start := strings.Index(marker, "rule=") + len("rule=")
	_, rule, ok := quoted(marker, start)
	if !ok {
		return nil
	}
	at := start + 1 // where rule begins in marker
	label := shortMarker(marker)
	seen := map[string]int{}
	var out []Mutant
	// add makes the mutant that puts now for the n bytes at i of the rule;
	// the report shows them with a few characters of each side.
	add := func(op Op, i, n int, now string) {
		was := rule[i : i+n]
		seen[string(op)+was+now]++
		which := ""
		if k := seen[string(op)+was+now]; k > 1 {
			which = " #" + strconv.Itoa(k)
		}
		from, to := max(0, i-14), min(len(rule), i+n+14)
		before, after := rule[from:i], rule[i+n:to]
		out = append(out, Mutant{Op: op,
			Was:     fmt.Sprintf("%s%s: %s", label, which, ruleText(before+was+after)),
			Now:     ruleText(before + now + after),
			mutated: marker[:at+i] + now + marker[at+i+n:]})
	}
	for i := 0; i < len(rule); i++ {
		if c := rule[i]; c == '\'' || c == '"' {
			i = skipCELString(rule, i)
			continue
		}
		matched := false
		for _, f := range flips {
			if strings.HasPrefix(rule[i:], f.was) {
				add(FlipRule, i, len(f.was), f.now)
				// A number compared with is a bound: one off each way.
				j := i + len(f.was)
				for j < len(rule) && rule[j] == ' ' {
					j++
				}
				k := j
				for k < len(rule) && rule[k] >= '0' && rule[k] <= '9' {
					k++
				}
				if k > j {
					n, _ := strconv.Atoi(rule[j:k])
					for _, d := range []int{-1, 1} {
						add(ShiftNumber, j, k-j, strconv.Itoa(n+d))
					}
				}
				i += len(f.was) - 1
				matched = true
				break
			}
		}
		if !matched && rule[i] == '!' {
			add(FlipRule, i, 1, "")
		}
	}
	return out
}

// skipCELString returns where the CEL string literal that begins at i
// ends (a raw one, r'…', has no escapes).
func skipCELString(rule string, i int) int {
	q := rule[i]
	raw := i > 0 && (rule[i-1] == 'r' || rule[i-1] == 'R')
	for j := i + 1; j < len(rule); j++ {
		if !raw && rule[j] == '\\' {
			j++
			continue
		}
		if rule[j] == q {
			return j
		}
	}
	return len(rule)
}

// ruleText is a piece of a rule as a report shows it: cut where a
// character may have been cut, and trimmed.
func ruleText(s string) string {
	return strings.TrimSpace(string(bytes.ToValidUTF8([]byte(s), nil)))
}

// OnLine is src with the marker mutant made on its line: it fails when
// the line is not the one the mutant was made from.
func (m Mutant) OnLine(src []byte) ([]byte, error) {
	lines := strings.Split(string(src), "\n")
	if m.Line < 1 || m.Line > len(lines) || lines[m.Line-1] != m.whole {
		return nil, fmt.Errorf("%s:%d is no longer the line the mutant %q was made from", m.File, m.Line, m.Name())
	}
	if strings.TrimSpace(m.mutated) == "//" {
		lines = append(lines[:m.Line-1], lines[m.Line:]...)
	} else {
		lines[m.Line-1] = m.mutated
	}
	return []byte(strings.Join(lines, "\n")), nil
}
