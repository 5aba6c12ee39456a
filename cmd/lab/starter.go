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
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// makeStarter turns the reference tree at dir into a starter: the regions
// named in stubs become stubs. The lab tool itself is never touched. In
// exercises/ only the files with regions are (stage 07's specs are the
// attendee's to write); the tests that check a stage have none.
// markersGone reports whether a stub took +kubebuilder markers away: only
// then do the generated files differ from the reference's (a stub keeps
// every type and field, and controller-gen reads nothing else).
func makeStarter(dir string, stubs map[string]stub) (markersGone bool, err error) {
	todoPackages := map[string]string{} // directory -> package name
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if d.IsDir() {
			switch rel {
			case ".git", "bin", "dist", filepath.Join("cmd", "lab"):
				return filepath.SkipDir
			}
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if !strings.Contains(string(src), "lab:begin") {
			return nil
		}
		var out []byte
		switch {
		case strings.HasSuffix(path, ".go"):
			var usesTODO bool
			out, usesTODO, err = stubGo(rel, src, stubs)
			if err == nil && usesTODO {
				todoPackages[filepath.Dir(path)] = packageName(path, src)
			}
		case strings.HasSuffix(path, ".yaml"), strings.HasSuffix(path, ".yml"), strings.HasSuffix(path, ".tpl"), d.Name() == "Makefile":
			out, err = stubText(rel, src, stubs)
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
		if err := os.WriteFile(filepath.Join(pkgDir, "zz_lab_todo.go"), todoFile(name), 0o644); err != nil {
			return false, err
		}
	}
	return markersGone, nil
}

func packageName(path string, src []byte) string {
	f, err := parser.ParseFile(token.NewFileSet(), path, src, parser.PackageClauseOnly)
	if err != nil {
		return "main"
	}
	return f.Name.Name
}
