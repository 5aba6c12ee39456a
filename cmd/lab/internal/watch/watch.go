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

package watch

// `lab watch`: the stage's check again on every save of a file the stage
// owns, on one screen. File events come from fsnotify; where they do not
// arrive (WSL2 on /mnt/c, network file systems) the tool polls the files'
// modification times instead (LAB_WATCH_POLL=1 asks for it). An editor's
// save is often several writes: events within a short quiet period make one
// check. Enter checks again by hand, h and Enter shows the next hint, Ctrl-C
// leaves; the terminal's modes are never changed, so there is nothing to
// restore.

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"

	"cronlab.dev/cronlab/cmd/lab/internal/base"
	"cronlab.dev/cronlab/cmd/lab/internal/class"
	"cronlab.dev/cronlab/cmd/lab/internal/functions"
	"cronlab.dev/cronlab/cmd/lab/internal/gotest"
	"cronlab.dev/cronlab/cmd/lab/internal/hints"
	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
	"cronlab.dev/cronlab/cmd/lab/internal/progress"
	"cronlab.dev/cronlab/cmd/lab/internal/run"
	"cronlab.dev/cronlab/cmd/lab/internal/stage"
)

// quietPeriod is how long after a file event the check waits for more.
const quietPeriod = 300 * time.Millisecond

// A watcher reports the paths of the watched files that were written.
type watcher interface {
	Events() <-chan string
	Kind(l i18n.Lang) string // "file events" or "polling every 1s"
	Close()
}

// fileWatcher uses the system's file events, on the files' directories
// (editors often replace a file by renaming a new one over it).
type fileWatcher struct {
	w      *fsnotify.Watcher
	events chan string
}

func newFileWatcher(files []string) (*fileWatcher, error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	wanted := map[string]bool{}
	for _, f := range files {
		abs, _ := filepath.Abs(f)
		wanted[abs] = true
		if err := w.Add(filepath.Dir(abs)); err != nil {
			_ = w.Close()
			return nil, err
		}
	}
	fw := &fileWatcher{w: w, events: make(chan string)}
	go func() {
		defer close(fw.events)
		for e := range w.Events {
			abs, _ := filepath.Abs(e.Name)
			if wanted[abs] && e.Op&(fsnotify.Write|fsnotify.Create|fsnotify.Rename) != 0 {
				fw.events <- abs
			}
		}
	}()
	return fw, nil
}

func (fw *fileWatcher) Events() <-chan string   { return fw.events }
func (fw *fileWatcher) Kind(l i18n.Lang) string { return l.Tr("file events", "文件事件") }
func (fw *fileWatcher) Close()                  { _ = fw.w.Close() }

// pollWatcher compares the files' modification times and sizes every
// interval.
type pollWatcher struct {
	interval time.Duration
	events   chan string
	stop     chan struct{}
}

func newPollWatcher(files []string, interval time.Duration) *pollWatcher {
	pw := &pollWatcher{interval: interval, events: make(chan string), stop: make(chan struct{})}
	type stamp struct {
		mod  time.Time
		size int64
	}
	look := func(f string) stamp {
		if info, err := os.Stat(f); err == nil {
			return stamp{info.ModTime(), info.Size()}
		}
		return stamp{}
	}
	seen := map[string]stamp{}
	for _, f := range files {
		abs, _ := filepath.Abs(f)
		seen[abs] = look(abs)
	}
	go func() {
		defer close(pw.events)
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			select {
			case <-pw.stop:
				return
			case <-tick.C:
			}
			for f, before := range seen {
				if now := look(f); now != before {
					seen[f] = now
					select {
					case pw.events <- f:
					case <-pw.stop:
						return
					}
				}
			}
		}
	}()
	return pw
}

func (pw *pollWatcher) Events() <-chan string { return pw.events }
func (pw *pollWatcher) Kind(l i18n.Lang) string {
	return fmt.Sprintf(l.Tr("polling every %s", "每 %s 轮询一次"), pw.interval)
}
func (pw *pollWatcher) Close() { close(pw.stop) }

// watchLoop runs check at once, then after each burst of file events (once
// the files were quiet for quiet) and on each "check" key, and shows a hint
// on the "hint" key, until ctx ends (it returns "") or the clone moves to
// another stage (it returns that stage's id, from moved).
func watchLoop(ctx context.Context, events <-chan string, keys <-chan string, moved <-chan string, quiet time.Duration, check func(changed []string), hint func()) string {
	check(nil)
	var changed []string
	var settle <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return ""
		case id := <-moved:
			return id
		case f, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			changed = append(changed, f)
			settle = time.After(quiet)
		case <-settle:
			settle = nil
			check(changed)
			changed = nil
		case k, ok := <-keys:
			if !ok {
				keys = nil
				continue
			}
			switch k {
			case "h":
				hint()
			default:
				check(nil)
			}
		}
	}
}

// CmdWatch is `lab watch`: the loop, drawing one screen per check. When it
// was started on the stage of the branch checked out (follow), it follows
// the clone: after `bin/lab start 06` in another terminal it says so and
// checks stage 06.
func CmdWatch(l i18n.Lang, root string, stages []stage.Stage, s stage.Stage, follow bool) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	keys := make(chan string)
	go func() {
		sc := bufio.NewScanner(os.Stdin)
		for sc.Scan() {
			keys <- strings.TrimSpace(sc.Text())
		}
		close(keys)
	}()
	moved := make(chan string)
	if follow {
		go followBranch(ctx, s.Slug, time.Second, currentBranch, moved)
	}
	news := ""
	for {
		id, err := watchStage(ctx, l, root, s, keys, moved, news)
		if err != nil || id == "" {
			if err == nil {
				fmt.Println(l.Tr("\nstopped watching", "\n已停止监视"))
			}
			return err
		}
		next, err := stage.Find(stages, id)
		if err != nil {
			return err
		}
		news = fmt.Sprintf(l.Tr("the clone is now on lab/%s: watching stage %s instead of %s",
			"克隆现在位于 lab/%s：改为监视第 %s 阶段（原为第 %s 阶段）"), id, next.Num, s.Num)
		s = next
	}
}

// currentBranch is the branch checked out in the working directory.
func currentBranch() string {
	out, _ := base.Output("", "git", "branch", "--show-current")
	return strings.TrimSpace(out)
}

// followBranch sends on moved the stage of each lab/<stage> branch that the
// clone moves to from stage id, checking every interval until ctx ends.
// Another branch (main, a branch of the attendee's) leaves the watch where
// it is.
func followBranch(ctx context.Context, id string, interval time.Duration, branch func() string, moved chan<- string) {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		next, ok := strings.CutPrefix(branch(), "lab/")
		if !ok || next == id || strings.Contains(next, "-saved-") {
			continue
		}
		select {
		case moved <- next:
			id = next
		case <-ctx.Done():
			return
		}
	}
}

// watchStage watches stage s until ctx ends ("") or the clone moves to
// another stage (its id); news is said above the first check.
func watchStage(ctx context.Context, l i18n.Lang, root string, s stage.Stage, keys <-chan string, moved <-chan string, news string) (string, error) {
	files := watchedFiles(root, s)
	if len(files) == 0 {
		return "", fmt.Errorf(l.Tr("stage %s has no files to watch", "第 %s 阶段没有要监视的文件"), s.Num)
	}
	var w watcher
	// File events from the Windows side do not reach WSL2 (docs/laptops.md).
	procVersion, _ := os.ReadFile("/proc/version")
	onWindowsDisk := strings.Contains(strings.ToLower(string(procVersion)), "microsoft") && strings.HasPrefix(root, "/mnt/")
	if os.Getenv("LAB_WATCH_POLL") != "1" && !onWindowsDisk {
		if fw, err := newFileWatcher(files); err == nil {
			w = fw
		}
	}
	if w == nil {
		w = newPollWatcher(files, time.Second)
	}
	defer w.Close()

	check := func(changed []string) {
		if base.IsTerminal(os.Stdout) {
			fmt.Print("\033[H\033[2J") // clear the screen, cursor home
		} else {
			fmt.Println()
		}
		fmt.Printf(l.Tr("bin/lab watch %s: %s\nwatching %d files (%s); Enter checks again, h and Enter shows a hint, Ctrl-C stops\n",
			"bin/lab watch %s：%s\n正在监视 %d 个文件（%s）；回车重新检查，h 加回车显示提示，Ctrl-C 退出\n"),
			s.Num, s.TitleIn(l), len(files), w.Kind(l))
		if news != "" {
			fmt.Println(news)
			news = ""
		}
		if len(changed) > 0 {
			fmt.Printf(l.Tr("saved: %s\n", "已保存：%s\n"), strings.Join(relativeAll(root, unique(changed)), ", "))
		}
		fmt.Println()
		start := time.Now()
		rs, err := run.Checks(l, root, ".", s, run.Summary)
		functions.ShowFunctions(l, s, rs)
		p := progress.Read(root)
		p.Record(s, rs, err, hints.Tied(s, rs))
		_ = p.Save(root)
		toBoard(ctx, l, root, s, rs, err, p)
		fmt.Printf(l.Tr("\n%s  (checked in %.1fs at %s)\n", "\n%s  （检查用时 %.1f 秒，于 %s）\n"), progressLine(l, rs, err), time.Since(start).Seconds(), time.Now().Format("15:04:05"))
	}
	hint := func() { _ = hints.CmdHint(l, root, s) }
	return watchLoop(ctx, w.Events(), keys, moved, quietPeriod, check, hint), nil
}

// progressLine is the line under a check: the specs that pass, as a bar.
func progressLine(l i18n.Lang, rs []gotest.Results, err error) string {
	passed, all := 0, 0
	for _, r := range rs {
		p, n := r.Counts() // what --json and the class board count too
		passed += p
		all += n
	}
	verdict := l.Tr("passes: bin/lab start the next stage", "通过：用 bin/lab start 开始下一阶段")
	switch {
	case err != nil && passed == all:
		// A full bar must not stand beside "not yet" unexplained: the specs
		// that ran pass, and something else fails (a package that does not
		// compile runs none, go vet, conflict markers).
		verdict = fmt.Sprintf(l.Tr("not yet: every spec that ran passes, but the check fails (%s)",
			"还没有通过：运行了的测试用例都通过了，但检查没有通过（%s）"), i18n.Message(l, err))
	case err != nil:
		verdict = l.Tr("not yet", "还没有通过")
	}
	return fmt.Sprintf(l.Tr("%s %d / %d specs, %s", "%s %d / %d 个测试用例，%s"), progress.Bar(passed, all, 20), passed, all, verdict)
}

// watchedFiles are the files of the stage's regions in this checkout.
func watchedFiles(root string, s stage.Stage) []string {
	var files []string
	for f := range run.OwnedFiles(root, ".", s) {
		files = append(files, filepath.Join(root, f))
	}
	return files
}

func unique(xs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

func relativeAll(root string, paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		if rel, err := filepath.Rel(root, p); err == nil {
			p = rel
		}
		out[i] = p
	}
	return out
}

// toBoard sends the check's result to the class board when the clone
// joined one: queued on disk, sent while the next edit is being made.
func toBoard(ctx context.Context, l i18n.Lang, root string, s stage.Stage, rs []gotest.Results, err error, p *progress.Progress) {
	line, queued := class.Report(l, root, s, rs, err, p)
	if line != "" {
		fmt.Println(line)
	}
	if queued {
		go func() {
			ctx, cancel := context.WithTimeout(ctx, class.SendBudget)
			defer cancel()
			_, _ = class.Flush(ctx, class.Dir(root))
		}()
	}
}
