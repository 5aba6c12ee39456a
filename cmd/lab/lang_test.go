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
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func TestChooseLang(t *testing.T) {
	for _, tc := range []struct {
		name     string
		args     []string
		env      map[string]string
		want     string
		wantRest []string
	}{
		{"nothing set: English", []string{"list"}, nil, "en", []string{"list"}},
		{"a Chinese LANG", []string{"list"}, map[string]string{"LANG": "zh_CN.UTF-8"}, "zh", []string{"list"}},
		{"Taiwan's locale is Chinese too", []string{"list"}, map[string]string{"LANG": "zh_TW.UTF-8"}, "zh", []string{"list"}},
		{"LC_ALL wins over LANG", []string{"list"}, map[string]string{"LC_ALL": "C", "LANG": "zh_CN.UTF-8"}, "en", []string{"list"}},
		{"LC_MESSAGES wins over LANG", []string{"list"}, map[string]string{"LC_MESSAGES": "zh_CN.UTF-8", "LANG": "en_US.UTF-8"}, "zh", []string{"list"}},
		{"the flag wins over the locale", []string{"check", "--lang", "en", "05"}, map[string]string{"LANG": "zh_CN.UTF-8"}, "en", []string{"check", "05"}},
		{"the flag before the command", []string{"--lang", "zh", "start", "05"}, nil, "zh", []string{"start", "05"}},
		{"the flag with =", []string{"check", "--lang=zh-CN"}, nil, "zh", []string{"check"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, rest, err := chooseLang(tc.args, func(k string) string { return tc.env[k] })
			if err != nil || got != tc.want || !reflect.DeepEqual(rest, tc.wantRest) {
				t.Errorf("chooseLang(%q) = %q, %q, %v; want %q, %q", tc.args, got, rest, err, tc.want, tc.wantRest)
			}
		})
	}
	for _, args := range [][]string{{"list", "--lang"}, {"list", "--lang", "fr"}} {
		if _, _, err := chooseLang(args, func(string) string { return "" }); err == nil {
			t.Errorf("chooseLang(%q): want an error that names the languages", args)
		}
	}
}

// verbs are a format string's verbs, in order: what Printf fills in.
var verbs = regexp.MustCompile(`%[-+# 0]*(\*|[0-9]+)?(\.[0-9]+)?[a-zA-Z%]`)

// Every message the tool prints is written in both languages, and the two
// take the same arguments in the same order, or the Chinese would print
// %!d(string=...) where the English is right.
func TestEveryMessageHasBothLanguages(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	pairs := 0
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if id, ok := call.Fun.(*ast.Ident); !ok || id.Name != "tr" {
				return true
			}
			where := fset.Position(call.Pos())
			if len(call.Args) != 2 {
				t.Errorf("%s: tr takes the English and the Chinese", where)
				return true
			}
			en, ok1 := literal(call.Args[0])
			zh, ok2 := literal(call.Args[1])
			if !ok1 || !ok2 {
				t.Errorf("%s: tr's arguments must be string literals, so that both can be read here", where)
				return true
			}
			pairs++
			switch {
			case strings.TrimSpace(zh) == "" && strings.TrimSpace(en) != "":
				t.Errorf("%s: no Chinese for %q", where, en)
			case wide(en) > wide(zh):
				t.Errorf("%s: the English argument has more Chinese in it than the Chinese (the two swapped?): %.60q", where, en)
			case !reflect.DeepEqual(verbs.FindAllString(en, -1), verbs.FindAllString(zh, -1)):
				t.Errorf("%s: the verbs differ: English %q, Chinese %q", where, verbs.FindAllString(en, -1), verbs.FindAllString(zh, -1))
			}
			return true
		})
	}
	if pairs < 100 {
		t.Errorf("only %d messages in both languages: the search is broken", pairs)
	}
}

// wide counts the wide (Chinese) characters of s.
func wide(s string) int { return displayWidth(s) - len([]rune(s)) }

// literal evaluates a string literal, or a concatenation of them.
func literal(e ast.Expr) (string, bool) {
	switch x := e.(type) {
	case *ast.BasicLit:
		if x.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(x.Value)
		return s, err == nil
	case *ast.BinaryExpr:
		a, ok1 := literal(x.X)
		b, ok2 := literal(x.Y)
		return a + b, ok1 && ok2 && x.Op == token.ADD
	case *ast.Ident: // the usage text, a constant of this package
		switch x.Name {
		case "usage":
			return usage, true
		case "usageZh":
			return usageZh, true
		}
	}
	return "", false
}

// A stage's title and every hint are in both languages: an attendee who
// reads Chinese never meets a hint that only exists in English.
func TestEveryStageSpeaksBothLanguages(t *testing.T) {
	stages, err := loadStages(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range stages {
		if strings.TrimSpace(s.TitleZh) == "" {
			t.Errorf("%s/stage.yaml has no titleZh", s.Dir)
		}
		for _, h := range s.Hints {
			if strings.TrimSpace(h.Zh) == "" {
				t.Errorf("%s/stage.yaml: hint %s has no zh", s.Dir, h.ID)
			}
		}
	}
}

func TestWrapBreaksChineseBetweenCharacters(t *testing.T) {
	text := "每次保存本阶段的文件时重新检查，结果显示在同一屏上，并且带有进度条；按回车键可以手动重新检查。"
	got := wrap(text, 20)
	lines := strings.Split(got, "\n")
	if len(lines) < 5 {
		t.Fatalf("one long line was not broken:\n%s", got)
	}
	for _, line := range lines {
		if displayWidth(line) > 22 { // a closing mark may end a full line
			t.Errorf("line %q is %d columns wide, want at most 20 (+2 for a closing mark)", line, displayWidth(line))
		}
		if strings.HasPrefix(line, "，") || strings.HasPrefix(line, "。") || strings.HasPrefix(line, "；") {
			t.Errorf("line %q starts with punctuation", line)
		}
	}
	if got := wrap("先写 JobName；然后是 buildJob（SetControllerReference）", 26); !strings.Contains(got, "\n（") {
		t.Errorf("an opening parenthesis ends a line:\n%s", got)
	}
	if strings.Join(lines, "") != text {
		t.Errorf("wrapping changed the text:\n%s", got)
	}
	if got := wrap("use `bin/lab check` 检查你的代码", 200); got != "use `bin/lab check` 检查你的代码" {
		t.Errorf("spaces between English words and Chinese were lost: %q", got)
	}
}
