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

// The board's storage is one SQLite file (modernc.org/sqlite: pure Go, so
// bin/lab still cross-builds for macOS and Windows without a C compiler).
// It holds what cannot be recomputed: the class code, the instructor's key,
// the attendees with their tokens' hashes, and every message as it came.
// Everything the page shows is recomputed from those (class.go), at start
// and on each message, so a board killed at any moment loses nothing it
// acknowledged: a message is answered only after its transaction commits.

import (
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"time"

	_ "modernc.org/sqlite"

	"cronlab.dev/cronlab/cmd/lab/internal/classwire"
	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
)

const schema = `
CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS attendees (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  token_hash TEXT NOT NULL UNIQUE,
  joined INTEGER NOT NULL,
  left_at INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS messages (
  attendee INTEGER NOT NULL REFERENCES attendees(id),
  seq INTEGER NOT NULL,
  received INTEGER NOT NULL,
  body TEXT NOT NULL,
  PRIMARY KEY (attendee, seq)
);
CREATE TABLE IF NOT EXISTS lowered (
  attendee INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  at INTEGER NOT NULL,
  PRIMARY KEY (attendee, seq)
);`

type store struct{ db *sql.DB }

func openStore(path string) (*store, error) {
	// WAL: the page's reads do not wait for a write; synchronous=NORMAL is
	// durable when the process dies (SIGKILL), which is what a board meets.
	// locking_mode(EXCLUSIVE) keeps other programs out once the board
	// wrote; a second board is refused before this, by the lock of lock.go.
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=locking_mode(EXCLUSIVE)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=busy_timeout(1000)")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1) // one writer: SQLite's own rule, kept here instead of retried
	if _, err := db.Exec(schema); err != nil {
		db.Close()
		return nil, err
	}
	return &store{db: db}, nil
}

func (s *store) Close() error { return s.db.Close() }

// setting is a value of meta, made once by make and kept from then on: the
// class code and the instructor's key survive a restart.
func (s *store) setting(key string, make func() string) (string, error) {
	var v string
	err := s.db.QueryRow(`SELECT v FROM meta WHERE k = ?`, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		v = make()
		_, err = s.db.Exec(`INSERT INTO meta (k, v) VALUES (?, ?)`, key, v)
	}
	return v, err
}

func (s *store) setSetting(key, v string) error {
	_, err := s.db.Exec(`INSERT INTO meta (k, v) VALUES (?, ?) ON CONFLICT (k) DO UPDATE SET v = excluded.v`, key, v)
	return err
}

// addAttendee stores a new attendee and returns its id and token; only
// the token's hash is kept.
func (s *store) addAttendee(name string, at time.Time) (int64, string, error) {
	token := randomHex(24)
	res, err := s.db.Exec(`INSERT INTO attendees (name, token_hash, joined) VALUES (?, ?, ?)`, name, tokenHash(token), at.UnixMilli())
	if err != nil {
		return 0, "", err
	}
	id, err := res.LastInsertId()
	return id, token, err
}

func (s *store) leave(id int64, at time.Time) error {
	_, err := s.db.Exec(`UPDATE attendees SET left_at = ? WHERE id = ?`, at.UnixMilli(), id)
	return err
}

func (s *store) lower(attendee, seq int64, at time.Time) error {
	_, err := s.db.Exec(`INSERT OR IGNORE INTO lowered (attendee, seq, at) VALUES (?, ?, ?)`, attendee, seq, at.UnixMilli())
	return err
}

// addMessages stores a batch in one transaction and says which of them
// were new: a message already stored (sent again) is not stored twice.
func (s *store) addMessages(attendee int64, ms []classwire.Message, received time.Time) ([]bool, error) {
	tx, err := s.db.Begin()
	if err != nil {
		return nil, err
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	fresh := make([]bool, len(ms))
	for i, m := range ms {
		body, err := json.Marshal(m)
		if err != nil {
			return nil, err
		}
		res, err := tx.Exec(`INSERT OR IGNORE INTO messages (attendee, seq, received, body) VALUES (?, ?, ?, ?)`,
			attendee, m.Seq, received.UnixMilli(), string(body))
		if err != nil {
			return nil, err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return nil, err
		}
		fresh[i] = n == 1
	}
	return fresh, tx.Commit()
}

type storedAttendee struct {
	id          int64
	name, token string // token: its hash
	joined      time.Time
	left        time.Time
}

type storedMessage struct {
	attendee int64
	received time.Time
	msg      classwire.Message
}

// load reads everything back, messages in each attendee's order, to
// rebuild the class after a start.
func (s *store) load() ([]storedAttendee, []storedMessage, map[[2]int64]time.Time, error) {
	var as []storedAttendee
	rows, err := s.db.Query(`SELECT id, name, token_hash, joined, left_at FROM attendees ORDER BY id`)
	if err != nil {
		return nil, nil, nil, err
	}
	for rows.Next() {
		var a storedAttendee
		var joined, left int64
		if err := rows.Scan(&a.id, &a.name, &a.token, &joined, &left); err != nil {
			rows.Close()
			return nil, nil, nil, err
		}
		a.joined = time.UnixMilli(joined)
		if left != 0 {
			a.left = time.UnixMilli(left)
		}
		as = append(as, a)
	}
	rows.Close()
	var ms []storedMessage
	rows, err = s.db.Query(`SELECT attendee, received, body FROM messages ORDER BY attendee, seq`)
	if err != nil {
		return nil, nil, nil, err
	}
	for rows.Next() {
		var m storedMessage
		var received int64
		var body string
		if err := rows.Scan(&m.attendee, &received, &body); err != nil {
			rows.Close()
			return nil, nil, nil, err
		}
		m.received = time.UnixMilli(received)
		if err := json.Unmarshal([]byte(body), &m.msg); err != nil {
			rows.Close()
			return nil, nil, nil, i18n.Errorf("a stored message of attendee %d: %w", "学员 %d 的一条已保存消息：%w", m.attendee, err)
		}
		ms = append(ms, m)
	}
	rows.Close()
	lowered := map[[2]int64]time.Time{}
	rows, err = s.db.Query(`SELECT attendee, seq, at FROM lowered`)
	if err != nil {
		return nil, nil, nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var a, seq, at int64
		if err := rows.Scan(&a, &seq, &at); err != nil {
			return nil, nil, nil, err
		}
		lowered[[2]int64{a, seq}] = time.UnixMilli(at)
	}
	return as, ms, lowered, rows.Err()
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b)
}

func tokenHash(token string) string {
	h := sha256.Sum256([]byte(token))
	return hex.EncodeToString(h[:])
}

// newCode is a class code that reads aloud well: six characters without
// the ones that look alike (0/O, 1/I/L).
func newCode() string {
	const alphabet = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b)
}
