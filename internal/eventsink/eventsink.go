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

// Package eventsink makes the Event recorder of cronlab's manager: the one
// controller-runtime gives (mgr.GetEventRecorder), except that it writes at
// most a few Events at a time.
//
// client-go's events.k8s.io recorder writes each Event in a goroutine of
// its own as soon as it is recorded. When many CronJobs share a schedule,
// the top of the minute brings a burst: each run deletes a Job, creates
// one, writes its CronJob's status, and records two Events. Written at
// once, those Events take their share of an API server that is the
// bottleneck, and every run of the burst starts later for them
// (docs/performance.md, the Events floor: about 1.4 times the skew of the
// same writes without Events, at N = 500). An Event is read by a person
// running kubectl describe; it loses nothing by arriving a second later,
// after the Jobs. So the sink lets a few Events through at a time and keeps
// the rest waiting: in a burst they queue behind the runs' own writes, and
// once it has passed they flow as fast as the API server answers. None is
// dropped. kube-controller-manager's recorder does the same with one
// writer (client-go's tools/record writes one Event at a time).
package eventsink

import (
	"context"

	"github.com/go-logr/logr"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/runtime"
	eventsv1client "k8s.io/client-go/kubernetes/typed/events/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/events"
)

// Limited is an EventSink that lets at most cap(slots) writes through at a
// time; the others wait their turn.
type Limited struct {
	sink  events.EventSink
	slots chan struct{}
}

// Limit wraps sink so that at most writers of its calls run at once.
func Limit(sink events.EventSink, writers int) *Limited {
	return &Limited{sink: sink, slots: make(chan struct{}, max(writers, 1))}
}

func (l *Limited) Create(ctx context.Context, event *eventsv1.Event) (*eventsv1.Event, error) {
	defer l.wait()()
	return l.sink.Create(ctx, event)
}

func (l *Limited) Update(ctx context.Context, event *eventsv1.Event) (*eventsv1.Event, error) {
	defer l.wait()()
	return l.sink.Update(ctx, event)
}

func (l *Limited) Patch(ctx context.Context, event *eventsv1.Event, data []byte) (*eventsv1.Event, error) {
	defer l.wait()()
	return l.sink.Patch(ctx, event, data)
}

// wait takes a slot, and returns the function that gives it back.
func (l *Limited) wait() func() {
	l.slots <- struct{}{}
	return func() { <-l.slots }
}

// NewRecorder returns a recorder for the controller called name that writes
// through cfg, writers Events at a time, as long as ctx lasts (the
// manager's: Events recorded after it ends are not written). As
// controller-runtime's, it also logs each Event at V(1).
func NewRecorder(ctx context.Context, cfg *rest.Config, scheme *runtime.Scheme, log logr.Logger, name string, writers int) (events.EventRecorder, error) {
	client, err := eventsv1client.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	broadcaster := events.NewBroadcaster(Limit(&events.EventSinkImpl{Interface: client}, writers))
	if err := broadcaster.StartRecordingToSinkWithContext(ctx); err != nil {
		return nil, err
	}
	if _, err := broadcaster.StartLogging(log.V(1)); err != nil {
		return nil, err
	}
	context.AfterFunc(ctx, broadcaster.Shutdown)
	return broadcaster.NewRecorder(scheme, name), nil
}
