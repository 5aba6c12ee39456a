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

package perturb

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
	"cronlab.dev/cronlab/cmd/lab/internal/stage"
	"cronlab.dev/cronlab/cmd/lab/internal/starter"
)

// The tree of a lab branch of stage 06 that its attendee has solved: the
// starter of stage 07, in which stage 06's regions are the reference's and
// every later stage's (stage 13's test/lag among them) is a stub. bin/lab
// perturb works from stage 06 on (docs/trace.md): there it plays the
// scenario to where the reference's ends, each kind's page outlives the run
// of another kind, and a run that breaks is an error, not a difference.
func TestPerturbOnASolvedLab06Branch(t *testing.T) {
	if testing.Short() || os.Getenv("KUBEBUILDER_ASSETS") == "" {
		t.Skip("plays the scenario on envtest's API server: make test sets KUBEBUILDER_ASSETS (-short skips it)")
	}
	// The scenario's own API server, not the clone's shared one: this
	// test must not leave a server running.
	t.Setenv("LAB_SHARED_APISERVER", "off")
	root, err := filepath.Abs(filepath.Join("..", "..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	stages, err := stage.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(stages, func(s stage.Stage) bool { return s.Num == "07" })
	if i < 0 {
		t.Fatal("no stage 07 to make the starter of")
	}
	next := stages[i]
	dir, _, cleanup, err := starter.Tree(i18n.English, root, stages, next, "")
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()

	out, err := played(t, root, dir, "none")
	if err != nil || !strings.Contains(out, "Under none, the scenario ends where the reference's Reconciler ends.") {
		t.Fatalf("under none on lab/06, solved: %v\n%s", err, out)
	}
	page := filepath.Join(dir, "bin", "lab-state", "perturb", "none.html")
	if !strings.Contains(out, "open bin/lab-state/perturb/none.html in a browser") {
		t.Errorf("the run did not print its page, %s:\n%s", page, out)
	}

	if out, err := played(t, root, dir, "stale"); err != nil {
		t.Fatalf("under stale on lab/06, solved (the harness holds the cache back without stage 13's test/lag): %v\n%s", err, out)
	}
	if _, err := os.Stat(page); err != nil {
		t.Errorf("the page that the run under none printed is gone after a run under stale: %v", err)
	}

	// A Reconcile that panics stops the scenario before its end: nothing
	// is compared, and the attendee is not told that their end state
	// differs.
	file := filepath.Join(dir, "internal", "controller", "cronjob_controller.go")
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	const body = "func (r *CronJobReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {\n"
	if !strings.Contains(string(src), body) {
		t.Fatalf("%s has no Reconcile to break", file)
	}
	broken := strings.Replace(string(src), body, body+"\tpanic(\"broken on purpose\")\n", 1)
	if err := os.WriteFile(file, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err = played(t, root, dir, "none")
	switch {
	case err == nil:
		t.Fatalf("a Reconcile that panics: the run succeeded\n%s", out)
	case strings.Contains(err.Error(), "is not the reference's") || strings.Contains(out, "Where the scenario ends"):
		t.Errorf("a run that broke is called a difference: %v\n%s", err, out)
	case !strings.Contains(err.Error(), "nothing was compared"):
		t.Errorf("a run that broke does not say that nothing was compared: %v\n%s", err, out)
	}
}

// played is what perturb prints and returns, playing kind in dir. The
// output is read while it is written: a trace in lanes and a panic's stack
// can be more than a pipe holds.
func played(t *testing.T, root, dir, kind string) (string, error) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	read := make(chan string)
	go func() {
		raw, _ := io.ReadAll(r)
		read <- string(raw)
	}()
	stdout := os.Stdout
	os.Stdout = w
	err = perturb(i18n.English, root, dir, kind)
	os.Stdout = stdout
	_ = w.Close()
	return <-read, err
}
