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

// Command mdlinks checks that every relative link in the repository's
// Markdown resolves: to a file or directory that exists and, with a
// #fragment into a Markdown file, to one of its headings (GitHub's anchor
// for it). Links to the web are not followed: CI has no network, and they
// are not the ones a translation or a renamed file breaks. `make
// verify-links` runs it.
package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"unicode"

	"cronlab.dev/cronlab/hack/internal/markdown"
)

func main() {
	problems, n, err := check(".")
	if err != nil {
		fmt.Fprintln(os.Stderr, "mdlinks:", err)
		os.Exit(1)
	}
	for _, p := range problems {
		fmt.Fprintln(os.Stderr, p)
	}
	if len(problems) > 0 {
		fmt.Fprintf(os.Stderr, "mdlinks: %d of %d relative links do not resolve\n", len(problems), n)
		os.Exit(1)
	}
	fmt.Printf("all %d relative links in the Markdown files resolve\n", n)
}

// skipped are the trees that hold no documentation of this repository.
var skipped = map[string]bool{".git": true, "bin": true, "node_modules": true, "vendor": true}

// link is [text](target) or [text](target "title"); an image ![..](..) too.
var link = regexp.MustCompile(`\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)

// check returns the links that do not resolve, as file:line: problem, and
// how many relative links it read.
func check(dir string) (problems []string, n int, err error) {
	var files []string
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && skipped[d.Name()] {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".md") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	sort.Strings(files)
	anchors := map[string]map[string]bool{}
	for _, file := range files {
		raw, err := os.ReadFile(file)
		if err != nil {
			return nil, 0, err
		}
		for i, line := range markdown.Prose(string(raw), false) {
			for _, m := range link.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				n++
				if p := resolve(file, target, anchors); p != "" {
					rel, _ := filepath.Rel(dir, file)
					problems = append(problems, fmt.Sprintf("%s:%d: %s: %s", filepath.ToSlash(rel), i+1, target, p))
				}
			}
		}
	}
	return problems, n, nil
}

// resolve says what is wrong with a relative link from file, or "".
func resolve(file, target string, anchors map[string]map[string]bool) string {
	path, fragment, _ := strings.Cut(target, "#")
	path, _, _ = strings.Cut(path, "?")
	dest := file
	if path != "" {
		dest = filepath.Join(filepath.Dir(file), filepath.FromSlash(path))
		info, err := os.Stat(dest)
		if err != nil {
			return "no such file"
		}
		if info.IsDir() {
			if fragment != "" {
				return "a #fragment into a directory"
			}
			return ""
		}
	}
	if fragment == "" || !strings.HasSuffix(dest, ".md") {
		return ""
	}
	if anchors[dest] == nil {
		raw, err := os.ReadFile(dest)
		if err != nil {
			return err.Error()
		}
		anchors[dest] = headingAnchors(string(raw))
	}
	if !anchors[dest][strings.ToLower(fragment)] {
		return fmt.Sprintf("no heading of %s has the anchor #%s", filepath.ToSlash(dest), fragment)
	}
	return ""
}

// headingAnchors are the anchors GitHub gives a file's headings: lower
// case, spaces to hyphens, punctuation other than - and _ dropped (letters
// of every script kept), and -1, -2 ... after a repeated one.
func headingAnchors(text string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	for _, line := range markdown.Prose(text, true) {
		trimmed := strings.TrimLeft(line, "#")
		if !strings.HasPrefix(line, "#") || len(line)-len(trimmed) > 6 || !strings.HasPrefix(trimmed, " ") {
			continue
		}
		var b strings.Builder
		for _, r := range strings.ToLower(strings.TrimSpace(trimmed)) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
				b.WriteRune(r)
			}
		}
		anchor := b.String()
		if k := seen[anchor]; k > 0 {
			out[fmt.Sprintf("%s-%d", anchor, k)] = true
		} else {
			out[anchor] = true
		}
		seen[anchor]++
	}
	return out
}
