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
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"

	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
)

// Options are lab board's flags.
type Options struct {
	Addr string // where to listen: :8080, or 127.0.0.1:8080 for this machine only
	DB   string // the SQLite file; bin/lab-state/board.db by default
	Code string // the class code to use instead of the stored or a new one
	// Names gives the specs' Chinese names (names.go).
	Names ChineseName
}

// CmdBoard serves the class board until Ctrl-C.
func CmdBoard(l i18n.Lang, stateDir string, stages []StageInfo, o Options) error {
	if o.DB == "" {
		o.DB = filepath.Join(stateDir, "board.db")
	}
	if o.Code != "" && !validCode.MatchString(o.Code) {
		return i18n.Errorf("--code %q: a class code is 3 to 20 letters, digits or '-', with no spaces (attendees type it)",
			"--code %q：班级代码由 3 到 20 个字母、数字或 '-' 组成，不含空格（学员要输入它）", o.Code)
	}
	if _, _, err := net.SplitHostPort(o.Addr); err != nil {
		return i18n.Errorf("--addr %q: give host:port, such as :8080 (every address of this laptop) or 192.168.1.20:8080",
			"--addr %q：请写成 主机:端口，例如 :8080（本机的所有地址）或 192.168.1.20:8080", o.Addr)
	}
	if err := os.MkdirAll(filepath.Dir(o.DB), 0o755); err != nil {
		return err
	}
	b, err := Open(o.DB, stages, strings.ToUpper(o.Code), time.Now)
	var taken *InUse
	switch {
	case errors.As(err, &taken):
		return err
	case err != nil && strings.Contains(err.Error(), "locked"):
		// Not a board (it would hold the lock): a program such as sqlite3
		// that has the file open and is writing it.
		return i18n.Errorf("%s is locked by another program (sqlite3?): close it, or give this class its own file with --db",
			"%s 被另一个程序锁定了（sqlite3？）：关掉它，或者用 --db 给这个班级另一个文件", o.DB)
	case err != nil:
		return i18n.Errorf("could not open the board's storage %s: %w", "无法打开看板的存储 %s：%w", o.DB, err)
	}
	defer b.Close()
	b.NameSpecsWith(o.Names)
	stop := make(chan struct{})
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() { <-sig; close(stop) }()
	err = b.Serve(o.Addr, func(actual string) { announce(l, b, actual, o.DB) }, stop)
	if err != nil {
		return i18n.Errorf("the board could not listen on %s: %w (is a board running there already? or choose another with --addr :8081)",
			"看板无法使用地址 %s：%w（那里已经有一个看板在运行了吗？或者用 --addr :8081 换一个）", o.Addr, err)
	}
	fmt.Println(l.Tr("Board stopped; everything is kept in", "看板已停止；所有内容都保存在"), o.DB)
	return nil
}

// announce says where the page is and what attendees type, with the
// addresses this machine has on the room's network.
func announce(l i18n.Lang, b *Board, actual, db string) {
	_, port, _ := net.SplitHostPort(actual)
	hosts := reachableHosts(actual)
	fmt.Printf(l.Tr("The class board is up. Class code: %s\n\n", "班级看板已启动。班级代码：%s\n\n"), b.Code())
	fmt.Println(l.Tr("Your page (the key in it keeps the board yours; do not project this line):",
		"你的页面（其中的密钥让看板只归你看；不要把这一行投影出来）："))
	fmt.Printf("    http://%s/?key=%s\n\n", net.JoinHostPort(hosts[0], port), b.Key())
	fmt.Println(l.Tr("Attendees run, in their clone (any of these addresses that their laptops reach):",
		"学员在自己的克隆中运行（任选一个他们的笔记本能访问到的地址）："))
	for _, h := range hosts {
		fmt.Printf("    bin/lab join http://%s %s --name %s\n", net.JoinHostPort(h, port), b.Code(), l.Tr("YOUR-NAME", "你的名字"))
	}
	fmt.Println(l.Tr("    (--name: the name the board shows; left out, a made-up one)", "    （--name：看板上显示的名字；不写则随机生成一个）"))
	if len(hosts) == 1 && net.ParseIP(hosts[0]).IsLoopback() {
		fmt.Println(l.Tr("\nNote: the board listens on this laptop only, which no attendee's laptop reaches: for a class, start it with --addr :8080.",
			"\n注意：看板只在本机上提供服务，学员的笔记本访问不到：上课时请用 --addr :8080 启动。"))
	}
	fmt.Printf(l.Tr("\nStored in %s: stop with Ctrl-C and start again, and nothing is lost. What attendees send: docs/class.md\n",
		"\n保存在 %s 中：按 Ctrl-C 停止后再启动，不会丢失任何内容。学员发送的内容：docs/class.zh-CN.md\n"), db)
}

// reachableHosts are the addresses attendees may use: the one listened on,
// or, listening on all, this machine's IPv4 addresses other than loopback,
// which no other laptop reaches (loopback only when there is no other).
func reachableHosts(actual string) []string {
	host, _, _ := net.SplitHostPort(actual)
	if ip := net.ParseIP(host); ip != nil && !ip.IsUnspecified() {
		return []string{host}
	}
	var hosts []string
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if ipn, ok := a.(*net.IPNet); ok && ipn.IP.To4() != nil && !ipn.IP.IsLoopback() {
			hosts = append(hosts, ipn.IP.String())
		}
	}
	if len(hosts) == 0 {
		hosts = []string{"127.0.0.1"}
	}
	return hosts
}

// validCode is what a class code may be: something attendees type.
var validCode = regexp.MustCompile(`^[A-Za-z0-9-]{3,20}$`)
