// Package plain is a fixture of lab's tests (results_test.go): code with the
// kinds of mistakes an attendee makes, under plain Go tests.
package plain

// Double should return twice n; it is off by one.
func Double(n int) int { return 2*n + 1 }

// Owner returns the name of a nil map's entry: it panics.
func Owner(owners map[string]*string) string { return *owners["job"] }
