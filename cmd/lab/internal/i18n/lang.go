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

// Package i18n is the lab tool's two languages: which one a run speaks, and
// the text helpers that must know a Chinese character takes two columns.
//
// The lab tool speaks English or Chinese: Chinese when asked (--lang zh) or
// when the locale says so (LANG=zh_CN.UTF-8 and the like); English
// otherwise. Each message is written in both languages where it is printed,
// l.Tr("...", "..."), so that the two are read and changed together;
// TestEveryMessageHasBothLanguages (cmd/lab/main_test.go) holds every pair
// to the same format verbs, and stage.yaml carries each stage's title and
// hints in both.
//
// The language is a value that main chooses once and passes down to what
// prints, never a variable of a package: `lab check --json` speaks English
// whatever the locale, and a test can run both languages side by side.
//
// It is the floor of cmd/lab/internal: it imports none of the others.
package i18n

import (
	"os"
	"strings"
)

// Lang is the language of one run of the tool.
type Lang string

const (
	English Lang = "en"
	Chinese Lang = "zh"
)

// Tr is the message in l: en, or zh in Chinese.
func (l Lang) Tr(en, zh string) string {
	if l == Chinese {
		return zh
	}
	return en
}

// Choose takes --lang zh|en (or --lang=zh) out of args, wherever it is,
// and returns the language: the flag's, else the locale's (LC_ALL, then
// LC_MESSAGES, then LANG: the first that is set, as POSIX orders them),
// else English.
func Choose(args []string, getenv func(string) string) (Lang, []string, error) {
	var rest []string
	flag := ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--lang" || a == "-lang":
			if i+1 >= len(args) {
				return "", nil, Errorf("--lang needs a language: --lang zh or --lang en", "--lang 需要一种语言：--lang zh 或 --lang en")
			}
			flag = args[i+1]
			i++
		case strings.HasPrefix(a, "--lang=") || strings.HasPrefix(a, "-lang="):
			_, flag, _ = strings.Cut(a, "=")
		default:
			rest = append(rest, a)
		}
	}
	if flag != "" {
		switch l := strings.ToLower(flag); {
		case strings.HasPrefix(l, "zh"):
			return "zh", rest, nil
		case strings.HasPrefix(l, "en"):
			return "en", rest, nil
		}
		return "", nil, Errorf("unknown language %q: --lang zh (中文) or --lang en (English)", "不认识的语言 %q：--lang zh（中文）或 --lang en（English）", flag)
	}
	for _, name := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		if v := getenv(name); v != "" {
			if strings.HasPrefix(strings.ToLower(v), "zh") {
				return "zh", rest, nil
			}
			return "en", rest, nil
		}
	}
	return "en", rest, nil
}

// Cmd is a bin/lab command to suggest in l: as it is when the locale
// already speaks l, else with --lang, so that an attendee who chose the
// language with the flag (bin/lab --lang zh check) is shown commands that
// answer in it too.
func (l Lang) Cmd(cmd string) string {
	if locale, _, _ := Choose(nil, os.Getenv); locale != l {
		return cmd + " --lang " + string(l)
	}
	return cmd
}

// Width is how many columns a terminal gives s: two for a wide
// character (Chinese), one for the others.
func Width(s string) int {
	w := 0
	for _, r := range s {
		switch {
		case r >= 0x1100 && r <= 0x115F, r >= 0x2E80 && r <= 0xA4CF, r >= 0xAC00 && r <= 0xD7A3,
			r >= 0xF900 && r <= 0xFAFF, r >= 0xFE30 && r <= 0xFE4F, r >= 0xFF00 && r <= 0xFF60, r >= 0xFFE0 && r <= 0xFFE6:
			w += 2
		default:
			w++
		}
	}
	return w
}

// PadRight pads s with spaces to width columns, as %-*s does for text
// whose characters are one column each.
func PadRight(s string, width int) string {
	if pad := width - Width(s); pad > 0 {
		return s + strings.Repeat(" ", pad)
	}
	return s
}
