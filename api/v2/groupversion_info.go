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

// Package v2 is the second version of cronlab's API: the same CronJob kind
// in the same group, batch.cronlab.dev, with a structured schedule and the
// history limits grouped. v1 stays the version that is stored and that the
// controller works on (the hub); v2 converts to and from it
// (cronjob_conversion.go) without losing anything.
//
// +kubebuilder:object:generate=true
// +groupName=batch.cronlab.dev
package v2

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

var (
	// GroupVersion names this API version: the generated CRD serves it, and
	// every request for these types names it.
	GroupVersion = schema.GroupVersion{Group: "batch.cronlab.dev", Version: "v2"}

	// SchemeBuilder collects the types of this package (each types file
	// registers its own in init) for AddToScheme.
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}

	// AddToScheme is what cmd/main.go and the test suites call, so that a
	// client can encode and decode these types.
	AddToScheme = SchemeBuilder.AddToScheme
)
