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

// Sending the queue: in order, in batches, each request bounded by a short
// time-out; a message leaves the queue only once the board said it holds
// it. The last attempt is written to sent.json for bin/lab status.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"cronlab.dev/cronlab/cmd/lab/internal/base"
	"cronlab.dev/cronlab/cmd/lab/internal/classwire"
	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
)

// RequestTimeout bounds each request to the board.
const RequestTimeout = 3 * time.Second

// Attempt is the last try to send, kept in sent.json.
type Attempt struct {
	At   time.Time `json:"at"`
	Sent int       `json:"sent"` // messages the board took
	// Status is the board's HTTP status when it refused the last request
	// (401: it does not know this clone's token); 0 when it did not answer.
	Status int `json:"status,omitempty"`
	// Duplicates are those it already had: sent before, the answer lost.
	Duplicates int    `json:"duplicates,omitempty"`
	Error      string `json:"error,omitempty"` // why the rest still wait
	ErrorZh    string `json:"errorZh,omitempty"`
	// Refused counts messages the board refused as malformed (a board of
	// another version): they are moved to refused/, not sent again.
	Refused int `json:"refused,omitempty"`
}

func attemptPath(dir string) string { return filepath.Join(dir, "sent.json") }

func LastAttempt(dir string) (Attempt, bool) {
	var a Attempt
	raw, err := os.ReadFile(attemptPath(dir))
	return a, err == nil && json.Unmarshal(raw, &a) == nil
}

// Flush sends what waits, oldest first, until the queue is empty, the
// board fails, or ctx ends. Only one sender works on a queue at a time: a
// second one returns at once and leaves it to the first, which looks at the
// queue again before it stops.
func Flush(ctx context.Context, dir string) (Attempt, error) {
	unlock, err := lock(filepath.Join(dir, "send.lock"), 0)
	if errors.Is(err, errLocked) {
		return Attempt{}, nil
	}
	if err != nil {
		return Attempt{}, err
	}
	a, err := flushLocked(ctx, dir)
	unlock()
	if err == nil && len(Waiting(dir)) > 0 && ctx.Err() == nil {
		return Flush(ctx, dir) // enqueued while we were finishing
	}
	return a, err
}

func flushLocked(ctx context.Context, dir string) (Attempt, error) {
	a := Attempt{At: time.Now().UTC()}
	defer func() {
		if raw, err := json.Marshal(a); err == nil {
			_ = base.WriteFileAtomic(attemptPath(dir), raw)
		}
	}()
	m, ok := ReadMember(dir)
	if !ok {
		return a, errNotJoined
	}
	for ctx.Err() == nil {
		files := Waiting(dir)
		if len(files) == 0 {
			return a, nil
		}
		batch, req := readBatch(dir, files)
		if len(req.Messages) == 0 {
			continue // unreadable files were set aside
		}
		var resp classwire.SendResponse
		err := post(ctx, m.Board+classwire.SendPath, m.Token, req, &resp)
		var refused *Refused
		if errors.As(err, &refused) && refused.Status == http.StatusBadRequest {
			// The board cannot take this batch, ever: set it aside instead
			// of blocking every later result behind it.
			a.Refused += len(batch)
			setAside(dir, batch)
			a.Error, a.ErrorZh = refused.En, refused.Zh
			continue
		}
		if err != nil {
			a.Error, a.ErrorZh = i18n.Message(i18n.English, err), i18n.Message(i18n.Chinese, err)
			if errors.As(err, &refused) {
				a.Status = refused.Status
			}
			return a, err
		}
		for i, m := range req.Messages {
			if slices.Contains(resp.Stored, m.Seq) {
				os.Remove(batch[i])
				a.Sent++
			}
		}
		a.Duplicates += resp.Duplicates
		a.Error, a.ErrorZh, a.Status = "", "", 0
	}
	return a, ctx.Err()
}

// readBatch reads up to classwire.MaxBatch queued messages; a file that is
// not a message (cut short by a crash mid-write cannot happen, as files are
// written whole, but a hand-edited one can) is set aside.
func readBatch(dir string, files []string) ([]string, classwire.SendRequest) {
	var batch []string
	var req classwire.SendRequest
	for _, f := range files {
		if len(batch) == classwire.MaxBatch {
			break
		}
		var m classwire.Message
		raw, err := os.ReadFile(f)
		if err != nil || json.Unmarshal(raw, &m) != nil {
			setAside(dir, []string{f})
			continue
		}
		batch = append(batch, f)
		req.Messages = append(req.Messages, m)
	}
	return batch, req
}

func setAside(dir string, files []string) {
	_ = os.MkdirAll(filepath.Join(dir, "refused"), 0o700)
	for _, f := range files {
		_ = os.Rename(f, filepath.Join(dir, "refused", filepath.Base(f)))
	}
}

// Refused is the board's answer to a request it did not take.
type Refused struct {
	Status int
	En, Zh string
}

func (r *Refused) Error() string { return r.En }

// Unwrap lets i18n.Message say the refusal in the run's language.
func (r *Refused) Unwrap() error { return i18n.Both(r.En, r.Zh) }

// post sends v as JSON and reads the answer into out.
func post(ctx context.Context, url, token string, v, out any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return call(ctx, http.MethodPost, url, token, body, out)
}

// get asks the board and reads the answer into out.
func get(ctx context.Context, url, token string, out any) error {
	return call(ctx, http.MethodGet, url, token, nil, out)
}

func call(ctx context.Context, method, url, token string, body []byte, out any) error {
	ctx, cancel := context.WithTimeout(ctx, RequestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
	if err != nil {
		return i18n.Errorf("the board's address %q is not a URL: %w", "看板地址 %q 不是一个 URL：%w", url, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return i18n.Errorf("the board at %s did not answer (%v)", "%s 上的看板没有应答（%v）", strings.TrimSuffix(url, req.URL.Path), cause(err))
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusOK {
		var r classwire.Refusal
		if json.Unmarshal(raw, &r) != nil || r.Error == "" {
			r.Error = fmt.Sprintf("%s (is %s a class board?)", resp.Status, req.URL.Host)
			r.ErrorZh = fmt.Sprintf("%s（%s 是班级看板吗？）", resp.Status, req.URL.Host)
		}
		return &Refused{Status: resp.StatusCode, En: r.Error, Zh: r.ErrorZh}
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			return i18n.Errorf("the board's answer is not what bin/lab expects (%w): is %s a class board?", "看板的应答不是 bin/lab 预期的（%w）：%s 是班级看板吗？", err, req.URL.Host)
		}
	}
	return nil
}

// why is the attempt's error in l.
func (a Attempt) why(l i18n.Lang) string {
	if l == i18n.Chinese && a.ErrorZh != "" {
		return a.ErrorZh
	}
	return a.Error
}

// cause is why a request failed, without the URL the message repeats:
// "connection refused", "no answer within 3s".
func cause(err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return i18n.Errorf("no answer within %v", "%v 内没有应答", RequestTimeout)
	}
	var sys *os.SyscallError
	if errors.As(err, &sys) {
		return sys.Err
	}
	var op *net.OpError
	if errors.As(err, &op) {
		return op.Err
	}
	var u *url.Error
	if errors.As(err, &u) {
		return u.Err
	}
	return err
}
