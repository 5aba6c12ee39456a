// Package broken is a fixture of lab's tests (results_test.go): it does not
// compile, as an attendee's half-written function does not.
package broken

// Next returns the next run.
func Next() int { return nextRun + 1 }
