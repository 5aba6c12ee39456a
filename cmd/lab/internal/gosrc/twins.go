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

package gosrc

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// A Twin is a sentence a test writes in two languages, say.Both(en, zh,
// ...) (package test/say): the formats, before any value is put in.
type Twin struct{ En, Zh string }

// Twins are the sentences that the tests in folder dir write in two
// languages. A file that does not parse is skipped: its package would not
// have compiled, so none of its sentences was printed.
func Twins(dir string) []Twin {
	files, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
	var twins []Twin
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			continue
		}
		twins = append(twins, TwinsOf(file, src)...)
	}
	return twins
}

// TwinsOf are the sentences that one Go file, src, writes in two languages;
// none when it does not parse.
func TwinsOf(name string, src []byte) []Twin {
	f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.SkipObjectResolution)
	if err != nil {
		return nil
	}
	var twins []Twin
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) < 2 {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok || sel.Sel.Name != "Both" {
			return true
		}
		if pkg, ok := sel.X.(*ast.Ident); !ok || pkg.Name != "say" {
			return true
		}
		en, ok1 := stringLiteral(call.Args[0])
		zh, ok2 := stringLiteral(call.Args[1])
		if ok1 && ok2 {
			twins = append(twins, Twin{En: en, Zh: zh})
		}
		return true
	})
	return twins
}

// EnglishAlone are the twins of now whose English is not in was while
// their Chinese is: the English was rewritten and the Chinese left as it
// was, which no test can tell from a translation still true.
func EnglishAlone(was, now []Twin) []Twin {
	en, zh := map[string]bool{}, map[string]bool{}
	for _, t := range was {
		en[t.En], zh[t.Zh] = true, true
	}
	var alone []Twin
	for _, t := range now {
		if !en[t.En] && zh[t.Zh] {
			alone = append(alone, t)
		}
	}
	return alone
}

// English is what the tests said in msg, written in Chinese, in English:
// the English format of every twin whose Chinese one msg holds, one per
// line, its values left as verbs. Hints are tied to failures by English
// words (stage.yaml's `when`), and a test that runs for a Chinese attendee
// prints only the Chinese.
func English(msg string, twins []Twin) string {
	var said []string
	for _, t := range twins {
		if t.Zh == "" || !strings.Contains(msg, firstWords(t.Zh)) {
			continue
		}
		if formatPattern(t.Zh).MatchString(msg) {
			said = append(said, t.En)
		}
	}
	return strings.Join(said, "\n")
}

var verb = regexp.MustCompile(`%(\[\d+\])?[-+# 0]*(\d+|\*)?(\.(\d+|\*)?)?[a-zA-Z]`)

// formatPattern matches what fmt.Sprintf makes of format: its words as they
// are, any text where a value goes.
func formatPattern(format string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("(?s)")
	last := 0
	for _, at := range verb.FindAllStringIndex(format, -1) {
		b.WriteString(regexp.QuoteMeta(strings.ReplaceAll(format[last:at[0]], "%%", "%")))
		b.WriteString(".*?")
		last = at[1]
	}
	b.WriteString(regexp.QuoteMeta(strings.ReplaceAll(format[last:], "%%", "%")))
	return regexp.MustCompile(b.String())
}

// firstWords are a format's words before its first value: a cheap test
// before the pattern's.
func firstWords(format string) string {
	if at := verb.FindStringIndex(format); at != nil {
		return strings.ReplaceAll(format[:at[0]], "%%", "%")
	}
	return strings.ReplaceAll(format, "%%", "%")
}

// stringLiteral is the string a literal, or a sum of literals, holds.
func stringLiteral(e ast.Expr) (string, bool) {
	switch x := e.(type) {
	case *ast.BasicLit:
		if x.Kind == token.STRING {
			s, err := strconv.Unquote(x.Value)
			return s, err == nil
		}
	case *ast.BinaryExpr:
		if x.Op == token.ADD {
			a, ok1 := stringLiteral(x.X)
			b, ok2 := stringLiteral(x.Y)
			return a + b, ok1 && ok2
		}
	case *ast.ParenExpr:
		return stringLiteral(x.X)
	}
	return "", false
}
