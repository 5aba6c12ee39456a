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

package board

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
)

// TestMain keeps the boards' locks in a directory of the tests' own,
// removed when they end: no test meets a board running on this machine,
// and /tmp does not collect the tests' lock files.
//
// Run with BOARD_HOLDS=file (and BOARD_LOCKS=dir), the test binary is
// instead a board of another process that holds file until it is killed.
func TestMain(m *testing.M) {
	if db := os.Getenv("BOARD_HOLDS"); db != "" {
		lockDir = os.Getenv("BOARD_LOCKS")
		if _, err := Open(db, testStages, "", time.Now); err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		fmt.Println("holding")
		select {}
	}
	dir, err := os.MkdirTemp("", "board-locks-")
	if err != nil {
		panic(err)
	}
	lockDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// openBoard opens a board on path, closed when the test ends.
func openBoard(t *testing.T, path string) (*Board, error) {
	t.Helper()
	b, err := Open(path, testStages, "", time.Now)
	if err == nil {
		t.Cleanup(func() { b.Close() })
	}
	return b, err
}

// refused fails the test unless a second board on path is refused, in
// both languages, saying what to do.
func refused(t *testing.T, how, path string) {
	t.Helper()
	b, err := Open(path, testStages, "", time.Now)
	if err == nil {
		b.Close()
		t.Errorf("%s: a second board opened the file the first one serves", how)
		return
	}
	var in *InUse
	if !errors.As(err, &in) {
		t.Errorf("%s: refused with %v, want InUse", how, err)
		return
	}
	en, zh := i18n.Message(i18n.English, err), i18n.Message(i18n.Chinese, err)
	if !strings.Contains(en, "stop that one first") || !strings.Contains(en, "--db") || !strings.Contains(zh, "先停掉那个看板") || !strings.Contains(zh, "--db") {
		t.Errorf("%s: the refusal says\n%s\n%s\nwant what to do, in both languages", how, en, zh)
	}
	if in.PID != holderPID {
		t.Errorf("%s: the refusal names process %d, the board that holds the file is %d", how, in.PID, holderPID)
	}
}

// holderPID is the process of the board that holds the file: this one,
// but for the test of a board in another process.
var holderPID = os.Getpid()

// Every way two boards may come to share one file, the second is refused.
func TestASecondBoardIsRefusedHoweverTheFileIsNamed(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "board.db")
	first, err := openBoard(t, db)
	if err != nil {
		t.Fatal(err)
	}
	refused(t, "the same path", db)

	t.Chdir(dir)
	refused(t, "a relative path", "board.db")
	refused(t, "./board.db", "./board.db")
	refused(t, "through ..", filepath.Join("..", filepath.Base(dir), "board.db"))

	if err := os.Symlink(db, filepath.Join(dir, "link.db")); err != nil {
		t.Fatal(err)
	}
	refused(t, "a symlink to the file", filepath.Join(dir, "link.db"))
	linkDir := filepath.Join(t.TempDir(), "class")
	if err := os.Symlink(dir, linkDir); err != nil {
		t.Fatal(err)
	}
	refused(t, "a symlink to its directory", filepath.Join(linkDir, "board.db"))

	if err := os.Link(db, filepath.Join(dir, "hard.db")); err != nil {
		t.Fatal(err)
	}
	refused(t, "a hard link beside it", filepath.Join(dir, "hard.db"))
	elsewhere := filepath.Join(t.TempDir(), "copy.db")
	if err := os.Link(db, elsewhere); err != nil {
		t.Fatal(err)
	}
	refused(t, "a hard link in another directory", elsewhere)

	// database/sql closes a connection and opens another as it likes (an
	// idle one, a broken one): SQLite's lock went with the connection, the
	// board's does not.
	first.store.db.SetMaxIdleConns(0)
	if _, err := first.store.db.Exec(`SELECT 1`); err != nil {
		t.Fatal(err)
	}
	refused(t, "after the first board's connection was closed", db)
}

// The walkthrough's hole: a board stopped and started again only reads its
// file (the replay) and so held no more than a shared lock of SQLite's,
// which a second board shared, and both said they were up.
func TestASecondBoardIsRefusedAfterTheFirstRestarted(t *testing.T) {
	db := filepath.Join(t.TempDir(), "board.db")
	b, err := Open(db, testStages, "", time.Now)
	if err != nil {
		t.Fatal(err)
	}
	b.Close()
	if left, _ := filepath.Glob(filepath.Join(lockDir, "*")); len(left) != 0 {
		t.Errorf("a board that closed left its lock file behind: %v", left)
	}
	if _, err := openBoard(t, db); err != nil {
		t.Fatalf("the board started again on its own file: %v", err)
	}
	refused(t, "after a restart", db)
}

// Whoever holds the file serves it: a board started while the first one
// restarts takes it, and the first, coming back, is refused. Once the
// holder closes, the file is free again.
func TestABoardStartedWhileTheOtherRestartsTakesTheFile(t *testing.T) {
	db := filepath.Join(t.TempDir(), "board.db")
	first, err := Open(db, testStages, "", time.Now)
	if err != nil {
		t.Fatal(err)
	}
	first.Close()
	second, err := Open(db, testStages, "", time.Now)
	if err != nil {
		t.Fatalf("the file was free while the first board was down: %v", err)
	}
	refused(t, "the first board coming back", db)
	second.Close()
	if _, err := openBoard(t, db); err != nil {
		t.Errorf("the file is free once its board closed: %v", err)
	}
}
