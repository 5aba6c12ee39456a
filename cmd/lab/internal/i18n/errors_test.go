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
	"errors"
	"fmt"
	"io/fs"
	"testing"
)

func TestAnErrorInBothLanguagesIsPrintedInTheLanguageOfTheRun(t *testing.T) {
	inner := Errorf("no stage %q", "没有第 %q 阶段", "99")
	err := Errorf("lab start: %w", "lab start：%w", inner)
	if got := Message(English, err); got != `lab start: no stage "99"` {
		t.Errorf("in English: %q", got)
	}
	if got := Message(Chinese, err); got != `lab start：没有第 "99" 阶段` {
		t.Errorf("in Chinese: %q", got)
	}
	if !errors.Is(Errorf("reading: %w", "读取：%w", fs.ErrNotExist), fs.ErrNotExist) {
		t.Error("the error it wraps is lost")
	}
	wrapped := fmt.Errorf("%w", inner) // as base.SetupError wraps one: no words of its own
	if got := Message(Chinese, Errorf("could not run: %w", "无法运行：%w", wrapped)); got != `无法运行：没有第 "99" 阶段` {
		t.Errorf("through a wrapper without words: %q", got)
	}
	if got := Message(Chinese, errors.New("plain")); got != "plain" {
		t.Errorf("any other error: %q", got)
	}
}
