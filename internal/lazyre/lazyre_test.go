package lazyre

import (
	"sync"
	"testing"
)

func TestNew(t *testing.T) {
	for _, tc := range []struct {
		expr, in string
		match    bool
	}{
		{`^a+b$`, "aab", true},
		{`(?i)hello`, "HeLLo there", true},
		{`\d{2}`, "x1y", false},
	} {
		re := New(tc.expr)
		if got := re().MatchString(tc.in); got != tc.match {
			t.Errorf("%q on %q: %v", tc.expr, tc.in, got)
		}
		if first, again := re(), re(); first != again {
			t.Errorf("%q compiled twice", tc.expr)
		}
	}
}

// An invalid expression costs nothing until it is used, and then panics
// like regexp.MustCompile.
func TestInvalidPanicsOnFirstUse(t *testing.T) {
	re := New(`(`)
	defer func() {
		if recover() == nil {
			t.Error("no panic for an invalid expression")
		}
	}()
	re()
}

func TestConcurrentFirstUse(t *testing.T) {
	re := New(`x+`)
	var wg sync.WaitGroup
	got := make(chan any, 8)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); got <- re() }()
	}
	wg.Wait()
	close(got)
	first := re()
	for g := range got {
		if g != first {
			t.Fatal("different compiled expressions")
		}
	}
}
