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

package apiserver

// The shared API server. Starting etcd and kube-apiserver costs seconds that
// an attendee would pay on every `lab check`. So the first check starts one
// pair in the background, and later checks reuse it through envtest's own
// switch: with USE_EXISTING_CLUSTER=true and KUBECONFIG set, a test's
// envtest.Environment connects to that server instead of starting one (stage
// 07 explains envtest). Suites that change what is cluster-wide, such as
// webhook configurations, still start their own.
//
// Tests stay independent of each other: before every check the leftovers of
// the last one (CronJobs, Jobs, namespaces) are deleted, and one check at a
// time holds the server. When the CRDs of the checked tree differ from those
// the server was started for, it is started again, so no test ever runs
// against a schema that is still being replaced. The server stops itself after
// sharedIdle without a check, or when its clone is deleted; `lab stop`
// stops it now.
//
// Its bookkeeping lives in bin/lab-state/apiserver/ of the clone: the PID the
// server wrote itself, its kubeconfig, its log, a lock and the time of the
// last check. Nothing is ever found by a process name.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"cronlab.dev/cronlab/cmd/lab/internal/base"
	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
	"cronlab.dev/cronlab/internal/controlplane"
)

// sharedIdle is how long the shared server waits for the next check before
// it stops and frees its memory (about 300 MiB).
const sharedIdle = 30 * time.Minute

// LabExecutable is the lab tool, which start runs as the server; tests
// point it at a lab binary they built.
var LabExecutable = os.Executable

// sharedOff is the environment variable that turns the shared server off:
// every test then starts its own, as `go test` does.
const sharedOff = "LAB_SHARED_APISERVER"

// serverState is what the server writes about itself once it is ready.
type serverState struct {
	Server process `json:"server"`
	// CRDHash identifies the CRDs of the tree the server was started for.
	CRDHash string `json:"crdHash"`
	// Children are etcd and kube-apiserver, stopped by `lab stop` if the
	// server itself was killed and left them behind.
	Children []process `json:"children"`
	Started  time.Time `json:"started"`
}

type Server struct {
	dir  string // bin/lab-state/apiserver of the clone
	root string // the clone
}

// Open is the clone's shared server, the one an attendee's checks use; a
// part of lab dev verify uses the server of its own slot (Of).
func Open(root string) Server { return Of(root, "") }

// Of is the shared server of a slot of lab dev verify: each part of verify that
// runs at once with others has its own (slot "" is the clone's, Open).
func Of(root, slot string) Server {
	return Server{dir: filepath.Join(base.StateDir(root), "apiserver"+slot), root: root}
}

func (s Server) path(name string) string { return filepath.Join(s.dir, name) }

// EnsureEnvtest installs etcd and kube-apiserver for the tests when a
// check finds none: on a new machine that is the attendee's first check,
// which should install what it needs rather than end on a command to type.
func EnsureEnvtest(l i18n.Lang, root string) error {
	if _, err := controlplane.Assets(root); err == nil {
		return nil
	}
	fmt.Println(l.Tr("  the first check here installs etcd and kube-apiserver for the tests (make setup-envtest:\n"+
		"  seconds when they are cached or downloaded, minutes when they are built from source) ...",
		"  这里的第一次检查会为测试安装 etcd 和 kube-apiserver（make setup-envtest：\n"+
			"  已缓存或可下载时只需几秒，需要从源码构建时要几分钟）……"))
	cmd := exec.Command("make", "setup-envtest")
	cmd.Dir = root
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stdout
	if err := cmd.Run(); err != nil {
		return base.SetupError{Err: fmt.Errorf(l.Tr("make setup-envtest failed (%v); its output is above, and bin/lab doctor says what this machine lacks",
			"make setup-envtest 失败（%v）；它的输出在上面，bin/lab doctor 会告诉你这台机器缺什么"), err)}
	}
	if _, err := controlplane.Assets(root); err != nil {
		return base.SetupError{Err: err}
	}
	return nil
}

// Enabled says whether checks use the shared server: where it can run
// (sharedSupported) and unless LAB_SHARED_APISERVER turns it off.
func Enabled() bool {
	if !sharedSupported {
		return false
	}
	switch strings.ToLower(os.Getenv(sharedOff)) {
	case "0", "off", "false", "no":
		return false
	}
	return true
}

// Acquire makes the shared server ready for a check of the tree at treeDir:
// one check at a time, the server running for treeDir's CRDs, the last
// check's objects gone. It returns the environment that points the tests at
// it, and release, which the caller must call when the check is done.
func (s Server) Acquire(l i18n.Lang, treeDir string) (env []string, release func(), err error) {
	defer base.Traced("acquire the shared server")()
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return nil, nil, err
	}
	unlock, err := lockFile(s.path("lock"), func() {
		fmt.Println(l.Tr("  (another check is using the shared API server; waiting for it to finish)", "  （另一个检查正在使用共享的 API 服务器；等它结束）"))
	})
	if err != nil {
		return nil, nil, err
	}
	fail := func(err error) ([]string, func(), error) {
		unlock()
		return nil, nil, base.SetupError{Err: err}
	}
	hash, err := crdHash(treeDir)
	if err != nil {
		return fail(err)
	}
	state, running := s.running()
	if running && state.CRDHash != hash {
		fmt.Println(l.Tr("  the CRDs changed since the shared API server started: starting it again", "  共享的 API 服务器启动之后 CRD 改变了：重新启动它"))
		if err := s.Stop(); err != nil {
			return fail(err)
		}
		running = false
	}
	if !running {
		// A server that was killed may have left its etcd and kube-apiserver
		// running: stop what it recorded before starting anew.
		if err := s.Stop(); err != nil {
			return fail(err)
		}
		if err := s.start(l, hash); err != nil {
			return fail(err)
		}
	}
	s.touch()
	if err := s.clean(); err != nil {
		return fail(fmt.Errorf(l.Tr("cleaning the shared API server: %w (run `bin/lab stop` and check again)", "清理共享的 API 服务器时出错：%w（运行 `bin/lab stop` 后再检查一次）"), err))
	}
	env = []string{"USE_EXISTING_CLUSTER=true", "KUBECONFIG=" + s.path("kubeconfig")}
	return env, func() { s.touch(); unlock() }, nil
}

// running reads the server's state and tells whether it still answers.
func (s Server) running() (serverState, bool) {
	defer base.Traced("is the shared server up")()
	state, err := s.state()
	if err != nil || !state.Server.ours() {
		return state, false
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", s.path("kubeconfig"))
	if err != nil {
		return state, false
	}
	cfg.Timeout = 5 * time.Second
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return state, false
	}
	_, err = kube.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(context.Background())
	return state, err == nil
}

func (s Server) state() (serverState, error) {
	var state serverState
	raw, err := os.ReadFile(s.path("server.json"))
	if err == nil {
		err = json.Unmarshal(raw, &state)
	}
	return state, err
}

// start runs `lab serve-apiserver` in a session of its own, so that it
// outlives this check and Ctrl-C on the check does not reach it, and waits
// until it has written its state.
func (s Server) start(l i18n.Lang, hash string) error {
	self, err := LabExecutable()
	if err != nil {
		return err
	}
	assets, err := controlplane.Assets(s.root)
	if err != nil {
		return err
	}
	_ = os.Remove(s.path("server.json"))
	logFile, err := os.Create(s.path("log"))
	if err != nil {
		return err
	}
	defer func() { _ = logFile.Close() }()
	cmd := exec.Command(self, "serve-apiserver", s.dir, hash)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.Env = append(os.Environ(), "KUBEBUILDER_ASSETS="+assets)
	cmd.SysProcAttr = detached()
	fmt.Print(l.Tr("  starting a shared etcd and kube-apiserver for the checks (once: later checks reuse it) ...",
		"  正在为检查启动共享的 etcd 和 kube-apiserver（只启动一次，之后的检查会复用）……"))
	begin := time.Now()
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); {
		select {
		case err := <-exited:
			fmt.Println()
			return fmt.Errorf(l.Tr("the shared API server stopped at once (%v):\n%s", "共享的 API 服务器一启动就停止了（%v）：\n%s"), err, base.LastLines(readFile(s.path("log")), 15))
		case <-time.After(100 * time.Millisecond):
		}
		if state, err := s.state(); err == nil && state.Server.PID == cmd.Process.Pid {
			fmt.Printf(l.Tr(" ready in %.1fs\n", " %.1f 秒后就绪\n"), time.Since(begin).Seconds())
			return nil
		}
	}
	fmt.Println()
	return fmt.Errorf(l.Tr("the shared API server did not start within 2 minutes; see %s", "共享的 API 服务器在 2 分钟内没有启动；请看 %s"), s.path("log"))
}

// Stop asks the server to stop (SIGTERM: it stops etcd and kube-apiserver
// and removes its state) and waits for it. If the server is gone but left
// its children, they are stopped by the PIDs it recorded.
func (s Server) Stop() error {
	state, err := s.state()
	if err != nil {
		return nil // never started, or already stopped
	}
	signalled := []process{state.Server}
	orphans := !state.Server.ours()
	if orphans {
		signalled = state.Children
	}
	for _, p := range signalled {
		if p.ours() {
			terminate(p.PID)
		}
	}
	all := append([]process{state.Server}, state.Children...)
	start := time.Now()
	for deadline := start.Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if !anyOurs(all) {
			_ = os.Remove(s.path("server.json"))
			return nil
		}
		// Without its etcd, a kube-apiserver left by a killed server may
		// take minutes to shut down gracefully; nothing is left to save.
		if orphans && time.Since(start) > 5*time.Second {
			for _, p := range state.Children {
				if p.ours() {
					kill(p.PID)
				}
			}
		}
	}
	return i18n.Errorf("the shared API server (PID %d) did not stop within 30s; see %s",
		"共享的 API 服务器（PID %d）在 30 秒内没有停止；请看 %s", state.Server.PID, s.path("log"))
}

func (s Server) touch() {
	now := time.Now()
	if err := os.Chtimes(s.path("used"), now, now); err != nil {
		_ = os.WriteFile(s.path("used"), nil, 0o644)
	}
}

// forgotten says whether the clone no longer knows this server: its state
// directory is gone (the clone was deleted, moved, or cleaned with git
// clean -x), or it names another server. No check will ever find this one
// again, so it stops now instead of holding etcd and kube-apiserver until
// the machine restarts.
func (s Server) forgotten() bool {
	state, err := s.state()
	if errors.Is(err, fs.ErrNotExist) {
		return true
	}
	return err == nil && state.Server.PID != os.Getpid()
}

func (s Server) idleFor() time.Duration {
	info, err := os.Stat(s.path("used"))
	if err != nil {
		return 0
	}
	return time.Since(info.ModTime())
}

// CmdStop is `lab stop`: stop the shared API server now.
func CmdStop(l i18n.Lang, root string) error { return StopShared(l, Open(root)) }

func StopShared(l i18n.Lang, s Server) error {
	if _, err := s.state(); err != nil {
		fmt.Println(l.Tr("No shared API server is running for this clone.", "本克隆没有正在运行的共享 API 服务器。"))
		return nil
	}
	unlock, err := lockFile(s.path("lock"), func() {
		fmt.Println(l.Tr("waiting for the running check to finish ...", "等待正在运行的检查结束……"))
	})
	if err != nil {
		return err
	}
	defer unlock()
	if err := s.Stop(); err != nil {
		return err
	}
	fmt.Println(l.Tr("Stopped the shared API server.", "已停止共享的 API 服务器。"))
	return nil
}
