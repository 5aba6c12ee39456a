//go:build !unix

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

package doctor

import "cronlab.dev/cronlab/cmd/lab/internal/i18n"

// freeBytes: the lab runs on Windows through WSL2, which is Linux; a native
// Windows build of the lab tool cannot tell.
func freeBytes(string) (uint64, error) {
	return 0, i18n.Errorf("not on this system; run the lab in WSL2", "在这个系统上无法判断；请在 WSL2 中运行本实验")
}
