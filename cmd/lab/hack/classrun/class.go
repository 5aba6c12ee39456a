//go:build linux

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

// The class as the instructor makes it: a roster file, then the real
// `bin/lab class setup` and `bin/lab class teardown`, so that what an
// instructor runs, and prints, is what this run exercises. The Go API of
// package roster is used only where no command says it: to find a class
// left over by an interrupted run, and as the last resort of the cleanup.

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	batchv1 "cronlab.dev/cronlab/api/v1"
	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
	"cronlab.dev/cronlab/cmd/lab/internal/roster"
)

// madeUp are the roster's names: pioneers of computing, so that a log line
// reads as a person's. Beyond them a number tells the namesakes apart.
var madeUp = []string{
	"ada", "alan", "barbara", "charles", "dennis", "donald", "edsger", "frances",
	"grace", "hedy", "ivan", "jean", "john", "ken", "leslie", "margaret",
	"niklaus", "radia", "rob", "shafi", "sophie", "tim", "tony", "vint",
	"whitfield", "yukihiro", "adele", "annie", "betty", "kathleen",
}

func rosterNames(n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = madeUp[i%len(madeUp)]
		if i >= len(madeUp) {
			names[i] = fmt.Sprintf("%s-%d", names[i], i/len(madeUp)+1)
		}
	}
	return names
}

// attendee is one person of the class: their namespace, and the clients
// that act as them (their kubeconfig's token).
type attendee struct {
	name, ns, kubeconfig string
	cfg                  *rest.Config
	c                    client.Client
	cronJob              *batchv1.CronJob // every-minute, as created
}

func newScheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		return nil, err
	}
	return s, batchv1.AddToScheme(s)
}

// setUpClass writes the roster and runs `bin/lab class setup` on it,
// timed, its output shown as it comes and kept for the report.
func (r *run) setUpClass(ctx context.Context) error {
	names := rosterNames(r.cfg.attendees)
	file := filepath.Join(r.work, "roster.txt")
	body := "# classrun's made-up class: one attendee per line\n" + strings.Join(names, "\n") + "\n"
	if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
		return err
	}
	out := filepath.Join(r.work, "kubeconfigs")
	args := []string{"--lang", "en", "class", "setup", file, "--class", r.cfg.class, "--out", out, "--hours", fmt.Sprint(r.cfg.hours)}
	r.setupCommand = "bin/lab " + strings.Join(args, " ")
	progress("%s", r.setupCommand)
	var captured bytes.Buffer
	cmd := exec.CommandContext(ctx, r.cfg.lab, args...)
	cmd.Stdout = io.MultiWriter(os.Stdout, &captured)
	cmd.Stderr = io.MultiWriter(os.Stderr, &captured)
	r.setupStarted = true
	start := time.Now()
	err := cmd.Run()
	r.setupTime = time.Since(start)
	r.setupOutput = captured.String()
	if err != nil {
		return fmt.Errorf("bin/lab class setup: %w", err)
	}
	scheme, err := newScheme()
	if err != nil {
		return err
	}
	for _, name := range names {
		a := &attendee{name: name, ns: roster.Namespace(r.cfg.class, name), kubeconfig: filepath.Join(out, name+".kubeconfig")}
		if a.cfg, err = clientcmd.BuildConfigFromFlags("", a.kubeconfig); err != nil {
			return fmt.Errorf("setup wrote no usable kubeconfig for %s: %w", name, err)
		}
		if a.c, err = client.New(a.cfg, client.Options{Scheme: scheme}); err != nil {
			return err
		}
		r.attendees = append(r.attendees, a)
	}
	progress("class %q set up for %d attendees in %v", r.cfg.class, len(names), r.setupTime.Round(10*time.Millisecond))
	return nil
}

// classNamespaces lists the namespaces that carry this class's label.
func (r *run) classNamespaces(ctx context.Context) ([]corev1.Namespace, error) {
	list, err := r.admin.Kube.CoreV1().Namespaces().List(ctx, metav1.ListOptions{LabelSelector: roster.ClassLabel + "=" + r.cfg.class})
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

// clearLeftovers removes a class of the same name that an earlier run did
// not get to tear down (a SIGKILL, a lost machine), and waits for its
// namespaces to be gone: setup cannot fill a namespace that is terminating.
func (r *run) clearLeftovers(ctx context.Context) error {
	left, err := r.classNamespaces(ctx)
	if err != nil || len(left) == 0 {
		return err
	}
	progress("%d namespaces of class %q are left from an earlier run: tearing them down first", len(left), r.cfg.class)
	if _, err := roster.Teardown(ctx, i18n.English, r.admin, r.cfg.class); err != nil {
		return err
	}
	return r.waitClassGone(ctx, 3*time.Minute)
}

// waitClassGone waits until the namespace controller has emptied and
// removed every namespace of the class.
func (r *run) waitClassGone(ctx context.Context, budget time.Duration) error {
	deadline := time.Now().Add(budget)
	for {
		left, err := r.classNamespaces(ctx)
		if err == nil && len(left) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d namespaces of class %q still exist after %v (kubectl get ns -l %s=%s)",
				len(left), r.cfg.class, budget, roster.ClassLabel, r.cfg.class)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

// tearDown undoes the run, whatever state it is in: the managers first (a
// manager whose namespace is deleted under it would log errors that are
// not its fault), then the class, by the instructor's command, or by the
// package's function if the command cannot run. It waits for the
// namespaces to go, so that the next run can use the name at once.
func (r *run) tearDown() {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	r.stopManagers()
	if r.watch != nil {
		r.watch.stop()
	}
	if !r.setupStarted {
		return
	}
	progress("tearing down the class %q", r.cfg.class)
	cmd := exec.CommandContext(ctx, r.cfg.lab, "--lang", "en", "class", "teardown", "--class", r.cfg.class)
	out, err := cmd.CombinedOutput()
	fmt.Print(indent(string(out)))
	if err != nil {
		progress("bin/lab class teardown failed (%v): removing the class with package roster instead", err)
		if _, err := roster.Teardown(ctx, i18n.English, r.admin, r.cfg.class); err != nil {
			progress("teardown failed too: %v; remove the class by hand: bin/lab class teardown --class %s", err, r.cfg.class)
			return
		}
	}
	if err := r.waitClassGone(ctx, 3*time.Minute); err != nil {
		progress("%v", err)
		return
	}
	progress("the class's namespaces are gone")
}

func indent(s string) string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return ""
	}
	return "    " + strings.ReplaceAll(s, "\n", "\n    ") + "\n"
}
