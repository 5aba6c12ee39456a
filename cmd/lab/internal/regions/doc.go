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

// Package regions is the reference's lab:begin/lab:end regions and what
// replaces them in a starter: stubs that compile and fail with a TODO that
// names the stage, imports the stub no longer uses dropped, markers
// removed. It works on one file's source at a time; making a whole starter
// is package starter's, carrying an attendee's code is package carry's.
package regions
