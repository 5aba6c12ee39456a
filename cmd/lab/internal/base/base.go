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

package base

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
)

// Traced times a step of the tool when LAB_TRACE is set, to see where a
// check's seconds go: defer Traced("what")().
func Traced(what string) func() {
	if os.Getenv("LAB_TRACE") == "" {
		return func() {}
	}
	start := time.Now()
	return func() { fmt.Fprintf(os.Stderr, "[trace] %-28s %6.2fs\n", what, time.Since(start).Seconds()) }
}

// Fail prints err in l's language, and ends the tool.
func Fail(l i18n.Lang, err error) {
	// Println would put a space after the Chinese full-width colon too.
	fmt.Fprint(os.Stderr, l.Tr("lab: ", "lab："), i18n.Message(l, err), "\n")
	os.Exit(1)
}

// Output runs a command in dir and returns what it printed.
func Output(dir, name string, args ...string) (string, error) {
	return OutputEnv(dir, nil, name, args...)
}

// OutputEnv is Output with env added to this process's environment.
func OutputEnv(dir string, env []string, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	if len(env) > 0 {
		cmd.Env = append(os.Environ(), env...)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if err != nil {
		return out.String(), fmt.Errorf("%s %s: %w\n%s", name, strings.Join(args, " "), err, LastLines(out.String(), 30))
	}
	return out.String(), nil
}

func LastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// StateDir holds what the lab tool keeps between runs in a clone.
func StateDir(root string) string { return filepath.Join(root, "bin", "lab-state") }

// A SetupError says that a check could not run, as opposed to tests that
// ran and failed: no hint about the stage helps with it.
type SetupError struct{ Err error }

func (e SetupError) Error() string { return e.Err.Error() }

func (e SetupError) Unwrap() error { return e.Err }

func WriteFileAtomic(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func IsSetupError(err error) bool {
	var setup SetupError
	return errors.As(err, &setup)
}

// IsTerminal tells whether f is a terminal, where clearing the screen means
// something; into a file or a pipe, the screens follow each other.
func IsTerminal(f *os.File) bool {
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

func FirstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}
