package plain

import (
	"testing"

	"cronlab.dev/cronlab/test/say"
)

// TestPasses runs first: the panic of TestOwner ends the test binary.
func TestPasses(t *testing.T) {}

func TestDouble(t *testing.T) {
	if got := Double(2); got != 4 {
		t.Error(say.Both("Double(2) = %d, want 4", "Double(2) = %d，应为 4", got))
	}
}

func TestOwner(t *testing.T) {
	_ = Owner(nil)
}
