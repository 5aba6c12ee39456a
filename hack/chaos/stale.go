//go:build unix

package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	batchv1 "cronlab.dev/cronlab/api/v1"
)

// stale is the table's cell for the writes of a stale leader.
func stale(r row) string {
	switch {
	case r.StaleWrites < 0:
		return "-"
	case r.StaleWrites == 0:
		return "0"
	}
	return fmt.Sprintf("%d (%s)", r.StaleWrites, r.StaleDetail)
}

// staleWrites lists the Events and CronJobs of namespace ns for
// countStaleWrites.
func staleWrites(ctx context.Context, c client.Client, ns string, jobs []job, fieldManager string, since time.Time) (int, string, []string, error) {
	var events eventsv1.EventList
	if err := c.List(ctx, &events, client.InNamespace(ns)); err != nil {
		return 0, "", nil, err
	}
	var cjs batchv1.CronJobList
	if err := c.List(ctx, &cjs, client.InNamespace(ns)); err != nil {
		return 0, "", nil, err
	}
	total, detail, each := countStaleWrites(events.Items, cjs.Items, jobs, fieldManager, since)
	return total, detail, each, nil
}

// countStaleWrites counts what the manager whose writes the API server names
// fieldManager did after since, when another manager held the Lease:
//
//   - the Jobs it created and deleted: its SuccessfulCreate and
//     SuccessfulDelete Events say which, and the auditor's watch says when
//     each Job appeared or went. The Event's own time will not do: a request
//     sent just before a freeze is answered, and its Event recorded, only
//     when the process continues, although the write was made before;
//   - the CronJob statuses it changed: the time of its entry in their
//     managedFields, which the API server stamps.
//
// A write the watch did not time is counted by its Event's time, which is
// never earlier than the write: nothing is hidden. Each write counted is
// also named, with the time it was counted by, so that a failed run says
// which object to read in the managers' logs.
func countStaleWrites(events []eventsv1.Event, cjs []batchv1.CronJob, jobs []job, fieldManager string, since time.Time) (int, string, []string) {
	wroteBy := func(obj metav1.Object, subresource string) (time.Time, bool) {
		for _, e := range obj.GetManagedFields() {
			if e.Manager == fieldManager && e.Subresource == subresource && e.Time != nil {
				return e.Time.Time, true
			}
		}
		return time.Time{}, false
	}
	byName := map[string]job{}
	for _, j := range jobs {
		byName[j.Key[strings.Index(j.Key, "/")+1:]] = j
	}
	counts := map[string]int{}
	var each []string
	stamp := func(t time.Time) string { return t.UTC().Format("15:04:05.000") }
	for i := range events {
		ev := &events[i]
		if _, ours := wroteBy(ev, ""); !ours {
			continue
		}
		when := ev.EventTime.Time
		switch ev.Reason {
		case "SuccessfulCreate":
			if j, ok := byName[strings.TrimPrefix(ev.Note, "Created job ")]; ok {
				when = j.Seen
			}
		case "SuccessfulDelete":
			if j, ok := byName[strings.TrimPrefix(ev.Note, "Deleted job ")]; ok && !j.Gone.IsZero() {
				when = j.Gone
			}
		default:
			continue
		}
		if !when.Before(since) {
			counts[ev.Reason]++
			each = append(each, fmt.Sprintf("%s %q at %s (the takeover: %s)", ev.Reason, ev.Note, stamp(when), stamp(since)))
		}
	}
	for i := range cjs {
		// managedFields keep whole seconds: a write in since's second counts.
		if t, ours := wroteBy(&cjs[i], "status"); ours && !t.Before(since.Truncate(time.Second)) {
			counts["status"]++
			each = append(each, fmt.Sprintf("the status of %s/%s, stamped %s (the takeover: %s)", cjs[i].Namespace, cjs[i].Name, stamp(t), stamp(since)))
		}
	}
	total, parts := 0, []string{}
	for _, what := range []string{"SuccessfulCreate", "SuccessfulDelete", "status"} {
		total += counts[what]
		if counts[what] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[what], what))
		}
	}
	return total, strings.Join(parts, ", "), each
}
