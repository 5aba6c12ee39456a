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
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
)

// verbs are a format string's verbs, in order: what Printf fills in.
var verbs = regexp.MustCompile(`%[-+# 0]*(\[[0-9]+\])?(\*|[0-9]+)?(\.[0-9]+)?[a-zA-Z%]`)

// byArgument is a format's verbs in the order of the arguments they take:
// the Chinese may put them in another order with explicit indexes (%[2]s),
// as Chinese sentences often must, and still take the same arguments.
func byArgument(format string) []string {
	taken := map[int]string{}
	next, last := 1, 0
	for _, v := range verbs.FindAllString(format, -1) {
		if v == "%%" {
			continue
		}
		if open := strings.Index(v, "["); open >= 0 {
			closing := strings.Index(v, "]")
			next, _ = strconv.Atoi(v[open+1 : closing])
			v = v[:open] + v[closing+1:]
		}
		taken[next] = v
		last = max(last, next)
		next++
	}
	out := make([]string, last)
	for i := range out {
		out[i] = taken[i+1]
	}
	return out
}

func TestByArgumentReadsExplicitIndexes(t *testing.T) {
	en := byArgument("the API server had deleted %s %s by event %d (%.0f%%)")
	zh := byArgument("API 服务器在第 %[3]d 个事件时已经删除了 %[1]s %[2]s（%[4].0f%%）")
	if !reflect.DeepEqual(en, zh) || !reflect.DeepEqual(en, []string{"%s", "%s", "%d", "%.0f"}) {
		t.Errorf("English %q, Chinese %q", en, zh)
	}
	if reflect.DeepEqual(byArgument("%s then %d"), byArgument("%[2]s 再 %[1]d")) {
		t.Error("verbs that take other arguments read as the same")
	}
}

// Every message the tool prints is written in both languages, and the two
// take the same arguments in the same order, or the Chinese would print
// %!d(string=...) where the English is right.
func TestEveryMessageHasBothLanguages(t *testing.T) {
	var files []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	pairs := 0
	for _, file := range files {
		f, err := parser.ParseFile(fset, file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if !isTr(call.Fun) {
				return true
			}
			where := fset.Position(call.Pos())
			if len(call.Args) < 2 || (len(call.Args) != 2 && !isErrorf(call.Fun)) {
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
			case !reflect.DeepEqual(byArgument(en), byArgument(zh)):
				t.Errorf("%s: the verbs differ: English %q, Chinese %q", where, byArgument(en), byArgument(zh))
			}
			return true
		})
	}
	t.Logf("%d messages in both languages, in %d files", pairs, len(files))
	if pairs < 100 {
		t.Errorf("only %d messages in both languages: the search is broken", pairs)
	}
}

// isTr tells whether fun is the tool's translation, Tr, called in its own
// package (i18n) or through a selector from another, or i18n.Errorf.
func isTr(fun ast.Expr) bool {
	switch f := fun.(type) {
	case *ast.Ident:
		return f.Name == "Tr"
	case *ast.SelectorExpr:
		return f.Sel.Name == "Tr" || isErrorf(fun)
	}
	return false
}

// isErrorf tells whether fun is i18n.Errorf, an error in both languages:
// its English and Chinese come first, then the values.
func isErrorf(fun ast.Expr) bool {
	f, ok := fun.(*ast.SelectorExpr)
	if !ok || f.Sel.Name != "Errorf" {
		return false
	}
	pkg, ok := f.X.(*ast.Ident)
	return ok && pkg.Name == "i18n"
}

// wide counts the wide (Chinese) characters of s.
func wide(s string) int { return i18n.Width(s) - len([]rune(s)) }

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
		case "reference":
			return reference, true
		case "referenceZh":
			return referenceZh, true
		case "devUsage":
			return devUsage, true
		case "devUsageZh":
			return devUsageZh, true
		case "devReference":
			return devReference, true
		case "devReferenceZh":
			return devReferenceZh, true
		}
	}
	return "", false
}

// Flags may come before or after the stage, as attendees type them; a flag
// the command does not know is refused, not ignored.
func TestEachCommandParsesItsOwnFlags(t *testing.T) {
	check, _ := commandNamed("check")
	for _, tc := range []struct {
		args     []string
		wantArgs []string
		verbose  bool
		json     bool
	}{
		{[]string{"04", "-v"}, []string{"04"}, true, false},
		{[]string{"-v", "04"}, []string{"04"}, true, false},
		{[]string{"--json", "04"}, []string{"04"}, false, true},
		{[]string{"--verbose"}, nil, true, false},
		{[]string{"04", "--", "-v"}, []string{"04", "-v"}, false, false},
	} {
		var c call
		fs := flag.NewFlagSet("lab check", flag.ContinueOnError)
		check.flags(fs, &c)
		args, err := parseInterspersed(fs, tc.args)
		if err != nil || !reflect.DeepEqual(args, tc.wantArgs) || c.verbose != tc.verbose || c.json != tc.json {
			t.Errorf("lab check %q: args %q, verbose %v, json %v, err %v; want %q, %v, %v",
				tc.args, args, c.verbose, c.json, err, tc.wantArgs, tc.verbose, tc.json)
		}
	}
	for _, name := range []string{"check", "list", "status"} {
		cmd, _ := commandNamed(name)
		var c call
		fs := flag.NewFlagSet("lab "+name, flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		if cmd.flags != nil {
			cmd.flags(fs, &c)
		}
		_, err := parseInterspersed(fs, []string{"04", "-x"})
		if err == nil || flagError(i18n.English, err) != "there is no flag -x" || flagError(i18n.Chinese, err) != "没有 -x 这个命令行参数" {
			t.Errorf("lab %s 04 -x: %v; want it refused", name, err)
		}
	}
}

// internal are the commands the tool starts itself: nobody types them, and
// no screen names them.
var startedByTheTool = map[string]bool{"dev verify-part": true, "serve-apiserver": true, "class-send": true}

// The references and the tables of commands agree: every command that an
// attendee, instructor or maintainer types has its paragraph, in both
// languages, the maintainers' in bin/lab help dev and not in bin/lab help
// all, and every paragraph is a command.
func TestTheReferenceNamesEveryCommand(t *testing.T) {
	for _, cmd := range append(append([]command{}, commands...), devCommands...) {
		for _, l := range []i18n.Lang{i18n.English, i18n.Chinese} {
			got := usageOf(l, cmd.word())
			if startedByTheTool[cmd.word()] != !strings.Contains(got, "  lab "+cmd.word()+" ") {
				t.Errorf("lab %s, %s: usage %q", cmd.word(), l, got)
			}
		}
	}
	for _, ref := range []struct {
		text string
		dev  bool
	}{{reference, false}, {referenceZh, false}, {devReference, true}, {devReferenceZh, true}} {
		for _, line := range strings.Split(ref.text, "\n") {
			if strings.HasPrefix(line, "  ") && !strings.HasPrefix(line, "   ") {
				cmd, ok := commandNamed(strings.Fields(line)[0])
				if ref.dev {
					cmd, ok = commandNamed("dev " + strings.Fields(line)[0])
				}
				if !ok || startedByTheTool[cmd.word()] {
					t.Errorf("a reference (dev: %v) has a paragraph for %q, which is no command of it", ref.dev, line)
				}
			}
		}
	}
	if len(devCommands) < 5 {
		t.Fatalf("%d maintainers' commands: the table is broken", len(devCommands))
	}
	for _, cmd := range devCommands {
		if !cmd.dev {
			t.Errorf("%s is in devCommands without dev: bin/lab dev %s would not find it", cmd.name, cmd.name)
		}
		if _, clash := commandNamed(cmd.name); clash {
			t.Errorf("%s is both an attendee's word and a maintainer's", cmd.name)
		}
	}
	for _, cmd := range commands {
		if cmd.dev {
			t.Errorf("%s is in the attendees' table with dev set", cmd.name)
		}
	}
}

// bin/lab with no command fits one screen, in both languages: a line for
// each command an attendee types, none for the instructors' (named once,
// in their topic's line, which bin/lab help <topic> opens) and none for
// the maintainers', whose last line points to bin/lab dev.
func TestTheUsageIsTheAttendeesScreen(t *testing.T) {
	others := map[string]string{}
	for topic, names := range topics {
		for _, name := range names {
			others[name] = topic
		}
	}
	for _, l := range []i18n.Lang{i18n.English, i18n.Chinese} {
		text, ok := help(l, nil)
		if !ok || text != l.Tr(usage, usageZh) {
			t.Fatalf("%s: bin/lab help is not the usage", l)
		}
		if n := strings.Count(text, "\n"); n > 30 {
			t.Errorf("%s: the usage is %d lines; one screen is 30", l, n)
		}
		lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
		if last := lines[len(lines)-1]; last != l.Tr("Maintainers: bin/lab dev (docs/maintaining.md).", "维护者：bin/lab dev（docs/maintaining.zh-CN.md）。") {
			t.Errorf("%s: the usage's last line is %q, not the one that points maintainers to bin/lab dev", l, last)
		}
		listed := map[string]bool{}
		for _, line := range lines {
			if strings.HasPrefix(line, "  ") && !strings.HasPrefix(line, "   ") {
				listed[strings.Fields(line)[0]] = true
			}
		}
		for _, cmd := range commands {
			switch topic, other := others[cmd.name]; {
			case startedByTheTool[cmd.word()]:
				if listed[cmd.name] || strings.Contains(text, " "+cmd.name+" ") {
					t.Errorf("%s: the usage names %s, which the tool runs itself", l, cmd.name)
				}
			case other:
				if listed[cmd.name] {
					t.Errorf("%s: the usage has a line for %s, a command of the %s topic", l, cmd.name, topic)
				}
				if !strings.Contains(text, "bin/lab help "+topic) || !strings.Contains(text, cmd.name) {
					t.Errorf("%s: the usage does not name %s and bin/lab help %s", l, cmd.name, topic)
				}
				got, ok := help(l, []string{topic})
				if !ok || !strings.Contains(got, "  lab "+cmd.name) {
					t.Errorf("%s: bin/lab help %s has no paragraph for %s: %q", l, topic, cmd.name, got)
				}
			default:
				if !listed[cmd.name] {
					t.Errorf("%s: the usage has no line for %s, which attendees type", l, cmd.name)
				}
			}
		}
		for _, cmd := range devCommands {
			if regexp.MustCompile(`\b` + cmd.name + `\b`).MatchString(text) {
				t.Errorf("%s: the usage names %s, a maintainer's command", l, cmd.name)
			}
		}
		if got, ok := help(l, []string{"check"}); !ok || got != usageOf(l, "check") {
			t.Errorf("%s: bin/lab help check: %q", l, got)
		}
		if got, ok := help(l, []string{"all"}); !ok || got != l.Tr(reference, referenceZh) {
			t.Errorf("%s: bin/lab help all is not the reference", l)
		}
		if _, ok := help(l, []string{"nosuch"}); ok {
			t.Errorf("%s: bin/lab help nosuch was taken", l)
		}
	}
}

// The maintainers' commands live under bin/lab dev: bin/lab dev lists
// them, bin/lab help dev (and maintainer, its name of before) has their
// paragraphs and bin/lab help all has none of them, and each word typed
// as before (bin/lab verify) is refused with its new form, exit status 2,
// in both languages.
func TestTheMaintainersCommandsLiveUnderDev(t *testing.T) {
	typed := []string{"sync", "verify", "mistakes", "mutants"}
	for _, l := range []i18n.Lang{i18n.English, i18n.Chinese} {
		var out, errs strings.Builder
		if _, _, status, ok := route(l, []string{"dev"}, &out, &errs); ok || status != 2 || out.Len() > 0 {
			t.Errorf("%s: bin/lab dev: ok %v, status %d, stdout %q; want its screen on stderr, status 2", l, ok, status, out.String())
		}
		screen := errs.String()
		if !strings.Contains(screen, l.Tr("docs/maintaining.md", "docs/maintaining.zh-CN.md")) ||
			!strings.Contains(screen, l.Tr("usage: bin/lab dev <command>", "用法：bin/lab dev <命令>")) {
			t.Errorf("%s: bin/lab dev's screen does not say how to use it nor point to the recipes:\n%s", l, screen)
		}
		if n := strings.Count(screen, "\n"); n > 15 {
			t.Errorf("%s: bin/lab dev's screen is %d lines; it is meant short", l, n)
		}
		for _, word := range []string{"-h", "help"} {
			out.Reset()
			if _, _, status, ok := route(l, []string{"dev", word}, &out, io.Discard); ok || status != 0 || out.String() != screen {
				t.Errorf("%s: bin/lab dev %s: status %d, stdout %q; want bin/lab dev's screen, status 0", l, word, status, out.String())
			}
		}
		devRef, ok := help(l, []string{"dev"})
		if !ok {
			t.Errorf("%s: bin/lab help dev was not taken", l)
		}
		if old, ok := help(l, []string{"maintainer"}); !ok || old != devRef {
			t.Errorf("%s: bin/lab help maintainer is not bin/lab help dev", l)
		}
		all, _ := help(l, []string{"all"})
		for _, name := range typed {
			if !regexp.MustCompile(`(?m)^  ` + name + `\b`).MatchString(screen) {
				t.Errorf("%s: bin/lab dev does not list %s:\n%s", l, name, screen)
			}
			if !strings.Contains(devRef, "\n  "+name+" ") {
				t.Errorf("%s: bin/lab help dev has no paragraph for %s", l, name)
			}
			if strings.Contains(all, "\n  "+name+" ") {
				t.Errorf("%s: bin/lab help all, the attendees' reference, has a paragraph for %s", l, name)
			}
			if got, ok := help(l, []string{"dev", name}); !ok || !strings.Contains(got, "  lab dev "+name) {
				t.Errorf("%s: bin/lab help dev %s: %q", l, name, got)
			}
			cmd, rest, status, ok := route(l, []string{"dev", name, "04"}, io.Discard, io.Discard)
			if !ok || cmd.word() != "dev "+name || !reflect.DeepEqual(rest, []string{"04"}) {
				t.Errorf("%s: bin/lab dev %s 04 runs %q with %q (status %d, ok %v)", l, name, cmd.word(), rest, status, ok)
			}
			out.Reset()
			errs.Reset()
			if _, _, status, ok := route(l, []string{name}, &out, &errs); ok || status != 2 || out.Len() > 0 {
				t.Errorf("%s: bin/lab %s: ok %v, status %d; want it refused with status 2", l, name, ok, status)
			}
			want := l.Tr("lab: "+name+" is a maintainer's command now: bin/lab dev "+name,
				"lab："+name+" 现在是维护者的命令：bin/lab dev "+name)
			if !strings.HasPrefix(errs.String(), want) {
				t.Errorf("%s: bin/lab %s said %q; want %q", l, name, errs.String(), want)
			}
		}
	}
	// An old script's arguments come along, as a shell would read them back.
	var errs strings.Builder
	route(i18n.English, []string{"mutants", "--guard", "--budget", "5m", "it's"}, io.Discard, &errs)
	if want := `bin/lab dev mutants --guard --budget 5m 'it'\''s'`; !strings.Contains(errs.String(), want) {
		t.Errorf("bin/lab mutants --guard ... said %q; want %q in it", errs.String(), want)
	}
	if _, _, status, ok := route(i18n.English, []string{"dev", "check"}, io.Discard, io.Discard); ok || status != 2 {
		t.Errorf("bin/lab dev check ran (status %d): check is an attendee's command", status)
	}
}

// englishOnly are the places where the tool prints English whatever the
// language, and why: what its maintainers and CI read, and the document
// that `lab check --json` writes for tools.
var englishOnly = map[string]string{
	"internal/verify":                       "lab dev verify, lab dev mistakes and lab dev mutants report to CI and the lab's maintainers",
	"internal/mutants":                      "generic mutants: lab dev mutants, for the maintainers",
	"hack/bench":                            "make bench-lab, for the maintainers",
	"hack/boardload":                        "make board-load: the class board's load and fault run, for the maintainers and CI",
	"hack/classrun":                         "make class-cluster: a class on one cluster, run and measured, for the maintainers and CI",
	"hack/tracepictures":                    "make trace-pictures and make verify-traces: the answers' pictures, for the maintainers and CI",
	"internal/apiserver/serve.go":           "the shared API server's own log, bin/lab-state/apiserver/log",
	"internal/traceview/svg.go":             "SVG markup; its words come from words.go, through l.Tr",
	"internal/traceview/flows.go":           "SVG markup, no words",
	"internal/traceview/page.go":            "HTML markup; its words come through l.Tr",
	"internal/stage/hint.go":                "errors in writing a stage.yaml: the maintainers'",
	"internal/stage/mistake.go":             "errors in writing a stage.yaml's catalogue: the maintainers'",
	"region %s is in stage %s and stage %s": "an error in writing stage.yaml: the maintainers'",
	"lab dev mutants --guard takes no stage: it checks what changed since the report": "lab dev mutants is the maintainers'",
	"usage: lab serve-apiserver DIR CRD-HASH":                                         "the tool starts its own server with it; nobody types it",
	"    bin/lab join http://%s %s --name %s\n":                                       "a command to type, with the placeholder in the run's language",
	"event: changed\ndata: {\"version\":%d}\n\n":                                      "the server-sent events protocol, read by the board's page",
	": still here\n\n": "a server-sent events comment that keeps the stream open",
	"    export KUBECONFIG=$PWD/%s.kubeconfig\n    bin/lab doctor\n    make run NAMESPACE=%s\n": "commands to type",
	"usage: lab class-send DIR":               "the tool starts its own sender with it; nobody types it",
	"could not run the check of stage %s: %w": "lab check --json: English whatever the locale (docs/lab-json.md)",
	"lab: could not save the result:":         "lab check --json: English whatever the locale (docs/lab-json.md)",
	"%s: the stub does not parse: %w":         "a bug of the tool's starters, for its maintainers",
	"%s: the stub does not format: %w":        "a bug of the tool's starters, for its maintainers",
	"\treturn %s\n":                           "Go code, written into a stub",
}

// codeWords are words of the tool's messages that are names, not English.
var codeWords = map[string]bool{"lab": true, "panic": true, "trace": true, "list": true}

// Every message the tool prints speaks the attendee's language: printed
// through l.Tr or made with i18n.Errorf, or in both languages at once (a
// commit message, the stub's TODO). This finds the ones written in English
// only, outside englishOnly.
func TestNoMessageIsInEnglishOnly(t *testing.T) {
	word := regexp.MustCompile(`[a-z]{3,}`)
	code := regexp.MustCompile("`[^`]*`|\\S*[./_-]\\S*")
	printers := map[string]bool{"fmt.Printf": true, "fmt.Println": true, "fmt.Print": true, "fmt.Fprintf": true,
		"fmt.Fprintln": true, "fmt.Fprint": true, "fmt.Errorf": true, "errors.New": true}
	found := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		for prefix := range englishOnly {
			if path == prefix || strings.HasPrefix(path, prefix+"/") {
				return nil
			}
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			pkg, ok := sel.X.(*ast.Ident)
			if !ok || !printers[pkg.Name+"."+sel.Sel.Name] {
				return true
			}
			for _, arg := range call.Args {
				s, ok := literal(arg)
				if !ok || wide(s) > 0 || englishOnly[s] != "" {
					continue
				}
				found++
				for _, w := range word.FindAllString(code.ReplaceAllString(verbs.ReplaceAllString(s, " "), " "), -1) {
					if !codeWords[w] {
						t.Errorf("%s: %q is printed in English only: write it with l.Tr(en, zh) or i18n.Errorf(en, zh, ...), or list it in englishOnly with the reason",
							fset.Position(call.Pos()), s)
						break
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found < 5 {
		t.Errorf("read only %d literal messages outside l.Tr: the search is broken", found)
	}
}

// The board's Chinese page names a spec as bin/lab check does, from the
// names file of its package in this clone.
func TestTheBoardNamesARealSpecInChinese(t *testing.T) {
	zh := chineseSpecNames(filepath.Join("..", ".."))
	got := zh("./internal/controller", "Stage 05: secondary resources › keeps a finished Job until the status on the API server records its end")
	if want := "第 05 阶段：二级资源 › 已结束的 Job 要留到 API 服务器上的状态记录了它的结束之后"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := zh("./internal/controller", "no such spec"); got != "" {
		t.Errorf("a spec without a twin: %q, want none", got)
	}
}
