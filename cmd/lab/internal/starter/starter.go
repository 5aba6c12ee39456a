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

package starter

import (
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"

	"cronlab.dev/cronlab/cmd/lab/internal/base"
	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
	"cronlab.dev/cronlab/cmd/lab/internal/regions"
	"cronlab.dev/cronlab/cmd/lab/internal/stage"
)

// Make turns the reference tree at dir into a starter: the regions
// named in stubs become stubs. The lab tool itself is never touched. In
// exercises/ only the files with regions are (stage 07's specs are the
// attendee's to write); the tests that check a stage have none.
// markersGone reports whether a stub took +kubebuilder markers away: only
// then do the generated files differ from the reference's (a stub keeps
// every type and field, and controller-gen reads nothing else).
func Make(l i18n.Lang, dir string, stubs map[string]regions.Stub) (markersGone bool, err error) {
	stubs, err = readGiven(dir, stubs)
	if err != nil {
		return false, err
	}
	todoPackages := map[string]string{} // directory -> package name
	err = regions.EachFile(dir, func(path, rel string, src []byte) error {
		var out []byte
		switch {
		case strings.HasSuffix(path, ".go"):
			var usesTODO bool
			out, usesTODO, err = regions.StubGo(l, rel, src, stubs)
			if err == nil && usesTODO {
				todoPackages[filepath.Dir(path)] = packageName(path, src)
			}
		case strings.HasSuffix(path, ".yaml"), strings.HasSuffix(path, ".yml"), strings.HasSuffix(path, ".tpl"), filepath.Base(path) == "Makefile":
			out, err = regions.StubText(l, rel, src, stubs)
		default:
			return nil
		}
		if err != nil {
			return err
		}
		const marker = "+kubebuilder:"
		markersGone = markersGone || strings.Count(string(out), marker) < strings.Count(string(src), marker)
		return os.WriteFile(path, out, 0o644)
	})
	if err != nil {
		return false, err
	}
	for pkgDir, name := range todoPackages {
		if err := os.WriteFile(filepath.Join(pkgDir, "zz_lab_todo.go"), regions.TodoFile(name), 0o644); err != nil {
			return false, err
		}
	}
	return markersGone, nil
}

// readGiven returns stubs with the given forms of each stub that names a
// file of them (GivenFile, relative to dir) read in.
func readGiven(dir string, stubs map[string]regions.Stub) (map[string]regions.Stub, error) {
	out := make(map[string]regions.Stub, len(stubs))
	for name, s := range stubs {
		if s.GivenFile != "" {
			src, err := os.ReadFile(filepath.Join(dir, s.GivenFile))
			if err != nil {
				return nil, i18n.Errorf("region %s: its forms for the earlier stages cannot be read (%v): restore %s, or take it out of stage.yaml's trusting:",
					"区域 %s：读不到它给前面阶段用的形式（%v）：恢复 %s，或者把它从 stage.yaml 的 trusting: 里去掉", name, err, s.GivenFile)
			}
			if s.Given, err = regions.ParseGiven(s.GivenFile, src); err != nil {
				return nil, err
			}
		}
		out[name] = s
	}
	return out, nil
}

func packageName(path string, src []byte) string {
	f, err := parser.ParseFile(token.NewFileSet(), path, src, parser.PackageClauseOnly)
	if err != nil {
		return "main"
	}
	return f.Name.Name
}

// Tree makes the starter of stage s in a git worktree and commits it
// there. It returns the worktree, the starter commit, and a function that
// removes the worktree. The worktree is a new temporary directory, or at,
// if at is set: lab dev verify makes every starter at the same place, because
// Go keys what it compiled by the package's directory; there, each starter
// compiles and vets again only the packages that differ from the last one.
func Tree(l i18n.Lang, root string, stages []stage.Stage, s stage.Stage, at string) (dir, commit string, cleanup func(), err error) {
	defer base.Traced("make the starter of " + s.Slug)()
	ref, err := base.ReferenceCommit(root)
	if err != nil {
		return "", "", nil, err
	}
	if at != "" {
		dir = at
		_, _ = base.Output(root, "git", "worktree", "remove", "--force", dir)
		_ = os.RemoveAll(dir)
		_, _ = base.Output(root, "git", "worktree", "prune")
	} else if dir, err = os.MkdirTemp("", "cronlab-starter-"+s.Slug+"-"); err != nil {
		return "", "", nil, err
	}
	cleanup = func() {
		_, _ = base.Output(root, "git", "worktree", "remove", "--force", dir)
		_ = os.RemoveAll(dir)
	}
	if _, err = base.Output(root, "git", "worktree", "add", "--detach", dir, ref); err != nil {
		cleanup()
		return "", "", nil, err
	}
	markersGone, err := Make(l, dir, StubsFrom(stages, s))
	if err != nil {
		cleanup()
		return "", "", nil, err
	}
	// What `make generate manifests` would give the attendee, from the
	// starter's own Go types (the markers of later stages are gone). With
	// every marker there, that is what the reference has already.
	if markersGone {
		regen := []string{"CONTROLLER_GEN=" + filepath.Join(root, "bin", "controller-gen"), "manifests", "generate"}
		doneRegen := base.Traced("make manifests generate")
		_, err = base.Output(dir, "make", regen...)
		doneRegen()
		if err != nil {
			cleanup()
			return "", "", nil, err
		}
	}
	if _, err = base.Output(dir, "git", "add", "-A"); err == nil {
		err = base.LabCommit(dir, "--allow-empty", "-m", fmt.Sprintf("lab %s starter: %s\n\nMade by `lab start %s` from the reference.\n\n第 %s 阶段的起始代码：%s\n由 `lab start %s` 从参考实现生成。\n\n%s %s",
			s.Slug, s.Title, s.Slug, s.Num, s.TitleZh, s.Slug, base.ReferenceTrailer, ref))
	}
	if err != nil {
		cleanup()
		return "", "", nil, err
	}
	out, err := base.Output(dir, "git", "rev-parse", "HEAD")
	if err != nil {
		cleanup()
		return "", "", nil, err
	}
	return dir, strings.TrimSpace(out), cleanup, nil
}

// StubsFrom is what a starter for stage s stubs: its own regions and those
// of every later stage. Earlier stages stay solved. A region with forms for
// the earlier stages (stage.yaml's trusting:) gets them, not TODOs, which
// Make reads from the tree.
func StubsFrom(stages []stage.Stage, s stage.Stage) map[string]regions.Stub {
	stubs := map[string]regions.Stub{}
	for _, other := range stages {
		if other.Num < s.Num {
			continue
		}
		for _, r := range other.Regions {
			stub := regions.Stub{Stage: other.Slug, Readme: other.Readme()}
			if file, ok := other.Trusting[r]; ok {
				stub.GivenFile, stub.Own = filepath.Join(other.Dir, file), other.Slug == s.Slug
			}
			stubs[r] = stub
		}
	}
	return stubs
}

func EnsureControllerGen(root string) error {
	if _, err := os.Stat(filepath.Join(root, "bin", "controller-gen")); err == nil {
		return nil
	}
	_, err := base.Output(root, "make", "controller-gen")
	return err
}
