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

// A stage is known by its slug; its place, and so its number, by one list,
// exercises/stages.yaml, as rustlings' info.toml orders its exercises. A
// stage inserted in the middle then renames nothing that is stored: not a
// branch, a hint id in a progress file, a label or a mutation row.

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"sigs.k8s.io/yaml"

	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
)

// ListFile is the list of the stages, in order, from the clone's root.
const ListFile = "exercises/stages.yaml"

// slugForm: lower case words joined by hyphens, starting with a letter, so
// that a slug is never read as a number.
var slugForm = regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`)

// readList reads the slugs of ListFile and holds them against the folders:
// a folder with a stage.yaml that the list lacks would never be taken, and
// a line without its folder has nothing to load.
func readList(root string) ([]string, error) {
	raw, err := os.ReadFile(filepath.Join(root, ListFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, i18n.Errorf("no %s in %s: run lab from the root of a cronlab clone",
			"%s 不在 %s 中：请在 cronlab 克隆的根目录下运行 lab", ListFile, root)
	}
	if err != nil {
		return nil, err
	}
	var slugs []string
	if err := yaml.UnmarshalStrict(raw, &slugs); err != nil {
		return nil, i18n.Errorf("%s: %v: it is a YAML list of the stages' folder names, one per line (- scheduling)",
			"%s：%v：它是一个 YAML 列表，每行一个阶段的文件夹名（- scheduling）", ListFile, err)
	}
	if len(slugs) == 0 {
		return nil, i18n.Errorf("%s lists no stage: add a line - <folder> for each folder of exercises/ that holds a stage.yaml",
			"%s 里没有列出任何阶段：为 exercises/ 下每个含 stage.yaml 的文件夹加一行 - <文件夹名>", ListFile)
	}
	for i, slug := range slugs {
		if !slugForm.MatchString(slug) {
			return nil, i18n.Errorf("%s, line - %s: a stage's name is lower-case words joined by hyphens, starting with a letter (secondary-resources); rename its folder and this line alike",
				"%s 中的 - %s：阶段的名字是用连字符连接的小写单词，以字母开头（secondary-resources）；把它的文件夹和这一行一起改名", ListFile, slug)
		}
		if slices.Contains(slugs[:i], slug) {
			return nil, i18n.Errorf("%s lists %s twice: a stage has one place; delete one of the lines",
				"%s 把 %s 列了两次：一个阶段只有一个位置；删掉其中一行", ListFile, slug)
		}
		if _, err := os.Stat(filepath.Join(root, "exercises", slug, "stage.yaml")); err != nil {
			return nil, i18n.Errorf("%s lists %s, but exercises/%s/stage.yaml is not there: create the stage's folder (docs/maintaining.md, recipe 4), or delete the line",
				"%s 列出了 %s，但 exercises/%s/stage.yaml 不存在：创建这个阶段的文件夹（docs/maintaining.md，第 4 个做法），或者删掉这一行", ListFile, slug, slug)
		}
	}
	found, err := filepath.Glob(filepath.Join(root, "exercises", "*", "stage.yaml"))
	if err != nil {
		return nil, err
	}
	for _, f := range found {
		if slug := filepath.Base(filepath.Dir(f)); !slices.Contains(slugs, slug) {
			return nil, i18n.Errorf("exercises/%s has a stage.yaml, but %s does not list it: add the line - %s where the stage belongs in the order, or delete the folder",
				"exercises/%s 有 stage.yaml，但 %s 没有列出它：在这个阶段应处的位置加一行 - %s，或者删掉这个文件夹", slug, ListFile, slug)
		}
	}
	return slugs, nil
}

// HintID is the id of a stage's nth hint, as progress files and the class
// board keep it ("scheduling.2").
func HintID(slug string, n int) string { return slug + "." + strconv.Itoa(n) }

// Branch is the stage's lab branch.
func (s Stage) Branch() string { return "lab/" + s.Slug }

// Legacy are the numbers the stages had before they had names of their
// own, when a stage was its folder's two digits (exercises/06-scheduling):
// progress files, class boards and branches of that time name stages by
// them. The table is fixed for good; it is not the order of today's list.
var Legacy = map[string]string{
	"01": "layout", "02": "api", "03": "list-watch", "04": "reconcile-loop", "05": "secondary-resources",
	"06": "scheduling", "07": "envtest", "08": "helm-chart", "09": "q1-no-webhook", "10": "q2-go-vs-yaml",
	"11": "q3-owns-vs-watches", "12": "q4-level-based", "13": "q6-direct-reads", "14": "q5-next-reconcile",
	"15": "stale-cache", "16": "client-go", "17": "multiversion",
}

// FromLegacy names by its slug a stage or a hint id written with a legacy
// number ("06" or "06.2"); anything else comes back as it was.
func FromLegacy(id string) string {
	num, n, isHint := strings.Cut(id, ".")
	slug, ok := Legacy[num]
	if !ok {
		return id
	}
	if isHint {
		return slug + "." + n
	}
	return slug
}

// FromBranch is the stage of a lab branch: lab/<slug>, or a copy that
// bin/lab start kept (lab/<slug>-saved-...); ok is false off them.
func FromBranch(stages []Stage, branch string) (Stage, bool) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(branch), "lab/")
	if !ok {
		return Stage{}, false
	}
	rest, _, _ = strings.Cut(rest, "-saved-")
	for _, s := range stages {
		if s.Slug == rest {
			return s, true
		}
	}
	return Stage{}, false
}

// LegacyBranch names the slug branch of a branch made before stages had
// names (lab/06 or lab/06-saved-...): "", false for any other branch.
func LegacyBranch(branch string) (string, bool) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(branch), "lab/")
	if !ok {
		return "", false
	}
	num, saved, _ := strings.Cut(rest, "-saved-")
	slug, ok := Legacy[num]
	if !ok {
		return "", false
	}
	if saved != "" {
		return fmt.Sprintf("lab/%s-saved-%s", slug, saved), true
	}
	return "lab/" + slug, true
}
