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

package stage

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
)

// A mistake is one or more edits of the reference: what an attendee might
// write instead.
type Mistake struct {
	Name string `json:"name"`
	// NameZh is the name in Chinese, which `lab dev mistakes --lang zh` shows;
	// the English one names the mistake in CI's reports.
	NameZh string `json:"nameZh"`
	Edits  []Edit `json:"edits"`
}

// NameIn is the mistake's name in l.
func (m Mistake) NameIn(l i18n.Lang) string {
	if l == i18n.Chinese && m.NameZh != "" {
		return m.NameZh
	}
	return m.Name
}

// An edit replaces a piece of a file. Replace must occur exactly once in
// File, so that a catalogue that no longer matches the reference fails
// verify instead of silently testing nothing.
type Edit struct {
	File    string `json:"file"`
	Replace string `json:"replace"`
	With    string `json:"with"`
}

// Edited returns the files of the tree at dir that the mistake changes,
// by absolute path: with its edits made, and as they are.
func (m Mistake) Edited(dir string) (files, originals map[string][]byte, err error) {
	files, originals = map[string][]byte{}, map[string][]byte{}
	for _, e := range m.Edits {
		path, err := filepath.Abs(filepath.Join(dir, e.File))
		if err != nil {
			return nil, nil, err
		}
		src, ok := files[path]
		if !ok {
			if src, err = os.ReadFile(path); err != nil {
				return nil, nil, fmt.Errorf("mistake %q: %w", m.Name, err)
			}
			originals[path] = src
		}
		if n := strings.Count(string(src), e.Replace); n != 1 {
			return nil, nil, fmt.Errorf("mistake %q: %s has the text to replace %d times, not once: update the catalogue in stage.yaml", m.Name, e.File, n)
		}
		files[path] = []byte(strings.Replace(string(src), e.Replace, e.With, 1))
	}
	return files, originals, nil
}

// Apply makes the mistake in the tree at dir and returns the function that
// undoes it.
func (m Mistake) Apply(dir string) (undo func(), err error) {
	files, originals, err := m.Edited(dir)
	if err != nil {
		return nil, err
	}
	undo = func() {
		for path, orig := range originals {
			_ = os.WriteFile(path, orig, 0o644)
		}
	}
	for path, content := range files {
		if err := os.WriteFile(path, content, 0o644); err != nil {
			undo()
			return nil, err
		}
	}
	return undo, nil
}

// Overlay writes the mistake's files under at and returns a build overlay
// (go build -overlay) that puts them in place of the tree's: Go then builds
// the tree with the mistake made, which stays as it was on disk, so that
// the next mistake can build while this one's tests run.
func (m Mistake) Overlay(dir, at string) (string, error) {
	files, _, err := m.Edited(dir)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(at, 0o755); err != nil {
		return "", err
	}
	replace := map[string]string{}
	for path, content := range files {
		copyPath := filepath.Join(at, fmt.Sprintf("%d-%s", len(replace), filepath.Base(path)))
		if err := os.WriteFile(copyPath, content, 0o644); err != nil {
			return "", err
		}
		replace[path] = copyPath
	}
	raw, err := json.Marshal(map[string]map[string]string{"Replace": replace})
	if err != nil {
		return "", err
	}
	overlay := filepath.Join(at, "overlay.json")
	return overlay, os.WriteFile(overlay, raw, 0o644)
}
