package app

import (
	"regexp"
	"testing"
	"time"
)

// Ids made in the same second differ within their first 6 characters (the
// UUIDv7s made before shared their first 8).
func TestNewSessionIDShortPrefixesDiffer(t *testing.T) {
	hex32 := regexp.MustCompile(`^[0-9a-f]{32}$`)
	for attempt := 0; attempt < 3; attempt++ {
		start := time.Now()
		seen := map[string]string{}
		ok := true
		for i := 0; i < 2000; i++ {
			id := NewSessionID()
			if !hex32.MatchString(id) {
				t.Fatalf("id %q is not 32 lowercase hex digits", id)
			}
			if prev, dup := seen[id[:6]]; dup {
				ok = false
				if time.Since(start) < time.Second {
					t.Fatalf("ids %s and %s, made within a second, share their first 6 characters", prev, id)
				}
			}
			seen[id[:6]] = id
		}
		if ok || time.Since(start) < time.Second {
			return
		}
		// The loop took over a second (a busy machine): try again.
	}
}
