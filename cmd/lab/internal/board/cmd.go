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
	"fmt"
	"net"
	"os"
	"os/signal"
	"path/filepath"
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
}

// CmdBoard serves the class board until Ctrl-C.
func CmdBoard(l i18n.Lang, stateDir string, stages []StageInfo, o Options) error {
	if o.DB == "" {
		o.DB = filepath.Join(stateDir, "board.db")
	}
	if err := os.MkdirAll(filepath.Dir(o.DB), 0o755); err != nil {
		return err
	}
	b, err := Open(o.DB, stages, strings.ToUpper(o.Code), time.Now)
	if err != nil {
		return i18n.Errorf("could not open the board's storage %s: %w", "无法打开看板的存储 %s：%w", o.DB, err)
	}
	defer b.Close()
	stop := make(chan struct{})
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() { <-sig; close(stop) }()
	err = b.Serve(o.Addr, func(actual string) { announce(l, b, actual, o.DB) }, stop)
	if err != nil {
		return i18n.Errorf("the board could not listen on %s: %w (choose another with --addr :8081)",
			"看板无法使用地址 %s：%w（用 --addr :8081 换一个）", o.Addr, err)
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
		fmt.Printf("    bin/lab join http://%s %s --name <%s>\n", net.JoinHostPort(h, port), b.Code(), l.Tr("a pseudonym", "化名"))
	}
	fmt.Printf(l.Tr("\nStored in %s: stop with Ctrl-C and start again, and nothing is lost. What attendees send: docs/class.md\n",
		"\n保存在 %s 中：按 Ctrl-C 停止后再启动，不会丢失任何内容。学员发送的内容：docs/class.zh-CN.md\n"), db)
}

// reachableHosts are the addresses attendees may use: the one listened on,
// or, listening on all, this machine's IPv4 addresses, loopback last.
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
	return append(hosts, "127.0.0.1")
}
