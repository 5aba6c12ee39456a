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

package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	kbatchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"cronlab.dev/cronlab/test/say"
	"cronlab.dev/cronlab/test/utils"
)

var jobs = schema.GroupVersionResource{Group: "batch", Version: "v1", Resource: "jobs"}

// TestListThenWatch is stage 03's check: the list is a snapshot at one
// resourceVersion, the watch from that version brings every later change
// exactly once, and a watch resumed from a version brings only what came
// after it.
func TestListThenWatch(t *testing.T) {
	assets, err := utils.EnvtestAssets(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	env := &envtest.Environment{BinaryAssetsDirectory: assets}
	cfg, err := utils.StartEnvtest(env)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = env.Stop() }()
	kube := kubernetes.NewForConfigOrDie(cfg)
	dyn := dynamic.NewForConfigOrDie(cfg)
	ctx := context.Background()
	ns := "default"
	newJob := func(name string) *kbatchv1.Job {
		return &kbatchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: kbatchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "c", Image: "busybox"}},
		}}}}
	}
	a, err := kube.BatchV1().Jobs(ns).Create(ctx, newJob("a"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}

	var out lockedBuffer
	watchCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	var returned string // the resourceVersion listThenWatch says to resume from
	go func() {
		var err error
		returned, err = listThenWatch(watchCtx, dyn, jobs, ns, "", &out)
		done <- err
	}()
	out.waitFor(t, "LIST resourceVersion=")

	if _, err := kube.BatchV1().Jobs(ns).Create(ctx, newJob("b"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	a.Labels = map[string]string{"touched": "yes"}
	if a, err = kube.BatchV1().Jobs(ns).Update(ctx, a, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	// Background propagation: no finalizer, so with no garbage collector in
	// envtest the Job goes at once.
	background := metav1.DeletePropagationBackground
	if err := kube.BatchV1().Jobs(ns).Delete(ctx, "a", metav1.DeleteOptions{PropagationPolicy: &background}); err != nil {
		t.Fatal(err)
	}
	out.waitFor(t, "DELETED a rv=")
	stop()
	<-done

	lines := out.events()
	want := []string{"LIST", "  a", "ADDED b", "MODIFIED a", "DELETED a"}
	if len(lines) != len(want) {
		t.Fatal(say.Both("printed\n%s\nwant one line each for: %v (the listed Job a must not come again as ADDED)",
			"打印出\n%s\n应为以下各项各一行：%v（list 里已经列出的 Job a 不能再以 ADDED 出现一次）", strings.Join(lines, "\n"), want))
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Error(say.Both("line %d is %q, want it to start with %q",
				"第 %d 行是 %q，应以 %q 开头", i, lines[i], w))
		}
	}
	// resourceVersions are opaque to clients; with etcd they are numbers that
	// grow, which lets the test show that each event is newer than the list.
	listRV := rvOf(t, lines[0], "resourceVersion=")
	previous := listRV
	for _, line := range lines[2:] {
		rv := rvOf(t, line, "rv=")
		if rv <= previous {
			t.Error(say.Both("%q is not newer than what came before it (%d)",
				"%q 并不比它前面的版本（%d）新", line, previous))
		}
		previous = rv
	}

	// What it returns is where a watch that stops here resumes: the last
	// version it saw (the DELETED event's, or a later bookmark's), never the
	// list's, which would bring every change again.
	if rv, err := strconv.Atoi(returned); err != nil || rv < previous {
		t.Error(say.Both("listThenWatch returned resourceVersion %q, want the last one it saw (%d or a later bookmark's)",
			"listThenWatch 返回的 resourceVersion 是 %q，"+
				"应为它见到的最后一个版本（%d，或之后某个 bookmark 的版本）", returned, previous))
	}

	// Resuming at the MODIFIED event's version brings only what came after.
	var resumed lockedBuffer
	resumeCtx, stopResume := context.WithCancel(ctx)
	go func() { _, err := listThenWatch(resumeCtx, dyn, jobs, ns, a.ResourceVersion, &resumed); done <- err }()
	resumed.waitFor(t, "DELETED a rv=")
	stopResume()
	<-done
	if got := resumed.events(); len(got) != 1 {
		t.Error(say.Both("a watch resumed at resourceVersion %s printed %v, want only the later DELETED a",
			"从 resourceVersion %s 接着开始的 watch 打印出 %v，应只打印之后的 DELETED a", a.ResourceVersion, got))
	}
}

func rvOf(t *testing.T, line, key string) int {
	t.Helper()
	i := strings.Index(line, key)
	if i < 0 {
		t.Fatal(say.Both("no %s in %q",
			"%[2]q 里没有 %[1]s", key, line))
	}
	n, err := strconv.Atoi(strings.Fields(line[i+len(key):])[0])
	if err != nil {
		t.Fatal(say.Both("resourceVersion in %q: %v",
			"%q 里的 resourceVersion：%v", line, err))
	}
	return n
}

// lockedBuffer is written by the watch goroutine and read by the test.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// events returns the printed lines without bookmarks, which the API server
// sends when it likes.
func (b *lockedBuffer) events() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var lines []string
	for _, l := range strings.Split(strings.TrimRight(b.buf.String(), "\n"), "\n") {
		if l != "" && !strings.HasPrefix(l, "BOOKMARK") {
			lines = append(lines, l)
		}
	}
	return lines
}

// waitFor waits until the output has the text: the watch prints from its
// own goroutine. It waits for output, never for a clock.
func (b *lockedBuffer) waitFor(t *testing.T, text string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		b.mu.Lock()
		found := strings.Contains(b.buf.String(), text)
		b.mu.Unlock()
		if found {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal(say.Both("no %q in the output after 5s:\n%s",
		"5 秒后输出里仍没有 %q：\n%s", text, strings.Join(b.events(), "\n")))
}
