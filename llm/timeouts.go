package llm

import (
	"os"
	"strings"
	"time"
)

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

// ClientConfig is what the options of a backend client set: its limits
// and the API key it sends.
type ClientConfig struct {
	Timeouts
	Auth Auth
}

// Option configures a backend client (ollama.New, llamacpp.New,
// openai.New): its timeouts, its API key.
type Option func(*ClientConfig)

// WithFirstByteTimeout bounds the wait for the first streamed chunk
// (default 10 min; zero disables it).
func WithFirstByteTimeout(d time.Duration) Option {
	return func(c *ClientConfig) { c.FirstByte = d }
}

// WithIdleTimeout bounds the silence between two streamed chunks (default
// 2 min; zero disables it).
func WithIdleTimeout(d time.Duration) Option { return func(c *ClientConfig) { c.Idle = d } }

// WithCheckTimeout bounds a whole Check or Digest call (default 10 s).
func WithCheckTimeout(d time.Duration) Option { return func(c *ClientConfig) { c.Check = d } }

// WithAuth makes the client send a.Key as a bearer token (nothing when it
// is empty).
func WithAuth(a Auth) Option { return func(c *ClientConfig) { c.Auth = a } }

// DefaultTimeouts returns the defaults above.
func DefaultTimeouts() Timeouts {
	return Timeouts{
		Dial:      DefaultDialTimeout,
		FirstByte: DefaultFirstByteTimeout,
		Idle:      DefaultIdleTimeout,
		Check:     DefaultCheckTimeout,
	}
}

// Auth is an API key sent as "Authorization: Bearer …", and the name of
// the variable it came from (for messages; the key itself is never shown).
type Auth struct {
	Key string
	Var string
}

// AuthFromEnv reads a key from the first of vars that is set: the first
// one (prefrag's own) counts even when empty, which means "send no key";
// the others count only when not blank. lookup is os.LookupEnv when nil.
func AuthFromEnv(lookup func(string) (string, bool), vars ...string) Auth {
	if lookup == nil {
		lookup = os.LookupEnv
	}
	for i, name := range vars {
		v, ok := lookup(name)
		if !ok || i > 0 && strings.TrimSpace(v) == "" {
			continue
		}
		return Auth{Key: strings.TrimSpace(v), Var: name}
	}
	return Auth{}
}

// Redact replaces the key in anything a server says.
func (a Auth) Redact(s string) string {
	if a.Key == "" {
		return s
	}
	return strings.ReplaceAll(s, a.Key, "xxxxx")
}
