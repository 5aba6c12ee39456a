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
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"cronlab.dev/cronlab/cmd/lab/internal/board"
	"cronlab.dev/cronlab/cmd/lab/internal/classwire"
	"cronlab.dev/cronlab/cmd/lab/internal/functions"
	"cronlab.dev/cronlab/cmd/lab/internal/gotest"
	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
	"cronlab.dev/cronlab/cmd/lab/internal/progress"
	"cronlab.dev/cronlab/cmd/lab/internal/report"
	"cronlab.dev/cronlab/cmd/lab/internal/stage"
)

// aBoard serves a real board on a fixed loopback address, so that the
// test can stop it and start it again where attendees expect it.
type aBoard struct {
	t    *testing.T
	b    *board.Board
	addr string
	db   string
	stop chan struct{}
	done chan struct{}
}

func startBoard(t *testing.T, addr, db string) *aBoard {
	t.Helper()
	b, err := board.Open(db, []board.StageInfo{{ID: "scheduling", Title: "six"}}, "CODE42", time.Now)
	if err != nil {
		t.Fatal(err)
	}
	ab := &aBoard{t: t, b: b, db: db, stop: make(chan struct{}), done: make(chan struct{})}
	ready := make(chan string)
	go func() {
		defer close(ab.done)
		if err := b.Serve(addr, func(a string) { ready <- a }, ab.stop); err != nil {
			t.Error(err)
			close(ready)
		}
	}()
	ab.addr = <-ready
	t.Cleanup(ab.down)
	return ab
}

func (ab *aBoard) url() string { return "http://" + ab.addr }

func (ab *aBoard) down() {
	select {
	case <-ab.stop:
	default:
		close(ab.stop)
		<-ab.done
		ab.b.Close()
	}
}

func result(stage string, failing ...string) classwire.Message {
	r := &classwire.Result{Stage: stage, Passed: len(failing) == 0, Specs: []classwire.Spec{{Package: "./internal/controller", Name: "passes", Status: "passed"}}}
	for _, f := range failing {
		r.Specs = append(r.Specs, classwire.Spec{Package: "./internal/controller", Name: f, Status: "failed"})
	}
	return classwire.Message{At: time.Now().UTC(), Result: r}
}

func TestResultsWaitWhileTheBoardIsDownAndGoLaterInOrder(t *testing.T) {
	db := filepath.Join(t.TempDir(), "board.db")
	ab := startBoard(t, "127.0.0.1:0", db)
	dir := t.TempDir()
	if _, err := Join(dir, ab.url(), "code42", "ada"); err != nil {
		t.Fatal(err)
	}
	if _, err := Enqueue(dir, result("scheduling", "x")); err != nil {
		t.Fatal(err)
	}
	if a, err := Flush(context.Background(), dir); err != nil || a.Sent != 1 || len(Waiting(dir)) != 0 {
		t.Fatalf("with the board up: %+v %v, %d waiting", a, err, len(Waiting(dir)))
	}

	addr := ab.addr
	ab.down()
	for _, f := range []string{"y", "z"} {
		if _, err := Enqueue(dir, result("scheduling", f)); err != nil {
			t.Fatal(err)
		}
		if _, err := Flush(context.Background(), dir); err == nil {
			t.Fatal("the board is down, yet Flush says all went")
		}
	}
	a, _ := LastAttempt(dir)
	if n := len(Waiting(dir)); n != 2 || !strings.Contains(a.Error, "did not answer") || !strings.Contains(a.ErrorZh, "没有应答") {
		t.Fatalf("%d waiting, last attempt %+v; want 2 waiting and why, in both languages", n, a)
	}

	ab = startBoard(t, addr, db)
	if _, err := Enqueue(dir, result("scheduling")); err != nil {
		t.Fatal(err)
	}
	if a, err := Flush(context.Background(), dir); err != nil || a.Sent != 3 || len(Waiting(dir)) != 0 {
		t.Fatalf("the board is back: %+v %v, %d waiting", a, err, len(Waiting(dir)))
	}
	s := ab.b.Snapshot()
	if got := s.Attendees[0]; got.Checks != 4 || got.LastSeq != 4 || got.Cells["scheduling"].State != "passed" {
		t.Errorf("the board holds %+v, want the 4 checks, the last one passing", got)
	}
}

func TestABatchTheBoardRefusesIsSetAsideAndTheRestGoes(t *testing.T) {
	ab := startBoard(t, "127.0.0.1:0", filepath.Join(t.TempDir(), "board.db"))
	dir := t.TempDir()
	if _, err := Join(dir, ab.url(), "CODE42", "ada"); err != nil {
		t.Fatal(err)
	}
	bad := result("scheduling")
	bad.Result.Stage = "Six" // as a board of another version might refuse
	Enqueue(dir, bad)
	a, err := Flush(context.Background(), dir)
	if err != nil || a.Refused != 1 || len(Waiting(dir)) != 0 {
		t.Fatalf("%+v %v: want the refused message set aside", a, err)
	}
	if set, _ := os.ReadDir(filepath.Join(dir, "refused")); len(set) != 1 {
		t.Errorf("refused/ holds %d files, want the one refused", len(set))
	}
	Enqueue(dir, result("scheduling"))
	if a, err := Flush(context.Background(), dir); err != nil || a.Sent != 1 {
		t.Errorf("the next result: %+v %v", a, err)
	}
}

func TestConcurrentChecksGetDistinctNumbers(t *testing.T) {
	dir := t.TempDir()
	if err := writeMember(dir, Member{Board: "http://127.0.0.1:1", NextSeq: 1}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	seqs := make([]int64, 20)
	for i := range seqs {
		wg.Go(func() {
			var err error
			if seqs[i], err = Enqueue(dir, result("scheduling")); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	slices.Sort(seqs)
	for i, s := range seqs {
		if s != int64(i+1) {
			t.Fatalf("sequence numbers %v, want 1 to 20", seqs)
		}
	}
	if n := len(Waiting(dir)); n != 20 {
		t.Errorf("%d files in the queue, want 20", n)
	}
}

func TestNoCodeNoOutputNoFileNameLeavesTheLaptop(t *testing.T) {
	s := stage.Stage{Slug: "scheduling", Num: "06", Title: "six", Tests: []stage.Test{{Package: "./internal/controller"}}}
	secret := "func (r *CronJobReconciler) secretCode() // /home/ada/cronlab/internal/controller/jobs.go:42"
	rs := []gotest.Results{{
		Outcomes:    []gotest.Outcome{{Name: "spec one", Status: "passed"}, {Name: "spec two", Status: "failed"}},
		Failures:    []gotest.Failure{{Name: "spec two", Message: secret, Location: "internal/controller/jobs.go:42", Panic: secret}},
		BuildErrors: []string{"internal/controller/jobs.go:42:3: " + secret},
		Passed:      1, Failed: 1,
	}}
	c := report.NewCheck(t.TempDir(), s, rs, errors.New("failing"))
	c.Functions = []functions.Result{{Name: "CronJobReconciler.startDueRun", Status: "failed", Passed: 1, Ran: 2, Failing: []string{"spec two"}, CompileError: secret}}
	sent := Sent(s, c, progress.StageResult{HintsShown: []string{"scheduling.1", "scheduling.2"}, Started: time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)})
	raw, _ := json.Marshal(sent)
	for _, leak := range []string{"secretCode", "/home/ada", "jobs.go"} {
		if strings.Contains(string(raw), leak) {
			t.Errorf("what is sent holds %q:\n%s", leak, raw)
		}
	}
	if sent.HintsSeen != 2 || sent.CompileErrors != 1 || len(sent.Specs) != 2 || sent.Specs[1].Status != "failed" || sent.Functions[0].Ran != 2 {
		t.Errorf("what is sent lost the results: %s", raw)
	}
	if err := (classwire.Message{Seq: 1, At: time.Now(), Result: sent}).Validate(); err != nil {
		t.Errorf("what a check sends does not pass the board's validation: %v", err)
	}
}

func TestLongNamesAreCutToWhatTheBoardTakes(t *testing.T) {
	long := strings.Repeat("界", classwire.MaxName+20)
	s := stage.Stage{Slug: "scheduling", Num: "06", Tests: []stage.Test{{Package: "./internal/controller"}}}
	rs := []gotest.Results{{Outcomes: []gotest.Outcome{{Name: long, Status: "passed"}}, Passed: 1}}
	sent := Sent(s, report.NewCheck(t.TempDir(), s, rs, nil), progress.StageResult{})
	if err := (classwire.Message{Seq: 1, At: time.Now(), Result: sent}).Validate(); err != nil {
		t.Errorf("a long spec name: %v", err)
	}
}

func TestJoinSaysHowToFixWhatIsWrong(t *testing.T) {
	ab := startBoard(t, "127.0.0.1:0", filepath.Join(t.TempDir(), "board.db"))
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	closed := "http://" + ln.Addr().String()
	ln.Close()
	notABoard := httptest.NewServer(http.NotFoundHandler())
	defer notABoard.Close()
	cases := []struct {
		args []string
		en   string
		zh   string
	}{
		{[]string{ab.url()}, "usage: bin/lab join <board-url> <class-code>", "用法"},
		{[]string{"http://", "X"}, "is not the board's address", "不是看板的地址"},
		{[]string{ab.url(), "WRONG"}, "check it with the instructor", "请和讲师核对"},
		{[]string{closed, "CODE42"}, "did not answer (connection refused)", "没有应答"},
		{[]string{notABoard.URL, "CODE42"}, "a class board?", "班级看板吗"},
	}
	for _, c := range cases {
		err := CmdJoin(i18n.English, t.TempDir(), c.args, "ada")
		if err == nil || !strings.Contains(i18n.Message(i18n.English, err), c.en) || !strings.Contains(i18n.Message(i18n.Chinese, err), c.zh) {
			t.Errorf("join %v: %v; want it to say %q (%q in Chinese)", c.args, err, c.en, c.zh)
		}
	}
}
