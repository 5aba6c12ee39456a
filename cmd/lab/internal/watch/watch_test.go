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

package watch

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"cronlab.dev/cronlab/cmd/lab/internal/gotest"
	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
)

// The loop checks at once, once per burst of saves, and on a key; the hint
// key shows a hint; it ends with its context. Driven by the events it is
// sent, and a quiet period of a few milliseconds.
func TestWatchChecksOncePerBurstOfSavesAndOnAKey(t *testing.T) {
	events, keys := make(chan string), make(chan string)
	checks := make(chan []string, 10)
	hints := make(chan bool, 10)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		watchLoop(ctx, events, keys, nil, 20*time.Millisecond, func(c []string) { checks <- c }, func() { hints <- true })
		close(done)
	}()
	if got := <-checks; got != nil {
		t.Errorf("the first check: %v, want none changed", got)
	}
	events <- "a.go"
	events <- "a.go"
	events <- "b.go"
	if got := <-checks; !reflect.DeepEqual(got, []string{"a.go", "a.go", "b.go"}) {
		t.Errorf("one check for the burst, with what changed: %v", got)
	}
	keys <- ""
	if got := <-checks; got != nil {
		t.Errorf("Enter: a check with nothing changed, got %v", got)
	}
	keys <- "h"
	<-hints
	select {
	case c := <-checks:
		t.Errorf("the hint key checked too: %v", c)
	default:
	}
	cancel()
	<-done
}

func TestThePollingWatcherSeesASave(t *testing.T) {
	file := filepath.Join(t.TempDir(), "status.go")
	if err := os.WriteFile(file, []byte("package x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w := newPollWatcher([]string{file}, 10*time.Millisecond)
	defer w.Close()
	if err := os.WriteFile(file, []byte("package x\n\nfunc F() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	expectSave(t, w, file)
}

func TestTheFileWatcherSeesASaveByRename(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "status.go")
	if err := os.WriteFile(file, []byte("package x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := newFileWatcher([]string{file})
	if err != nil {
		t.Skipf("no file events on this system (the polling watcher is used): %v", err)
	}
	defer w.Close()
	// As many editors save: write a new file, rename it over the old one.
	tmp := filepath.Join(dir, ".status.go.swp")
	if err := os.WriteFile(tmp, []byte("package x\n\nfunc F() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, file); err != nil {
		t.Fatal(err)
	}
	expectSave(t, w, file)
}

func TestTheProgressLine(t *testing.T) {
	l := i18n.English
	got := progressLine(l, []gotest.Results{{Passed: 2}, {Passed: 5, Failed: 5}}, os.ErrInvalid)
	if want := "[###########---------] 7 / 12 specs, not yet"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	// Every spec that ran passes, and the check fails all the same (a
	// package of the stage does not compile, so it ran none): a full bar
	// says why it is not done.
	failing := i18n.Errorf("failing: %s", "未通过：%s", "./internal/controller")
	got = progressLine(i18n.Chinese, []gotest.Results{{Passed: 2}, {BuildErrors: []string{"x.go:1: undefined: y"}}}, failing)
	if want := "[####################] 2 / 2 个测试用例，还没有通过：运行了的测试用例都通过了，但检查没有通过（未通过：./internal/controller）"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	if got := progressLine(l, []gotest.Results{{Passed: 2}}, nil); got != "[####################] 2 / 2 specs, passes: bin/lab start the next stage" {
		t.Errorf("a check that passes: %q", got)
	}
}

// expectSave waits for the watcher's event about file.
func expectSave(t *testing.T, w watcher, file string) {
	t.Helper()
	select {
	case got := <-w.Events():
		if got != file {
			t.Errorf("event for %s, want %s", got, file)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no event for a save")
	}
}

// Watch follows the clone: `bin/lab start 06 (or scheduling)` in another terminal moves it
// to lab/scheduling, and the loop ends with the stage to watch next. A branch that
// is no stage's (main, a saved one) leaves it where it is.
func TestWatchFollowsTheClonesBranch(t *testing.T) {
	branches := make(chan string, 10)
	for _, b := range []string{"lab/secondary-resources", "main", "lab/secondary-resources-saved-20261125", "lab/scheduling", "lab/scheduling"} {
		branches <- b
	}
	last := "lab/scheduling"
	branch := func() string {
		select {
		case b := <-branches:
			last = b
		default:
		}
		return last
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	moved := make(chan string)
	go followBranch(ctx, "secondary-resources", time.Millisecond, branch, moved)
	select {
	case id := <-moved:
		if id != "scheduling" {
			t.Errorf("moved to %q, want scheduling", id)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the move to lab/scheduling was not seen")
	}
	select {
	case id := <-moved:
		t.Errorf("moved again, to %q, while the branch stayed lab/scheduling", id)
	case <-time.After(50 * time.Millisecond):
	}

	checks := 0
	id := watchLoop(ctx, nil, nil, func() <-chan string { c := make(chan string, 1); c <- "07"; return c }(), time.Millisecond,
		func([]string) { checks++ }, func() {})
	if id != "07" || checks != 1 {
		t.Errorf("watchLoop returned %q after %d checks, want 07 after the first check", id, checks)
	}
}
