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

package i18n

import (
	"reflect"
	"testing"
)

func TestChooseLang(t *testing.T) {
	for _, tc := range []struct {
		name     string
		args     []string
		env      map[string]string
		want     Lang
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
			got, rest, err := Choose(tc.args, func(k string) string { return tc.env[k] })
			if err != nil || got != tc.want || !reflect.DeepEqual(rest, tc.wantRest) {
				t.Errorf("chooseLang(%q) = %q, %q, %v; want %q, %q", tc.args, got, rest, err, tc.want, tc.wantRest)
			}
		})
	}
	for _, args := range [][]string{{"list", "--lang"}, {"list", "--lang", "fr"}} {
		if _, _, err := Choose(args, func(string) string { return "" }); err == nil {
			t.Errorf("chooseLang(%q): want an error that names the languages", args)
		}
	}
}

// A command the tool suggests carries --lang when the locale alone would
// answer in the other language: chosen by the flag, the language stays.
func TestASuggestedCommandKeepsTheLanguageTheFlagChose(t *testing.T) {
	t.Setenv("LC_ALL", "")
	t.Setenv("LC_MESSAGES", "")
	t.Setenv("LANG", "C.UTF-8")
	if got := Chinese.Cmd("bin/lab hint"); got != "bin/lab hint --lang zh" {
		t.Errorf("Chinese on an English locale: %q", got)
	}
	if got := English.Cmd("bin/lab hint"); got != "bin/lab hint" {
		t.Errorf("English on an English locale: %q", got)
	}
	t.Setenv("LANG", "zh_CN.UTF-8")
	if got := Chinese.Cmd("bin/lab check -v 04"); got != "bin/lab check -v 04" {
		t.Errorf("Chinese on a Chinese locale: %q", got)
	}
	if got := English.Cmd("bin/lab hint"); got != "bin/lab hint --lang en" {
		t.Errorf("English on a Chinese locale: %q", got)
	}
}
