// Package suite is a fixture of lab's tests (results_test.go): code with the
// kinds of mistakes an attendee makes, under a Ginkgo suite.
package suite

// Status is what a reconcile wrote, if it did.
type Status struct{ Active []string }

// Reconcile forgets to write the status.
func Reconcile() *Status { return nil }

// JobLabel should return "batch.cronlab.dev/cronjob".
func JobLabel() string { return "cronjob" }
