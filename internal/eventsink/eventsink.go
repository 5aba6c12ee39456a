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
// (docs/bench/history.md, the Events floor: 1.4 to 1.7 times the skew of the
// same writes without Events, at N = 500; written through this sink, one
// at a time, about 1.1 times). An Event is read by a person
// running kubectl describe; it loses nothing by arriving a second later.
// So the sink lets a few Events through at a time and keeps the rest
// waiting: in a burst, one Event is in flight beside the runs' many writes
// instead of hundreds, and the rest catch up as fast as the API server
// answers. The waiting ones show as the metric cronlab_events_waiting.
//
// When the API server cannot take the Events as fast as they are
// recorded, for minutes on end (5,000 CronJobs on one schedule record
// 10,000 Events a minute), those waiting pile up, each holding a goroutine
// and copies of its Event. More writers, tried, did not catch up: they add
// load to an API server that is already the limit, and the runs waited
// longer (docs/bench/history.md, "Events bounded"). So the recorder drops
// an Event recorded while mostWaiting others wait, counts it in
// cronlab_events_dropped_total and says so in the log: the runs come
// first, and the memory stays bounded. Below that, none is dropped while
// the manager runs. (kube-controller-manager's recorder, client-go's older
// tools/record, also writes one Event at a time, and drops those beyond
// 1,000 queued.)
package eventsink

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/time/rate"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/runtime"
	eventsv1client "k8s.io/client-go/kubernetes/typed/events/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

// waiting counts the Events recorded and not yet written, on the manager's
// /metrics: a number that keeps growing means Events are recorded faster
// than the API server takes them.
var waiting = prometheus.NewGauge(prometheus.GaugeOpts{
	Namespace: "cronlab",
	Name:      "events_waiting",
	Help:      "Events recorded and not yet written to the API server: sitting out --event-delay, waiting their turn or being written.",
})

// dropped counts the Events recorded while mostWaiting others waited,
// which were never written.
var dropped = prometheus.NewCounter(prometheus.CounterOpts{
	Namespace: "cronlab",
	Name:      "events_dropped_total",
	Help:      "Events recorded while too many others waited to be written, and so dropped.",
})

func init() {
	metrics.Registry.MustRegister(waiting, dropped)
}

// mostWaiting is about how many Events may wait to be written before the
// next recorded is dropped: a minute of the Events that 5,000 CronJobs on
// one schedule record, and two to three minutes of what one writer wrote
// at that N in docs/bench/history.md. A burst of 500 runs records 1,000.
const mostWaiting = 10_000

// Bounded is an EventRecorder that drops the Events recorded while most
// others wait in sink, and counts them. The bound is approximate: an Event
// counts as waiting once it reaches the sink, a moment after it is
// recorded, so a few more than most may wait at once.
type Bounded struct {
	events.EventRecorder
	sink *Limited
	most int64
	log  logr.Logger
	// logDrop logs a drop at most once a minute: when Events are dropped,
	// thousands are.
	logDrop rate.Sometimes
}

// Bound wraps recorder, which writes through sink, so that it records
// nothing while most Events wait in sink.
func Bound(recorder events.EventRecorder, sink *Limited, most int, log logr.Logger) *Bounded {
	return &Bounded{EventRecorder: recorder, sink: sink, most: int64(most), log: log, logDrop: rate.Sometimes{Interval: time.Minute}}
}

func (b *Bounded) Eventf(regarding runtime.Object, related runtime.Object, eventtype, reason, action, note string, args ...any) {
	if n := b.sink.pending.Load(); n >= b.most {
		dropped.Inc()
		b.logDrop.Do(func() {
			b.log.Info("Events are recorded faster than the API server takes them: dropping new ones while this many wait (cronlab_events_dropped_total counts them)",
				"waiting", n, "reason", reason)
		})
		return
	}
	b.EventRecorder.Eventf(regarding, related, eventtype, reason, action, note, args...)
}

// Limited is an EventSink that lets at most cap(slots) writes through at a
// time; the others wait their turn.
type Limited struct {
	sink    events.EventSink
	slots   chan struct{}
	pending atomic.Int64 // waiting or being written

	delay     time.Duration
	clock     clock.Clock
	hurry     chan struct{} // closed by drain: the delay is over for all
	hurryOnce sync.Once
}

// Limit wraps sink so that at most writers of its calls run at once.
func Limit(sink events.EventSink, writers int) *Limited {
	return &Limited{sink: sink, slots: make(chan struct{}, max(writers, 1)), hurry: make(chan struct{})}
}

// Delayed makes each write wait d, by clk (nil: the real clock), before it
// waits for its turn; call it before the first write. A burst of runs
// lasts a few seconds at the top of the minute, and an Event recorded in
// it, delayed past it, no longer competes with the runs' writes at all.
// The sink cannot tell when a burst ends, so the delay is fixed, and must
// be longer than the bursts. Measured at N = 500 with 10 s, it did not make
// runs start sooner (docs/bench/history.md, "Events written after the
// burst"), so the manager's default is 0.
// A write the recorder retries sits out the delay again.
// drain ends every delay at once: stopping the manager loses no Event to
// the delay, only those that drain's time is too short to write.
func (l *Limited) Delayed(d time.Duration, clk clock.Clock) *Limited {
	if clk == nil {
		clk = clock.RealClock{}
	}
	l.delay, l.clock = d, clk
	return l
}

func (l *Limited) Create(ctx context.Context, event *eventsv1.Event) (*eventsv1.Event, error) {
	release, err := l.wait(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	return l.sink.Create(ctx, event)
}

func (l *Limited) Update(ctx context.Context, event *eventsv1.Event) (*eventsv1.Event, error) {
	release, err := l.wait(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	return l.sink.Update(ctx, event)
}

func (l *Limited) Patch(ctx context.Context, event *eventsv1.Event, data []byte) (*eventsv1.Event, error) {
	release, err := l.wait(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	return l.sink.Patch(ctx, event, data)
}

// wait takes a slot, or gives up when ctx ends, and returns the function
// that gives the slot back.
func (l *Limited) wait(ctx context.Context) (func(), error) {
	l.pending.Add(1)
	waiting.Inc()
	done := func() {
		l.pending.Add(-1)
		waiting.Dec()
	}
	if l.delay > 0 {
		timer := l.clock.NewTimer(l.delay)
		select {
		case <-timer.C():
		case <-l.hurry:
			timer.Stop()
		case <-ctx.Done():
			timer.Stop()
			done()
			return nil, ctx.Err()
		}
	}
	select {
	case l.slots <- struct{}{}:
		return func() { <-l.slots; done() }, nil
	case <-ctx.Done():
		done()
		return nil, ctx.Err()
	}
}

// drain ends the delay of every Event, waits until none has been waiting
// or being written for settle, or until d has passed, and returns how many
// still are. The quiet time is
// there because the recorder hands each Event on through two goroutines of
// its own (one to the broadcaster, one to the sink): an Event recorded a
// moment ago may not have reached the sink yet, and a count of zero alone
// would let stop give up on it.
func (l *Limited) drain(d time.Duration) int64 {
	l.hurryOnce.Do(func() { close(l.hurry) })
	deadline := time.Now().Add(d)
	quietSince := time.Now()
	for time.Now().Before(deadline) {
		if l.pending.Load() > 0 {
			quietSince = time.Now()
		} else if time.Since(quietSince) >= settle {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	return l.pending.Load()
}

// settle is how long drain must see no Event pending to believe that none
// is still on its way to the sink: starting a goroutine takes microseconds.
const settle = 250 * time.Millisecond

// NewRecorder returns a recorder for the controller called name that writes
// through cfg and httpClient (the manager's), writers Events at a time,
// each once delay has passed since it was recorded (0: at once), and
// drops those recorded while mostWaiting wait. As
// controller-runtime's, it logs each Event at V(1) and its failures to log.
// Call stop once the manager has stopped: it gives the Events still on
// their way up to drainFor to be written, then takes no more, and says how
// many were not written.
func NewRecorder(cfg *rest.Config, httpClient *http.Client, scheme *runtime.Scheme, log logr.Logger, name string, writers int, delay time.Duration) (recorder events.EventRecorder, stop func(), err error) {
	client, err := eventsv1client.NewForConfigAndClient(cfg, httpClient)
	if err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithCancel(logr.NewContext(context.Background(), log))
	limited := Limit(&events.EventSinkImpl{Interface: client}, writers).Delayed(delay, nil)
	broadcaster := events.NewBroadcaster(limited)
	if err := broadcaster.StartRecordingToSinkWithContext(ctx); err != nil {
		cancel()
		return nil, nil, err
	}
	if _, err := broadcaster.StartLogging(log.V(1)); err != nil {
		cancel()
		return nil, nil, err
	}
	stop = func() {
		left := limited.drain(drainFor)
		broadcaster.Shutdown()
		cancel()
		if left > 0 {
			log.Info("the manager stopped before these Events were written; they are lost", "events", left)
		}
	}
	return Bound(broadcaster.NewRecorder(scheme, name), limited, mostWaiting, log), stop, nil
}

// drainFor is how long stop waits for Events still to be written: at a few
// milliseconds each, the Events of a burst of thousands of runs.
const drainFor = 5 * time.Second
