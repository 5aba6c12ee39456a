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

// bin/lab join, leave, hand and status: the commands an attendee types.

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"cronlab.dev/cronlab/cmd/lab/internal/classwire"
	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
)

// CmdJoin joins the class at board with the instructor's code.
func CmdJoin(l i18n.Lang, dir string, args []string, name string) error {
	if len(args) != 2 {
		return i18n.Errorf("usage: bin/lab join <board-url> <class-code> [--name <pseudonym>] (the instructor gives both)",
			"用法：bin/lab join <看板网址> <班级代码> [--name <化名>]（两者都由讲师给出）")
	}
	if !strings.ContainsAny(args[0], ":./") && strings.ContainsAny(args[1], ":./") {
		return i18n.Errorf("the board's address comes first: bin/lab join %s %s", "看板地址要写在前面：bin/lab join %s %s", args[1], args[0])
	}
	board, err := boardURL(args[0])
	if err != nil {
		return err
	}
	if name == "" {
		name = pseudonym()
	}
	if err := classwire.ValidPseudonym(name); err != nil {
		return i18n.Errorf("could not join the class: %w (leave --name out for a made-up name)", "无法加入班级：%w（不写 --name 就会得到一个随机化名）", err)
	}
	if old, ok := ReadMember(dir); ok {
		if old.Board == board && !forgotten(dir) {
			// Joining again would make a second attendee of this clone on
			// the board, the first one never checking again.
			fmt.Printf(l.Tr("This clone is in the class at %s already, as %s: nothing to do (bin/lab leave first to join under another name).\n",
				"这个克隆已经在 %s 上的班级中，名字是 %s：无需再加入（要换名字，先运行 bin/lab leave）。\n"), board, old.Name)
			return nil
		}
		if n := len(Waiting(dir)); n > 0 && old.Board != board {
			return i18n.Errorf("%s for the board at %s: run bin/lab leave first (it sends them if it can), then join",
				"%s在等待发往 %s 上的看板：先运行 bin/lab leave（能发送的它会发出），再加入", Waits(l, n), old.Board)
		}
	}
	m, err := Join(dir, board, args[1], name)
	if err != nil {
		return err
	}
	fmt.Printf(l.Tr("Joined the class at %s as %s.\n", "已加入 %s 上的班级，名字是 %s。\n"), board, m.Name)
	if n := len(Waiting(dir)); n > 0 {
		ctx, cancel := context.WithTimeout(context.Background(), 2*RequestTimeout)
		a, err := Flush(ctx, dir)
		cancel()
		if err == nil {
			fmt.Printf(l.Tr("  %d waiting from before were sent.\n", "  之前等待的 %d 条已发出。\n"), a.Sent)
		}
	}
	fmt.Println(l.Tr("From now on every bin/lab check and watch sends its result to the board, in the background; the check never waits for it.",
		"从现在起，每次 bin/lab check 和 watch 都会在后台把结果发送给看板；检查从不等待它。"))
	fmt.Println(l.Tr("What is sent: the stage, each spec's name, status and hint id, the functions' verdicts, counts and times; no code, no test output, no file names (docs/class.md).",
		"发送的内容：阶段、每个测试用例的名字、状态和提示编号、各函数的结论、计数和时间；不发送代码、测试输出和文件名（docs/class.zh-CN.md）。"))
	fmt.Println(l.Tr("Raise your hand: bin/lab hand \"what you are stuck on\"; stop sending: bin/lab leave.",
		"举手：bin/lab hand \"你卡在哪里\"；停止发送：bin/lab leave。"))
	return nil
}

// forgotten is whether the board answered the last send that it does not
// know this clone's token (its file was replaced): joining again is then
// the fix, not a second attendee.
func forgotten(dir string) bool {
	a, ok := LastAttempt(dir)
	return ok && a.Status == http.StatusUnauthorized
}

// Join asks the board at board to admit this clone with the class code,
// and records the membership in dir.
func Join(dir, board, code, name string) (Member, error) {
	var resp classwire.JoinResponse
	err := post(context.Background(), board+classwire.JoinPath, "", classwire.JoinRequest{Code: strings.TrimSpace(code), Name: name}, &resp)
	var refused *Refused
	switch {
	case errors.As(err, &refused):
		return Member{}, i18n.Errorf("could not join the class: %w", "无法加入班级：%w", err)
	case err != nil:
		return Member{}, i18n.Errorf("could not join the class: %w; is the address the one the instructor gave, is this laptop on the same network, and does %s open in a browser?",
			"无法加入班级：%w；地址和讲师给的一致吗？这台笔记本在同一个网络里吗？浏览器能打开 %s 吗？", err, board)
	}
	// A clone that joins again keeps numbering where it was: what still
	// waits in its queue goes with the new token.
	old, _ := ReadMember(dir)
	m := Member{Board: board, Attendee: resp.Attendee, Name: resp.Name, Token: resp.Token, Joined: time.Now().UTC(), NextSeq: max(old.NextSeq, 1)}
	if old.Board == board {
		m.Hand = old.Hand // a hand that waits in the queue goes up with the new token
	}
	return m, writeMember(dir, m)
}

// boardURL is the board's address as typed, made plain: http://host:port.
func boardURL(s string) (string, error) {
	if !strings.Contains(s, "://") {
		s = "http://" + s
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return "", i18n.Errorf("%q is not the board's address: it looks like http://192.168.1.20:8080 (bin/lab board prints it)",
			"%q 不是看板的地址：它形如 http://192.168.1.20:8080（bin/lab board 会打印出来）", s)
	}
	return u.Scheme + "://" + u.Host, nil
}

// pseudonym is a name for the board that says nothing about its owner.
func pseudonym() string {
	animals := []string{"fox", "owl", "yak", "elk", "emu", "ibis", "lynx", "orca", "puma", "seal", "wren", "koi"}
	a, _ := rand.Int(rand.Reader, big.NewInt(int64(len(animals))))
	n, _ := rand.Int(rand.Reader, big.NewInt(90))
	return fmt.Sprintf("%s-%d", animals[a.Int64()], n.Int64()+10)
}

// CmdLeave sends what waits (briefly), tells the board, and forgets the
// class. Results that could not be sent are said, not kept.
func CmdLeave(l i18n.Lang, dir string) error {
	m, ok := ReadMember(dir)
	if !ok {
		fmt.Println(l.Tr("This clone is in no class.", "这个克隆不在任何班级中。"))
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*RequestTimeout)
	defer cancel()
	_, _ = Flush(ctx, dir)
	lost := len(Waiting(dir))
	err := post(ctx, m.Board+classwire.LeavePath, m.Token, struct{}{}, nil)
	if rmErr := os.RemoveAll(dir); rmErr != nil {
		return rmErr
	}
	fmt.Printf(l.Tr("Left the class at %s; checks are no longer sent.\n", "已离开 %s 上的班级；检查结果不再发送。\n"), m.Board)
	if lost > 0 {
		fmt.Printf(l.Tr("  Could not be sent, and dropped: %d (results and hands).\n", "  没能发送、已丢弃的结果和举手：%d 条。\n"), lost)
	}
	if err != nil {
		fmt.Printf(l.Tr("  (the board was not told: %s; it still shows you as in the class)\n",
			"  （没能通知看板：%s；看板上仍显示你在班级中）\n"), i18n.Message(l, err))
	}
	return nil
}

// CmdHand raises a hand on the board (or, with down, lowers it), and waits
// a moment to say whether the board has it.
func CmdHand(l i18n.Lang, dir, stage string, args []string, down bool) error {
	text := strings.TrimSpace(strings.Join(args, " "))
	switch {
	case down && text != "":
		return i18n.Errorf("bin/lab hand --down takes no text: it lowers your hand", "bin/lab hand --down 不带说明：它只是放下你的手")
	case !down && text == "":
		return i18n.Errorf("say what you are stuck on: bin/lab hand \"my Job is created twice\"",
			"说一下你卡在哪里：bin/lab hand \"我的 Job 被创建了两次\"")
	}
	h := &classwire.Hand{Stage: stage, Text: text, Down: down}
	if err := h.Validate(); err != nil {
		return err
	}
	if _, ok := ReadMember(dir); !ok {
		return notJoined()
	}
	seq, err := Enqueue(dir, classwire.Message{At: time.Now().UTC(), Hand: h})
	if err != nil {
		return err
	}
	if err := setHand(dir, text, seq); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*RequestTimeout)
	defer cancel()
	_, err = Flush(ctx, dir)
	var refused *Refused
	switch {
	case errors.As(err, &refused):
		fmt.Printf(l.Tr("The board refused it: %s\n", "看板拒绝了它：%s\n"), i18n.Message(l, err))
	case err != nil:
		fmt.Printf(l.Tr("%s: it waits, and goes with your next check.\n", "%s：它会等待，随你的下一次检查一起发出。\n"), i18n.Message(l, err))
	case down:
		fmt.Println(l.Tr("Your hand is down on the board.", "你的手在看板上已放下。"))
	default:
		fmt.Println(l.Tr("Hand raised: the instructor sees it on the board.", "已举手：讲师会在看板上看到。"))
	}
	return nil
}

func notJoined() error {
	return i18n.Errorf("this clone is in no class: bin/lab join <board-url> <class-code> first (the instructor gives both)",
		"这个克隆不在任何班级中：先运行 bin/lab join <看板网址> <班级代码>（两者都由讲师给出）")
}

// CmdStatus adds the class to bin/lab status: which board, and what waits.
func CmdStatus(l i18n.Lang, dir string) {
	m, ok := ReadMember(dir)
	if !ok {
		return
	}
	fmt.Printf(l.Tr("\nclass: %s, as %s", "\n班级：%s，名字是 %s"), m.Board, m.Name)
	n := len(Waiting(dir))
	a, tried := LastAttempt(dir)
	switch {
	case n == 0:
		fmt.Println(l.Tr("; nothing waits to be sent", "；没有等待发送的内容"))
	case tried && a.Status == http.StatusUnauthorized:
		fmt.Printf(l.Tr("; %s to be sent, which the board refused at %s: %s\n",
			"；%s等待发送，看板在 %s 拒绝了它们：%s\n"), Waits(l, n), a.At.Local().Format("15:04:05"), a.why(l))
	case tried && a.Error != "":
		fmt.Printf(l.Tr("; %s to be sent (last try %s: %s); they go with the next check\n",
			"；%s等待发送（上次尝试 %s：%s）；它们会随下一次检查发出\n"), Waits(l, n), a.At.Local().Format("15:04:05"), a.why(l))
	default:
		fmt.Printf(l.Tr("; %s to be sent\n", "；%s等待发送\n"), Waits(l, n))
	}
	if m.Hand != "" {
		fmt.Println(handStatus(l, dir, m))
	}
	if tried && a.Refused > 0 {
		fmt.Printf(l.Tr("  %d results were refused by the board and set aside in %s/refused\n", "  有 %d 个结果被看板拒绝，已放到 %s/refused 中\n"), a.Refused, dir)
	}
}

// handStatus is bin/lab status's line about the hand this clone raised
// last. Only the board knows whether it is still up (the instructor lowers
// hands there, and a check that passes the hand's stage lowers it): status
// asks, and says what it learnt, or that it could not ask.
func handStatus(l i18n.Lang, dir string, m Member) string {
	var st classwire.HandState
	err := get(context.Background(), m.Board+classwire.HandPath, m.Token, &st) // within RequestTimeout
	switch {
	case err != nil:
		return fmt.Sprintf(l.Tr("  your hand is up, as far as this clone knows: %q (the board could not be asked: %s; bin/lab hand --down lowers it)",
			"  就这个克隆所知，你举着手：%q（没能询问看板：%s；bin/lab hand --down 放下）"), m.Hand, i18n.Message(l, err))
	case st.Seq < m.HandSeq:
		return fmt.Sprintf(l.Tr("  your hand waits to be sent to the board: %q (it goes with your next check)",
			"  你的举手还在等待发送到看板：%q（会随你的下一次检查发出）"), m.Hand)
	case st.Up:
		return fmt.Sprintf(l.Tr("  your hand is up on the board: %q (bin/lab hand --down lowers it)",
			"  你在看板上举着手：%q（bin/lab hand --down 放下）"), m.Hand)
	}
	_ = handDown(dir, st.Seq)
	switch st.LoweredBy {
	case classwire.LoweredByInstructor:
		return fmt.Sprintf(l.Tr("  your hand %q was lowered by the instructor on the board (still stuck? bin/lab hand again)",
			"  你的举手 %q 已被讲师在看板上放下（还卡着？再运行 bin/lab hand）"), m.Hand)
	case classwire.LoweredByPassing:
		return fmt.Sprintf(l.Tr("  your hand %q came down when you passed stage %s, which it was raised on (a new question? bin/lab hand again)",
			"  你的举手 %q 在你通过它所在的第 %s 阶段时已放下（有新问题？再运行 bin/lab hand）"), m.Hand, st.Stage)
	}
	return fmt.Sprintf(l.Tr("  your hand %q is down on the board", "  你的举手 %q 在看板上已放下"), m.Hand)
}

// Waits is "1 message waits", "3 messages wait" (有 3 条消息): results of
// checks, and raised hands.
func Waits(l i18n.Lang, n int) string {
	if n == 1 {
		return l.Tr("1 message (a result or a hand) waits", "有 1 条消息（结果或举手）")
	}
	return fmt.Sprintf(l.Tr("%d messages (results and hands) wait", "有 %d 条消息（结果和举手）"), n)
}
