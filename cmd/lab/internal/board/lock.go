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

// One board per database file. SQLite's locks cannot promise it: they are
// a connection's, taken at its first read (a shared lock, which a second
// board shares: a board that restarted and only replayed holds no more)
// or write, and given back whenever database/sql closes the connection.
// So the board holds a lock of the operating system's, taken before it
// reads anything and held until it closes or its process dies (the system
// drops it then, SIGKILL included, so a crash never leaves a stale lock).
//
// The lock is named after the file, not after the path it was given: its
// device and inode (on Windows, its volume and file index). A relative
// path, ./board.db, a symlink to the file or to its directory, and a hard
// link all name one file, and so one lock. The lock file lives in the
// temporary directory, the one place every name of the file shares (a
// hard link may sit in another directory), and goes when its board closes.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
)

// lockDir is where the locks are; the tests move it.
var lockDir = os.TempDir()

// errHeld is what lockFile returns when another process or board holds
// the lock; Open turns it into InUse, which says what to do.
var errHeld = i18n.Errorf("held by another board", "被另一个看板占用")

// InUse refuses a board whose file another board serves.
type InUse struct {
	DB  string
	PID int // the other board's process, when its lock file says
	err error
}

func (e *InUse) Error() string { return e.err.Error() }

// Unwrap lets i18n.Message say it in the run's language.
func (e *InUse) Unwrap() error { return e.err }

func inUse(db string, pid int) *InUse {
	e := &InUse{DB: db, PID: pid}
	if pid > 0 {
		e.err = i18n.Errorf("%s is served by another bin/lab board (process %d): stop that one first (Ctrl-C in its terminal), or give this class a file of its own with --db",
			"%s 正由另一个 bin/lab board（进程 %d）使用：先停掉那个看板（在它的终端里按 Ctrl-C），或者用 --db 给这个班级另一个文件", db, pid)
	} else {
		e.err = i18n.Errorf("%s is served by another bin/lab board: stop that one first (Ctrl-C in its terminal), or give this class a file of its own with --db",
			"%s 正由另一个 bin/lab board 使用：先停掉那个看板（在它的终端里按 Ctrl-C），或者用 --db 给这个班级另一个文件", db)
	}
	return e
}

// boardLock is the lock a board holds on its database file.
type boardLock struct {
	f    *os.File
	path string
}

// lockDB makes the database file if there is none (SQLite takes an empty
// file as a new database), so that it has an identity to lock, and locks
// it for this board.
func lockDB(db string) (*boardLock, error) {
	f, err := os.OpenFile(db, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	f.Close()
	id, err := fileID(db)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(lockDir, "cronlab-board-"+id+".lock")
	lf, err := lockFile(path)
	if errors.Is(err, errHeld) {
		return nil, inUse(db, holder(path))
	}
	if err != nil {
		return nil, i18n.Errorf("could not lock %s for this board (%s): %w", "无法为这个看板锁定 %s（%s）：%w", db, path, err)
	}
	// Who holds it, for the board that is refused: it can say which
	// process to stop.
	abs, _ := filepath.Abs(db)
	_ = lf.Truncate(0)
	_, _ = lf.WriteAt([]byte(fmt.Sprintf("%d\n%s\n", os.Getpid(), abs)), 0)
	return &boardLock{f: lf, path: path}, nil
}

// release gives the lock back and removes its file.
func (l *boardLock) release() error {
	if l == nil {
		return nil
	}
	return unlockFile(l.f, l.path)
}

// holder is the process that wrote the lock file, or 0 when it cannot be
// read (Windows does not let a locked file be read).
func holder(path string) int {
	raw, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	first, _, _ := strings.Cut(string(raw), "\n")
	pid, _ := strconv.Atoi(strings.TrimSpace(first))
	return pid
}
