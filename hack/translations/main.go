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

// Command translations keeps the Chinese edition in step with the English.
//
// Every Markdown file an attendee or instructor reads has a Chinese twin
// beside it: X.md and X.zh-CN.md. The twin's first line records which
// version of its English source it translates, as the source's git blob
// hash (what `git hash-object X.md` prints):
//
//	<!-- translation of README.md @ 3b18e512dba79e4c8300dd08aeb37f8e728b8dad -->
//
// `make verify-translations` runs it with no arguments: it fails when an
// English source changed after its translation was written (and shows, word
// by word, what changed in the English since), when a twin is missing, and
// when a translation has no source or no header, and when a translation or
// a stage.yaml uses a variant of a term that the glossary rules out. After updating a
// translation, `make translation-stamp FILES=docs/x.zh-CN.md` records the
// source's current version in its header (-stamp).
package main

import (
	"bytes"
	"crypto/sha1"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"cronlab.dev/cronlab/hack/internal/markdown"
)

// suffix marks a Chinese twin: docs/workshop.md -> docs/workshop.zh-CN.md.
const suffix = ".zh-CN.md"

// englishOnly are the Markdown files that need no twin, and why. Any other
// English Markdown file under the checked roots must have one.
var englishOnly = map[string]string{
	"docs/performance.md": "measurements for the maintainers (the issue allows it)",
	"docs/reliability.md": "fault-injection method and measurements for the maintainers",
	"docs/lab-json.md":    "the JSON shape of bin/lab check --json, for instructors' tools",
	"exercises/README.md": "how stages are made from the reference, for the lab's maintainers",
	"docs/bench/":         "benchmark records, generated",
}

// originals are Chinese files that translate nothing.
var originals = map[string]bool{
	"docs/glossary.zh-CN.md": true,
}

// roots are where the edition lives: the Markdown files at the top (the
// README) and these trees.
var roots = []string{"docs", "exercises"}

// avoid are the variants the glossary rules out, each with the term to use:
// one translation per term, everywhere (docs/glossary.zh-CN.md).
var avoid = map[string]string{
	"调谐":   "调和",
	"命名空间": "名字空间",
	"所有者":  "属主",
	"垃圾回收": "垃圾收集",
	"定制资源": "自定义资源",
	"次级资源": "二级资源",
	"控制循环": "控制回路",
	"选主":   "领导者选举",
	"转化":   "转换",
	"终结器":  "Finalizer",
	"监听":   "监视（watch）",
	"您":    "你",
}

var header = regexp.MustCompile(`^<!-- translation of (\S+) @ ([0-9a-f]{40}) -->\n`)

func main() {
	stamp := flag.Bool("stamp", false, "record the current version of each given translation's source in its header")
	flag.Parse()
	var err error
	if *stamp {
		err = stampFiles(".", flag.Args())
	} else if problems := check("."); len(problems) > 0 {
		for _, p := range problems {
			fmt.Fprintln(os.Stderr, p)
		}
		err = fmt.Errorf("%d problem(s) with the Chinese edition (translation workflow: docs/glossary.zh-CN.md)", len(problems))
	} else {
		fmt.Println("every translation is there and up to date with its English source")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "translations:", err)
		os.Exit(1)
	}
}

// blobHash is git's name for a file's content: sha1("blob <size>\0" +
// content), with Windows line ends read as git stores them (core.autocrlf).
func blobHash(content []byte) string {
	content = bytes.ReplaceAll(content, []byte("\r\n"), []byte("\n"))
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(content))
	h.Write(content)
	return fmt.Sprintf("%x", h.Sum(nil))
}

func twinOf(english string) string { return strings.TrimSuffix(english, ".md") + suffix }

func sourceOf(twin string) string { return strings.TrimSuffix(twin, suffix) + ".md" }

func isEnglishOnly(path string) bool {
	for p := range englishOnly {
		if path == p || (strings.HasSuffix(p, "/") && strings.HasPrefix(path, p)) {
			return true
		}
	}
	return false
}

// markdownFiles lists the Markdown files under the roots, slash-separated and
// relative to dir.
func markdownFiles(dir string) ([]string, error) {
	top, err := filepath.Glob(filepath.Join(dir, "*.md"))
	if err != nil {
		return nil, err
	}
	var files []string
	for _, f := range top {
		files = append(files, filepath.Base(f))
	}
	for _, root := range roots {
		if _, err := os.Stat(filepath.Join(dir, root)); os.IsNotExist(err) {
			continue
		}
		err := filepath.WalkDir(filepath.Join(dir, root), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && strings.HasSuffix(path, ".md") {
				rel, _ := filepath.Rel(dir, path)
				files = append(files, filepath.ToSlash(rel))
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	sort.Strings(files)
	return files, nil
}

// check returns every problem, each saying what to do.
func check(dir string) []string {
	files, err := markdownFiles(dir)
	if err != nil {
		return []string{err.Error()}
	}
	exists := map[string]bool{}
	for _, f := range files {
		exists[f] = true
	}
	var problems []string
	for _, f := range files {
		switch {
		case originals[f]:
		case strings.HasSuffix(f, suffix):
			problems = append(problems, checkTwin(dir, f, exists)...)
			problems = append(problems, checkTerms(dir, f)...)
		case isEnglishOnly(f):
		case !exists[twinOf(f)]:
			problems = append(problems, fmt.Sprintf("%s has no Chinese twin: write %s (its first line: %s), or, if it is not for attendees or instructors, add it to englishOnly in hack/translations with the reason",
				f, twinOf(f), headerLine(f, "<hash>")))
		}
	}
	stages, _ := filepath.Glob(filepath.Join(dir, "exercises", "*", "stage.yaml"))
	for _, f := range stages {
		rel, _ := filepath.Rel(dir, f)
		problems = append(problems, checkTerms(dir, filepath.ToSlash(rel))...)
	}
	return problems
}

// checkTerms finds, outside code, the variants the glossary rules out.
func checkTerms(dir, file string) []string {
	raw, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		return []string{err.Error()}
	}
	words := make([]string, 0, len(avoid))
	for w := range avoid {
		words = append(words, w)
	}
	sort.Strings(words)
	var problems []string
	for i, line := range markdown.Prose(string(raw), false) {
		for _, w := range words {
			if strings.Contains(line, w) {
				problems = append(problems, fmt.Sprintf("%s:%d: %s: the glossary uses %s (docs/glossary.zh-CN.md)", file, i+1, w, avoid[w]))
			}
		}
	}
	return problems
}

func headerLine(source, hash string) string {
	return fmt.Sprintf("<!-- translation of %s @ %s -->", source, hash)
}

func checkTwin(dir, twin string, exists map[string]bool) []string {
	source := sourceOf(twin)
	if !exists[source] {
		return []string{fmt.Sprintf("%s translates %s, which does not exist: rename or delete the translation with its source", twin, source)}
	}
	raw, err := os.ReadFile(filepath.Join(dir, twin))
	if err != nil {
		return []string{err.Error()}
	}
	m := header.FindSubmatch(raw)
	if m == nil {
		return []string{fmt.Sprintf("%s does not start with the line that says which version of %s it translates: run make translation-stamp FILES=%s once it is up to date", twin, source, twin)}
	}
	if string(m[1]) != source {
		return []string{fmt.Sprintf("%s says it translates %s, but its source is %s: correct the first line", twin, m[1], source)}
	}
	english, err := os.ReadFile(filepath.Join(dir, source))
	if err != nil {
		return []string{err.Error()}
	}
	was, now := string(m[2]), blobHash(english)
	if was == now {
		return nil
	}
	return []string{fmt.Sprintf("%s is out of date: %s changed since it was translated (%.8s, now %.8s). Bring these changes into the translation, then run make translation-stamp FILES=%s\n%s",
		twin, source, was, now, twin, changes(dir, was, english))}
}

// changes shows what changed in the English since the translated version,
// word by word, from git's copy of that version.
func changes(dir, was string, now []byte) string {
	old, err := exec.Command("git", "-C", dir, "cat-file", "blob", was).Output()
	if err != nil {
		return fmt.Sprintf("  (the translated version %.8s is not in this clone's history; git log -p on the source shows its changes)", was)
	}
	tmp, err := os.MkdirTemp("", "translations-*")
	if err != nil {
		return "  (" + err.Error() + ")"
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	a, b := filepath.Join(tmp, "translated"), filepath.Join(tmp, "now")
	if os.WriteFile(a, old, 0o644) != nil || os.WriteFile(b, now, 0o644) != nil {
		return "  (could not write the versions to compare)"
	}
	// --no-index compares two files outside any repository; it exits 1
	// when they differ, which is expected here.
	out, _ := exec.Command("git", "diff", "--no-index", "--no-color", "--word-diff=plain", "--unified=1", a, b).Output()
	var lines []string
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "diff ") || strings.HasPrefix(line, "index ") ||
			strings.HasPrefix(line, "--- ") || strings.HasPrefix(line, "+++ ") {
			continue
		}
		lines = append(lines, "  "+line)
	}
	return strings.TrimRight(strings.Join(lines, "\n"), " \n")
}

// stampFiles writes, as each translation's first line, the version of its
// source as it is now.
func stampFiles(dir string, twins []string) error {
	if len(twins) == 0 {
		return fmt.Errorf("name the translations to stamp (FILES=docs/x.zh-CN.md): stamp a file only once it translates its source as it is now")
	}
	for _, twin := range twins {
		twin = filepath.ToSlash(twin)
		if !strings.HasSuffix(twin, suffix) {
			return fmt.Errorf("%s is not a translation (*%s)", twin, suffix)
		}
		source := sourceOf(twin)
		english, err := os.ReadFile(filepath.Join(dir, source))
		if err != nil {
			return fmt.Errorf("%s: its source: %w", twin, err)
		}
		raw, err := os.ReadFile(filepath.Join(dir, twin))
		if err != nil {
			return err
		}
		raw = header.ReplaceAll(raw, nil)
		line := headerLine(source, blobHash(english)) + "\n"
		if err := os.WriteFile(filepath.Join(dir, twin), append([]byte(line), bytes.TrimLeft(raw, "\n")...), 0o644); err != nil {
			return err
		}
		fmt.Printf("%s now translates %s as it is (%.8s)\n", twin, source, blobHash(english))
	}
	return nil
}
