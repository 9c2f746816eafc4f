// Package manticore is a remote corpus served by Manticore Search or Sphinx
// (2.2 or later) over SphinxQL, the MySQL wire protocol those servers speak.
// A Corpus is read-only: it sends one SELECT … WHERE MATCH(…) per search,
// with the question turned into a quorum query over its words (OR
// semantics, no query syntax from the question ever reaches the server),
// ranked by BM25F (see Ranking), and reads the configured columns of the
// result as the document's id, title, text and URL.
//
// Sphinx 2.2 does not store full-text fields: its indexes must also keep the
// title and text as string attributes (sql_field_string,
// xmlpipe_field_string, rt_attr_string) for the text to come back. Manticore
// 3 and later store fields and return them by name.
package manticore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/go-sql-driver/mysql"

	"github.com/prefrag/prefrag/sources"
	"github.com/prefrag/prefrag/sources/remote"
)

// DefaultPort is Manticore's and Sphinx's SphinxQL port.
const DefaultPort = "9306"

// DefaultTimeout bounds one search or health check when Config.Timeout is
// zero.
const DefaultTimeout = 10 * time.Second

// maxTextBytes caps the text of one document (a passage; a remote index
// may hold whole books in one row).
const maxTextBytes = 64 << 10

// Config says where a remote corpus lives and which columns hold what.
type Config struct {
	// Corpus is the name prefrag knows the corpus by ("local:" + Corpus is
	// its source name).
	Corpus string
	// Addr is "host:port", "mysql://host:port" or "sphinxql://host:port"
	// (port 9306 when left out). Credentials in the URL are refused: they
	// come from the environment through User and Password.
	Addr string
	// Index is the index (or distributed index) to search; a
	// comma-separated list searches several as one.
	Index string
	// Column names; empty means "title", "text", "id" and no URL. IDField
	// "id" is the server's numeric document id.
	TitleField, TextField, IDField, URLField string
	// User and Password, when the server wants them (Manticore with
	// authentication, a MySQL proxy in front). Never logged.
	User, Password string
	// Timeout bounds each search and health check (DefaultTimeout when
	// zero), connection included, and is sent as max_query_time.
	Timeout time.Duration
}

// Corpus is an open remote corpus. It is safe for concurrent use.
type Corpus struct {
	cfg     Config
	addr    string // host:port
	timeout time.Duration
	cols    []string // SELECT list: id, IDField (unless id), title, text, URL
	db      *sql.DB
	// fallback is set once the server refused Ranking.
	fallback atomic.Bool
	closed   atomic.Bool
}

var quietDriver sync.Once

// Open checks cfg and prepares a connection pool. It does not contact the
// server (a cluster that is down is a search-time failure, reported like
// any unavailable source): Health does.
func Open(ctx context.Context, cfg Config) (*Corpus, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	cfg.TitleField = orDefault(cfg.TitleField, "title")
	cfg.TextField = orDefault(cfg.TextField, "text")
	cfg.IDField = orDefault(cfg.IDField, "id")
	cfg.Index = strings.TrimSpace(cfg.Index)
	addr, err := ParseAddr(cfg.Addr)
	if err != nil {
		return nil, &Error{Corpus: cfg.Corpus, Addr: "(invalid)", Index: cfg.Index, Kind: ErrConfig, Err: err}
	}
	bad := func(format string, args ...any) error {
		return &Error{Corpus: cfg.Corpus, Addr: addr, Index: cfg.Index, Kind: ErrConfig, Err: fmt.Errorf(format, args...)}
	}
	if cfg.Corpus == "" {
		return nil, bad("no corpus name")
	}
	if !validIndex(cfg.Index) {
		return nil, bad("index %q is not an index name (letters, digits and _, not starting with a digit)", cfg.Index)
	}
	for _, f := range []struct{ what, name string }{{"title", cfg.TitleField}, {"text", cfg.TextField}, {"id", cfg.IDField}, {"url", cfg.URLField}} {
		if f.name != "" && !validIdent(f.name) {
			return nil, bad("%s field %q is not a column name (letters, digits and _, not starting with a digit)", f.what, f.name)
		}
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	cols := []string{"id"}
	if cfg.IDField != "id" {
		cols = append(cols, cfg.IDField)
	}
	cols = append(cols, cfg.TitleField, cfg.TextField)
	if cfg.URLField != "" {
		cols = append(cols, cfg.URLField)
	}

	quietDriver.Do(func() {
		// The driver logs connection trouble to stderr by itself; the
		// errors it returns say the same and reach the user as events.
		_ = mysql.SetLogger(log.New(io.Discard, "", 0))
	})
	mc := mysql.NewConfig()
	mc.Net = "tcp"
	mc.Addr = addr
	mc.User = cfg.User
	mc.Passwd = cfg.Password
	mc.Timeout = cfg.Timeout
	// The search's context expires first (and so a hung server is told
	// from a broken one); the driver's own deadlines are a backstop.
	mc.ReadTimeout = cfg.Timeout + 2*time.Second
	mc.WriteTimeout = cfg.Timeout + 2*time.Second
	// SphinxQL has no server-side prepared statements: no statement is
	// ever sent with arguments (values are quoted by QuoteString), and
	// the driver must never try to prepare one.
	mc.InterpolateParams = false
	mc.AllowNativePasswords = true
	conn, err := mysql.NewConnector(mc)
	if err != nil {
		return nil, bad("%v", err)
	}
	db := sql.OpenDB(conn)
	db.SetMaxOpenConns(4)
	db.SetMaxIdleConns(2)
	// Sphinx closes idle SphinxQL connections after client_timeout (5 min
	// by default); drop ours before that.
	db.SetConnMaxIdleTime(time.Minute)
	return &Corpus{cfg: cfg, addr: addr, timeout: cfg.Timeout, cols: cols, db: db}, nil
}

func orDefault(s, def string) string {
	if s = strings.TrimSpace(s); s == "" {
		return def
	}
	return s
}

// plainScheme reports whether s looks like a URL scheme short enough to be
// echoed in an error: a lower-case letter, then up to 15 of a-z, 0-9, "+",
// "." and "-". (A hand-written check: the regular expression it replaced
// was compiled at every start of the binary.)
func plainScheme(s string) bool {
	if len(s) == 0 || len(s) > 16 || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}

// ParseAddr returns host:port for "host:port", "host", "mysql://host:port"
// or "sphinxql://host:port". A URL with a user or password is refused
// (without repeating it: the error must not carry a secret), as are paths,
// queries and other schemes.
func ParseAddr(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", errors.New("no server address")
	}
	if i := strings.Index(s, "://"); i >= 0 {
		scheme := strings.ToLower(s[:i])
		if scheme != "mysql" && scheme != "sphinxql" {
			if !plainScheme(scheme) {
				scheme = "?"
			}
			return "", fmt.Errorf("address scheme %q: use host:port, mysql://host:port or sphinxql://host:port", scheme)
		}
		rest := s[i+3:]
		if at := strings.LastIndex(rest, "@"); at >= 0 && (!strings.ContainsAny(rest, "/?#") || at < strings.IndexAny(rest, "/?#")) {
			return "", errors.New("the address holds credentials: give the user and password through the environment, not in the URL")
		}
		u, err := url.Parse(s)
		if err != nil {
			return "", errors.New("the address is not a valid URL")
		}
		if u.User != nil {
			return "", errors.New("the address holds credentials: give the user and password through the environment, not in the URL")
		}
		if (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
			return "", errors.New("the address has a path or query: give only host and port")
		}
		s = u.Host
	}
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		// No port: the default one.
		if strings.Contains(s, "@") || strings.ContainsAny(s, "/?# ") {
			return "", errors.New("the address is not host:port")
		}
		host, port = strings.Trim(s, "[]"), DefaultPort
	}
	if host == "" || strings.ContainsAny(host, "@/?# ") {
		return "", errors.New("the address has no valid host")
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return "", errors.New("the port is not a number from 1 to 65535")
	}
	return net.JoinHostPort(host, port), nil
}

// Name is the corpus's source name, "local:" + Config.Corpus: a remote
// corpus is cited and judged like a local one.
func (c *Corpus) Name() string { return sources.CorpusName(c.cfg.Corpus).String() }

// Kind is sources.KindRemote.
func (c *Corpus) Kind() sources.Kind { return sources.KindRemote }

// String is for logs (no credentials).
func (c *Corpus) String() string { return c.Name() + " (manticore " + c.addr + ")" }

// Close releases the connections.
func (c *Corpus) Close() error {
	if c.closed.Swap(true) {
		return nil
	}
	return c.db.Close()
}

// Search returns the k best documents for the question, best first; k is
// capped at MaxK and k ≤ 0 searches nothing. A question without a word
// searches nothing either. When some shards of a distributed index did not
// answer, the documents the others gave come with a *remote.PartialError.
func (c *Corpus) Search(ctx context.Context, query string, k int) ([]sources.Document, error) {
	if c.closed.Load() {
		return nil, fmt.Errorf("corpus %q: search after Close: %w", c.cfg.Corpus, sql.ErrConnDone)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if k <= 0 {
		return nil, nil
	}
	k = min(k, MaxK)
	match := MatchExpr(query)
	if match == "" {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	conn, err := c.db.Conn(ctx)
	if err != nil {
		return nil, c.classify(ctx, err)
	}
	defer conn.Close()
	docs, err := c.ranked(ctx, conn, match, k)
	if err != nil {
		return nil, err
	}
	if w := c.warning(ctx, conn); w != "" && partialWarning(w) {
		return docs, &remote.PartialError{Source: fmt.Sprintf("corpus %q (index %s)", c.cfg.Corpus, c.cfg.Index), Kind: ErrPartial, Missing: "answered without some of its shards: " + w, Results: len(docs)}
	}
	return docs, nil
}

// ranked runs the search with Ranking, or with fallbackRanking once the
// server has refused Ranking.
func (c *Corpus) ranked(ctx context.Context, conn *sql.Conn, match string, k int) ([]sources.Document, error) {
	ranking := Ranking
	if c.fallback.Load() {
		ranking = fallbackRanking
	}
	docs, err := c.query(ctx, conn, match, k, ranking)
	if err != nil && ranking == Ranking && rankerRefused(err) {
		c.fallback.Store(true)
		docs, err = c.query(ctx, conn, match, k, fallbackRanking)
	}
	return docs, err
}

func (c *Corpus) query(ctx context.Context, conn *sql.Conn, match string, k int, ranking string) ([]sources.Document, error) {
	stmt := selectStatement(c.cols, c.cfg.Index, match, k, ranking, c.timeout.Milliseconds())
	rows, err := conn.QueryContext(ctx, stmt)
	if err != nil {
		return nil, c.classify(ctx, err)
	}
	defer rows.Close()
	n := len(c.cols) + 1
	vals := make([]sql.RawBytes, n)
	ptrs := make([]any, n)
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	var docs []sources.Document
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, c.classify(ctx, err)
		}
		docs = append(docs, c.document(vals))
	}
	if err := rows.Err(); err != nil {
		return nil, c.classify(ctx, err)
	}
	return docs, nil
}

// document reads one row in the order of c.cols, then the weight.
func (c *Corpus) document(vals []sql.RawBytes) sources.Document {
	i := 0
	next := func() string { s := string(vals[i]); i++; return s }
	docID := next()
	id := docID
	if c.cfg.IDField != "id" {
		if v := next(); v != "" {
			id = v
		}
	}
	d := sources.Document{ID: id, Source: c.Name()}
	d.Title = next()
	d.Text = capText(next())
	if c.cfg.URLField != "" {
		d.URL = next()
	}
	d.Score, _ = strconv.ParseFloat(next(), 64)
	d.Locator = c.cfg.Index + "#" + docID
	if d.URL != "" {
		d.Locator = d.URL
	}
	return d.Sanitized()
}

func capText(s string) string {
	if len(s) <= maxTextBytes {
		return s
	}
	s = s[:maxTextBytes]
	// Drop a character cut in the middle.
	for i := 0; i < utf8.UTFMax && len(s) > 0; i++ {
		if r, size := utf8.DecodeLastRuneInString(s); r != utf8.RuneError || size != 1 {
			break
		}
		s = s[:len(s)-1]
	}
	return s
}

// warning is the server's warning about the last search on conn (SHOW
// META), "" when there is none or it cannot be read.
func (c *Corpus) warning(ctx context.Context, conn *sql.Conn) string {
	rows, err := conn.QueryContext(ctx, "SHOW META")
	if err != nil {
		return ""
	}
	defer rows.Close()
	for rows.Next() {
		var name, value string
		if rows.Scan(&name, &value) == nil && name == "warning" {
			return serverMessage(value)
		}
	}
	return ""
}

// partialWarning tells warnings that mean missing results (failed or slow
// agents, the query time limit) from harmless ones.
func partialWarning(w string) bool {
	for _, part := range strings.Split(strings.ToLower(w), ";") {
		if strings.Contains(part, "remote query warning") {
			// An agent answered, with a warning about the query.
			continue
		}
		for _, s := range []string{"agent", "max_query_time", "query time exceeded", "timed out", "timeout", "connect", "failed"} {
			if strings.Contains(part, s) {
				return true
			}
		}
	}
	return false
}

// rankerRefused reports whether the server refused the ranking expression
// (an old or restricted server): the search is retried with the built-in
// BM25 ranker.
func rankerRefused(err error) bool {
	var e *Error
	if !errors.As(err, &e) || e.Kind != ErrSyntax {
		return false
	}
	m := strings.ToLower(e.Msg)
	return strings.Contains(m, "ranker") || strings.Contains(m, "bm25f")
}
