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
	"os"
	"testing"
	"time"
)

// The test binary stands in for the command: with DEADLINE_CHILD set it
// sleeps or exits as told.
func TestMain(m *testing.M) {
	switch os.Getenv("DEADLINE_CHILD") {
	case "exit3":
		os.Exit(3)
	case "sleep":
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestDeadlinePassesTheStatusOnAndStopsACommandThatRunsTooLong(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("DEADLINE_CHILD", "exit3")
	if got := run(time.Minute, self); got != 3 {
		t.Errorf("a command that exits 3: got %d", got)
	}
	t.Setenv("DEADLINE_CHILD", "sleep")
	start := time.Now()
	if got := run(300*time.Millisecond, self); got != 124 {
		t.Errorf("a command past its deadline: got %d, want 124", got)
	}
	if waited := time.Since(start); waited > 10*time.Second {
		t.Errorf("it was stopped only after %s", waited)
	}
	if got := run(time.Minute, "/no/such/command"); got != 127 {
		t.Errorf("a command that does not exist: got %d, want 127", got)
	}
}
