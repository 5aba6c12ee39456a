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

package class

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"cronlab.dev/cronlab/cmd/lab/internal/base"
	"cronlab.dev/cronlab/cmd/lab/internal/classwire"
	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
)

// Member is the clone's membership of a class: class.json.
type Member struct {
	Board    string    `json:"board"` // http://host:port
	Attendee int64     `json:"attendee"`
	Name     string    `json:"name"`
	Token    string    `json:"token"`
	Joined   time.Time `json:"joined"`
	NextSeq  int64     `json:"nextSeq"`
	// Hand is the text of the hand this clone raised last, and HandSeq its
	// message's number; "" once it is known to be down: lowered here, or,
	// as bin/lab status learns from the board, by the instructor or by a
	// check that passed its stage.
	Hand    string `json:"hand,omitempty"`
	HandSeq int64  `json:"handSeq,omitempty"`
}

// Dir is where a clone keeps its class: bin/lab-state/class.
func Dir(root string) string { return filepath.Join(base.StateDir(root), "class") }

func memberPath(dir string) string { return filepath.Join(dir, "class.json") }
func queueDir(dir string) string   { return filepath.Join(dir, "queue") }

// ReadMember is the clone's membership; ok is false when it joined none.
func ReadMember(dir string) (Member, bool) {
	var m Member
	raw, err := os.ReadFile(memberPath(dir))
	if err != nil || json.Unmarshal(raw, &m) != nil || m.Board == "" {
		return Member{}, false
	}
	return m, true
}

func writeMember(dir string, m Member) error {
	if err := os.MkdirAll(queueDir(dir), 0o700); err != nil {
		return err
	}
	raw, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return base.WriteFileAtomic(memberPath(dir), raw)
}

// Enqueue gives the message the clone's next sequence number and writes it
// to the queue. A check and a watch in two terminals may enqueue at once:
// the lock makes their numbers differ.
func Enqueue(dir string, m classwire.Message) (int64, error) {
	unlock, err := lock(filepath.Join(dir, "seq.lock"), 5*time.Second)
	if err != nil {
		return 0, err
	}
	defer unlock()
	member, ok := ReadMember(dir)
	if !ok {
		return 0, errNotJoined
	}
	member.NextSeq = max(member.NextSeq, 1)
	m.Seq = member.NextSeq
	raw, err := json.Marshal(m)
	if err != nil {
		return 0, err
	}
	// The number is taken before the message is written: a crash between
	// the two leaves a gap, which the board does not mind, never the same
	// number on two results, which it would count as one.
	member.NextSeq++
	if err := writeMember(dir, member); err != nil {
		return 0, err
	}
	return m.Seq, base.WriteFileAtomic(filepath.Join(queueDir(dir), queueName(m.Seq)), raw)
}

var errNotJoined = i18n.Errorf("not in a class", "不在班级中")

// queueName sorts in sequence order.
func queueName(seq int64) string { return fmt.Sprintf("%012d.json", seq) }

// Waiting are the queued messages' files, oldest first.
func Waiting(dir string) []string {
	entries, _ := os.ReadDir(queueDir(dir))
	var files []string
	for _, e := range entries {
		if n := e.Name(); strings.HasSuffix(n, ".json") && !strings.HasPrefix(n, ".") {
			if _, err := strconv.ParseInt(strings.TrimSuffix(n, ".json"), 10, 64); err == nil {
				files = append(files, filepath.Join(queueDir(dir), n))
			}
		}
	}
	slices.Sort(files)
	return files
}

// lock takes a lock file, waiting at most wait; a lock older than a minute
// was left by a process that died and is taken over.
func lock(path string, wait time.Duration) (func(), error) {
	deadline := time.Now().Add(wait)
	for {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err == nil {
			fmt.Fprintf(f, "%d\n", os.Getpid())
			f.Close()
			return func() { os.Remove(path) }, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, err
		}
		if fi, serr := os.Stat(path); serr == nil && time.Since(fi.ModTime()) > time.Minute {
			os.Remove(path)
			continue
		}
		if time.Now().After(deadline) {
			return nil, errLocked
		}
		time.Sleep(20 * time.Millisecond)
	}
}

var errLocked = i18n.Errorf("locked by another bin/lab", "被另一个 bin/lab 锁定")

// setHand remembers the raised hand's text and message ("" for lowered),
// for bin/lab status.
func setHand(dir, text string, seq int64) error {
	return updateMember(dir, func(m *Member) {
		m.Hand, m.HandSeq = text, seq
	})
}

// handDown forgets the hand seq once the board said it is down, unless a
// newer one was raised meanwhile.
func handDown(dir string, seq int64) error {
	return updateMember(dir, func(m *Member) {
		if m.HandSeq <= seq {
			m.Hand = ""
		}
	})
}

func updateMember(dir string, change func(*Member)) error {
	unlock, err := lock(filepath.Join(dir, "seq.lock"), 5*time.Second)
	if err != nil {
		return err
	}
	defer unlock()
	m, ok := ReadMember(dir)
	if !ok {
		return errNotJoined
	}
	change(&m)
	return writeMember(dir, m)
}
