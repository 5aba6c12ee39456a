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

// The board's HTTP side: attendees join with the class code and post their
// messages with the token they got; the instructor's page reads the class
// with the key printed at start. Every request is size-capped and checked
// against the shape (package classwire) before anything is stored, and a
// refused one gets its reason in both languages and changes nothing.

import (
	"crypto/subtle"
	"embed"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"cronlab.dev/cronlab/cmd/lab/internal/classwire"
	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
)

//go:embed page
var page embed.FS

// Board is a class's board: its storage, what it knows, and who may post.
type Board struct {
	mu      sync.Mutex // orders stores and their application to class
	lock    *boardLock // this board's hold on its file (lock.go)
	store   *store
	class   *class
	tokens  map[string]int64 // a token's hash: its attendee
	code    string
	key     string
	now     func() time.Time
	changed *broadcaster
	names   ChineseName
}

// Open opens (or makes) the board stored at path. code, when not "",
// replaces the class code; else the stored one stays, or one is made.
// When another board serves the file, the error is an *InUse.
func Open(path string, stages []StageInfo, code string, now func() time.Time) (*Board, error) {
	lock, err := lockDB(path)
	if err != nil {
		return nil, err
	}
	st, err := openStore(path)
	if err != nil {
		lock.release()
		return nil, err
	}
	b := &Board{lock: lock, store: st, class: newClass(stages), tokens: map[string]int64{}, now: now, changed: newBroadcaster()}
	if err := b.settings(code); err != nil {
		b.Close()
		return nil, err
	}
	if err := b.replay(); err != nil {
		b.Close()
		return nil, err
	}
	return b, nil
}

func (b *Board) settings(code string) (err error) {
	if code != "" {
		if err := b.store.setSetting("code", code); err != nil {
			return err
		}
	}
	if b.code, err = b.store.setting("code", newCode); err != nil {
		return err
	}
	b.key, err = b.store.setting("key", func() string { return randomHex(12) })
	return err
}

// replay rebuilds the class from what was stored.
func (b *Board) replay() error {
	as, ms, lowered, err := b.store.load()
	if err != nil {
		return err
	}
	for _, sa := range as {
		b.class.add(&attendee{id: sa.id, name: sa.name, token: sa.token, joined: sa.joined, left: sa.left})
		if sa.left.IsZero() {
			b.tokens[sa.token] = sa.id
		}
	}
	for _, m := range ms {
		if a := b.class.attendees[m.attendee]; a != nil {
			b.class.apply(a, m.msg, m.received)
		}
	}
	for k, at := range lowered {
		if a := b.class.attendees[k[0]]; a != nil {
			b.class.lower(a, k[1], at)
		}
	}
	return nil
}

// Close closes the file, then lets it go for another board.
func (b *Board) Close() error {
	err := b.store.Close()
	return errors.Join(err, b.lock.release())
}
func (b *Board) Code() string { return b.code }
func (b *Board) Key() string  { return b.key }

// Snapshot is the board now.
func (b *Board) Snapshot() Snapshot {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.class.snapshot(b.now())
	s.Code = b.code
	b.names.inChinese(&s)
	return s
}

// NameSpecsWith makes the board name specs in Chinese with zh (names.go);
// the board calls it with its lock held, one call at a time.
func (b *Board) NameSpecsWith(zh ChineseName) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.names = zh
}

func (b *Board) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+classwire.JoinPath, b.join)
	mux.HandleFunc("POST "+classwire.SendPath, b.send)
	mux.HandleFunc("POST "+classwire.LeavePath, b.leave)
	mux.HandleFunc("GET "+classwire.HandPath, b.hand)
	mux.HandleFunc("GET /api/v1/board", b.instructor(b.serveSnapshot))
	mux.HandleFunc("GET /api/v1/events", b.instructor(b.serveEvents))
	mux.HandleFunc("GET /api/v1/attendees/{id}/timeline", b.instructor(b.serveTimeline))
	mux.HandleFunc("POST /api/v1/attendees/{id}/hands/{seq}/lower", b.instructor(b.lowerHand))
	mux.HandleFunc("GET /api/v1/export.csv", b.instructor(b.serveCSV))
	static, _ := fs.Sub(page, "page")
	mux.Handle("GET /", http.FileServerFS(static))
	return mux
}

// refusal is an error an HTTP status goes with.
type refusal struct {
	status int
	err    error
}

func refuse(status int, err error) *refusal { return &refusal{status: status, err: err} }

// fail answers with the reason in both languages: bin/lab prints the one of
// its run.
func fail(w http.ResponseWriter, r *refusal) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(r.status)
	_ = json.NewEncoder(w).Encode(classwire.Refusal{Error: i18n.Message(i18n.English, r.err), ErrorZh: i18n.Message(i18n.Chinese, r.err)})
}

func answer(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// decode reads a request's JSON into v: at most classwire.MaxBody bytes,
// no field the shape does not have, nothing after it.
func decode(w http.ResponseWriter, r *http.Request, v any) *refusal {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, classwire.MaxBody))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil && dec.Decode(&struct{}{}) != io.EOF {
		err = i18n.Errorf("more than one JSON value", "不止一个 JSON 值")
	}
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return refuse(http.StatusRequestEntityTooLarge, i18n.Errorf("the request is larger than %d bytes", "请求超过 %d 字节", classwire.MaxBody))
	case err != nil:
		return refuse(http.StatusBadRequest, i18n.Errorf("the request is not the JSON the board takes: %v", "请求不是看板接受的 JSON：%v", err))
	}
	return nil
}

func (b *Board) join(w http.ResponseWriter, r *http.Request) {
	var req classwire.JoinRequest
	if bad := decode(w, r, &req); bad != nil {
		fail(w, bad)
		return
	}
	if err := req.Validate(); err != nil {
		fail(w, &refusal{http.StatusBadRequest, err})
		return
	}
	if subtle.ConstantTimeCompare([]byte(strings.ToUpper(strings.TrimSpace(req.Code))), []byte(b.code)) != 1 {
		fail(w, refuse(http.StatusForbidden, i18n.Errorf("the class code %q is not this board's: check it with the instructor", "班级代码 %q 不是这个看板的：请和讲师核对", req.Code)))
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	name := b.freeName(strings.TrimSpace(req.Name))
	now := b.now()
	id, token, err := b.store.addAttendee(name, now)
	if err != nil {
		fail(w, refuse(http.StatusInternalServerError, i18n.Errorf("the board could not store you: %v", "看板无法保存你的加入：%v", err)))
		return
	}
	th := tokenHash(token)
	b.class.add(&attendee{id: id, name: name, token: th, joined: now})
	b.tokens[th] = id
	b.changed.notify()
	answer(w, classwire.JoinResponse{Attendee: id, Name: name, Token: token})
}

// freeName is name, or name-2, name-3 ... when someone of the class
// (present or gone: their rows stay on the board) has it.
func (b *Board) freeName(name string) string {
	taken := map[string]bool{}
	for _, a := range b.class.attendees {
		taken[a.name] = true
	}
	for i, n := 2, name; ; i++ {
		if !taken[n] {
			return n
		}
		n = name + "-" + strconv.Itoa(i)
	}
}

// attendeeOf is the attendee whose token the request carries.
func (b *Board) attendeeOf(r *http.Request) (*attendee, *refusal) {
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		return nil, refuse(http.StatusUnauthorized, i18n.Errorf("no token: run bin/lab join first", "没有令牌：先运行 bin/lab join"))
	}
	id, ok := b.tokens[tokenHash(token)]
	if !ok {
		return nil, refuse(http.StatusUnauthorized, i18n.Errorf("this board does not know your token (you left, or it is another class's board): run bin/lab join again",
			"这个看板不认识你的令牌（你已离开，或者这是另一个班级的看板）：请重新运行 bin/lab join"))
	}
	return b.class.attendees[id], nil
}

func (b *Board) send(w http.ResponseWriter, r *http.Request) {
	var req classwire.SendRequest
	if bad := decode(w, r, &req); bad != nil {
		fail(w, bad)
		return
	}
	if err := req.Validate(); err != nil {
		fail(w, &refusal{http.StatusBadRequest, err})
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	a, bad := b.attendeeOf(r)
	if bad != nil {
		fail(w, bad)
		return
	}
	now := b.now()
	fresh, err := b.store.addMessages(a.id, req.Messages, now)
	if err != nil {
		fail(w, refuse(http.StatusInternalServerError, i18n.Errorf("the board could not store the results: %v", "看板无法保存这些结果：%v", err)))
		return
	}
	resp := classwire.SendResponse{Stored: []int64{}}
	for i, m := range req.Messages {
		resp.Stored = append(resp.Stored, m.Seq)
		if !fresh[i] {
			resp.Duplicates++
			continue
		}
		b.class.apply(a, m, now)
	}
	if resp.Duplicates < len(req.Messages) {
		b.changed.notify()
	}
	answer(w, resp)
}

func (b *Board) leave(w http.ResponseWriter, r *http.Request) {
	b.mu.Lock()
	defer b.mu.Unlock()
	a, bad := b.attendeeOf(r)
	if bad != nil {
		fail(w, bad)
		return
	}
	now := b.now()
	if err := b.store.leave(a.id, now); err != nil {
		fail(w, refuse(http.StatusInternalServerError, i18n.Errorf("the board could not record that you left: %v", "看板无法记录你的离开：%v", err)))
		return
	}
	a.left = now
	delete(b.tokens, a.token)
	b.class.version++
	b.changed.notify()
	answer(w, struct{}{})
}

// hand tells an attendee's bin/lab status whether its latest hand is still
// up, and if not, who lowered it.
func (b *Board) hand(w http.ResponseWriter, r *http.Request) {
	b.mu.Lock()
	defer b.mu.Unlock()
	a, bad := b.attendeeOf(r)
	if bad != nil {
		fail(w, bad)
		return
	}
	var st classwire.HandState
	if n := len(a.hands); n > 0 {
		h := a.hands[n-1]
		l := a.lowered(h)
		st = classwire.HandState{Seq: h.seq, Stage: h.stage, Up: l.by == "", LoweredBy: l.by}
	}
	answer(w, st)
}

// instructor lets through the requests that carry the board's key (?key=,
// as the URL printed at start has it, or the X-Board-Key header).
func (b *Board) instructor(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		key := r.URL.Query().Get("key")
		if key == "" {
			key = r.Header.Get("X-Board-Key")
		}
		switch {
		case key == "":
			fail(w, refuse(http.StatusForbidden, i18n.Errorf("this page needs the board's key: open the URL that bin/lab board printed",
				"这个页面需要看板的密钥：请打开 bin/lab board 打印的网址")))
			return
		case subtle.ConstantTimeCompare([]byte(key), []byte(b.key)) != 1:
			fail(w, refuse(http.StatusForbidden, i18n.Errorf("this is not this board's key (a board of another --db?): open the URL that bin/lab board printed",
				"这不是这个看板的密钥（是另一个 --db 的看板吗？）：请打开 bin/lab board 打印的网址")))
			return
		}
		h(w, r)
	}
}

func (b *Board) serveSnapshot(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	answer(w, b.Snapshot())
}

func (b *Board) lowerHand(w http.ResponseWriter, r *http.Request) {
	id, err1 := strconv.ParseInt(r.PathValue("id"), 10, 64)
	seq, err2 := strconv.ParseInt(r.PathValue("seq"), 10, 64)
	b.mu.Lock()
	defer b.mu.Unlock()
	a := b.class.attendees[id]
	if err1 != nil || err2 != nil || a == nil || !a.raised(seq) {
		fail(w, refuse(http.StatusNotFound, i18n.Errorf("no raised hand %s of attendee %s", "没有举着的手 %s（学员 %s）", r.PathValue("seq"), r.PathValue("id"))))
		return
	}
	now := b.now()
	if err := b.store.lower(id, seq, now); err != nil {
		fail(w, refuse(http.StatusInternalServerError, i18n.Errorf("the board could not store it: %v", "看板无法保存：%v", err)))
		return
	}
	b.class.lower(a, seq, now)
	b.changed.notify()
	answer(w, struct{}{})
}

// Serve runs the board on addr until stop is closed.
func (b *Board) Serve(addr string, ready func(actual string), stop <-chan struct{}) error {
	srv := &http.Server{Addr: addr, Handler: b.Handler(), ReadHeaderTimeout: 5 * time.Second}
	ln, err := listen(addr)
	if err != nil {
		return err
	}
	if ready != nil {
		ready(ln.Addr().String())
	}
	errs := make(chan error, 1)
	go func() { errs <- srv.Serve(ln) }()
	select {
	case err := <-errs:
		return err
	case <-stop:
		b.changed.close()
		_ = srv.Close()
		return nil
	}
}
