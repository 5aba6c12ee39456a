package broken

import "testing"

func TestNext(t *testing.T) { _ = Next() }
