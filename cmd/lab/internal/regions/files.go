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

package regions

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// EachFile calls fn with every file of the tree at dir that has regions,
// its path, its path relative to dir and its contents. The lab tool's own
// code (cmd/lab), git's directory and what builds leave (bin, dist) are
// never the attendee's, so they are not walked.
func EachFile(dir string, fn func(path, rel string, src []byte) error) error {
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
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
		return fn(path, rel, src)
	})
}
