package manticore

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/prefrag/prefrag/internal/textsafe"
)

// Health is what a health check learnt about the server and the index.
type Health struct {
	// Version is the server's version from its handshake, e.g.
	// "2.2.11-id64-release (95ae9a6)" or "6.3.6 …" for Manticore.
	Version string
	// Index is the configured index; IndexType "distributed" (with Shards
	// its local and remote parts) or "local".
	Index     string
	IndexType string
	Shards    int
	// Documents is the number of documents in a local index, -1 when it
	// is not cheap to know (a distributed index would need a full scan).
	Documents int64
	// Latency is the time of one round trip (DESCRIBE of the index).
	Latency time.Duration
}

// healthMatch matches nothing in any sane index.
const healthMatch = `"prefraghealthcheckqzxj"/1`

// Health connects to the server, reads its version, checks that the index
// exists and that a search with the configured fields is accepted (a word
// that matches nothing). Errors are *Error, as for Search.
func (c *Corpus) Health(ctx context.Context) (Health, error) {
	h := Health{Index: c.cfg.Index, Documents: -1}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	v, err := c.serverVersion(ctx)
	if err != nil {
		return h, c.classify(ctx, err)
	}
	h.Version = v
	conn, err := c.db.Conn(ctx)
	if err != nil {
		return h, c.classify(ctx, err)
	}
	defer conn.Close()
	for _, index := range strings.Split(c.cfg.Index, ",") {
		index = strings.TrimSpace(index)
		start := time.Now()
		typ, shards, err := describe(ctx, conn, index)
		h.Latency = max(h.Latency, time.Since(start))
		if err != nil {
			return h, c.classify(ctx, err)
		}
		if h.IndexType == "" || typ == "distributed" {
			h.IndexType = typ
		}
		h.Shards += shards
	}
	// The search statement itself, for a word no document holds: the
	// configured fields must be columns of the index and the ranking
	// accepted.
	if _, err := c.ranked(ctx, conn, healthMatch, 1); err != nil {
		return h, err
	}
	if h.IndexType == "local" && !strings.Contains(c.cfg.Index, ",") {
		h.Documents = indexedDocuments(ctx, conn, c.cfg.Index)
	}
	return h, nil
}

// describe runs DESCRIBE: a distributed index lists its agents and local
// parts (columns Agent, Type), a local one its fields and attributes.
func describe(ctx context.Context, conn *sql.Conn, index string) (typ string, shards int, err error) {
	rows, err := conn.QueryContext(ctx, "DESCRIBE "+index)
	if err != nil {
		return "", 0, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return "", 0, err
	}
	typ = "local"
	if len(cols) > 0 && strings.EqualFold(cols[0], "agent") {
		typ = "distributed"
	}
	vals := make([]sql.RawBytes, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return "", 0, err
		}
		shards++
	}
	if typ == "local" {
		shards = 1
	}
	return typ, shards, rows.Err()
}

// indexedDocuments is SHOW INDEX … STATUS's indexed_documents, -1 when the
// server does not say.
func indexedDocuments(ctx context.Context, conn *sql.Conn, index string) int64 {
	rows, err := conn.QueryContext(ctx, "SHOW INDEX "+index+" STATUS")
	if err != nil {
		return -1
	}
	defer rows.Close()
	for rows.Next() {
		var name, value string
		if rows.Scan(&name, &value) == nil && name == "indexed_documents" {
			if n, err := strconv.ParseInt(value, 10, 64); err == nil {
				return n
			}
		}
	}
	return -1
}

// serverVersion reads the server's greeting (the MySQL protocol's initial
// handshake packet), which carries the version; SphinxQL has no VERSION().
func (c *Corpus) serverVersion(ctx context.Context) (string, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", c.addr)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	var hdr [4]byte
	if _, err := io.ReadFull(conn, hdr[:]); err != nil {
		return "", fmt.Errorf("reading the server's greeting: %w", err)
	}
	n := int(hdr[0]) | int(hdr[1])<<8 | int(hdr[2])<<16
	buf := make([]byte, min(n, 512))
	if _, err := io.ReadFull(conn, buf); err != nil {
		return "", fmt.Errorf("reading the server's greeting: %w", err)
	}
	return ParseGreeting(buf)
}

// ErrNotSphinxQL is matched when the greeting is not a MySQL-protocol
// handshake (a SphinxQL port was expected).
var ErrNotSphinxQL = errors.New("not a SphinxQL (MySQL protocol) greeting")

// ParseGreeting returns the server version of a MySQL protocol v10
// handshake payload (after the 4-byte packet header): the protocol byte 10,
// then the version up to a NUL. The version is made safe to print.
func ParseGreeting(p []byte) (string, error) {
	if len(p) < 2 {
		return "", ErrNotSphinxQL
	}
	if p[0] == 0xff {
		// An error packet in place of the greeting (too many
		// connections, host blocked): code, then '#' + state, message.
		msg := p[1:]
		if len(msg) >= 2 {
			msg = msg[2:]
		}
		if len(msg) > 0 && msg[0] == '#' && len(msg) >= 6 {
			msg = msg[6:]
		}
		return "", fmt.Errorf("the server refused the connection: %s", serverMessage(string(msg)))
	}
	if p[0] != 10 {
		return "", fmt.Errorf("%w (protocol %d)", ErrNotSphinxQL, p[0])
	}
	end := bytes.IndexByte(p[1:], 0)
	if end < 0 {
		return "", fmt.Errorf("%w (unterminated version)", ErrNotSphinxQL)
	}
	v := textsafe.OneLine(strings.ToValidUTF8(string(p[1:1+end]), "?"))
	if r := []rune(v); len(r) > 100 {
		v = string(r[:100])
	}
	return strings.TrimSpace(v), nil
}
