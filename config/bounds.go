package config

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/prefrag/prefrag/internal/lazyre"
)

// MaxNumCtx is the largest context window prefrag sends (num_ctx): 2M
// tokens, above the context of the models a local server runs; a larger
// value is a typing slip (the server would cap it, or fail to allocate it).
const MaxNumCtx = 1 << 21

// atMostNumCtx is num_ctx's upper bound (its lower bound, 512, is the
// engine's).
func atMostNumCtx(v any) string {
	if n := v.(int); n > MaxNumCtx {
		return fmt.Sprintf("must be at most %d (2M tokens), not %d", MaxNumCtx, n)
	}
	return ""
}

// durationLimit is the longest value a duration setting takes, and how a
// message names it.
type durationLimit struct {
	max   time.Duration
	words string // "24h (a day)"
}

// Every duration setting has a limit (Setting.limit); these are theirs.
var (
	limitLLMTimeout = durationLimit{24 * time.Hour, "24h (a day)"}
	limitRunTimeout = durationLimit{7 * 24 * time.Hour, "168h (a week)"}
	limitWebTimeout = durationLimit{10 * time.Minute, "10m"}
	limitCacheTTL   = durationLimit{10 * 365 * 24 * time.Hour, "87600h (about 10 years)"}
)

// problem is what is wrong with a duration d under the limit l ("" when
// nothing).
func (l durationLimit) problem(d time.Duration) string {
	switch {
	case d < 0:
		return fmt.Sprintf("must not be negative, not %s", d)
	case l.max > 0 && d > l.max:
		return fmt.Sprintf("must be at most %s, not %s", l.words, d)
	}
	return ""
}

// errDurationTooLong is parseDuration's answer for a well-formed duration
// longer than any time.Duration (about 292 years): "99999999h".
var errDurationTooLong = errors.New("duration too long")

// durationSyntax is the form time.ParseDuration reads.
var durationSyntax = lazyre.New(`^[-+]?(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+$`)

// parseDuration is time.ParseDuration telling a value too long to hold
// (errDurationTooLong) from one that is not a duration.
func parseDuration(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	switch {
	case err == nil:
		return d, nil
	case durationSyntax().MatchString(strings.TrimSpace(s)):
		return 0, errDurationTooLong
	}
	return 0, fmt.Errorf("must be a duration like \"90s\" or \"5m\", not %q", s)
}

// tooLong words errDurationTooLong for a value s of a setting limited by l.
func (l durationLimit) tooLong(s string) error {
	return fmt.Errorf("must be at most %s, not %q", l.words, s)
}

// durationFlag is a duration flag that names its limit when given a value
// too long to hold (the flag package would say "parse error").
type durationFlag struct {
	p     *time.Duration
	limit durationLimit
}

func (f *durationFlag) String() string {
	if f.p == nil {
		return ""
	}
	return f.p.String()
}

// Set reads s; the flag package quotes s before the error, so the error
// does not repeat it.
func (f *durationFlag) Set(s string) error {
	d, err := parseDuration(s)
	if errors.Is(err, errDurationTooLong) {
		return fmt.Errorf("must be at most %s", f.limit.words)
	}
	if err != nil {
		return errors.New(`must be a duration like "90s" or "5m"`)
	}
	*f.p = d
	return nil
}

// Get is the value (flag.Getter): a time.Duration, which help shows as a
// duration.
func (f *durationFlag) Get() any { return *f.p }
