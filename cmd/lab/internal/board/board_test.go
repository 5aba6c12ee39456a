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
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"cronlab.dev/cronlab/cmd/lab/internal/classwire"
)

var testStages = []StageInfo{{ID: "secondary-resources", Num: "05", Title: "five", TitleZh: "五"}, {ID: "scheduling", Num: "06", Title: "six", TitleZh: "六"}}

// clock is a board's time, moved by the test.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

type testBoard struct {
	*Board
	t     *testing.T
	path  string
	clock *clock
	srv   *httptest.Server
}

func newTestBoard(t *testing.T) *testBoard {
	t.Helper()
	tb := &testBoard{t: t, path: filepath.Join(t.TempDir(), "board.db"), clock: &clock{t: time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)}}
	tb.open()
	return tb
}

func (tb *testBoard) open() {
	b, err := Open(tb.path, testStages, "", tb.clock.now)
	if err != nil {
		tb.t.Fatal(err)
	}
	tb.Board = b
	tb.srv = httptest.NewServer(b.Handler())
	tb.t.Cleanup(func() { tb.srv.Close(); b.Close() })
}

// restart closes the board and opens its file again, as after a crash:
// nothing in memory survives.
func (tb *testBoard) restart() {
	tb.srv.Close()
	tb.Board.Close()
	tb.open()
}

func (tb *testBoard) post(path, token string, body any) (int, string) {
	tb.t.Helper()
	raw, ok := body.([]byte)
	if !ok {
		var err error
		if raw, err = json.Marshal(body); err != nil {
			tb.t.Fatal(err)
		}
	}
	req, _ := http.NewRequest(http.MethodPost, tb.srv.URL+path, bytes.NewReader(raw))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.t.Fatal(err)
	}
	defer resp.Body.Close()
	var out bytes.Buffer
	_, _ = out.ReadFrom(resp.Body)
	return resp.StatusCode, out.String()
}

func (tb *testBoard) join(name string) string {
	tb.t.Helper()
	status, body := tb.post(classwire.JoinPath, "", classwire.JoinRequest{Code: tb.Code(), Name: name})
	if status != http.StatusOK {
		tb.t.Fatalf("join %s: %d %s", name, status, body)
	}
	var r classwire.JoinResponse
	_ = json.Unmarshal([]byte(body), &r)
	return r.Token
}

func (tb *testBoard) send(token string, ms ...classwire.Message) classwire.SendResponse {
	tb.t.Helper()
	status, body := tb.post(classwire.SendPath, token, classwire.SendRequest{Messages: ms})
	if status != http.StatusOK {
		tb.t.Fatalf("send: %d %s", status, body)
	}
	var r classwire.SendResponse
	_ = json.Unmarshal([]byte(body), &r)
	return r
}

// result is a check of stage with the named specs failing out of ran.
func (tb *testBoard) result(seq int64, stage string, ran int, failing ...string) classwire.Message {
	r := &classwire.Result{Stage: stage, Passed: len(failing) == 0, Specs: []classwire.Spec{}, Functions: []classwire.Function{}}
	for i := range ran - len(failing) {
		r.Specs = append(r.Specs, classwire.Spec{Package: "./internal/controller", Name: fmt.Sprintf("passes %d", i), Status: "passed"})
	}
	for _, f := range failing {
		r.Specs = append(r.Specs, classwire.Spec{Package: "./internal/controller", Name: f, Status: "failed", Hint: stage + ".1"})
	}
	return classwire.Message{Seq: seq, At: tb.clock.now(), Result: r}
}

func (tb *testBoard) attendee(name string) AttendeeView {
	tb.t.Helper()
	for _, a := range tb.Snapshot().Attendees {
		if a.Name == name {
			return a
		}
	}
	tb.t.Fatalf("no attendee %s on the board", name)
	return AttendeeView{}
}

func TestJoiningTakesTheClassCodeAndGivesATokenThatPostsAsItsHolderOnly(t *testing.T) {
	tb := newTestBoard(t)
	status, body := tb.post(classwire.JoinPath, "", classwire.JoinRequest{Code: "WRONG1", Name: "ada"})
	if status != http.StatusForbidden || !strings.Contains(body, "check it with the instructor") || !strings.Contains(body, "请和讲师核对") {
		t.Errorf("a wrong code: %d %s, want 403 saying what to do, in both languages", status, body)
	}
	ada := tb.join("ada")
	bob := tb.join("bob")
	if again := tb.join("ada"); again == ada {
		t.Error("two joins got the same token")
	}
	tb.send(bob, tb.result(1, "scheduling", 3, "x"))
	if a := tb.attendee("ada"); a.Checks != 0 {
		t.Errorf("bob's token posted for ada: %+v", a)
	}
	if names := len(tb.Snapshot().Attendees); names != 3 || tb.attendee("ada-2").Name != "ada-2" {
		t.Errorf("a second ada is told apart as ada-2; attendees %d", names)
	}
	for _, token := range []string{"", "not-a-token"} {
		status, body := tb.post(classwire.SendPath, token, classwire.SendRequest{Messages: []classwire.Message{tb.result(1, "scheduling", 1)}})
		if status != http.StatusUnauthorized || !strings.Contains(body, "bin/lab join") {
			t.Errorf("token %q: %d %s, want 401 naming bin/lab join", token, status, body)
		}
	}
}

func TestABadRequestIsRefusedWithItsReasonAndChangesNothing(t *testing.T) {
	tb := newTestBoard(t)
	token := tb.join("ada")
	good := func() classwire.Message { return tb.result(1, "scheduling", 2, "x") }
	many := make([]classwire.Message, classwire.MaxBatch+1)
	for i := range many {
		many[i] = tb.result(int64(i+1), "scheduling", 1)
	}
	cases := []struct {
		name   string
		body   any
		status int
		says   string
	}{
		{"a field the shape has not", []byte(`{"messages":[],"extra":1}`), 400, "unknown field"},
		{"not JSON", []byte(`{"messages":`), 400, "not the JSON the board takes"},
		{"two JSON values", []byte(`{"messages":[]} {}`), 400, "more than one JSON value"},
		{"larger than the cap", []byte(`{"messages":[` + strings.Repeat(" ", classwire.MaxBody) + `]}`), 413, "larger than"},
		{"no messages", classwire.SendRequest{}, 400, "no messages"},
		{"too many messages", classwire.SendRequest{Messages: many}, 400, "at most 50"},
		{"seq 0", func() any { m := good(); m.Seq = 0; return classwire.SendRequest{Messages: []classwire.Message{m}} }(), 400, "seq must be 1"},
		{"a stage that is no stage", func() any {
			m := good()
			m.Result.Stage = "../06"
			return classwire.SendRequest{Messages: []classwire.Message{m}}
		}(), 400, "not a stage's name"},
		{"a status that is no status", func() any {
			m := good()
			m.Result.Specs[0].Status = "flaky"
			return classwire.SendRequest{Messages: []classwire.Message{m}}
		}(), 400, "neither passed nor failed"},
		{"a file path for a package", func() any {
			m := good()
			m.Result.Specs[0].Package = "/home/ada/cronlab"
			return classwire.SendRequest{Messages: []classwire.Message{m}}
		}(), 400, "not a package path"},
		{"a result and a hand at once", func() any {
			m := good()
			m.Hand = &classwire.Hand{Text: "help"}
			return classwire.SendRequest{Messages: []classwire.Message{m}}
		}(), 400, "either a result or a hand"},
		{"a good message behind a bad one", classwire.SendRequest{Messages: []classwire.Message{good(), {Seq: 2, At: tb.clock.now(), Hand: &classwire.Hand{}}}}, 400, "1 to 280 characters"},
	}
	before := tb.Snapshot()
	for _, c := range cases {
		status, body := tb.post(classwire.SendPath, token, c.body)
		if status != c.status || !strings.Contains(body, c.says) {
			t.Errorf("%s: %d %s, want %d saying %q", c.name, status, body, c.status, c.says)
		}
		var r classwire.Refusal
		if json.Unmarshal([]byte(body), &r) != nil || r.ErrorZh == "" {
			t.Errorf("%s: the refusal %s has no Chinese", c.name, body)
		}
	}
	tb.restart() // what is stored, not only what is in memory
	if after := tb.Snapshot(); after.Attendees[0].Checks != 0 || len(after.Hands) != 0 || before.Attendees[0].LastSeq != after.Attendees[0].LastSeq {
		t.Errorf("a refused request changed the class: %+v", after.Attendees[0])
	}
}

func TestAMessageSentAgainIsCountedOnce(t *testing.T) {
	tb := newTestBoard(t)
	token := tb.join("ada")
	first := tb.send(token, tb.result(1, "scheduling", 3, "x"), tb.result(2, "scheduling", 3))
	again := tb.send(token, tb.result(2, "scheduling", 3), tb.result(3, "scheduling", 3, "y"))
	if first.Duplicates != 0 || again.Duplicates != 1 || len(again.Stored) != 2 {
		t.Errorf("answers %+v then %+v, want the second to hold both and name one duplicate", first, again)
	}
	if a := tb.attendee("ada"); a.Checks != 3 || a.LastSeq != 3 {
		t.Errorf("3 checks sent, one of them twice: the board counts %d (last seq %d)", a.Checks, a.LastSeq)
	}
}

func TestEverythingTheBoardAnsweredSurvivesARestart(t *testing.T) {
	tb := newTestBoard(t)
	ada := tb.join("ada")
	tb.send(ada, tb.result(1, "secondary-resources", 4))
	tb.clock.add(time.Minute)
	tb.send(ada, tb.result(2, "scheduling", 4, "x"), classwire.Message{Seq: 3, At: tb.clock.now(), Hand: &classwire.Hand{Stage: "scheduling", Text: "help"}})
	bob := tb.join("bob")
	tb.send(bob, classwire.Message{Seq: 1, At: tb.clock.now(), Hand: &classwire.Hand{Stage: "secondary-resources", Text: "me too"}})
	if status, body := tb.post(fmt.Sprintf("/api/v1/attendees/%d/hands/1/lower?key=%s", tb.attendee("bob").ID, tb.Key()), "", []byte("{}")); status != 200 {
		t.Fatalf("lowering bob's hand: %d %s", status, body)
	}
	code, key, before := tb.Code(), tb.Key(), tb.Snapshot()
	tb.restart()
	after := tb.Snapshot()
	if tb.Code() != code || tb.Key() != key {
		t.Errorf("the code and key changed across the restart")
	}
	b, _ := json.Marshal(before.Attendees)
	a, _ := json.Marshal(after.Attendees)
	if string(a) != string(b) || len(after.Hands) != 1 || after.Hands[0].Text != "help" {
		t.Errorf("after a restart the class is\n%s\nit was\n%s", a, b)
	}
	tb.send(ada, tb.result(4, "scheduling", 4)) // the token still works
	if tb.attendee("ada").Cells["scheduling"].State != "passed" {
		t.Error("ada's token no longer posts after the restart")
	}
}

func TestLeavingRevokesTheToken(t *testing.T) {
	tb := newTestBoard(t)
	ada := tb.join("ada")
	if status, _ := tb.post(classwire.LeavePath, ada, struct{}{}); status != 200 {
		t.Fatal(status)
	}
	tb.restart()
	if status, _ := tb.post(classwire.SendPath, ada, classwire.SendRequest{Messages: []classwire.Message{tb.result(1, "scheduling", 1)}}); status != http.StatusUnauthorized {
		t.Errorf("a token that left still posts: %d", status)
	}
	if a := tb.attendee("ada"); !a.Left {
		t.Error("ada left, but the board does not say so")
	}
}

func TestTheInstructorsPagesNeedTheKey(t *testing.T) {
	tb := newTestBoard(t)
	for _, path := range []string{"/api/v1/board", "/api/v1/events", "/api/v1/export.csv", "/api/v1/attendees/1/timeline"} {
		resp, err := http.Get(tb.srv.URL + path + "?key=wrong")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s with a wrong key: %d", path, resp.StatusCode)
		}
	}
	resp, err := http.Get(tb.srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Errorf("the page itself: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
}

func TestTheStuckFlags(t *testing.T) {
	tb := newTestBoard(t)
	reasons := func(name string) string {
		var rs []string
		for _, s := range tb.attendee(name).Stuck {
			rs = append(rs, s.Reason)
		}
		return strings.Join(rs, " ")
	}
	// Five attendees begin stage 06 at once; four pass it after 10, 12,
	// 14 and 16 minutes.
	tokens := map[string]string{}
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		tokens[n] = tb.join(n)
		tb.send(tokens[n], tb.result(1, "scheduling", 3, "x"))
	}
	tb.clock.add(10 * time.Minute)
	tb.send(tokens["a"], tb.result(2, "scheduling", 3))
	for i, n := range []string{"b", "c", "d"} {
		tb.clock.add(2 * time.Minute)
		tb.send(tokens[n], tb.result(2, "scheduling", 3))
		if i == 0 {
			tb.send(tokens["e"], tb.result(2, "scheduling", 3, "y", "x"))
		}
	}
	// e has failed x in two checks: not yet stuck on it.
	if got := reasons("e"); got != "" {
		t.Errorf("two failing checks and 16 minutes: %q, want none yet", got)
	}
	tb.send(tokens["e"], tb.result(3, "scheduling", 3, "x", "y"))
	// Now e: x failed 3 times in a row, and no more specs pass than 3
	// checks ago; 16 minutes on the stage, where
	// the class's 75th percentile of (10, 12, 14, 16, 16) is 16: not above.
	if got := reasons("e"); got != "repeat" {
		t.Errorf("x failing in 3 checks in a row: %q, want repeat", got)
	}
	if s := tb.attendee("e").Stuck[0]; s.Spec != "x" || s.Hint != "scheduling.1" {
		t.Errorf("the repeat flag names %+v, want spec x with its hint", s)
	}
	tb.clock.add(11 * time.Minute)
	if got := reasons("e"); got != "repeat slow quiet" {
		t.Errorf("27 minutes on the stage, 11 without a check: %q, want repeat slow quiet", got)
	}
	slow := tb.attendee("e").Stuck[1]
	if slow.Minutes != 27 || slow.P75 != 16 {
		t.Errorf("slow says %+v, want 27 minutes against a 75th percentile of 16", slow)
	}
	for _, n := range []string{"a", "b", "c", "d"} {
		if got := reasons(n); got != "" {
			t.Errorf("%s passed its stage, yet is flagged %q", n, got)
		}
	}
	// A check of another stage breaks the streak.
	tb.send(tokens["e"], tb.result(4, "secondary-resources", 3, "x"))
	if got := reasons("e"); strings.Contains(got, "repeat") {
		t.Errorf("after a check of another stage: %q", got)
	}
}

func TestWhatTheRoomFailsNow(t *testing.T) {
	tb := newTestBoard(t)
	for i, failing := range [][]string{{"x", "y"}, {"x"}, {"x"}, {}, {"z"}} {
		tb.send(tb.join(fmt.Sprint("a", i)), tb.result(1, "scheduling", 3, failing...))
	}
	tb.send(tb.join("a5"), tb.result(1, "scheduling", 3, "y"))
	f := tb.Snapshot().Failing
	if len(f) < 3 || f[0].Spec != "x" || f[0].Attendees != 3 || f[0].Of != 6 || f[0].Hint != "scheduling.1" || f[0].Names[0] != "a0" {
		t.Fatalf("failing %+v, want x first: 3 of the 6 on stage 06", f)
	}
	if f[1].Spec != "y" || f[1].Attendees != 2 {
		t.Errorf("then y by 2 attendees: %+v", f[1])
	}
}

// Each row of the CSV is its own stage's: the hints seen are those of the
// stage's latest check, not the attendee's latest check's on every row.
func TestTheCSVHasARowPerAttendeeAndStageAndNoFormulas(t *testing.T) {
	tb := newTestBoard(t)
	tok := tb.join("=cmd|calc")
	five, six := tb.result(1, "secondary-resources", 2), tb.result(2, "scheduling", 4, "x")
	five.Result.HintsSeen, six.Result.HintsSeen = 4, 3
	tb.send(tok, five, six)
	resp, err := http.Get(tb.srv.URL + "/api/v1/export.csv?key=" + tb.Key())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var lines []string
	for sc := bufio.NewScanner(resp.Body); sc.Scan(); {
		lines = append(lines, sc.Text())
	}
	want := []string{
		"attendee,name,left,stage,state,specs passed,specs,compile errors,checks,current,minutes on current stage,hints seen,stuck,hand",
		"1,'=cmd|calc,,secondary-resources,passed,2,2,0,1,,,4,,",
		"1,'=cmd|calc,,scheduling,failing,3,4,0,1,yes,0.0,3,,",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("the CSV is\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

func TestThePageIsToldOfAChange(t *testing.T) {
	tb := newTestBoard(t)
	token := tb.join("ada")
	resp, err := http.Get(tb.srv.URL + "/api/v1/events?key=" + tb.Key())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	lines := make(chan string)
	go func() {
		for sc := bufio.NewScanner(resp.Body); sc.Scan(); {
			lines <- sc.Text()
		}
		close(lines)
	}()
	next := func() string {
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatal("the stream ended")
				}
				if strings.HasPrefix(l, "data: ") {
					return l
				}
			case <-time.After(time.Second):
				t.Fatal("no event within a second")
			}
		}
	}
	first := next() // told at once, so that the page draws
	tb.send(token, tb.result(1, "scheduling", 1))
	if second := next(); second == first || !strings.Contains(second, fmt.Sprintf(`"version":%d`, tb.Snapshot().Version)) {
		t.Errorf("after a result the page was told %s (before: %s)", second, first)
	}
}

// A laptop that could not reach the board sends its backlog in one batch:
// each check still lands where it happened, on the board's clock, even
// when the laptop's clock is off.
func TestABacklogLandsWhereItHappened(t *testing.T) {
	tb := newTestBoard(t)
	token := tb.join("ada")
	skew := 7 * time.Minute // the laptop's clock is 7 minutes fast
	laptop := tb.clock.now().Add(skew)
	var batch []classwire.Message
	for i, ago := range []time.Duration{30, 20, 10} {
		m := tb.result(int64(i+1), "scheduling", 2, "x")
		m.At = laptop.Add(-ago * time.Minute)
		batch = append(batch, m)
	}
	tb.send(token, batch...)
	tb.clock.add(time.Minute)
	fresh := tb.result(4, "scheduling", 2, "x")
	fresh.At = tb.clock.now().Add(skew)
	tb.send(token, fresh)
	resp, err := http.Get(fmt.Sprintf("%s/api/v1/attendees/%d/timeline?key=%s", tb.srv.URL, tb.attendee("ada").ID, tb.Key()))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var tl Timeline
	_ = json.NewDecoder(resp.Body).Decode(&tl)
	start := tb.clock.now().Add(-time.Minute)
	for i, want := range []time.Time{start.Add(-30 * time.Minute), start.Add(-20 * time.Minute), start.Add(-10 * time.Minute), tb.clock.now()} {
		if got := tl.Entries[i].At; !got.Equal(want) {
			t.Errorf("check %d at %s on the board's clock, want %s", i+1, got.Format("15:04"), want.Format("15:04"))
		}
	}
	if on := tb.attendee("ada").OnStage; on != (31 * time.Minute).Seconds() {
		t.Errorf("time on the stage %v s, want 31 minutes (from the first check of the backlog)", on)
	}
}

// Someone who left no longer makes the class's 75th percentile grow.
func TestWhoLeftStopsTheirClock(t *testing.T) {
	tb := newTestBoard(t)
	tokens := map[string]string{}
	for _, n := range []string{"a", "b", "c", "d"} {
		tokens[n] = tb.join(n)
		tb.send(tokens[n], tb.result(1, "scheduling", 2, "x"))
	}
	tb.clock.add(5 * time.Minute)
	tb.post(classwire.LeavePath, tokens["a"], struct{}{})
	for _, n := range []string{"b", "c"} {
		tb.send(tokens[n], tb.result(2, "scheduling", 2))
	}
	tb.clock.add(time.Hour)
	// d: 65 minutes; the others 5, 5 and a's 5 until it left: d is slow.
	if s := tb.attendee("d").Stuck; len(s) < 1 || s[0].Reason != "slow" || s[0].P75 != 5 {
		t.Errorf("d after an hour on the stage: %+v, want slow against a 75th percentile of 5 minutes", s)
	}
}

// An attendee who makes progress is not stuck on a spec that they have not
// reached yet, however often it fails on the way.
func TestProgressIsNotStuck(t *testing.T) {
	tb := newTestBoard(t)
	token := tb.join("ada")
	for i, failing := range [][]string{{"a", "b", "c", "z"}, {"b", "c", "z"}, {"c", "z"}} {
		tb.send(token, tb.result(int64(i+1), "scheduling", 5, failing...))
	}
	if s := tb.attendee("ada").Stuck; len(s) != 0 {
		t.Errorf("z failed in 3 checks while 1, then 2, then 3 specs passed: %+v, want not stuck", s)
	}
	tb.send(token, tb.result(4, "scheduling", 5, "c", "z"), tb.result(5, "scheduling", 5, "c", "z"))
	if s := tb.attendee("ada").Stuck; len(s) != 1 || s[0].Spec != "c" {
		t.Errorf("3 checks without progress (3, 3, 3 passing): %+v, want stuck on c, the first of the two that fail in each", s)
	}
}

func (tb *testBoard) timeline(name string) Timeline {
	tb.t.Helper()
	resp, err := http.Get(fmt.Sprintf("%s/api/v1/attendees/%d/timeline?key=%s", tb.srv.URL, tb.attendee(name).ID, tb.Key()))
	if err != nil {
		tb.t.Fatal(err)
	}
	defer resp.Body.Close()
	var tl Timeline
	if err := json.NewDecoder(resp.Body).Decode(&tl); err != nil {
		tb.t.Fatal(err)
	}
	return tl
}

// A check whose code does not compile is that on the timeline, as in its
// cell, even when the rest ran with the broken functions stubbed and none
// of it failed: not "0 failed of 2".
func TestTheTimelineSaysACheckDidNotCompile(t *testing.T) {
	tb := newTestBoard(t)
	token := tb.join("ada")
	broken := tb.result(1, "scheduling", 2)
	broken.Result.Passed, broken.Result.CompileErrors = false, 1
	nothing := tb.result(2, "scheduling", 0)
	nothing.Result.Passed = false // a suite's setup failed: no spec ran
	tb.send(token, broken, nothing, tb.result(3, "scheduling", 2, "x"), tb.result(4, "scheduling", 2))
	var got []string
	for _, e := range tb.timeline("ada").Entries {
		got = append(got, e.Outcome)
	}
	if strings.Join(got, " ") != "nocompile nospecs failed passed" {
		t.Errorf("the timeline's checks came to %q, want nocompile nospecs failed passed", got)
	}
}

// handState is what the board tells an attendee's bin/lab status.
func (tb *testBoard) handState(token string) classwire.HandState {
	tb.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, tb.srv.URL+classwire.HandPath, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		tb.t.Fatalf("GET %s: %s", classwire.HandPath, resp.Status)
	}
	var st classwire.HandState
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		tb.t.Fatal(err)
	}
	return st
}

func (tb *testBoard) raise(seq int64, stage, text string) classwire.Message {
	return classwire.Message{Seq: seq, At: tb.clock.now(), Hand: &classwire.Hand{Stage: stage, Text: text}}
}

// lastHand is the timeline's entry of a's latest hand.
func (tb *testBoard) lastHand(name string) TimelineEntry {
	tb.t.Helper()
	var last TimelineEntry
	for _, e := range tb.timeline(name).Entries {
		if e.Kind == "hand" {
			last = e
		}
	}
	return last
}

// A hand raised on a stage comes down when its attendee passes that stage
// after raising it: they moved on, and the instructor is not sent to them.
// The timeline and the attendee's bin/lab status say why; a restart keeps it.
func TestAHandComesDownWhenItsStageIsPassed(t *testing.T) {
	tb := newTestBoard(t)
	ada := tb.join("ada")
	if st := tb.handState(ada); st.Seq != 0 || st.Up {
		t.Errorf("before any hand, the board tells %+v", st)
	}
	tb.send(ada, tb.raise(1, "scheduling", "my Job is created twice"), tb.result(2, "scheduling", 3, "x"), tb.result(3, "secondary-resources", 3))
	if hs := tb.Snapshot().Hands; len(hs) != 1 || tb.attendee("ada").Hand == nil {
		t.Fatalf("a failing check of its stage, a passing one of another: the hand stays up; hands %+v", hs)
	}
	if st := tb.handState(ada); st.Seq != 1 || !st.Up || st.Stage != "scheduling" {
		t.Errorf("the hand is up; the board tells %+v", st)
	}
	tb.send(ada, tb.result(4, "scheduling", 3))
	if hs := tb.Snapshot().Hands; len(hs) != 0 || tb.attendee("ada").Hand != nil {
		t.Errorf("ada passed stage 06 after raising a hand on it; the board still shows %+v", hs)
	}
	want := classwire.HandState{Seq: 1, Stage: "scheduling", LoweredBy: classwire.LoweredByPassing}
	if st := tb.handState(ada); st != want {
		t.Errorf("the board tells %+v, want %+v", st, want)
	}
	if h := tb.lastHand("ada"); !h.Lowered || h.LoweredBy != classwire.LoweredByPassing {
		t.Errorf("the timeline's hand: %+v, want lowered because the stage passed", h)
	}
	tb.restart()
	if st := tb.handState(ada); st != want {
		t.Errorf("after a restart the board tells %+v, want %+v", st, want)
	}

	// A hand raised after passing the stage is a new question: it stays.
	tb.send(ada, tb.raise(5, "scheduling", "why does Forbid skip?"))
	if st := tb.handState(ada); st.Seq != 5 || !st.Up {
		t.Errorf("a hand raised after passing its stage: %+v, want up", st)
	}
}

// The check that passed may reach the board before the hand that it
// follows (two terminals, a queue sent in two batches): the hand is down
// all the same.
func TestAHandIsLoweredByTheCheckAfterItWhateverArrivedFirst(t *testing.T) {
	tb := newTestBoard(t)
	ada := tb.join("ada")
	tb.send(ada, tb.result(2, "scheduling", 3))
	tb.send(ada, tb.raise(1, "scheduling", "help"))
	if st := tb.handState(ada); st.Up || st.LoweredBy != classwire.LoweredByPassing {
		t.Errorf("hand 1 before passing check 2, received after it: %+v, want lowered", st)
	}
}

// Who lowered a hand first is who lowered it, after a restart too: the
// instructor's done, then a check that passed its stage.
func TestTheFirstLoweringOfAHandIsTheOneKept(t *testing.T) {
	tb := newTestBoard(t)
	ada := tb.join("ada")
	tb.send(ada, tb.raise(1, "scheduling", "help"))
	if status, body := tb.post(fmt.Sprintf("/api/v1/attendees/%d/hands/1/lower?key=%s", tb.attendee("ada").ID, tb.Key()), "", []byte("{}")); status != 200 {
		t.Fatalf("lowering ada's hand: %d %s", status, body)
	}
	tb.clock.add(time.Minute)
	tb.send(ada, tb.result(2, "scheduling", 3))
	for _, when := range []string{"live", "after a restart"} {
		if st := tb.handState(ada); st.Up || st.LoweredBy != classwire.LoweredByInstructor {
			t.Errorf("%s: %+v, want lowered by the instructor, who did it first", when, st)
		}
		tb.restart()
	}
	// And the attendee's own lowering, before a pass.
	tb.send(ada, tb.raise(3, "scheduling", "again"), classwire.Message{Seq: 4, At: tb.clock.now(), Hand: &classwire.Hand{Down: true}})
	tb.clock.add(time.Minute)
	tb.send(ada, tb.result(5, "scheduling", 3))
	if st := tb.handState(ada); st.Seq != 3 || st.LoweredBy != classwire.LoweredByAttendee {
		t.Errorf("hand 3 lowered by ada, then the stage passed: %+v", st)
	}
}

// The Chinese page names the specs in Chinese: the board gives, beside each
// English name in what the room fails and in a repeat flag, the one its
// ChineseName finds (and none where it finds none).
func TestTheBoardNamesSpecsInChinese(t *testing.T) {
	tb := newTestBoard(t)
	tb.NameSpecsWith(func(pkg, name string) string {
		if pkg == "./internal/controller" && name == "x" {
			return "甲"
		}
		return ""
	})
	token := tb.join("e")
	for seq := int64(1); seq <= 3; seq++ {
		tb.send(token, tb.result(seq, "06", 3, "x", "y"))
	}
	f := tb.Snapshot().Failing
	if len(f) != 2 || f[0].Spec != "x" || f[0].SpecZh != "甲" || f[1].Spec != "y" || f[1].SpecZh != "" {
		t.Errorf("what the room fails: %+v, want x as 甲 and y without a Chinese name", f)
	}
	if s := tb.attendee("e").Stuck; len(s) == 0 || s[0].Spec != "x" || s[0].SpecZh != "甲" || s[0].Package != "./internal/controller" {
		t.Errorf("the repeat flag: %+v, want spec x of ./internal/controller, 甲 in Chinese", s)
	}
}
