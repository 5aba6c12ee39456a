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

package verify

// Some code of a stage runs only once a later stage is written. Stage 04
// writes all of Reconcile, but its steps 4 and 5 call functions that are
// still stubs until stages 05 and 06: whatever Reconcile does with their
// results (return the error of one, come back when the next run is due)
// cannot be seen by stage 04's check, in a tree where those stubs always
// fail. An attendee's code goes on into the next stages (lab start carries
// it), so such a mistake is caught there, by a later stage's check that
// runs the same code with the stubs written. The mutants that survive their
// own stage are therefore checked, in order, with the later stages whose
// tests build the mutated package; each one one of them kills is "caught
// later", with the stage named, and only the rest survive.

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"cronlab.dev/cronlab/cmd/lab/internal/base"
	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
	"cronlab.dev/cronlab/cmd/lab/internal/run"
	"cronlab.dev/cronlab/cmd/lab/internal/stage"
)

// catchLater checks the survivors of stage s with the checks of the stages
// after it, and returns the stage that caught each one it did, by name.
func catchLater(l i18n.Lang, root string, stages []stage.Stage, s stage.Stage, survivors []stage.Mistake) (map[string]string, error) {
	caught := map[string]string{}
	for t, ok := stage.Next(stages, s); ok && len(survivors) > 0; t, ok = stage.Next(stages, t) {
		if !overlayable(t) {
			continue
		}
		relevant, err := buildsAny(root, t, survivors)
		if err != nil {
			return nil, err
		}
		if !relevant {
			continue
		}
		fmt.Printf(l.Tr("  with the check of stage %s, where the code after them is written: survivors checked again: %d\n",
			"  用第 %s 阶段的检查（那里它们之后的代码已经写好）再查 %d 个存活的变异体\n"), t.Num, len(survivors))
		killed, err := killedIn(l, root, stages, t, survivors)
		if err != nil {
			return nil, err
		}
		survivors = slices.DeleteFunc(survivors, func(m stage.Mistake) bool {
			if killed[m.Name] {
				caught[m.Name] = t.Slug
				return true
			}
			return false
		})
	}
	return caught, nil
}

// killedIn makes each mistake in the tree where stage t is solved and
// checks it with t's check; it returns those the check caught.
func killedIn(l i18n.Lang, root string, stages []stage.Stage, t stage.Stage, ms []stage.Mistake) (map[string]bool, error) {
	dir, cleanup, err := solvedTree(l, root, stages, t)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	return killedInTree(l, root, dir, t, ms)
}

// killedInTree makes each mistake in the tree at dir and checks it with t's
// check; it returns those the check caught.
func killedInTree(l i18n.Lang, root, dir string, t stage.Stage, ms []stage.Mistake) (map[string]bool, error) {
	start := time.Now()
	if clean, err := run.ChecksWith(l, root, dir, t, run.Quiet, false, run.BuildOpts{}); err != nil {
		return nil, fmt.Errorf("%s: its check fails before any mutant is made: %s", t.Num, firstFailure(clean, err))
	}
	t = stoppingLoops(t, time.Since(start))
	t.Mistakes = ms
	killed := map[string]bool{}
	c := newCatalogueRun("")
	var alone []int
	for i, ok := range c.checkInSchema(l, root, dir, t) {
		if ok {
			killed[ms[i].Name] = true
		}
	}
	for i := range ms {
		if !killed[ms[i].Name] {
			alone = append(alone, i)
		}
	}
	c.eachAlone(l, root, dir, t, alone, func(i int, o outcome) {
		if o.unmade == nil && o.err != nil && !base.IsSetupError(o.err) && compileErrors(o.rs) == "" {
			killed[ms[i].Name] = true
			if t.Dir == "" { // a package's tests (catchElsewhere)
				fmt.Printf(l.Tr("  caught by the tests of %s  %s\n        by: %s\n", "  被 %s 的测试发现  %s\n        发现它的：%s\n"), t.Num, ms[i].Name, firstFailure(o.rs, o.err))
				return
			}
			fmt.Printf(l.Tr("  caught by stage %s  %s\n        by: %s\n", "  被第 %s 阶段发现  %s\n        发现它的：%s\n"), t.Num, ms[i].Name, firstFailure(o.rs, o.err))
		}
	})
	return killed, nil
}

// buildsAny tells whether one of the packages that stage t's check tests
// imports, or is, a package that one of the mistakes edits.
func buildsAny(root string, t stage.Stage, ms []stage.Mistake) (bool, error) {
	module, err := base.Output(root, "go", "list", "-m")
	if err != nil {
		return false, err
	}
	edited := map[string]bool{}
	for _, m := range ms {
		for _, e := range m.Edits {
			edited[strings.TrimSpace(module)+"/"+path.Dir(e.File)] = true
		}
	}
	for _, test := range t.Tests {
		deps, err := base.Output(root, "go", "list", "-deps", "-test", "-f", "{{.ImportPath}}", test.Package)
		if err != nil {
			return false, err
		}
		for _, p := range strings.Fields(deps) {
			if edited[p] {
				return true, nil
			}
		}
	}
	return false, nil
}

// A package of the reference is held by more tests than its own: the
// webhook's envtest suite registers api/v2 in its scheme, the controller's
// suite runs the leader's fence. So a package's mutants that survive its
// own tests are checked, as a stage's are with the later stages, with the
// tests of every other package of the reference that builds it (those make
// test runs, the stages' checks among them; the end-to-end suite, which
// needs a cluster, is left out). One
// that such a package's tests kill is caught elsewhere, with the package
// named.

// catchElsewhere checks the survivors of package row s with the tests of the
// other packages that build it, and returns the package whose tests caught
// each one it did, by name.
func catchElsewhere(l i18n.Lang, root string, s stage.Stage, survivors []stage.Mistake) (map[string]string, error) {
	caught := map[string]string{}
	testers, err := testersOf(root, s.Slug)
	if err != nil || len(testers) == 0 || len(survivors) == 0 {
		return caught, err
	}
	dir, cleanup, err := scratchTree(root, "")
	if err != nil {
		return nil, err
	}
	defer cleanup()
	for _, pkg := range testers {
		if len(survivors) == 0 {
			break
		}
		fmt.Printf(l.Tr("  with the tests of %s, which build it: survivors checked again: %d\n",
			"  用构建了它的 %s 的测试再查 %d 个存活的变异体\n"), pkg, len(survivors))
		killed, err := killedInTree(l, root, dir, packageSuite(pkg), survivors)
		if err != nil {
			return nil, err
		}
		survivors = slices.DeleteFunc(survivors, func(m stage.Mistake) bool {
			if killed[m.Name] {
				caught[m.Name] = pkg
				return true
			}
			return false
		})
	}
	return caught, nil
}

// testersOf are the packages of the reference, other than pkg, whose tests
// build pkg: under api/, internal/ and test/ (but test/e2e), cmd itself, and
// the stages' test packages under exercises/, which in the reference's tree
// test the reference.
// One go list: with -test it lists each package's test binary ("p.test"),
// whose dependencies are all that the binary links.
func testersOf(root, pkg string) ([]string, error) {
	module, err := base.Output(root, "go", "list", "-m")
	if err != nil {
		return nil, err
	}
	module = strings.TrimSpace(module)
	listed, err := base.Output(root, "go", "list", "-test", "-f", "{{.ImportPath}}|{{join .Deps \" \"}}",
		"./api/...", "./internal/...", "./test/...", "./cmd", "./exercises/...")
	if err != nil {
		return nil, err
	}
	var out []string
	for _, line := range strings.Split(listed, "\n") {
		binary, deps, ok := strings.Cut(line, "|")
		if !ok || !strings.HasSuffix(binary, ".test") {
			continue
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(strings.TrimSuffix(binary, ".test"), module), "/")
		if rel == pkg || rel == "test/e2e" || strings.HasPrefix(rel, "test/e2e/") {
			continue
		}
		if slices.Contains(strings.Fields(deps), module+"/"+pkg) {
			out = append(out, rel)
		}
	}
	return out, nil
}
