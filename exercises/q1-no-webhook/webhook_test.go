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

// Package nowebhook checks discussion question 1: how to run the operator
// without its webhooks. It builds the real manager binary and runs it, as
// `make run` does, against an envtest API server.
package nowebhook

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"cronlab.dev/cronlab/test/say"
	"cronlab.dev/cronlab/test/utils"
)

var (
	manager    string // the built binary
	kubeconfig string // a kubeconfig file for the envtest API server
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	assets, err := utils.EnvtestAssets(filepath.Join("..", ".."))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	env := utils.WithoutWatchCache(&envtest.Environment{
		CRDDirectoryPaths:     []string{filepath.Join("..", "..", "config", "crd", "bases")},
		ErrorIfCRDPathMissing: true,
		BinaryAssetsDirectory: assets,
	})
	if _, err := utils.StartEnvtest(env); err != nil {
		fmt.Fprintln(os.Stderr, "starting envtest:", err)
		return 1
	}
	defer func() { _ = env.Stop() }()

	dir, err := os.MkdirTemp("", "cronlab-q1-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() { _ = os.RemoveAll(dir) }()
	kubeconfig = filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(kubeconfig, env.KubeConfig, 0o600); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	manager = filepath.Join(dir, "manager")
	build := exec.Command("go", "build", "-o", manager, "./cmd")
	build.Dir = filepath.Join("..", "..")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build ./cmd: %v\n%s", err, out)
		return 1
	}
	return m.Run()
}

// process is a running manager and what it has logged so far. done is
// closed when it has exited, with its exit error in err.
type process struct {
	cmd  *exec.Cmd
	mu   sync.Mutex
	logs bytes.Buffer
	done chan struct{}
	err  error
}

func (p *process) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.logs.Write(b)
}

func (p *process) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.logs.String()
}

// start runs the manager with the environment variable ENABLE_WEBHOOKS set
// to enable (unset if empty), a webhook certificate directory that has no
// certificate, and its probes on probeAddr.
func start(t *testing.T, enable, probeAddr string) *process {
	t.Helper()
	cmd := exec.Command(manager,
		"--metrics-bind-address=0",
		"--health-probe-bind-address="+probeAddr,
		"--webhook-cert-path="+t.TempDir(),
	)
	env := []string{"KUBECONFIG=" + kubeconfig}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ENABLE_WEBHOOKS=") && !strings.HasPrefix(kv, "KUBECONFIG=") {
			env = append(env, kv)
		}
	}
	if enable != "" {
		env = append(env, "ENABLE_WEBHOOKS="+enable)
	}
	cmd.Env = env
	p := &process{cmd: cmd, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = p, p
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-p.done
	})
	return p
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Close() }()
	return l.Addr().String()
}

func TestWithWebhooksOffTheManagerServesWithoutACertificate(t *testing.T) {
	probes := freeAddr(t)
	p := start(t, "false", probes)

	// Up means: /readyz answers 200 and the controller's workers started.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for !ready(probes) || !strings.Contains(p.output(), "Starting workers") {
		select {
		case <-p.done:
			t.Fatal(say.Both("with ENABLE_WEBHOOKS=false the manager must run without a certificate, but it exited (%v):\n%s",
				"设置 ENABLE_WEBHOOKS=false 时，管理器必须能在没有证书的情况下运行，但它退出了（%v）：\n%s", p.err, p.output()))
		case <-ctx.Done():
			t.Fatal(say.Both("the manager was not up within a minute:\n%s",
				"管理器在一分钟内没有启动起来：\n%s", p.output()))
		case <-time.After(100 * time.Millisecond):
		}
	}
	// The webhook server was never started: nothing registered a webhook
	// on it.
	for _, line := range []string{"Starting webhook server", "Serving webhook server"} {
		if strings.Contains(p.output(), line) {
			t.Error(say.Both("with ENABLE_WEBHOOKS=false the webhook server must not start, but the log says %q:\n%s",
				"设置 ENABLE_WEBHOOKS=false 时，Webhook 服务器不能启动，但日志中出现了 %q：\n%s", line, p.output()))
		}
	}
}

func ready(probes string) bool {
	resp, err := http.Get("http://" + probes + "/readyz")
	if err != nil {
		return false
	}
	_ = resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

func TestWithWebhooksOnAndNoCertificateItStopsAtOnceAndSaysHowToFixIt(t *testing.T) {
	for _, enable := range []string{"", "true"} {
		t.Run("ENABLE_WEBHOOKS="+enable, func(t *testing.T) {
			p := start(t, enable, freeAddr(t))
			select {
			case <-p.done:
				if p.err == nil {
					t.Fatal(say.Both("the manager exited with status 0; it must fail:\n%s",
						"管理器退出时的状态码为 0；它必须失败：\n%s", p.output()))
				}
			case <-time.After(5 * time.Second):
				t.Fatal(say.Both("webhooks on and no certificate: the manager must stop at once with an error, but it is still running:\n%s",
					"开启了 Webhook 却没有证书：管理器必须立即报错并停止，但它仍在运行：\n%s", p.output()))
			}
			for _, fix := range []string{"ENABLE_WEBHOOKS=false", "make run-webhooks", "cert-manager", "tls.crt"} {
				if !strings.Contains(p.output(), fix) {
					t.Error(say.Both("the error must say how to fix it (%q), but the manager said:\n%s",
						"错误消息必须说明如何修复（%q），但管理器输出的是：\n%s", fix, p.output()))
				}
			}
		})
	}
}
