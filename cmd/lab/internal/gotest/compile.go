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

package gotest

import (
	"path/filepath"
	"regexp"
	"strconv"

	"cronlab.dev/cronlab/cmd/lab/internal/gosrc"
)

// CompileError is one compiler message, with the function it is in: a stage
// asks for functions, and which one does not compile is what an attendee
// needs to know.
type CompileError struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Function string `json:"function,omitempty"`
	Message  string `json:"message"`
}

func HasOutcome(os []Outcome, name string) bool {
	for _, o := range os {
		if o.Name == name {
			return true
		}
	}
	return false
}

// CompilerMessage is "file.go:12:3: message" (the column may be missing;
// the message may go on over more lines, as have and want do).
var CompilerMessage = regexp.MustCompile(`(?s)^(\S+\.go):(\d+)(?::\d+)?: (.*)$`)

// PlaceCompileError reads a compiler message and names the function of the
// tree in dir that holds the line.
func PlaceCompileError(dir, msg string) CompileError {
	m := CompilerMessage.FindStringSubmatch(msg)
	if m == nil {
		return CompileError{Message: msg}
	}
	line, _ := strconv.Atoi(m[2])
	return CompileError{File: m[1], Line: line, Message: m[3], Function: gosrc.EnclosingFunc(filepath.Join(dir, m[1]), line)}
}

// UnusedImportName stands for an unused import among the stubbed functions.
const UnusedImportName = "an unused import"
