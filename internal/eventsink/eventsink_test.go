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

package eventsink

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/events"
	testingclock "k8s.io/utils/clock/testing"

	"cronlab.dev/cronlab/test/utils"
)

func TestMain(m *testing.M) { os.Exit(utils.RunTests(m)) }

// The manager calls stop when it has stopped, a moment after its last
// reconciles recorded their Events: stop writes them before it returns,
// though they wait their turn one at a time.
func TestStopWritesTheEventsRecordedBeforeIt(t *testing.T) {
	cfg := utils.StartAPIServer(t, filepath.Join("..", ".."))
	httpClient, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	kube, err := kubernetes.NewForConfigAndClient(cfg, httpClient)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ns, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "eventsink-"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	recorder, stop, err := NewRecorder(cfg, httpClient, scheme.Scheme, funcr.New(func(p, a string) { t.Log(p, a) }, funcr.Options{Verbosity: 1}), "eventsink-test", 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	const n = 20
	for i := range n {
		regarding := object(i)
		regarding.Namespace = ns.Name
		recorder.Eventf(regarding, nil, corev1.EventTypeNormal, "Tested", "Test", "Event %d", i)
	}
	stop()
	list, err := kube.EventsV1().Events(ns.Name).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != n {
		t.Errorf("%d of the %d Events recorded before stop were written", len(list.Items), n)
	}
}

// heldSink holds every write until the test lets it go, and counts how many
// are held at once.
type heldSink struct {
	entered chan string   // a write has begun
	release chan struct{} // let one write end
	mu      sync.Mutex
	held    int
	most    int
}

func newHeldSink(n int) *heldSink {
	return &heldSink{entered: make(chan string, n), release: make(chan struct{})}
}

func (s *heldSink) write(event *eventsv1.Event) (*eventsv1.Event, error) {
	s.mu.Lock()
	s.held++
	s.most = max(s.most, s.held)
	s.mu.Unlock()
	s.entered <- event.Name
	<-s.release
	s.mu.Lock()
	s.held--
	s.mu.Unlock()
	return event, nil
}

func (s *heldSink) Create(_ context.Context, e *eventsv1.Event) (*eventsv1.Event, error) {
	return s.write(e)
}
func (s *heldSink) Update(_ context.Context, e *eventsv1.Event) (*eventsv1.Event, error) {
	return s.write(e)
}
func (s *heldSink) Patch(_ context.Context, e *eventsv1.Event, _ []byte) (*eventsv1.Event, error) {
	return s.write(e)
}

// Ten writes at once through a limit of two: two are in flight, the others
// wait, and all ten are written in the end.
func TestAtMostWritersAtATime(t *testing.T) {
	const writes = 10
	sink := newHeldSink(writes)
	limited := Limit(sink, 2)
	var done sync.WaitGroup
	for i := range writes {
		done.Go(func() {
			event := &eventsv1.Event{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprint(i)}}
			switch i % 3 {
			case 0:
				_, _ = limited.Create(context.Background(), event)
			case 1:
				_, _ = limited.Update(context.Background(), event)
			default:
				_, _ = limited.Patch(context.Background(), event, nil)
			}
		})
	}
	written := map[string]bool{}
	// Two writes begin before any ends; each that ends lets one more in.
	written[receive(t, sink.entered)] = true
	for range writes - 1 {
		written[receive(t, sink.entered)] = true
		sink.release <- struct{}{}
	}
	sink.release <- struct{}{}
	done.Wait()
	if sink.most != 2 {
		t.Errorf("%d writes were in flight at once; the limit is 2", sink.most)
	}
	if len(written) != writes {
		t.Errorf("%d of %d writes reached the sink", len(written), writes)
	}
}

// Without the limit, client-go's recorder writes every Event at once: the
// reason for this package. All ten Events below are held in the sink
// together; the test would hang if the recorder wrote one at a time.
func TestTheRecorderAloneWritesEveryEventAtOnce(t *testing.T) {
	const n = 10
	sink := newHeldSink(n)
	recorder, stop := record(t, sink)
	defer stop()
	for i := range n {
		recorder.Eventf(object(i), nil, corev1.EventTypeNormal, "SuccessfulCreate", "Create", "Created job %d", i)
	}
	for range n {
		receive(t, sink.entered)
	}
	for range n {
		sink.release <- struct{}{}
	}
	if sink.most != n {
		t.Errorf("%d Events were in flight at once, not all %d", sink.most, n)
	}
}

// Through the limit, the recorder still writes every Event, one at a time.
func TestTheRecorderLimitedWritesEveryEvent(t *testing.T) {
	const n = 10
	sink := newHeldSink(n)
	recorder, stop := record(t, Limit(sink, 1))
	defer stop()
	for i := range n {
		recorder.Eventf(object(i), nil, corev1.EventTypeNormal, "SuccessfulCreate", "Create", "Created job %d", i)
	}
	for range n {
		receive(t, sink.entered)
		sink.release <- struct{}{}
	}
	if sink.most != 1 {
		t.Errorf("%d Events were in flight at once; the limit is 1", sink.most)
	}
}

func record(t *testing.T, sink events.EventSink) (events.EventRecorder, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	broadcaster := events.NewBroadcaster(sink)
	if err := broadcaster.StartRecordingToSinkWithContext(ctx); err != nil {
		t.Fatal(err)
	}
	return broadcaster.NewRecorder(scheme.Scheme, "test"), func() { cancel(); broadcaster.Shutdown() }
}

// object is something to record Events about; each i a different one, so
// that the recorder does not count them into one series.
func object(i int) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: fmt.Sprint("object-", i), UID: types.UID(fmt.Sprint(i))}}
}

// receive waits for a write to begin and returns its Event's name; a
// recorder that lost an Event would leave the test waiting, so it gives up
// after a minute.
func receive(t *testing.T, entered chan string) string {
	t.Helper()
	return within(t, entered, "an Event recorded was not written within a minute")
}

// A write that waits for its turn gives up when its context ends (the
// manager stopping), and is no longer counted as waiting; drain reports
// what is still waiting or being written.
func TestAWaitingWriteEndsWithItsContext(t *testing.T) {
	sink := newHeldSink(2)
	limited := Limit(sink, 1)
	first := make(chan error)
	go func() {
		_, err := limited.Create(context.Background(), &eventsv1.Event{ObjectMeta: metav1.ObjectMeta{Name: "first"}})
		first <- err
	}()
	receive(t, sink.entered) // the first holds the only slot
	ctx, cancel := context.WithCancel(context.Background())
	second := make(chan error)
	go func() {
		_, err := limited.Create(ctx, &eventsv1.Event{ObjectMeta: metav1.ObjectMeta{Name: "second"}})
		second <- err
	}()
	for deadline := time.Now().Add(time.Minute); limited.pending.Load() < 2; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the second write never began to wait")
		}
	}
	if left := limited.drain(0); left != 2 {
		t.Errorf("drain reports %d Events waiting or being written; one is written and one waits", left)
	}
	cancel()
	if err := <-second; err != context.Canceled {
		t.Errorf("the waiting write ended with %v, not with its context's end", err)
	}
	sink.release <- struct{}{}
	if err := <-first; err != nil {
		t.Errorf("the first write failed: %v", err)
	}
	if left := limited.drain(time.Minute); left != 0 {
		t.Errorf("%d Events are still counted as waiting after both writes ended", left)
	}
	if sink.most != 1 {
		t.Errorf("%d writes reached the sink at once; the limit is 1", sink.most)
	}
}

// A delayed write reaches the sink only once its delay has passed on the
// clock.
func TestADelayedWriteWaitsForItsDelay(t *testing.T) {
	sink := newHeldSink(1)
	clk := testingclock.NewFakeClock(time.Now())
	limited := Limit(sink, 1).Delayed(10*time.Second, clk)
	written := make(chan error)
	go func() {
		_, err := limited.Create(context.Background(), &eventsv1.Event{ObjectMeta: metav1.ObjectMeta{Name: "delayed"}})
		written <- err
	}()
	waitForTimer(t, clk)
	clk.Step(9 * time.Second)
	// A fake timer that fires leaves the clock's waiters.
	if !clk.HasWaiters() {
		t.Fatal("the delay ended 9 s after the Event was recorded; it is 10 s")
	}
	clk.Step(time.Second)
	receive(t, sink.entered)
	sink.release <- struct{}{}
	if err := within(t, written, "the delayed write did not end within a minute"); err != nil {
		t.Errorf("the delayed write failed: %v", err)
	}
}

// Stopping the manager (drain) ends the delays: the Events recorded just
// before it are written, not lost, though their delay has not passed.
func TestDrainEndsTheDelays(t *testing.T) {
	sink := newHeldSink(1)
	clk := testingclock.NewFakeClock(time.Now())
	limited := Limit(sink, 1).Delayed(time.Hour, clk)
	go func() {
		_, _ = limited.Create(context.Background(), &eventsv1.Event{ObjectMeta: metav1.ObjectMeta{Name: "delayed"}})
	}()
	waitForTimer(t, clk)
	left := make(chan int64)
	go func() { left <- limited.drain(time.Minute) }()
	receive(t, sink.entered)
	sink.release <- struct{}{}
	if clk.HasWaiters() {
		t.Error("the delay's timer was not stopped when drain ended it")
	}
	if n := within(t, left, "drain did not end within a minute"); n != 0 {
		t.Errorf("drain left %d Events unwritten; the delayed one should have been written", n)
	}
}

// A write that waits out its delay gives up when its context ends, and is
// no longer counted as waiting.
func TestADelayedWriteEndsWithItsContext(t *testing.T) {
	sink := newHeldSink(1)
	clk := testingclock.NewFakeClock(time.Now())
	limited := Limit(sink, 1).Delayed(time.Hour, clk)
	ctx, cancel := context.WithCancel(context.Background())
	written := make(chan error)
	go func() {
		_, err := limited.Create(ctx, &eventsv1.Event{ObjectMeta: metav1.ObjectMeta{Name: "delayed"}})
		written <- err
	}()
	waitForTimer(t, clk)
	cancel()
	if err := within(t, written, "the delayed write did not end within a minute"); !errors.Is(err, context.Canceled) {
		t.Errorf("the delayed write ended with %v, not with its context's end", err)
	}
	if clk.HasWaiters() {
		t.Error("the delay's timer was not stopped when the write gave up")
	}
	if n := limited.pending.Load(); n != 0 {
		t.Errorf("%d Events are counted as waiting after the only one gave up", n)
	}
}

// within receives from c, or fails the test with failure after a minute:
// a write that never begins or ends would otherwise hang it.
func within[T any](t *testing.T, c <-chan T, failure string) T {
	t.Helper()
	select {
	case v := <-c:
		return v
	case <-time.After(time.Minute):
		t.Fatal(failure)
		var zero T
		return zero
	}
}

// waitForTimer waits until a write has begun its delay on clk.
func waitForTimer(t *testing.T, clk *testingclock.FakeClock) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !clk.HasWaiters(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the write never began its delay")
		}
	}
}

// Bound at two waiting: an Event recorded while two wait (one being
// written, one waiting its turn) is dropped and counted, never written;
// once they are written, Events are recorded again.
func TestAnEventRecordedWhileTooManyWaitIsDropped(t *testing.T) {
	sink := newHeldSink(4)
	limited := Limit(sink, 1)
	recorder, stop := record(t, limited)
	defer stop()
	bounded := Bound(recorder, limited, 2, logr.Discard())
	droppedBefore := counted(t, dropped)
	eventf := func(i int) {
		bounded.Eventf(object(i), nil, corev1.EventTypeNormal, "SuccessfulCreate", "Create", "Created job %d", i)
	}

	eventf(0)
	receive(t, sink.entered)
	eventf(1)
	for deadline := time.Now().Add(time.Minute); limited.pending.Load() < 2; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the second Event never began to wait")
		}
	}
	eventf(2)
	if n := counted(t, dropped) - droppedBefore; n != 1 {
		t.Errorf("%v Events counted as dropped after one was recorded while two waited; want 1", n)
	}
	sink.release <- struct{}{}
	if got := receive(t, sink.entered); !strings.HasPrefix(got, "object-1.") {
		t.Errorf("%q was written after the first; want the Event of object-1", got)
	}
	sink.release <- struct{}{}
	if n := limited.drain(time.Minute); n != 0 {
		t.Fatalf("%d Events still wait after both were written", n)
	}
	if len(sink.entered) != 0 {
		t.Errorf("the dropped Event was written: %q", <-sink.entered)
	}

	eventf(3)
	if got := receive(t, sink.entered); !strings.HasPrefix(got, "object-3.") {
		t.Errorf("%q was written; want the Event of object-3, recorded once none waited", got)
	}
	sink.release <- struct{}{}
	if n := counted(t, dropped) - droppedBefore; n != 1 {
		t.Errorf("%v Events counted as dropped in all; want 1", n)
	}
}

// counted reads a counter's value.
func counted(t *testing.T, c prometheus.Counter) float64 {
	t.Helper()
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetCounter().GetValue()
}
