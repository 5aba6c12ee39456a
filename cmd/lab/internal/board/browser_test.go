//go:build browser

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

// The board's page in a real browser (headless Chromium, driven by
// chromedp): a class of 30 is replayed over HTTP exactly as their bin/lab
// would send it, and the test reads what the instructor would see. It is
// behind the build tag "browser" because it needs Chromium:
//
//	make test-board-browser
//	go test -tags browser -run TestBoardInABrowser -v ./cmd/lab/internal/board/
//
// BOARD_SCREENSHOT=file.png writes what the page looks like; CHROMIUM names
// the browser when it is not /usr/bin/chromium, chromium or google-chrome.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"cronlab.dev/cronlab/cmd/lab/internal/classwire"
)

// fakeClock is the board's clock: the replay sets it to each message's
// moment, so a class's morning takes a second.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

// The workshop's 17 stages, with made-up titles.
var browserStages = []StageInfo{
	{"layout", "01", "Tools and the cluster", "工具与集群"},
	{"api", "02", "The CronJob type", "CronJob 类型"},
	{"list-watch", "03", "Validation", "校验"},
	{"reconcile-loop", "04", "The first Reconcile", "第一个调和函数"},
	{"secondary-resources", "05", "Listing child Jobs", "列出子 Job"},
	{"scheduling", "06", "Creating Jobs on schedule", "按计划创建 Job"},
	{"envtest", "07", "Concurrency policy", "并发策略"},
	{"helm-chart", "08", "History limits", "历史记录限制"},
	{"q1-no-webhook", "09", "Status", "状态"},
	{"q2-go-vs-yaml", "10", "Events", "事件"},
	{"q3-owns-vs-watches", "11", "Metrics", "指标"},
	{"q4-level-based", "12", "Webhooks", "Webhook"},
	{"q6-direct-reads", "13", "Conversion", "版本转换"},
	{"q5-next-reconcile", "14", "Leader election", "领导者选举"},
	{"stale-cache", "15", "Stale caches", "陈旧的缓存"},
	{"client-go", "16", "The Helm chart", "Helm chart"},
	{"multiversion", "17", "End to end", "端到端测试"},
}

// The specs of the stages where the class is; a stage has six.
var namedSpecs = map[int][]string{
	3: {"rejects a schedule that is not cron syntax", "rejects a negative startingDeadlineSeconds", "accepts the five-field schedule",
		"defaults concurrencyPolicy to Allow", "rejects a jobTemplate without containers", "rejects a history limit above 100"},
	4: {"returns without error when the CronJob is gone", "requeues at the next scheduled time", "reads the CronJob from the cache",
		"ignores a CronJob being deleted", "logs the CronJob's key", "does not write when nothing changed"},
	5: {"lists only Jobs the CronJob owns", "sorts active, succeeded and failed Jobs", "uses the field index on the owner",
		"finds the last schedule time from annotations", "ignores Jobs of another namespace", "counts a Job with a Failed condition as failed"},
	6: {"creates a Job at the scheduled time", "does not create a Job before its time", "creates one Job per schedule, not one per Reconcile",
		"names the Job after the scheduled time", "skips a run missed beyond startingDeadlineSeconds", "sets the CronJob as the Job's controller owner"},
	7: {"Forbid skips a run while one is active", "Replace deletes the active Job first", "Allow runs Jobs side by side",
		"does not count a finished Job as active", "records the skipped run in status", "deletes with background propagation"},
	8: {"keeps successfulJobsHistoryLimit succeeded Jobs", "keeps failedJobsHistoryLimit failed Jobs", "deletes the oldest Jobs first",
		"never deletes an active Job", "treats a nil limit as unlimited", "tolerates a Job already deleted"},
}

const specsPerStage = 6

func specName(stage, i int) string {
	if names, ok := namedSpecs[stage]; ok {
		return names[i]
	}
	return fmt.Sprintf("%s, case %d", browserStages[stage-1].Title, i+1)
}

// specHint is the hint a failure of the spec points to; the spec the room
// fails most points to 06.7, as a real stage's later hint would.
func specHint(stage, i int) string {
	if stage == 6 && i == 2 {
		return sid(6) + ".7"
	}
	return fmt.Sprintf("%s.%d", sid(stage), i+1)
}

// sid is the id of the stage at place n (1 to 17): its slug, which the
// messages name it by; the page shows its number.
func sid(n int) string { return browserStages[n-1].ID }

// learner is one attendee of the replayed class: where they are when the
// morning ends, and how they got there.
type learner struct {
	name    string
	stage   int     // the stage they are on
	onStage int     // minutes on it when the morning ends
	earlier [][]int // the failing specs of their earlier checks of it
	final   []int   // the failing specs of their latest check; nil: it passed
	compile bool    // their latest check does not compile (the rest ran, the broken functions stubbed)
	quiet   bool    // sends nothing after the morning
	leaves  bool    // runs bin/lab leave before the morning ends
	hand    string  // a hand they raise
}

// The class. Six of the nine on stage 06 fail its spec 2 in their latest
// check; dara fails it in every check (stuck: repeat); ada has been on
// stage 06 far longer than the others (stuck: slow); quinn stops checking
// (stuck: quiet); kemal's code does not compile; gus raises a hand; cyrus
// leaves. Nobody else's last three checks share a failing spec.
var class30 = []learner{
	{name: "ada", stage: 6, onStage: 38, earlier: [][]int{{0, 3}, {1, 4}}, final: []int{2}},
	{name: "bao", stage: 5, onStage: 9, earlier: [][]int{{0}}, final: []int{3}},
	{name: "chen", stage: 7, onStage: 6, earlier: [][]int{{1}}},
	{name: "dara", stage: 6, onStage: 14, earlier: [][]int{{2, 4}, {2}}, final: []int{2}},
	{name: "emil", stage: 4, onStage: 7, earlier: [][]int{{0, 1}}, final: []int{5}},
	{name: "fatou", stage: 8, onStage: 5, final: []int{0, 1}},
	{name: "gus", stage: 6, onStage: 9, earlier: [][]int{{5}}, final: []int{2}, hand: "my Job is created twice"},
	{name: "<b>kai</b>", stage: 5, onStage: 12, earlier: [][]int{{1}}, final: []int{0, 4}},
	{name: "ines", stage: 3, onStage: 15, earlier: [][]int{{0}, {1, 5}}, final: []int{3}},
	{name: "jon", stage: 7, onStage: 10, earlier: [][]int{{3}}},
	{name: "kemal", stage: 6, onStage: 11, earlier: [][]int{{3}}, final: []int{}, compile: true},
	{name: "lena", stage: 5, onStage: 5, final: []int{1, 2}},
	{name: "mo", stage: 4, onStage: 8, earlier: [][]int{{2}}, final: []int{0}},
	{name: "nadia", stage: 6, onStage: 6, final: []int{2, 5}},
	{name: "olu", stage: 7, onStage: 12, earlier: [][]int{{0}, {4}}, final: []int{1}},
	{name: "priya", stage: 8, onStage: 8, earlier: [][]int{{2}}, final: []int{3}},
	{name: "quinn", stage: 5, onStage: 13, earlier: [][]int{{4}}, final: []int{0}, quiet: true},
	{name: "rafa", stage: 6, onStage: 8, earlier: [][]int{{0}}, final: []int{2}},
	{name: "sami", stage: 3, onStage: 10, earlier: [][]int{{4}}, final: []int{0, 1}},
	{name: "tao", stage: 4, onStage: 4, final: []int{3}},
	{name: "uma", stage: 6, onStage: 5, final: []int{4}},
	{name: "vik", stage: 7, onStage: 4, final: []int{2}},
	{name: "wen", stage: 5, onStage: 7, earlier: [][]int{{1}}, final: []int{5}},
	{name: "xena", stage: 8, onStage: 11, earlier: [][]int{{1}, {5}}, final: []int{4}},
	{name: "yusuf", stage: 6, onStage: 10, earlier: [][]int{{1}}, final: []int{2, 3}},
	{name: "zoe", stage: 4, onStage: 12, earlier: [][]int{{4}, {1}}, final: []int{2}},
	{name: "arjun", stage: 5, onStage: 6},
	{name: "bea", stage: 7, onStage: 9, earlier: [][]int{{5}}, final: []int{0}},
	{name: "cyrus", stage: 3, onStage: 16, earlier: [][]int{{2}}, final: []int{5}, leaves: true},
	{name: "dmitri", stage: 6, onStage: 4},
}

const (
	// The replayed part of the class: a morning of the workshop, stages of
	// 20 to 40 minutes.
	morning      = 3 * time.Hour
	clockMovesOn = 11 * time.Minute // the clock moves on by this before the page looks
)

// classroom replays the class against the board over HTTP.
type classroom struct {
	t      *testing.T
	url    string
	client *http.Client
	clock  *fakeClock
	start  time.Time // the board's time when the class began
	people []*member
}

type member struct {
	learner
	id    int64
	token string
	seq   int64
	sent  int           // messages the board holds of them
	skew  time.Duration // their laptop's clock minus the board's
	last  *classwire.Result
}

// post sends a request as bin/lab does and decodes the answer into out.
func (c *classroom) post(path, token string, in, out any) {
	c.t.Helper()
	body, err := json.Marshal(in)
	if err != nil {
		c.t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, c.url+path, bytes.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := c.client.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		c.t.Fatalf("POST %s: %s: %s", path, resp.Status, answer)
	}
	if out != nil {
		if err := json.Unmarshal(answer, out); err != nil {
			c.t.Fatalf("POST %s: %v in %s", path, err, answer)
		}
	}
}

func (c *classroom) join(code string) {
	for i, l := range class30 {
		c.clock.Set(c.start.Add(time.Duration(i) * 5 * time.Second))
		var resp classwire.JoinResponse
		c.post(classwire.JoinPath, "", classwire.JoinRequest{Code: code, Name: l.name}, &resp)
		if resp.Name != l.name {
			c.t.Fatalf("joined as %q, the board calls them %q", l.name, resp.Name)
		}
		// Laptops' clocks are a few minutes off the board's, each its own way.
		skew := time.Duration(i*37%11-5)*time.Minute + time.Duration(i)*time.Second
		c.people = append(c.people, &member{learner: l, id: resp.Attendee, token: resp.Token, skew: skew})
	}
}

// send posts one message of m's, stamped on m's laptop clock.
func (c *classroom) send(m *member, r *classwire.Result, h *classwire.Hand) {
	c.t.Helper()
	m.seq++
	msg := classwire.Message{Seq: m.seq, At: c.clock.Now().Add(m.skew), Result: r, Hand: h}
	var resp classwire.SendResponse
	c.post(classwire.SendPath, m.token, classwire.SendRequest{Messages: []classwire.Message{msg}}, &resp)
	if len(resp.Stored) != 1 || resp.Stored[0] != m.seq || resp.Duplicates != 0 {
		c.t.Fatalf("%s's message %d: the board answered %+v", m.name, m.seq, resp)
	}
	m.sent++
	if r != nil {
		m.last = r
	}
}

// checkResult is a check of stage whose failing specs are failing, as bin/lab
// check --json reports it; started is when bin/lab start began the stage,
// on the laptop's clock.
func checkResult(stage int, started time.Time, failing []int, compileErrors, hintsSeen int) *classwire.Result {
	r := &classwire.Result{Stage: sid(stage), Passed: failing == nil && compileErrors == 0, StageStarted: started,
		HintsSeen: hintsSeen, CompileErrors: compileErrors, Specs: []classwire.Spec{}, Functions: []classwire.Function{}}
	for i := range specsPerStage {
		s := classwire.Spec{Package: "./internal/controller", Name: specName(stage, i), Status: "passed"}
		if slices.Contains(failing, i) {
			s.Status, s.Hint = "failed", specHint(stage, i)
		}
		r.Specs = append(r.Specs, s)
	}
	return r
}

// at is the moment of the class that many minutes after it began.
func (c *classroom) at(minutes float64) time.Time {
	return c.start.Add(time.Duration(minutes * float64(time.Minute)))
}

// replay sends the class's morning, every attendee's messages in the order of
// their moments, then moves the clock on and lets everyone but the quiet
// one check again.
func (c *classroom) replay() {
	type event struct {
		at   time.Time
		who  *member
		what func()
	}
	var events []event
	for i, m := range c.people {
		curStart := morning.Minutes() - float64(m.onStage)
		// The stages before: evenly spread over the time until this one,
		// each passed at its end, some after a failing check.
		per := curStart / float64(m.stage-1)
		for s := 1; s < m.stage; s++ {
			begun := curStart - per*float64(m.stage-s)
			started := c.at(begun).Add(m.skew)
			if (s+i)%2 == 0 {
				r := checkResult(s, started, []int{(s + i) % specsPerStage}, 0, 0)
				events = append(events, event{c.at(begun + per/2), m, func() { c.send(m, r, nil) }})
			}
			r := checkResult(s, started, nil, 0, (s+i)%2)
			events = append(events, event{c.at(begun + per*0.9), m, func() { c.send(m, r, nil) }})
		}
		// The stage they are on: their checks spread over the time on it.
		started := c.at(curStart).Add(m.skew)
		checks := append(slices.Clone(m.earlier), m.final)
		for j, failing := range checks {
			compile := 0
			if j == len(checks)-1 && m.compile {
				compile = 2
			}
			r := checkResult(m.stage, started, failing, compile, j)
			when := curStart + float64(m.onStage)*float64(j+1)/float64(len(checks)+1)
			events = append(events, event{c.at(when), m, func() { c.send(m, r, nil) }})
		}
		if m.hand != "" {
			h := &classwire.Hand{Stage: sid(m.stage), Text: m.hand}
			events = append(events, event{c.at(morning.Minutes() - 2), m, func() { c.send(m, nil, h) }})
		}
		if m.leaves {
			events = append(events, event{c.at(morning.Minutes() - 1), m, func() { c.post(classwire.LeavePath, m.token, struct{}{}, nil) }})
		}
	}
	slices.SortStableFunc(events, func(x, y event) int { return x.at.Compare(y.at) })
	for _, e := range events {
		c.clock.Set(e.at)
		e.what()
	}
	c.clock.Set(c.start.Add(morning + clockMovesOn))
	for _, m := range c.people {
		if !m.quiet && !m.leaves {
			c.send(m, m.last, nil)
		}
	}
}

func (c *classroom) byName(name string) *member {
	for _, m := range c.people {
		if m.name == name {
			return m
		}
	}
	c.t.Fatalf("nobody called %s in the class", name)
	return nil
}

// browserPath is the browser to drive: $CHROMIUM, or the first of the
// usual names found.
func browserPath(t *testing.T) string {
	const how = "install Chromium (Debian/Ubuntu: apt-get install chromium) or set CHROMIUM=/path/to/chrome"
	if p := os.Getenv("CHROMIUM"); p != "" {
		found, err := exec.LookPath(p)
		if err != nil {
			t.Fatalf("CHROMIUM=%s: %v: %s", p, err, how)
		}
		return found
	}
	for _, p := range []string{"/usr/bin/chromium", "chromium", "google-chrome"} {
		if found, err := exec.LookPath(p); err == nil {
			return found
		}
	}
	t.Fatalf("this test drives a browser and found none (/usr/bin/chromium, chromium, google-chrome): %s", how)
	return ""
}

// rowView is what the page shows of an attendee's row.
type rowView struct {
	ID       string              `json:"id"`
	Name     string              `json:"name"`
	NameText string              `json:"nameText"`
	NameTags int                 `json:"nameTags"` // elements inside the name: markup that got through
	Left     bool                `json:"left"`
	Reasons  *string             `json:"reasons"` // the stuck flag's data-reasons; nil: no flag
	Flag     string              `json:"flag"`
	Why      string              `json:"why"` // the reasons in words
	Hand     bool                `json:"hand"`
	Cells    map[string]cellView `json:"cells"`
}

type cellView struct {
	State   string `json:"state"`
	Mark    string `json:"mark"`
	Current bool   `json:"current"`
	On      string `json:"on"`
}

const readRows = `[...document.querySelectorAll('#matrix tbody tr[data-attendee]')].map((tr) => {
  const flag = tr.querySelector('.stuck');
  const why = document.querySelector('#matrix tr[data-why="' + tr.dataset.attendee + '"]');
  const who = tr.querySelector('th.name .who');
  const cells = {};
  for (const td of tr.querySelectorAll('td[data-stage]')) {
    const mark = td.querySelector('.mark'), on = td.querySelector('.on');
    cells[td.dataset.stage] = {state: td.dataset.state, mark: mark ? mark.textContent : '',
      current: td.classList.contains('current'), on: on ? on.textContent : ''};
  }
  return {id: tr.dataset.attendee, name: tr.dataset.name, nameText: who.textContent, nameTags: who.querySelectorAll('*').length,
    left: tr.classList.contains('left'), reasons: flag ? flag.dataset.reasons : null, flag: flag ? flag.textContent : '',
    why: why ? why.textContent : '', hand: !!tr.querySelector('.hand'), cells};
})`

func TestBoardInABrowser(t *testing.T) {
	began := time.Now()
	exe := browserPath(t)

	clock := &fakeClock{t: time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)}
	// A fixed class code: the screenshot changes only when the page does.
	b, err := Open(filepath.Join(t.TempDir(), "board.db"), browserStages, "KUBE26", clock.Now)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	// The snapshot and the event stream can be held back, to see the page
	// before it has either.
	var gate sync.Mutex
	released := make(chan struct{})
	close(released)
	board := b.Handler()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/v1/board" || r.URL.Path == "/api/v1/events" {
			gate.Lock()
			wait := released
			gate.Unlock()
			select {
			case <-wait:
			case <-r.Context().Done():
				return
			}
		}
		board.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	// The page's event stream ends only when the board says so: without
	// this, srv.Close would wait for it.
	t.Cleanup(b.changed.close)

	room := &classroom{t: t, url: srv.URL, client: srv.Client(), clock: clock, start: clock.Now()}
	room.join(b.Code())
	room.replay()
	t.Logf("replayed 30 attendees over HTTP in %v", time.Since(began).Round(time.Millisecond))

	// One browser for the whole test, headless, talking to nothing but the
	// test's server: the background-networking flags keep Chromium from
	// calling home, which this machine's closed network refuses.
	parent, cancelAll := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancelAll()
	alloc, cancelAlloc := chromedp.NewExecAllocator(parent,
		chromedp.ExecPath(exe),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		// The page picks its language from the browser's: English here,
		// whatever the machine's locale.
		chromedp.Flag("lang", "en-US"),
		chromedp.Env("LANGUAGE=en_US", "LANG=en_US.UTF-8"),
		chromedp.WindowSize(1600, 1000),
		chromedp.UserDataDir(t.TempDir()),
	)
	defer cancelAlloc()
	ctx, cancelTab := chromedp.NewContext(alloc, chromedp.WithLogf(t.Logf))
	defer cancelTab()

	// A script error on the page fails the test, and so does a console
	// error (a request that failed) until the test asks for one.
	var mu sync.Mutex
	var pageErrors []string
	expectRefusals := false
	if err := chromedp.Listen(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *runtime.EventExceptionThrown:
			d := ev.ExceptionDetails
			text := d.Text
			if d.Exception != nil {
				text += " " + d.Exception.Description
			}
			pageErrors = append(pageErrors, fmt.Sprintf("%s:%d: %s", d.URL, d.LineNumber+1, text))
		case *log.EventEntryAdded:
			if ev.Entry.Level == log.EntryLevelError && !expectRefusals {
				pageErrors = append(pageErrors, fmt.Sprintf("console: %s (%s)", ev.Entry.Text, ev.Entry.URL))
			}
		}
	}); err != nil {
		t.Fatalf("starting %s: %v", exe, err)
	}
	noPageErrors := func() {
		t.Helper()
		mu.Lock()
		defer mu.Unlock()
		if len(pageErrors) > 0 {
			t.Fatalf("the page reported errors:\n%s", strings.Join(pageErrors, "\n"))
		}
	}

	run := func(steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatal(err)
		}
	}
	// click runs a chromedp.Click, then the steps after it. The page draws
	// a matrix cell anew whenever the class changes, and its click handler
	// sits on the body, so a person's click lands on whichever cell is drawn
	// there; but chromedp finds a node first and clicks it after, and a
	// redraw between the two leaves it holding a node that is gone ("Could
	// not find node with given id", CI of 2026-11-28). Such a click is
	// tried again, and finds the cell drawn in its place.
	click := func(c chromedp.Action[chromedp.Void], then ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		for try := 1; ; try++ {
			err := chromedp.Do(ctx, c)
			if err == nil {
				break
			}
			if !strings.Contains(err.Error(), "Could not find node with given id") || try == 3 {
				t.Fatal(err)
			}
			t.Logf("the page redrew what a click was on between finding it and clicking it; clicking again")
		}
		run(then...)
	}
	eval := func(js string, out any) {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[json.RawMessage](js))
		if err != nil {
			t.Fatalf("%s: %v", js, err)
		}
		if err := json.Unmarshal(v, out); err != nil {
			t.Fatalf("%s gave %s: %v", js, v, err)
		}
	}
	// waitFor polls the page until js is true, and says how long it took.
	waitFor := func(what, js string, limit time.Duration) time.Duration {
		t.Helper()
		start := time.Now()
		for {
			var ok bool
			eval(js, &ok)
			if ok {
				return time.Since(start)
			}
			if time.Since(start) > limit {
				t.Fatalf("after %v, still not: %s", limit, what)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	rowsDrawn := `document.body.dataset.version !== undefined && document.querySelectorAll('#matrix tbody tr[data-attendee]').length === 30`
	page := srv.URL + "/?key=" + b.Key()

	run(chromedp.EmulateViewport(1600, 1000), chromedp.Navigate(page), chromedp.WaitVisible(chromedp.ID("matrix")))
	waitFor("30 rows in the matrix", rowsDrawn, 10*time.Second)
	t.Logf("Chromium started and drew the board %v after the test began", time.Since(began).Round(time.Millisecond))

	if file := os.Getenv("BOARD_SCREENSHOT"); file != "" {
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote the board's screenshot to %s", file)
	}

	var english string
	eval(`document.getElementById('title').textContent`, &english)
	if english != "cronlab class board" {
		t.Errorf("in an English browser the header says %q", english)
	}
	var code string
	eval(`document.getElementById('code').textContent`, &code)
	if code != b.Code() {
		t.Errorf("the header shows the class code %q, the board's is %q", code, b.Code())
	}
	// The CSV link carries the key in its address, as every call does; what
	// the page shows, and so projects, must not.
	var shown string
	eval(`document.body.innerText`, &shown)
	if strings.Contains(shown, b.Key()) {
		t.Errorf("the key is shown on the page: an instructor projecting it gives the board away")
	}

	{ // matrix
		var rows []rowView
		eval(readRows, &rows)
		if len(rows) != 30 {
			t.Fatalf("%d rows in #matrix, want 30", len(rows))
		}
		byID := map[string]rowView{}
		for _, r := range rows {
			byID[r.ID] = r
		}
		row := func(name string) rowView {
			m := room.byName(name)
			r, ok := byID[strconv.FormatInt(m.id, 10)]
			if !ok {
				t.Fatalf("no row for %s (attendee %d)", name, m.id)
			}
			if r.Name != name {
				t.Errorf("attendee %d's row is named %q, want %q", m.id, r.Name, name)
			}
			return r
		}

		bao := row("bao") // on stage 05, one spec failing of six
		if c := bao.Cells[sid(4)]; c.State != "passed" || c.Mark != "✓" {
			t.Errorf("bao passed stage 04; its cell shows %+v", c)
		}
		if c := bao.Cells[sid(5)]; c.State != "failing" || c.Mark != "5/6" || !c.Current || c.On != fmt.Sprintf("%d min", 9+11) {
			t.Errorf("bao is on stage 05 for 20 min, 5 of 6 specs passing; the cell shows %+v", c)
		}
		if c := bao.Cells[sid(6)]; c.State != "none" || c.Mark != "" || c.Current {
			t.Errorf("bao has not started stage 06; the cell shows %+v", c)
		}
		if c := row("kemal").Cells[sid(6)]; c.State != "failing" || c.Mark != "does not compile" {
			t.Errorf("kemal's code does not compile; the cell shows %+v", c)
		}
		if c := row("chen").Cells[sid(7)]; c.State != "passed" || !c.Current {
			t.Errorf("chen passed the stage they are on; the cell shows %+v", c)
		}

		// Names are the attendees' own text: shown as text, never as markup.
		if kai := row("<b>kai</b>"); kai.NameText != "<b>kai</b>" || kai.NameTags != 0 {
			t.Errorf("the name <b>kai</b> became %q with %d elements in it", kai.NameText, kai.NameTags)
		}

		cyrus := row("cyrus")
		if !cyrus.Left || rows[len(rows)-1].ID != cyrus.ID {
			t.Errorf("cyrus left: the row should be greyed and last; left=%v, last row is %s", cyrus.Left, rows[len(rows)-1].Name)
		}

		dara := row("dara")
		if dara.Reasons == nil || !slices.Contains(strings.Fields(*dara.Reasons), "repeat") || dara.Flag != "stuck" {
			t.Errorf("dara fails the same spec in every check: want a stuck flag with repeat, got %v %q", dara.Reasons, dara.Flag)
		}
		wantWhy := "same spec failing 3 checks in a row: " + specName(6, 2) + " (hint scheduling.7)"
		if !strings.Contains(dara.Why, wantWhy) {
			t.Errorf("dara's reasons say %q, want them to say %q", dara.Why, wantWhy)
		}
		quinn := row("quinn")
		if quinn.Reasons == nil || !slices.Contains(strings.Fields(*quinn.Reasons), "quiet") {
			t.Errorf("quinn sent nothing for %v: want a stuck flag with quiet, got %v", clockMovesOn, quinn.Reasons)
		}
		// Quinn's last check was 2/3 of the way through 13 minutes on stage
		// 05: 13/3 minutes before the morning ended, then the clock moved on.
		quietFor := int(math.Round(clockMovesOn.Minutes() + 13.0/3))
		if want := fmt.Sprintf("no check for %d min", quietFor); !strings.Contains(quinn.Why, want) {
			t.Errorf("quinn's reasons say %q, want %q", quinn.Why, want)
		}
		if ada := row("ada"); ada.Reasons == nil || !slices.Contains(strings.Fields(*ada.Reasons), "slow") ||
			!strings.Contains(ada.Why, fmt.Sprintf("on this stage %d min, above the class's 75th percentile", 38+11)) {
			t.Errorf("ada has been on stage 06 for 49 min, far above the others: want slow, got %v %q", ada.Reasons, ada.Why)
		}
		for _, r := range rows {
			m := room.byName(r.Name)
			reasons := ""
			if r.Reasons != nil {
				reasons = *r.Reasons
			}
			if strings.Contains(reasons, "repeat") != (m.name == "dara") {
				t.Errorf("%s: stuck reasons %q; only dara repeats a failure", m.name, reasons)
			}
			if strings.Contains(reasons, "quiet") != (m.name == "quinn") {
				t.Errorf("%s: stuck reasons %q; only quinn is quiet", m.name, reasons)
			}
			if (m.final == nil || m.leaves) && r.Reasons != nil {
				t.Errorf("%s passed the stage or left, yet is flagged stuck: %q", m.name, reasons)
			}
			if r.Hand != (m.hand != "") {
				t.Errorf("%s: a hand shown in the row: %v", m.name, r.Hand)
			}
		}
	}

	{ // hands and failing specs
		gus := room.byName("gus")
		var hands []struct {
			Attendee string `json:"attendee"`
			Text     string `json:"text"`
			Who      string `json:"who"`
			Stage    string `json:"stage"`
			Ago      string `json:"ago"`
		}
		eval(`[...document.querySelectorAll('#hands > li')].map((li) => ({attendee: li.dataset.attendee,
			text: li.querySelector('.text').textContent, who: li.querySelector('.who').textContent,
			stage: li.querySelector('.stage').textContent, ago: li.querySelector('.ago').textContent}))`, &hands)
		if len(hands) != 1 || hands[0].Attendee != strconv.FormatInt(gus.id, 10) || hands[0].Text != gus.hand ||
			hands[0].Who != "gus" || hands[0].Stage != "stage 06" || hands[0].Ago != "13 min ago" {
			t.Errorf("gus raised a hand 13 min ago on stage 06 saying %q; #hands shows %+v", gus.hand, hands)
		}

		// What the room fails: from the class's plan, the spec most of the
		// attendees on a stage fail in their latest check.
		count := map[[2]int]int{}
		on := map[int]int{}
		for _, m := range room.people {
			if m.leaves {
				continue
			}
			on[m.stage]++
			for _, f := range m.final {
				count[[2]int{m.stage, f}]++
			}
		}
		var top [2]int
		for k, n := range count {
			if n > count[top] {
				top = k
			}
		}
		var failing []struct {
			Spec  string `json:"spec"`
			Stage string `json:"stage"`
			Count string `json:"count"`
			Of    string `json:"of"`
			Text  string `json:"text"`
			Names string `json:"names"`
		}
		eval(`[...document.querySelectorAll('#failing > li')].map((li) => ({spec: li.dataset.spec, stage: li.dataset.stage,
			count: li.dataset.count, of: li.dataset.of, text: li.textContent, names: li.title}))`, &failing)
		if len(failing) == 0 {
			t.Fatal("#failing is empty")
		}
		f := failing[0]
		want := fmt.Sprintf("%d of %d on stage %02d", count[top], on[top[0]], top[0])
		if f.Spec != specName(top[0], top[1]) || f.Stage != sid(top[0]) || !strings.Contains(f.Text, want) ||
			!strings.Contains(f.Text, "hint "+specHint(top[0], top[1])) {
			t.Errorf("the room fails %q most (%s); #failing's top entry is %+v", specName(top[0], top[1]), want, f)
		}
		for _, name := range []string{"ada", "dara", "gus"} {
			if !strings.Contains(f.Names, name) {
				t.Errorf("%s fails it, yet is not in its names on hover (%q)", name, f.Names)
			}
		}
	}

	{ // timeline
		dara := room.byName("dara")
		row := fmt.Sprintf(`#matrix tr[data-attendee="%d"]`, dara.id)
		click(chromedp.Click(chromedp.CSS(row+fmt.Sprintf(` td[data-stage="%s"]`, sid(2))), chromedp.NodeVisible), chromedp.WaitVisible(chromedp.ID("timeline")))
		waitFor("dara's timeline loaded", `document.querySelectorAll('#timeline-entries > li').length > 0`, 5*time.Second)
		var tl struct {
			Name    string   `json:"name"`
			Entries int      `json:"entries"`
			First   string   `json:"first"`
			Kinds   []string `json:"kinds"`
		}
		eval(`({name: document.getElementById('timeline-name').textContent,
			entries: document.querySelectorAll('#timeline-entries > li').length,
			first: document.querySelector('#timeline-entries > li').textContent,
			kinds: [...document.querySelectorAll('#timeline-entries > li')].map((li) => li.dataset.kind)})`, &tl)
		if tl.Name != "dara" || tl.Entries != dara.sent {
			t.Errorf("dara sent %d checks; the timeline of %q shows %d entries", dara.sent, tl.Name, tl.Entries)
		}
		if !strings.Contains(tl.First, "1 failed of 6") || !strings.Contains(tl.First, specName(6, 2)) || !strings.Contains(tl.First, "stage 06") {
			t.Errorf("dara's latest check failed %q, 1 of 6 specs; the timeline's first entry says %q", specName(6, 2), tl.First)
		}
		click(chromedp.Click(chromedp.ID("timeline-close")), chromedp.WaitNotVisible(chromedp.ID("timeline")))

		// kemal's latest check does not compile; the rest ran, its broken
		// functions stubbed, and none of it failed: not "0 failed of 6".
		kemal := room.byName("kemal")
		click(chromedp.Click(chromedp.CSS(fmt.Sprintf(`#matrix tr[data-attendee="%d"] td[data-stage="%s"]`, kemal.id, sid(2))), chromedp.NodeVisible),
			chromedp.WaitVisible(chromedp.ID("timeline")))
		waitFor("kemal's timeline loaded", `document.getElementById('timeline-name').textContent === 'kemal' && document.querySelectorAll('#timeline-entries > li').length > 0`, 5*time.Second)
		var latest struct {
			Result string `json:"result"`
			Class  string `json:"class"`
		}
		eval(`(() => { const li = document.querySelector('#timeline-entries > li');
			return {result: li.querySelector('.result').textContent, class: li.className}; })()`, &latest)
		if latest.Result != "does not compile; the rest: 6 of 6 specs passed" || latest.Class != "nocompile" {
			t.Errorf("kemal's latest check does not compile; the timeline says %+v", latest)
		}
		click(chromedp.Click(chromedp.ID("timeline-close")), chromedp.WaitNotVisible(chromedp.ID("timeline")))
	}

	{ // live update
		emil := room.byName("emil")
		cell := fmt.Sprintf(`document.querySelector('#matrix tr[data-attendee="%d"] td[data-stage="%s"]').dataset.state`, emil.id, sid(4))
		var before string
		eval(cell, &before)
		if before != "failing" {
			t.Fatalf("emil's stage 04 cell is %q before the change, want failing", before)
		}
		sent := time.Now()
		room.send(emil, checkResult(4, room.at(morning.Minutes()-float64(emil.onStage)).Add(emil.skew), nil, 0, 1), nil)
		waitFor("emil's stage 04 cell passed", cell+` === "passed"`, 5*time.Second)
		took := time.Since(sent)
		t.Logf("board page updated in %v", took)
		fmt.Printf("board page updated in %v\n", took)
		if took > time.Second {
			t.Errorf("the page showed emil's passing check %v after it was sent, want within a second", took)
		}
	}

	{ // done lowers the hand
		gus := room.byName("gus")
		click(chromedp.Click(chromedp.CSS(fmt.Sprintf(`#hands > li[data-attendee="%d"] button.done`, gus.id)), chromedp.NodeVisible))
		waitFor("gus's hand gone from #hands and from the row",
			fmt.Sprintf(`document.querySelectorAll('#hands > li').length === 0 && !document.querySelector('#matrix tr[data-attendee="%d"] .hand')`, gus.id),
			5*time.Second)
		if got := b.Snapshot().Hands; len(got) != 0 {
			t.Errorf("after done, the board still has hands raised: %+v", got)
		}
		// gus's timeline says who lowered it.
		click(chromedp.Click(chromedp.CSS(fmt.Sprintf(`#matrix tr[data-attendee="%d"] td[data-stage="%s"]`, gus.id, sid(2))), chromedp.NodeVisible),
			chromedp.WaitVisible(chromedp.ID("timeline")))
		waitFor("gus's timeline loaded", `document.getElementById('timeline-name').textContent === 'gus' && !!document.querySelector('#timeline-entries > li.hand')`, 5*time.Second)
		var hand string
		eval(`document.querySelector('#timeline-entries > li.hand .result').textContent`, &hand)
		if hand != "✋ raised a hand (lowered by you)" {
			t.Errorf("gus's hand, lowered with done, reads %q on the timeline", hand)
		}
		click(chromedp.Click(chromedp.ID("timeline-close")), chromedp.WaitNotVisible(chromedp.ID("timeline")))
	}

	{ // language
		click(chromedp.Click(chromedp.CSS(`button[data-lang="zh"]`), chromedp.NodeVisible))
		var zh struct {
			Title   string `json:"title"`
			Flag    string `json:"flag"`
			Failing string `json:"failing"`
			Lang    string `json:"lang"`
		}
		read := `({title: document.getElementById('title').textContent, flag: document.querySelector('#matrix .stuck').textContent,
			failing: document.querySelector('#failing > li .count').textContent, lang: document.documentElement.lang})`
		eval(read, &zh)
		if zh.Title != "cronlab 班级看板" || zh.Flag != "卡住了" || !strings.HasPrefix(zh.Failing, "第 06 阶段 9 人中有 6 人") || zh.Lang != "zh-CN" {
			t.Errorf("after 中文, the page shows %+v", zh)
		}
		// The choice outlives a reload.
		run(chromedp.Reload())
		waitFor("the board drawn again", rowsDrawn, 10*time.Second)
		eval(read, &zh)
		if zh.Title != "cronlab 班级看板" {
			t.Errorf("after a reload the header says %q: the language chosen was forgotten", zh.Title)
		}
		click(chromedp.Click(chromedp.CSS(`button[data-lang="en"]`), chromedp.NodeVisible))
		eval(`document.getElementById('title').textContent`, &english)
		if english != "cronlab class board" {
			t.Errorf("after EN the header says %q", english)
		}
	}

	noPageErrors()

	{ // wrong key
		mu.Lock()
		expectRefusals = true // the 403s are the point here
		mu.Unlock()
		run(chromedp.Navigate(srv.URL + "/?key=not-the-key"))
		waitFor("the page says it needs the key", `!document.getElementById('error').hidden`, 5*time.Second)
		var msg string
		eval(`document.getElementById('error').textContent`, &msg)
		if msg != "this is not this board's key (a board of another --db?): open the URL that bin/lab board printed" {
			t.Errorf("with a wrong key the page says %q", msg)
		}
		var live string
		eval(`document.getElementById('live').dataset.state`, &live)
		if live != "off" {
			t.Errorf("with a wrong key the live mark is %q, want off: the stream cannot come", live)
		}
	}

	{ // loading: the Chinese page, its snapshot held back
		run(chromedp.Navigate(page), chromedp.WaitVisible(chromedp.ID("matrix")))
		waitFor("the board drawn", rowsDrawn, 10*time.Second)
		var ok bool
		eval(`localStorage.setItem('cronlab-board-lang', 'zh'), true`, &ok)
		gate.Lock()
		released = make(chan struct{})
		gate.Unlock()
		run(chromedp.Navigate(page), chromedp.WaitVisible(chromedp.ID("matrix")))
		// The page asked, and waits: nothing may say there is no hand, or
		// that it lost a connection it never had.
		waitFor("the page drawn in Chinese", `document.documentElement.lang === 'zh-CN'`, 5*time.Second)
		var loading struct {
			Live       string `json:"live"`
			HandsEmpty bool   `json:"handsEmpty"`
			Failing    bool   `json:"failingEmpty"`
			Loading    []string
		}
		read := `({live: document.getElementById('live').textContent,
			handsEmpty: !document.getElementById('hands-empty').hidden, failingEmpty: !document.getElementById('failing-empty').hidden,
			loading: [...document.querySelectorAll('.loading')].filter((e) => !e.hidden).map((e) => e.textContent)})`
		eval(read, &loading)
		if loading.Live != "正在连接…" || loading.HandsEmpty || loading.Failing || len(loading.Loading) != 3 || loading.Loading[1] != "正在加载…" {
			t.Errorf("before its first snapshot, the Chinese page shows %+v; want connecting, no empty panels, and loading in each", loading)
		}
		close(released)
		waitFor("the board drawn once its snapshot came, and live", rowsDrawn+` && document.getElementById('live').dataset.state === 'live'`, 10*time.Second)
		eval(read, &loading)
		var hands string
		eval(`document.getElementById('hands-empty').textContent`, &hands)
		if loading.Live != "实时" || !loading.HandsEmpty || hands != "没有人举手。" || len(loading.Loading) != 0 {
			t.Errorf("with its snapshot (no hand is up any more), the page shows %+v and %q", loading, hands)
		}
		eval(`localStorage.setItem('cronlab-board-lang', 'en'), true`, &ok)
	}

	noPageErrors()
	t.Logf("the whole test took %v", time.Since(began).Round(time.Millisecond))
}
