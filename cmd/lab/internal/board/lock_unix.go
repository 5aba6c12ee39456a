//go:build unix

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
	"syscall"

	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
)

// fileID is the file's device and inode: the same for every path to it.
func fileID(path string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return "", i18n.Errorf("%s has no device and inode to lock it by", "%s 没有可以用来加锁的设备号和 inode", path)
	}
	return fmt.Sprintf("%d-%d", uint64(st.Dev), uint64(st.Ino)), nil
}

// lockFile takes flock(2) on path, without waiting. A flock belongs to the
// open file, not the process: a second open of the same file, in this
// process or another, is refused too, which is what the tests open.
// The file is not the database itself: flock and SQLite's fcntl locks on
// one file are apart on Linux, which no manual promises of every system,
// and the board must never lock SQLite out of its own file.
func lockFile(path string) (*os.File, error) {
	for {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, err
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				return nil, errHeld
			}
			return nil, err
		}
		// The board that held it removed the file as it let go, after
		// this opened it: this locked a file nobody else will open. The
		// one at path now, if any, is the lock.
		held, err1 := f.Stat()
		now, err2 := os.Stat(path)
		if err1 == nil && err2 == nil && os.SameFile(held, now) {
			return f, nil
		}
		f.Close()
	}
}

// unlockFile removes the lock file while it still holds it (a board that
// opens it meanwhile sees, once it has the lock, that it is gone), then
// lets go.
func unlockFile(f *os.File, path string) error {
	err := os.Remove(path)
	return errors.Join(err, f.Close())
}
