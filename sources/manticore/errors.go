package manticore

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"

	"github.com/go-sql-driver/mysql"

	"github.com/prefrag/prefrag/internal/textsafe"
	"github.com/prefrag/prefrag/sources/remote"
)

// Kinds of failure, matched with errors.Is on the *Error a Corpus returns.
// All but ErrConfig also match sources.ErrUnavailable: to the engine the
// corpus could not be searched.
var (
	// ErrUnreachable: no SphinxQL server answered at the address
	// (connection refused, reset, DNS, handshake failure), or every shard
	// of a distributed index failed.
	ErrUnreachable = errors.New("manticore server unreachable")
	// ErrUnknownIndex: the server has no index of that name.
	ErrUnknownIndex = errors.New("unknown manticore index")
	// ErrSyntax: the server refused the statement (a syntax or parse
	// error, a configured field that is not a column of the index).
	ErrSyntax = errors.New("manticore refused the query")
	// ErrTimeout: the server did not answer within the timeout.
	ErrTimeout = errors.New("manticore timeout")
	// ErrConfig: the Config is not usable (bad address, credentials in the
	// URL, a field or index name that is not an identifier).
	ErrConfig = errors.New("invalid manticore configuration")
)

// Error is what a Corpus returns: which corpus, server and index, which
// kind of failure (one of the Err values above), the server's own message
// when it gave one (sanitised, one line) and the underlying error.
type Error struct {
	Corpus string
	Addr   string
	Index  string
	Kind   error
	Msg    string
	Err    error
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "corpus %q (manticore %s, index %s): %v", e.Corpus, e.Addr, e.Index, e.Kind)
	if e.Msg != "" {
		b.WriteString(": ")
		b.WriteString(e.Msg)
	} else if e.Err != nil {
		fmt.Fprintf(&b, ": %v", e.Err)
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

func (e *Error) Is(target error) bool {
	if e.Kind == ErrConfig {
		return remote.Misconfigured.Is(e.Kind, target)
	}
	return remote.Unavailable.Is(e.Kind, target)
}

// ErrPartial is matched when a distributed search answered without some of
// its shards (an agent failed or timed out, or max_query_time cut the
// search): the documents returned with it are real but some may be missing.
// It also matches sources.ErrTruncated, which the engine reports as a
// truncated retrieval with the documents it got.
var ErrPartial = errors.New("manticore answer partial")

// classify turns a driver or network error into an *Error. ctx is the
// search's context: when it has expired the failure is a timeout whatever
// the driver made of it.
func (c *Corpus) classify(ctx context.Context, err error) error {
	e := &Error{Corpus: c.cfg.Corpus, Addr: c.addr, Index: c.cfg.Index, Err: err}
	var me *mysql.MySQLError
	var ne net.Error
	switch {
	case errors.As(err, &me):
		e.Msg = serverMessage(me.Message)
		e.Kind = classifyMessage(me.Number, me.Message)
	case errors.Is(err, context.DeadlineExceeded) || ctx.Err() == context.DeadlineExceeded:
		e.Kind = ErrTimeout
	case errors.Is(err, context.Canceled):
		// The caller gave up: not the server's fault.
		return fmt.Errorf("corpus %q: search cancelled: %w", c.cfg.Corpus, err)
	case errors.As(err, &ne) && ne.Timeout():
		e.Kind = ErrTimeout
	default:
		e.Kind = ErrUnreachable
		if errors.Is(err, ErrNotSphinxQL) {
			e.Msg = notSphinxQL
		} else if errors.Is(err, mysql.ErrInvalidConn) || errors.Is(err, mysql.ErrMalformPkt) {
			// The driver's words say little; a wrong port is the
			// usual cause, and the greeting tells.
			if _, gerr := c.serverVersion(ctx); errors.Is(gerr, ErrNotSphinxQL) {
				e.Msg = notSphinxQL
				e.Err = fmt.Errorf("%w: %w", ErrNotSphinxQL, err)
			}
		}
	}
	return e
}

const notSphinxQL = "the server does not speak SphinxQL (the MySQL protocol) there: give the SphinxQL port (9306 by default), not the HTTP (9308) or binary API (9312) one"

// classifyMessage sorts a server error by its text: SphinxQL reports almost
// everything as error 1064, so the code alone says little.
func classifyMessage(code uint16, msg string) error {
	m := strings.ToLower(msg)
	switch {
	case code == 1146,
		strings.Contains(m, "unknown local index"),
		strings.Contains(m, "unknown local table"),
		strings.Contains(m, "no such index"),
		strings.Contains(m, "no such table"),
		strings.Contains(m, "unknown index"),
		strings.Contains(m, "unknown table"):
		return ErrUnknownIndex
	case strings.Contains(m, "agent") && !strings.Contains(m, "syntax") && !strings.Contains(m, "parse error") && !strings.Contains(m, "unknown column"):
		// Every agent of a distributed index failed (connect, network,
		// timeout): the cluster is down as far as this search goes.
		return ErrUnreachable
	case strings.Contains(m, "timed out"), strings.Contains(m, "timeout"):
		return ErrTimeout
	}
	return ErrSyntax
}

// serverMessage is a server's error or warning text made safe to print:
// one line, no control sequences, at most 300 characters.
func serverMessage(s string) string {
	s = textsafe.OneLine(strings.TrimSpace(s))
	if r := []rune(s); len(r) > 300 {
		s = string(r[:300]) + "…"
	}
	return s
}
