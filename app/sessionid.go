package app

import (
	"crypto/rand"
	"encoding/hex"
	"sync"
	"time"
)

// NewSessionID returns a new session id: 32 lowercase hex digits whose
// first six vary the most. They hold the microsecond within the second the
// id was made (times 16, plus a random digit), the rest is random: ids made
// in the same second by one process differ within their first 5 digits, and
// ids made at other times are spread evenly, so short prefixes name a
// session. (Ids used to be UUIDv7s, whose first 12 digits are the time in
// milliseconds: all ids of a day shared their first 8 digits. Those ids
// stay as they are and keep working.)
func NewSessionID() string {
	usec := nextMicro()
	var b [16]byte
	rand.Read(b[:])
	lead := uint32(usec%1_000_000)<<4 | uint32(b[0]&0x0f)
	b[0], b[1], b[2] = byte(lead>>16), byte(lead>>8), byte(lead)
	return hex.EncodeToString(b[:])
}

var lastMicro struct {
	sync.Mutex
	n int64
}

// nextMicro is the current time in microseconds, made strictly increasing
// within the process so that two ids never share their microsecond.
func nextMicro() int64 {
	n := time.Now().UnixMicro()
	lastMicro.Lock()
	defer lastMicro.Unlock()
	if n <= lastMicro.n {
		n = lastMicro.n + 1
	}
	lastMicro.n = n
	return n
}
