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

package board

// ChineseName gives a spec's name in Chinese, or "" when it has none: the
// attendees' checks send the English names, and the Chinese page shows each
// in Chinese. The tool gives the board one that reads the names files of
// its clone (testdata/names.zh-CN.yaml beside each test package, as bin/lab
// check does); the board only calls it, so that it imports none of the
// packages that run checks.
type ChineseName func(pkg, name string) string

// inChinese fills the Chinese names of the specs that s names.
func (zh ChineseName) inChinese(s *Snapshot) {
	if zh == nil {
		return
	}
	for i := range s.Failing {
		s.Failing[i].SpecZh = zh(s.Failing[i].Package, s.Failing[i].Spec)
	}
	for i := range s.Attendees {
		for j := range s.Attendees[i].Stuck {
			if st := &s.Attendees[i].Stuck[j]; st.Spec != "" {
				st.SpecZh = zh(st.Package, st.Spec)
			}
		}
	}
}
