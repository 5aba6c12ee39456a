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

package roster

import (
	"bufio"
	"os"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
)

// ReadNames reads a roster: one name per line; blank lines and lines that
// start with # are skipped. A name becomes part of a namespace's name, so
// it must be a DNS label: the error says which line is not, and why.
func ReadNames(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, i18n.Errorf("could not read the roster: %w (one name per line)", "无法读取名单：%w（每行一个名字）", err)
	}
	defer f.Close()
	var names []string
	seen := map[string]int{}
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		name := strings.TrimSpace(sc.Text())
		if name == "" || strings.HasPrefix(name, "#") {
			continue
		}
		if errs := validation.IsDNS1123Label(name); len(errs) > 0 {
			return nil, i18n.Errorf("%s:%d: %q cannot name a namespace (%s): use lowercase letters, digits and '-', such as ada or team-3",
				"%s:%d：%q 不能用作名字空间的名字（%s）：请用小写字母、数字和 '-'，例如 ada 或 team-3", path, line, name, strings.Join(errs, "; "))
		}
		if first, ok := seen[name]; ok {
			return nil, i18n.Errorf("%s:%d: %q is on the roster twice (first on line %d)", "%s:%d：%q 在名单上出现了两次（第一次在第 %d 行）", path, line, name, first)
		}
		seen[name] = line
		names = append(names, name)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, i18n.Errorf("the roster %s has no names: one per line", "名单 %s 里没有名字：每行一个", path)
	}
	return names, nil
}
