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

package report

import (
	"fmt"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strings"

	"cronlab.dev/cronlab/cmd/lab/internal/base"
	"cronlab.dev/cronlab/cmd/lab/internal/gotest"
	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
	"cronlab.dev/cronlab/cmd/lab/internal/regions"
)

// Counts is a package's result in a line; its numbers are what --json and
// the class board count (gotest.Results.Counts).
func Counts(l i18n.Lang, r gotest.Results) string {
	passed, counted := r.Counts()
	switch {
	case len(r.Stubbed) > 0 && r.Passed+r.Failed == 0:
		return fmt.Sprintf(l.Tr("%s does not compile; with it stubbed, no test ran: the setup failed", "%s 无法编译；把它换成桩之后，没有测试运行：准备步骤失败了"), StubbedNames(r.Stubbed))
	case len(r.Stubbed) > 0:
		what := StubbedFunctions(r.Stubbed) + l.Tr(" does not compile", " 无法编译")
		if StubbedFunctions(r.Stubbed) == "" {
			what = l.Tr("an import is not used", "有一个导入没有被使用")
		}
		return fmt.Sprintf(l.Tr("%s; the rest: %d of %d passed", "%s；其余部分：%d / %d 通过"), what, passed, counted)
	case len(r.BuildErrors) > 0:
		return l.Tr("does not compile", "无法编译")
	case r.Passed+r.Failed == 0 && len(r.Failures) > 0:
		return l.Tr("no test ran: the setup failed", "没有测试运行：准备步骤失败了")
	}
	return fmt.Sprintf(l.Tr("%d of %d passed", "%d / %d 通过"), passed, counted)
}

// Explain prints why a package failed: compile errors, or each failure
// with its place, values or panic.
func Explain(l i18n.Lang, r gotest.Results, err error) {
	switch {
	case len(r.Stubbed) > 0:
		explainStubbed(l, r, err)
	case len(r.Markers) > 0:
		explainMarkers(l, r)
	case len(r.BuildErrors) > 0:
		explainBuildErrors(l, r)
	default:
		explainFailures(l, r, err)
	}
}

// explainStubbed explains a package whose broken functions were stubbed so
// that the rest could run: what does not compile, then the rest.
func explainStubbed(l i18n.Lang, r gotest.Results, err error) {
	var fns, imports []gotest.CompileError
	for _, c := range r.Stubbed {
		if c.Function == gotest.UnusedImportName {
			imports = append(imports, c)
		} else {
			fns = append(fns, c)
		}
	}
	if len(fns) > 0 {
		fmt.Println(l.Tr("       Does not compile:", "       无法编译："))
		for _, c := range fns {
			fmt.Printf("         %s   %s:%d: %s\n", c.Function, c.File, c.Line, strings.ReplaceAll(c.Message, "\n", "\n           "))
		}
		explainImports(l, fns)
	}
	if len(imports) > 0 {
		fmt.Println(l.Tr("       Imported and not used (Go refuses it): delete these, or let goimports or your editor do it:",
			"       导入了却没有使用（Go 不允许）：删掉它们，或者交给 goimports 或你的编辑器处理："))
		for _, c := range imports {
			fmt.Printf("         %s:%d: %s\n", c.File, c.Line, c.Message)
		}
	}
	if len(fns) > 0 {
		fmt.Printf(l.Tr("       The rest, checked with %s replaced by its stub (its own specs fail with it, and those of the functions that call it may too):\n",
			"       其余部分，在把 %s 换成桩之后检查（它自己的测试用例会因此失败，调用它的函数的测试用例也可能失败）：\n"), StubbedFunctions(fns))
	} else {
		fmt.Println(l.Tr("       The rest, checked without those imports:", "       其余部分，去掉这些导入之后检查："))
	}
	r.Stubbed, r.BuildErrors = nil, nil
	if len(r.Failures) > 0 {
		Explain(l, r, err)
	}
}

// explainMarkers explains the conflict markers a carry left in the code.
func explainMarkers(l i18n.Lang, r gotest.Results) {
	fmt.Println(l.Tr("       Merge conflict markers are still in the code (the compiler calls them a syntax error):",
		"       代码中还有合并冲突标记（编译器把它们报告为语法错误）："))
	for _, where := range MarkerLines(r.Markers) {
		fmt.Printf("         %s\n", where)
	}
	fmt.Println(l.Tr("       A merge left them where two sides changed the same lines: between <<<<<<< and ======= is one\n"+
		"       side (your code, when bin/lab start merged), between ======= and >>>>>>> the other (the starter).\n"+
		"       Keep what you mean and delete the three marker lines; git diff shows them.",
		"       合并时两边改动了同一些行，就会留下这些标记：<<<<<<< 与 ======= 之间是一边（bin/lab start 合并时\n"+
			"       是你的代码），======= 与 >>>>>>> 之间是另一边（起始代码）。\n"+
			"       保留你想要的内容，删掉三行标记；git diff 可以看到它们。"))
}

// explainBuildErrors explains code that does not compile and could not be
// stubbed.
func explainBuildErrors(l i18n.Lang, r gotest.Results) {
	// Each message with the function it is in: the stage asks for
	// functions, and which one does not compile is what matters.
	fmt.Println(l.Tr("       The code does not compile:", "       代码无法编译："))
	var lines []string
	for _, e := range r.BuildErrors {
		if c := gotest.PlaceCompileError(".", e); c.Function != "" {
			first, rest, _ := strings.Cut(e, "\n")
			e = strings.TrimSuffix(first+l.Tr("   (in ", "   （在 ")+c.Function+l.Tr(")", " 中）")+"\n"+rest, "\n")
		}
		lines = append(lines, e)
	}
	fmt.Println(i18n.Indent(i18n.LimitLines(l, strings.Join(lines, "\n"), 15), "         "))
	var placed []gotest.CompileError
	for _, e := range r.BuildErrors {
		placed = append(placed, gotest.PlaceCompileError(".", e))
	}
	explainImports(l, placed)
	if r.NoRest != "" {
		fmt.Println(i18n.Indent(i18n.Wrap(l.Tr("The other functions were not checked: ", "其他函数没有检查：")+r.NoRest+l.Tr(".", "。"), 90), "       "))
	}
}

// explainFailures shows go vet's findings and each failing test or spec.
func explainFailures(l i18n.Lang, r gotest.Results, err error) {
	if len(r.VetErrors) > 0 {
		fmt.Println(l.Tr("       go vet (which go test runs first) found:", "       go vet（go test 会先运行它）发现："))
		fmt.Println(i18n.Indent(i18n.LimitLines(l, strings.Join(r.VetErrors, "\n"), 15), "         "))
	}
	if len(r.Failures) == 0 {
		if len(r.VetErrors) == 0 {
			fmt.Println(i18n.Indent(err.Error(), "       "))
		}
		return
	}
	for i, f := range r.Failures {
		if i == 5 {
			fmt.Printf(l.Tr("       ... and %d more failing:\n", "       ……另有 %d 个未通过：\n"), len(r.Failures)-i)
			for _, g := range r.Failures[i:] {
				fmt.Printf("         %s\n", g.NameIn(l))
			}
			break
		}
		ShowFailure(l, f, "       ")
	}
}

// MarkerLines groups conflict markers (file:line) by file: "f.go lines 3, 5, 9".
func MarkerLines(markers []string) []string {
	var files []string
	lines := map[string][]string{}
	for _, m := range markers {
		file, line, _ := strings.Cut(m, ":")
		if _, ok := lines[file]; !ok {
			files = append(files, file)
		}
		lines[file] = append(lines[file], line)
	}
	var out []string
	for _, f := range files {
		out = append(out, f+" lines "+strings.Join(lines[f], ", "))
	}
	return out
}

// explainImports says which imports a starter dropped that the code now
// written needs: the compiler only says "undefined: kbatchv1".
func explainImports(l i18n.Lang, cs []gotest.CompileError) {
	seen := map[string]bool{}
	for _, c := range cs {
		imp := droppedImport(".", c.File, c.Message)
		if imp == "" || seen[c.File+imp] {
			continue
		}
		seen[c.File+imp] = true
		fmt.Printf(l.Tr("       %s needs the import %s: the starter left out the imports that only the code you write\n"+
			"       uses. Add it to the file's import block (goimports, or your editor on save, does it for you).\n",
			"       %s 需要导入 %s：起始代码去掉了只有你要写的代码才用到的导入。\n"+
				"       把它加到文件的 import 块中（goimports 或保存时的编辑器会替你加上）。\n"), c.File, imp)
	}
}

// ShowFailure prints a failure for `lab check`, indented.
func ShowFailure(l i18n.Lang, f gotest.Failure, indent string) {
	fmt.Printf(l.Tr("%sFAIL %s\n", "%s失败 %s\n"), indent, f.NameIn(l))
	in := indent + "     "
	if f.Panic != "" {
		fmt.Printf("%spanic: %s\n", in, f.Panic)
		for i, frame := range f.Frames {
			if i == 6 {
				fmt.Printf(l.Tr("%s  ... %d more frames (run with -v)\n", "%s  ……另有 %d 个栈帧（加 -v 运行可以看到）\n"), in, len(f.Frames)-i)
				break
			}
			// The frame's mark (gotest.Frames) is data in English; the
			// screen says it in the tool's language.
			frame = strings.Replace(frame, "  <- your code", l.Tr("  <- your code", "  <- 你的代码"), 1)
			fmt.Printf(l.Tr("%s  at %s\n", "%s  位于 %s\n"), in, frame)
		}
		if f.Location != "" {
			fmt.Printf(l.Tr("%sin the spec at %s\n", "%s所在测试用例：%s\n"), in, f.Location)
		}
		return
	}
	if f.Location != "" && f.Location != ":0" {
		fmt.Printf(l.Tr("%sat %s\n", "%s位置：%s\n"), in, f.Location)
	}
	if f.Message != "" {
		msg := f.Message
		if l == i18n.Chinese {
			msg = gomegaInChinese(msg)
		}
		fmt.Println(i18n.Indent(i18n.LimitLines(l, shortenDumps(l, msg, 20), 30), in))
	}
	showTrace(l, f, in)
}

// showTrace points to the trace the spec recorded, says what it shows,
// and where its picture is.
func showTrace(l i18n.Lang, f gotest.Failure, in string) {
	if f.Trace == "" {
		return
	}
	fmt.Println(i18n.Indent(i18n.Wrap(fmt.Sprintf(l.Tr("the trace of this run: %s", "这次运行的追踪记录：%s"), f.TraceSaid), 100), in))
	if f.TracePage != "" {
		fmt.Printf(l.Tr("%s  open %s in a browser to see it, or: bin/lab trace %s\n",
			"%s  在浏览器中打开 %s 查看，或者运行：bin/lab trace %s\n"), in, f.TracePage, f.Trace)
	}
}

// shortenDumps keeps what an assertion says and shortens what it dumps.
// Gomega writes its words at the message's own indentation ("Expected",
// "to consist of", "the extra elements were"), each value four spaces in,
// and a value's fields deeper still, where one object can take forty
// lines: of each run of deeper lines it keeps the first two. A message of
// at most keep lines is left whole.
func shortenDumps(l i18n.Lang, msg string, keep int) string {
	lines := strings.Split(msg, "\n")
	if len(lines) <= keep {
		return msg
	}
	base := -1
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			if n := len(l) - len(strings.TrimLeft(l, " \t")); base < 0 || n < base {
				base = n
			}
		}
	}
	deep := func(l string) bool {
		return strings.TrimSpace(l) != "" && len(l)-len(strings.TrimLeft(l, " \t")) > base+4
	}
	var out []string
	for i := 0; i < len(lines); {
		if !deep(lines[i]) {
			out = append(out, lines[i])
			i++
			continue
		}
		j := i
		for j < len(lines) && deep(lines[j]) {
			j++
		}
		// The first two lines, and every line that names an object (its
		// kind, name, namespace): which object differs is what the
		// attendee looks for first.
		kept := 0
		for k := i; k < j; k++ {
			if k < i+2 || namesAnObject.MatchString(lines[k]) {
				out = append(out, lines[k])
				kept++
			}
		}
		if j-i > kept {
			pad := lines[i][:len(lines[i])-len(strings.TrimLeft(lines[i], " \t"))]
			out = append(out, fmt.Sprintf(l.Tr("%s... %d more lines of this value (bin/lab check -v shows them)", "%s……这个值还有 %d 行（bin/lab check -v 可以看到）"), pad, j-i-kept))
		}
		i = j
	}
	return strings.Join(out, "\n")
}

// namesAnObject is a line of a Gomega dump that names an object: a field
// Kind, Name, GenerateName or Namespace with its value.
var namesAnObject = regexp.MustCompile(`^\s*(Kind|Name|GenerateName|Namespace): "`)

// undefinedName is the compiler's "undefined: name".
var undefinedName = regexp.MustCompile(`undefined: (\w+)$`)

// droppedImport explains an "undefined: kbatchv1" in a file of the stage:
// a starter drops the imports that only the stubbed code used, so code
// written into it needs them back. It returns the import line the
// reference has for that name, or "" when the name is no import there.
func droppedImport(root, file, message string) string {
	m := undefinedName.FindStringSubmatch(message)
	if m == nil {
		return ""
	}
	ref, err := base.ReferenceCommit(root)
	if err != nil {
		return ""
	}
	src, err := base.Output(root, "git", "show", ref+":"+filepath.ToSlash(file))
	if err != nil {
		return ""
	}
	f, err := parser.ParseFile(token.NewFileSet(), file, src, parser.ImportsOnly)
	if err != nil {
		return ""
	}
	for _, imp := range f.Imports {
		if regions.ImportName(imp) != m[1] {
			continue
		}
		if imp.Name != nil {
			return imp.Name.Name + " " + imp.Path.Value
		}
		return imp.Path.Value
	}
	return ""
}

// StubbedNames names what did not compile: the functions, and "an unused
// import" when one was dropped.
func StubbedNames(cs []gotest.CompileError) string {
	seen := map[string]bool{}
	var names []string
	for _, c := range cs {
		if !seen[c.Function] {
			seen[c.Function] = true
			names = append(names, c.Function)
		}
	}
	return strings.Join(names, ", ")
}

// StubbedFunctions names the functions among cs, without unused imports.
func StubbedFunctions(cs []gotest.CompileError) string {
	var fns []gotest.CompileError
	for _, c := range cs {
		if c.Function != gotest.UnusedImportName {
			fns = append(fns, c)
		}
	}
	return StubbedNames(fns)
}
