package llm

import "time"

// Defaults shared by the backends. The first chunk of a generation arrives
// only after the server has loaded the model and evaluated the whole prompt,
// which on a CPU with a 16k-token prompt takes minutes, hence the generous
// first-byte limit; once tokens flow, a long silence means a stuck server.
const (
	DefaultDialTimeout      = 3 * time.Second
	DefaultFirstByteTimeout = 10 * time.Minute
	DefaultIdleTimeout      = 2 * time.Minute
	DefaultCheckTimeout     = 10 * time.Second
)

// Timeouts are the limits of one client.
type Timeouts struct {
	Dial      time.Duration // TCP connect
	FirstByte time.Duration // request sent → first stream chunk
	Idle      time.Duration // between two stream chunks
	Check     time.Duration // a whole Check call
}

// Option configures a backend client's timeouts (ollama.New, llamacpp.New).
type Option func(*Timeouts)

// WithFirstByteTimeout bounds the wait for the first streamed chunk
// (default 10 min; zero disables it).
func WithFirstByteTimeout(d time.Duration) Option { return func(t *Timeouts) { t.FirstByte = d } }

// WithIdleTimeout bounds the silence between two streamed chunks (default
// 2 min; zero disables it).
func WithIdleTimeout(d time.Duration) Option { return func(t *Timeouts) { t.Idle = d } }

// WithCheckTimeout bounds a whole Check or Digest call (default 10 s).
func WithCheckTimeout(d time.Duration) Option { return func(t *Timeouts) { t.Check = d } }

// DefaultTimeouts returns the defaults above.
func DefaultTimeouts() Timeouts {
	return Timeouts{
		Dial:      DefaultDialTimeout,
		FirstByte: DefaultFirstByteTimeout,
		Idle:      DefaultIdleTimeout,
		Check:     DefaultCheckTimeout,
	}
}
