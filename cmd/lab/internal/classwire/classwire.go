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

package classwire

import (
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
)

// The board's paths: a shape that changes in a way an older board or
// bin/lab cannot read gets /api/v2/.
const (
	JoinPath  = "/api/v1/join"
	SendPath  = "/api/v1/send"
	LeavePath = "/api/v1/leave"
	HandPath  = "/api/v1/hand" // GET, with the token: HandState
)

// Limits: a request larger than MaxBody is refused unread; the others are
// checked by Validate.
const (
	MaxBody      = 512 << 10
	MaxBatch     = 50  // messages in one SendRequest
	MaxSpecs     = 400 // specs in one result
	MaxFunctions = 100
	MaxName      = 300 // characters of a spec's or a function's name
	MaxHand      = 280 // characters of a raised hand's text
	MaxPseudonym = 40
)

// JoinRequest asks the board to admit an attendee to the class whose code
// the instructor handed out.
type JoinRequest struct {
	Code string `json:"code"`
	Name string `json:"name"` // a pseudonym the attendee chose, shown on the board
}

// JoinResponse gives the attendee a token: every later request carries it
// (Authorization: Bearer), so that nobody can post as someone else.
type JoinResponse struct {
	Attendee int64  `json:"attendee"`
	Name     string `json:"name"`
	Token    string `json:"token"`
}

// SendRequest carries a batch of an attendee's messages, oldest first.
type SendRequest struct {
	Messages []Message `json:"messages"`
}

// SendResponse says which sequence numbers the board now holds of those
// sent (new or already stored): the attendee drops them from its queue.
type SendResponse struct {
	Stored     []int64 `json:"stored"`
	Duplicates int     `json:"duplicates"`
}

// Message is one thing an attendee's bin/lab tells the board: the result
// of a check, or a raised (or lowered) hand.
type Message struct {
	Seq    int64     `json:"seq"`
	At     time.Time `json:"at"` // when it happened, on the laptop's clock
	Result *Result   `json:"result,omitempty"`
	Hand   *Hand     `json:"hand,omitempty"`
}

// Result is one check (bin/lab check or watch): the --json document's
// results (docs/lab-json.md) without its messages, locations and errors,
// plus what the board needs to see time and help.
type Result struct {
	Stage  string `json:"stage"`
	Passed bool   `json:"passed"`
	// StageStarted is when bin/lab start began this stage in the clone
	// (zero when it was not started with bin/lab start).
	StageStarted time.Time `json:"stageStarted,omitzero"`
	HintsSeen    int       `json:"hintsSeen"`
	// CompileErrors counts the compiler's errors; which functions do not
	// compile is in Functions.
	CompileErrors int        `json:"compileErrors"`
	Specs         []Spec     `json:"specs"`
	Functions     []Function `json:"functions"`
}

type Spec struct {
	Package string `json:"package"` // as go test names it: ./internal/controller
	Name    string `json:"name"`
	Status  string `json:"status"`         // passed or failed
	Hint    string `json:"hint,omitempty"` // for a failure: its hint's id (scheduling.7)
}

type Function struct {
	Name   string `json:"name"`
	Status string `json:"status"` // passed, failed, waiting, does not compile, not run
	Passed int    `json:"passed"`
	Ran    int    `json:"ran"`
}

// HandState is the board's answer to GET HandPath: the attendee's latest
// raised hand, and whether it is still up there (bin/lab status asks, as
// the instructor may have lowered it).
type HandState struct {
	Seq   int64  `json:"seq"` // its message's; 0: the board holds no hand of the attendee
	Stage string `json:"stage,omitempty"`
	Up    bool   `json:"up"`
	// LoweredBy, when it is down: one of the Lowered* below.
	LoweredBy string `json:"loweredBy,omitempty"`
}

// Who lowered a hand.
const (
	LoweredByAttendee   = "attendee"   // bin/lab hand --down
	LoweredByInstructor = "instructor" // done, on the board
	// LoweredByPassing: a check passed the stage the hand was raised on,
	// after it was raised; the attendee moved on.
	LoweredByPassing = "passed"
)

// Hand is a raised hand, or, with Down, the attendee lowering it.
type Hand struct {
	Stage string `json:"stage,omitempty"`
	Text  string `json:"text,omitempty"`
	Down  bool   `json:"down,omitempty"`
}

var (
	// A stage is named by its slug (scheduling); a tool from before stages
	// had names sends its two digits (06), which the board renames.
	stageID = regexp.MustCompile(`^([0-9]{2}|[a-z][a-z0-9]{0,40}(-[a-z0-9]{1,40}){0,8})$`)
	hintID  = regexp.MustCompile(`^([0-9]{2}|[a-z][a-z0-9]{0,40}(-[a-z0-9]{1,40}){0,8})\.[0-9]{1,2}$`)
	pkgPath = regexp.MustCompile(`^\./[A-Za-z0-9_./-]{0,200}$`)
)

var specStatus = map[string]bool{"passed": true, "failed": true}
var functionStatus = map[string]bool{"passed": true, "failed": true, "waiting": true, "does not compile": true, "not run": true}

// Validate says what is wrong with a join request, in words an attendee
// can act on; nil when nothing is.
func (j JoinRequest) Validate() error {
	if strings.TrimSpace(j.Code) == "" {
		return i18n.Errorf("the class code is empty: ask the instructor for it", "班级代码是空的：请向讲师要")
	}
	return ValidPseudonym(j.Name)
}

// ValidPseudonym is nil for a name the board can show.
func ValidPseudonym(name string) error {
	switch n := utf8.RuneCountInString(name); {
	case strings.TrimSpace(name) == "":
		return i18n.Errorf("the name is empty", "名字是空的")
	case n > MaxPseudonym:
		return i18n.Errorf("the name has %d characters, at most %d may be shown: choose a shorter --name", "名字有 %d 个字符，最多只能显示 %d 个：请用 --name 选一个短一些的", n, MaxPseudonym)
	case strings.ContainsFunc(name, func(r rune) bool { return r < ' ' || r == 0x7f }):
		return i18n.Errorf("the name holds a control character", "名字里有控制字符")
	}
	return nil
}

// Validate checks a batch against the shape; the error names the message.
func (s SendRequest) Validate() error {
	if len(s.Messages) == 0 {
		return i18n.Errorf("no messages", "没有消息")
	}
	if len(s.Messages) > MaxBatch {
		return i18n.Errorf("%d messages in one request, at most %d", "一个请求里有 %d 条消息，最多 %d 条", len(s.Messages), MaxBatch)
	}
	for i, m := range s.Messages {
		if err := m.Validate(); err != nil {
			return i18n.Errorf("message %d (seq %d): %w", "第 %d 条消息（seq %d）：%w", i, m.Seq, err)
		}
	}
	return nil
}

func (m Message) Validate() error {
	switch {
	case m.Seq < 1:
		return i18n.Errorf("seq must be 1 or more", "seq 必须大于等于 1")
	case m.At.IsZero():
		return i18n.Errorf("at is missing", "缺少 at")
	case (m.Result == nil) == (m.Hand == nil):
		return i18n.Errorf("a message holds either a result or a hand", "一条消息要么是结果，要么是举手")
	case m.Result != nil:
		return m.Result.validate()
	default:
		return m.Hand.validate()
	}
}

func (r *Result) validate() error {
	if !stageID.MatchString(r.Stage) {
		return i18n.Errorf("stage %q is not a stage's name (scheduling)", "阶段 %q 不是阶段的名字（scheduling）", r.Stage)
	}
	if r.HintsSeen < 0 || r.CompileErrors < 0 {
		return i18n.Errorf("a count is negative", "有一个计数是负数")
	}
	if len(r.Specs) > MaxSpecs || len(r.Functions) > MaxFunctions {
		return i18n.Errorf("%d specs and %d functions, at most %d and %d", "%d 个测试用例和 %d 个函数，最多 %d 个和 %d 个", len(r.Specs), len(r.Functions), MaxSpecs, MaxFunctions)
	}
	for _, s := range r.Specs {
		switch {
		case !pkgPath.MatchString(s.Package):
			return i18n.Errorf("spec %q: package %q is not a package path (./...)", "测试用例 %q：包 %q 不是包路径（./...）", s.Name, s.Package)
		case !shortText(s.Name, MaxName):
			return i18n.Errorf("a spec's name is empty or longer than %d characters", "测试用例的名字为空或超过 %d 个字符", MaxName)
		case !specStatus[s.Status]:
			return i18n.Errorf("spec %q: status %q is neither passed nor failed", "测试用例 %q：状态 %q 既不是 passed 也不是 failed", s.Name, s.Status)
		case s.Hint != "" && !hintID.MatchString(s.Hint):
			return i18n.Errorf("spec %q: hint %q is not a hint's id (scheduling.7)", "测试用例 %q：提示 %q 不是提示编号（scheduling.7）", s.Name, s.Hint)
		}
	}
	for _, f := range r.Functions {
		switch {
		case !shortText(f.Name, MaxName):
			return i18n.Errorf("a function's name is empty or longer than %d characters", "函数名为空或超过 %d 个字符", MaxName)
		case !functionStatus[f.Status]:
			return i18n.Errorf("function %q: status %q is not one of docs/lab-json.md's", "函数 %q：状态 %q 不是 docs/lab-json.md 列出的状态之一", f.Name, f.Status)
		case f.Passed < 0 || f.Ran < f.Passed:
			return i18n.Errorf("function %q: %d of %d passed", "函数 %q：%d / %d 通过", f.Name, f.Passed, f.Ran)
		}
	}
	return nil
}

// Validate checks a hand before it is queued, as the board will.
func (h *Hand) Validate() error { return h.validate() }

func (h *Hand) validate() error {
	if h.Stage != "" && !stageID.MatchString(h.Stage) {
		return i18n.Errorf("stage %q is not a stage's name (scheduling)", "阶段 %q 不是阶段的名字（scheduling）", h.Stage)
	}
	if h.Down {
		return nil
	}
	if !shortText(h.Text, MaxHand) {
		return i18n.Errorf("a raised hand says something in 1 to %d characters", "举手要写 1 到 %d 个字符的说明", MaxHand)
	}
	return nil
}

func shortText(s string, most int) bool {
	n := utf8.RuneCountInString(s)
	return strings.TrimSpace(s) != "" && n <= most && utf8.ValidString(s)
}

// Failing are the names of the result's failed specs.
func (r *Result) Failing() []Spec {
	var out []Spec
	for _, s := range r.Specs {
		if s.Status == "failed" {
			out = append(out, s)
		}
	}
	return out
}

// Counts is how many specs passed, and how many ran.
func (r *Result) Counts() (passed, ran int) {
	for _, s := range r.Specs {
		if s.Status == "passed" {
			passed++
		}
	}
	return passed, len(r.Specs)
}

// Refusal is the board's answer to a request it refused: why, in both
// languages, so that bin/lab says it in its run's.
type Refusal struct {
	Error   string `json:"error"`
	ErrorZh string `json:"errorZh"`
}
