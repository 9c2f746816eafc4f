package elastic_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/prefrag/prefrag/internal/testdouble/fakeelastic"
	"github.com/prefrag/prefrag/sources"
	"github.com/prefrag/prefrag/sources/elastic"
	"github.com/prefrag/prefrag/sources/remote"
)

var docs = []fakeelastic.Doc{
	{ID: "olsen", Title: "Carsten Olsen", Text: "Carsten Olsen was a Danish plant ecologist who assisted Søren Sørensen at the Carlsberg Laboratory.", URL: "https://kb.example/olsen"},
	{ID: "ph", Title: "pH", Text: "The concept of pH was introduced by the Danish chemist Søren Sørensen in 1909."},
	{ID: "kjeldahl", Title: "Johan Kjeldahl", Text: "Johan Kjeldahl led the chemistry department of the Carlsberg Laboratory."},
	{ID: "evil", Title: "Evil\x1b[31m doc\nline", Text: "Carlsberg \x1b]0;title\x07 beer"},
}

const secretKey = "c2VjcmV0LWFwaS1rZXktdmFsdWU="

func open(t *testing.T, srv *fakeelastic.Server, mod func(*elastic.Config)) *elastic.Corpus {
	t.Helper()
	cfg := elastic.Config{Corpus: "kb", URL: srv.URL(), Index: "docs",
		Fields: elastic.Fields{Title: "title", Text: "text", URL: "url"},
		APIKey: secretKey, AuthHint: "$KB_API_KEY", Timeout: 5 * time.Second}
	if mod != nil {
		mod(&cfg)
	}
	c, err := elastic.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestSearchShapes(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    fakeelastic.Options
	}{
		{"elasticsearch8", fakeelastic.Options{Flavor: fakeelastic.Elasticsearch8}},
		{"elasticsearch7", fakeelastic.Options{Flavor: fakeelastic.Elasticsearch7}},
		{"opensearch2", fakeelastic.Options{Flavor: fakeelastic.OpenSearch2}},
		{"numeric total (es6 shape)", fakeelastic.Options{ES6Totals: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.o.Docs, tc.o.APIKey = docs, secretKey
			srv := fakeelastic.New(t, tc.o)
			c := open(t, srv, nil)
			got, err := c.Search(context.Background(), "Danish plant ecologist Carlsberg", 2)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 2 || got[0].ID != "olsen" {
				t.Fatalf("got %+v", got)
			}
			d := got[0]
			if d.Source != "local:kb" || d.Title != "Carsten Olsen" || d.URL != "https://kb.example/olsen" || d.Score <= 0 || d.Locator != "docs/_doc/olsen" {
				t.Errorf("doc %+v", d)
			}
			if c.Name() != "local:kb" || c.Kind() != sources.KindRemote {
				t.Errorf("name %s kind %v", c.Name(), c.Kind())
			}
			var body map[string]any
			json.Unmarshal([]byte(srv.Bodies()[0]), &body)
			mm := body["query"].(map[string]any)["multi_match"].(map[string]any)
			if mm["operator"] != "or" || body["size"].(float64) != 2 {
				t.Errorf("request %s", srv.Bodies()[0])
			}
			if a := srv.Authorizations()[0]; a != "ApiKey "+secretKey {
				t.Errorf("authorization %q", a)
			}
			h, err := c.Health(context.Background())
			if err != nil || !h.OK || h.Documents != int64(len(docs)) || h.Cluster != "kb-cluster" || h.Version == "" {
				t.Errorf("health %+v %v", h, err)
			}
			if tc.o.Flavor == fakeelastic.OpenSearch2 && h.Distribution != "opensearch" {
				t.Errorf("distribution %q", h.Distribution)
			}
		})
	}
}

func TestSearchSanitizes(t *testing.T) {
	srv := fakeelastic.New(t, fakeelastic.Options{Docs: docs, APIKey: secretKey})
	got, err := open(t, srv, nil).Search(context.Background(), "Carlsberg beer", 5)
	if err != nil {
		t.Fatal(err)
	}
	seen := false
	for _, d := range got {
		if d.ID != "evil" {
			continue
		}
		seen = true
		if strings.ContainsAny(d.Title, "\n\x1b") || strings.ContainsAny(d.Text, "\x1b\x07") {
			t.Errorf("unsanitized %q / %q", d.Title, d.Text)
		}
	}
	if !seen {
		t.Fatalf("the document with escapes was not found: %+v", got)
	}
}

func TestTextOnlyMatch(t *testing.T) {
	srv := fakeelastic.New(t, fakeelastic.Options{Docs: docs, APIKey: secretKey})
	c := open(t, srv, func(c *elastic.Config) { c.Fields.Title = "" })
	if _, err := c.Search(context.Background(), "pH", 3); err != nil {
		t.Fatal(err)
	}
	if b := srv.Bodies()[0]; !strings.Contains(b, `"match":{"text":{"operator":"or","query":"pH"}}`) {
		t.Errorf("request %s", b)
	}
}

func TestSearchErrors(t *testing.T) {
	closed := func() string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close()
		return "http://" + addr
	}()
	for _, tc := range []struct {
		name    string
		fault   fakeelastic.Fault
		mod     func(*elastic.Config)
		is      error
		says    string
		partial bool
	}{
		{name: "wrong key", mod: func(c *elastic.Config) { c.APIKey = "wrong-" + secretKey }, is: elastic.ErrAuth, says: "$KB_API_KEY"},
		{name: "no credentials", mod: func(c *elastic.Config) { c.APIKey, c.AuthHint = "", "" }, is: elastic.ErrAuth, says: "--api-key-env"},
		{name: "403", fault: fakeelastic.Fault{Status: 403}, is: elastic.ErrAuth, says: "HTTP 403"},
		{name: "index missing", mod: func(c *elastic.Config) { c.Index = "nope" }, is: elastic.ErrIndexNotFound, says: `no index "nope"`},
		{name: "429 without retry-after", fault: fakeelastic.Fault{Status: 429}, mod: func(c *elastic.Config) { c.Timeout = 500 * time.Millisecond }, is: elastic.ErrBusy, says: "busy"},
		{name: "429 retry-after beyond timeout", fault: fakeelastic.Fault{Status: 429, RetryAfter: "30"}, is: elastic.ErrBusy, says: "HTTP 429"},
		{name: "503", fault: fakeelastic.Fault{Status: 503}, is: elastic.ErrServer, says: "all shards failed"},
		{name: "shard failure", fault: fakeelastic.Fault{ShardsFailed: 1}, is: sources.ErrTruncated, says: "1 of 2 shards", partial: true},
		{name: "bad json", fault: fakeelastic.Fault{Garbage: true}, is: elastic.ErrBadResponse, says: "not an Elasticsearch search response"},
		{name: "oversized", fault: fakeelastic.Fault{Huge: 3 << 20}, mod: func(c *elastic.Config) { c.MaxBody = 1 << 20 }, is: sources.ErrTruncated, says: "larger than 1 MiB"},
		{name: "dropped connection", fault: fakeelastic.Fault{Drop: true}, is: sources.ErrUnavailable, says: "local:kb unavailable"},
		{name: "slow", fault: fakeelastic.Fault{Delay: 10 * time.Second}, mod: func(c *elastic.Config) { c.Timeout = 300 * time.Millisecond }, is: sources.ErrUnavailable, says: "no answer within 300ms"},
		{name: "refused", mod: func(c *elastic.Config) { c.URL = closed }, is: sources.ErrUnavailable, says: "refused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := fakeelastic.New(t, fakeelastic.Options{Docs: docs, APIKey: secretKey})
			srv.SetFault(tc.fault)
			c := open(t, srv, tc.mod)
			t0 := time.Now()
			got, err := c.Search(context.Background(), "Carlsberg Laboratory Danish", 5)
			if took := time.Since(t0); took > 20*time.Second {
				t.Errorf("took %s", took)
			}
			if err == nil {
				t.Fatalf("no error; docs %v", got)
			}
			if !errors.Is(err, tc.is) {
				t.Errorf("error %v (%T) is not %v", err, err, tc.is)
			}
			if !tc.partial && !errors.Is(err, sources.ErrUnavailable) && !errors.Is(err, sources.ErrTruncated) {
				t.Errorf("error %v is neither unavailable nor truncated", err)
			}
			if !strings.Contains(err.Error(), tc.says) {
				t.Errorf("error %q does not say %q", err, tc.says)
			}
			if strings.Contains(err.Error(), secretKey) {
				t.Errorf("error shows the key: %v", err)
			}
			if tc.partial && len(got) == 0 {
				t.Errorf("no partial results")
			}
			if !tc.partial && len(got) != 0 {
				t.Errorf("results with a failure: %v", got)
			}
		})
	}
}

func Test429RetryAfterHonoured(t *testing.T) {
	srv := fakeelastic.New(t, fakeelastic.Options{Docs: docs, APIKey: secretKey})
	srv.SetFault(fakeelastic.Fault{Status: 429, RetryAfter: "1", Times: 1})
	c := open(t, srv, nil)
	t0 := time.Now()
	got, err := c.Search(context.Background(), "pH chemist", 3)
	took := time.Since(t0)
	if err != nil || len(got) == 0 {
		t.Fatalf("%v %v", got, err)
	}
	if srv.Searches() != 2 || took < 900*time.Millisecond || took > 20*time.Second {
		t.Errorf("%d searches in %s, want 2 after a 1 s wait", srv.Searches(), took)
	}
}

func TestHealthErrors(t *testing.T) {
	srv := fakeelastic.New(t, fakeelastic.Options{Docs: docs, APIKey: secretKey})
	for _, tc := range []struct {
		name   string
		mod    func(*elastic.Config)
		status string
		is     error
	}{
		{"auth", func(c *elastic.Config) { c.APIKey = "x" }, "auth", elastic.ErrAuth},
		{"index", func(c *elastic.Config) { c.Index = "missing" }, "no index", elastic.ErrIndexNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, err := open(t, srv, tc.mod).Health(context.Background())
			if !errors.Is(err, tc.is) || h.OK || h.Status != tc.status {
				t.Errorf("health %+v %v", h, err)
			}
		})
	}
}

// Basic auth sends the user and password; a failure names the variables
// and never the values.
func TestBasicAuth(t *testing.T) {
	srv := fakeelastic.New(t, fakeelastic.Options{Docs: docs, User: "analyst", Password: "hunter2-very-secret"})
	c := open(t, srv, func(c *elastic.Config) {
		c.APIKey, c.User, c.Password, c.AuthHint = "", "analyst", "hunter2-very-secret", "$KB_USER/$KB_PASSWORD"
	})
	if _, err := c.Search(context.Background(), "pH", 2); err != nil {
		t.Fatal(err)
	}
	bad := open(t, srv, func(c *elastic.Config) {
		c.APIKey, c.User, c.Password, c.AuthHint = "", "analyst", "wrong-password-value", "$KB_USER/$KB_PASSWORD"
	})
	_, err := bad.Search(context.Background(), "pH", 2)
	if !errors.Is(err, elastic.ErrAuth) || !strings.Contains(err.Error(), "$KB_USER/$KB_PASSWORD") || strings.Contains(err.Error(), "wrong-password-value") {
		t.Errorf("error %v", err)
	}
}

func TestOpenRefusesCredentialsInURL(t *testing.T) {
	_, err := elastic.Open(elastic.Config{Corpus: "kb", URL: "http://elastic:pa55word@127.0.0.1:9200", Index: "docs"})
	if !errors.Is(err, remote.ErrInvalidSpec) || strings.Contains(err.Error(), "pa55word") {
		t.Errorf("error %v", err)
	}
}
