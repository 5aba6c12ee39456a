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

package v1

// Hub makes v1 the version every other version converts to and from (the
// hub of hub and spoke): with n versions there are n-1 converters, not
// n*(n-1). v1 is also the version stored in etcd and the one the controller
// works on, so it converts to nothing itself; v2's converter is in
// api/v2/cronjob_conversion.go.
func (*CronJob) Hub() {}
