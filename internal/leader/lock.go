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

package leader

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/client-go/tools/record"
)

// The elector's timing, controller-runtime's defaults written out: cmd/main.go
// gives them to the manager, and the fence's window is RenewDeadline.
const (
	LeaseDuration = 15 * time.Second
	RenewDeadline = 10 * time.Second
	RetryPeriod   = 2 * time.Second
)

// NewFence is the fence of a manager that uses the timing above.
func NewFence() *Fence { return &Fence{Within: RenewDeadline} }

// Where the lock learns its namespace in a pod (the service account's
// volume) and its host's name: variables, so that a test can stand in for
// a pod, or for a host whose name cannot be read.
var (
	podNamespaceFile = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"
	hostname         = os.Hostname
)

// NewLeaseLock builds the Lease lock that controller-runtime would build for
// the manager (same identity, namespace rule and request timeout), so that
// the fence can wrap it. namespace may be empty in a pod: the pod's own.
func NewLeaseLock(cfg *rest.Config, namespace, name string) (resourcelock.Interface, error) {
	if namespace == "" {
		ns, err := os.ReadFile(podNamespaceFile)
		if errors.Is(err, os.ErrNotExist) {
			return nil, errors.New("not running in a pod: set --leader-election-namespace")
		}
		if err != nil {
			return nil, err
		}
		namespace = strings.TrimSpace(string(ns))
	}
	host, err := hostname()
	if err != nil {
		return nil, err
	}
	id := host + "_" + string(uuid.NewUUID())

	// One hung request must not cost the Lease: give up on it halfway to
	// the RenewDeadline, and try again.
	cfg = rest.AddUserAgent(rest.CopyConfig(cfg), "leader-election")
	cfg.Timeout = RenewDeadline / 2
	clients, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("leader election client: %w", err)
	}
	// The Lease's events ("… became leader") are what `kubectl get events`
	// shows of a handover.
	broadcaster := record.NewBroadcaster()
	broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: clients.CoreV1().Events("")})
	return resourcelock.New(resourcelock.LeasesResourceLock, namespace, name,
		clients.CoreV1(), clients.CoordinationV1(),
		resourcelock.ResourceLockConfig{
			Identity:      id,
			EventRecorder: broadcaster.NewRecorder(scheme.Scheme, corev1.EventSource{Component: id}),
		})
}
