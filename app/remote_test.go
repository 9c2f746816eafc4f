package app

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prefrag/prefrag/internal/testdouble/fakeelastic"
	"github.com/prefrag/prefrag/sources"
	"github.com/prefrag/prefrag/sources/remote"
)

func TestOpenRemoteTable(t *testing.T) {
	es := fakeelastic.New(t, fakeelastic.Options{Index: "docs", Docs: []fakeelastic.Doc{{ID: "a", Title: "pH", Text: "pH was introduced in 1909."}}, APIKey: "k-value"})
	dir := t.TempDir()
	save := func(name string, s remote.Spec) {
		if err := remote.Save(dir, name, s); err != nil {
			t.Fatal(err)
		}
	}
	save("es", remote.Spec{Kind: remote.KindElasticsearch, URL: es.URL(), Index: "docs", APIKeyEnv: "ES_KEY"})
	save("mc", remote.Spec{Kind: remote.KindManticore, URL: "127.0.0.1:9306", Index: "dist"})
	save("nokey", remote.Spec{Kind: remote.KindElasticsearch, URL: es.URL(), Index: "docs", APIKeyEnv: "UNSET_KEY"})
	env := map[string]string{"ES_KEY": "k-value"}
	getenv := func(k string) string { return env[k] }

	g, err := openRemote(context.Background(), dir, "es", getenv, remoteSearch{})
	if err != nil {
		t.Fatal(err)
	}
	docs, err := g.Search(context.Background(), "pH", 3)
	if err != nil || len(docs) != 1 || docs[0].Source != "local:es" || g.Name() != "local:es" || g.Kind() != sources.KindRemote {
		t.Errorf("search %v %v", docs, err)
	}
	id := g.Identity(context.Background())
	if id.Kind != "elasticsearch" || id.Index != "docs" || id.URL != es.URL() || id.Cluster != "kb-cluster" || id.Documents != 1 {
		t.Errorf("identity %+v", id)
	}
	g.Close()

	// Opening a Manticore corpus does not connect: a node that is down
	// shows as a failed search (a notice), never as a failed open.
	mc, err := openRemote(context.Background(), dir, "mc", getenv, remoteSearch{})
	if err != nil || mc.Name() != "local:mc" || mc.Kind() != sources.KindRemote {
		t.Errorf("manticore: %v", err)
	} else {
		mc.Close()
	}
	_, err = openRemote(context.Background(), dir, "nokey", getenv, remoteSearch{})
	if !errors.Is(err, remote.ErrCredentials) || !strings.Contains(err.Error(), "UNSET_KEY") {
		t.Errorf("unset key: %v", err)
	}
	_, err = openRemote(context.Background(), dir, "none", getenv, remoteSearch{})
	if !errors.Is(err, remote.ErrNotRemote) {
		t.Errorf("missing: %v", err)
	}
}

// A cluster (or a proxy before it) that repeats the credentials in its
// error answers: no error, health problem or notice shows them.
func TestRemotePasswordNeverInErrors(t *testing.T) {
	const user, password, key = "analyst-user-name", "pw-0123456789-secret", "api-key-0123456789-secret"
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(r.Header.Get("Authorization"), "Basic "))
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(500)
		reason, _ := json.Marshal(fmt.Sprintf("bad auth %s (%s)", r.Header.Get("Authorization"), raw))
		fmt.Fprintf(w, `{"error":{"type":"proxy_exception","reason":%s},"status":500}`, reason)
	}))
	t.Cleanup(echo.Close)
	dir := t.TempDir()
	remote.Save(dir, "basic", remote.Spec{Kind: remote.KindElasticsearch, URL: echo.URL, Index: "docs", UserEnv: "U", PasswordEnv: "P"})
	remote.Save(dir, "key", remote.Spec{Kind: remote.KindElasticsearch, URL: echo.URL, Index: "docs", APIKeyEnv: "K"})
	env := map[string]string{"U": user, "P": password, "K": key}
	for _, name := range []string{"basic", "key"} {
		g, err := openRemote(context.Background(), dir, name, func(k string) string { return env[k] }, remoteSearch{})
		if err != nil {
			t.Fatal(err)
		}
		var msgs []string
		for i := 0; i < 3; i++ {
			_, err := g.Search(context.Background(), "q", 3)
			if err == nil {
				t.Fatal("no error")
			}
			msgs = append(msgs, err.Error())
		}
		h := g.Health(context.Background())
		msgs = append(msgs, h.Problem)
		for _, m := range msgs {
			for _, s := range []string{user, password, key} {
				if strings.Contains(m, s) {
					t.Errorf("%s: secret in %q", name, m)
				}
			}
		}
		if !strings.Contains(msgs[0], "[redacted]") {
			t.Errorf("%s: expected the echoed credentials to be redacted: %q", name, msgs[0])
		}
		g.Close()
	}
}

// A cluster down when the run starts is not a failed run: the source opens
// and its searches fail as notices, bounded by the breaker.
func TestRemoteDownAtStart(t *testing.T) {
	es := fakeelastic.New(t, fakeelastic.Options{Index: "docs"})
	url := es.URL()
	es.Close()
	dir := t.TempDir()
	remote.Save(dir, "es", remote.Spec{Kind: remote.KindElasticsearch, URL: url, Index: "docs", Timeout: "2s"})
	g, err := openRemote(context.Background(), dir, "es", func(string) string { return "" }, remoteSearch{})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	for i := 0; i < 3; i++ {
		if _, err := g.Search(context.Background(), "q", 3); !errors.Is(err, sources.ErrUnavailable) {
			t.Errorf("search %d: %v", i, err)
		}
	}
	if _, err := g.Search(context.Background(), "q", 3); !errors.Is(err, remote.ErrCircuitOpen) {
		t.Errorf("circuit: %v", err)
	}
	if took := time.Since(t0); took > 20*time.Second {
		t.Errorf("took %s", took)
	}
	if h := g.Health(context.Background()); h.OK || h.Problem == "" {
		t.Errorf("health %+v", h)
	}
}
