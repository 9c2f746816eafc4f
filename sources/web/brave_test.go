package web

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prefrag/prefrag/internal/testdouble/fakesearch"
	"github.com/prefrag/prefrag/sources"
)

const testBraveKey = "BSAtestkey-0123456789abcdef"

func TestBraveSearch(t *testing.T) {
	fs := fakesearch.New(fakesearch.Options{Docs: testDocs, BraveKey: testBraveKey})
	defer fs.Close()
	cfg := testConfig(newFakeClock())
	cfg.BaseURL = fs.BraveURL()
	cfg.APIKey = testBraveKey
	e := mustNew(t, Brave, cfg)
	docs, err := e.Search(context.Background(), "gopher rodents", 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 1 || docs[0].URL != testDocs[3].URL || docs[0].Source != "web:brave" {
		t.Fatalf("docs %+v, want the gopher page from web:brave", docs)
	}
	if docs[0].Text != "Gophers are small burrowing rodents." {
		t.Errorf("text %q: <strong> highlights not stripped", docs[0].Text)
	}
	if got := fs.LastHeader().Get("X-Subscription-Token"); got != testBraveKey {
		t.Errorf("X-Subscription-Token %q", got)
	}
}

// TestBraveKeyNeverInErrors drives every failure path with a key and
// checks that neither errors nor logs nor a printed Config reveal it.
func TestBraveKeyNeverInErrors(t *testing.T) {
	slow := make(chan struct{})
	defer close(slow)
	answers := map[string]func(w http.ResponseWriter, r *http.Request){
		"401": func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, `{"type":"ErrorResponse"}`, http.StatusUnauthorized)
		},
		"403":      func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusForbidden) },
		"422":      func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusUnprocessableEntity) },
		"429":      func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTooManyRequests) },
		"500":      func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusInternalServerError) },
		"404":      func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNotFound) },
		"not json": func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("<html>" + testBraveKey + "</html>")) },
		"odd type": func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`{"type":"ErrorResponse"}`)) },
		"timeout": func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-slow:
			case <-r.Context().Done():
			}
		},
		"reflected": func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusBadRequest)
			w.Write([]byte("bad token " + r.Header.Get("X-Subscription-Token")))
		},
	}
	for name, answer := range answers {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(answer))
			defer srv.Close()
			var logs bytes.Buffer
			cfg := testConfig(newFakeClock())
			cfg.BaseURL = srv.URL
			cfg.APIKey = testBraveKey
			cfg.Timeout = 100 * time.Millisecond
			cfg.Retries = -1
			cfg.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
			cfg.Logger.Info("config", "cfg", cfg)
			e := mustNew(t, Brave, cfg)
			_, err := e.Search(context.Background(), "q", 3)
			if err == nil {
				t.Fatal("no error")
			}
			if strings.Contains(err.Error(), testBraveKey) || strings.Contains(fmt.Sprintf("%+v %#v", err, err), testBraveKey) {
				t.Errorf("error reveals the key: %v", err)
			}
			if !strings.Contains(logs.String(), redacted) {
				t.Errorf("the logged config does not show the redacted key: %s", logs.String())
			}
			if strings.Contains(logs.String(), testBraveKey) {
				t.Errorf("log reveals the key: %s", logs.String())
			}
		})
	}
}

func TestSecretRedacted(t *testing.T) {
	cfg := Config{APIKey: testBraveKey}
	js, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		fmt.Sprintf("%v", cfg), fmt.Sprintf("%+v", cfg), fmt.Sprintf("%#v", cfg),
		fmt.Sprintf("%s %q %v", cfg.APIKey, cfg.APIKey, cfg.APIKey), string(js),
	} {
		if strings.Contains(s, testBraveKey) {
			t.Errorf("key printed: %s", s)
		}
	}
	if cfg.APIKey.Reveal() != testBraveKey {
		t.Error("Reveal lost the key")
	}
	if Secret("").String() != "" {
		t.Error("an empty secret prints as non-empty")
	}
}

func TestBraveNeedsKey(t *testing.T) {
	_, err := New(Brave, Config{})
	if err == nil || !strings.Contains(err.Error(), "API key") {
		t.Fatalf("err = %v, want a missing-key error", err)
	}
}

func TestBraveRateLimitIsBlocked(t *testing.T) {
	fs := fakesearch.New(fakesearch.Options{Docs: testDocs, Mode: fakesearch.ModeBlocked429})
	defer fs.Close()
	cfg := testConfig(newFakeClock())
	cfg.BaseURL = fs.BraveURL()
	cfg.APIKey = testBraveKey
	_, err := mustNew(t, Brave, cfg).Search(context.Background(), "go", 3)
	if b, ok := err.(*sources.BlockedError); !ok || b.Status != http.StatusTooManyRequests {
		t.Fatalf("err = %v, want a 429 block", err)
	}
}

func TestParseBrave(t *testing.T) {
	tests := []struct {
		name  string
		body  string
		urls  []string
		title string
		err   bool
	}{
		{
			name:  "results with highlights",
			body:  `{"type":"search","web":{"type":"search","results":[{"title":"The <strong>Go</strong> site","url":"https://go.dev/","description":"<strong>Go</strong> &amp; more"},{"url":"https://go.dev/"},{"url":"about:blank"}]}}`,
			urls:  []string{"https://go.dev/"},
			title: "The Go site",
		},
		{name: "no web section", body: `{"type":"search","query":{"original":"zzz"}}`},
		{name: "error response", body: `{"type":"ErrorResponse","error":{"code":"X"}}`, err: true},
		{name: "not JSON", body: `<html>`, err: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page, err := parseBrave([]byte(tt.body))
			if (err != nil) != tt.err {
				t.Fatalf("err = %v, want error %v", err, tt.err)
			}
			var urls []string
			for _, r := range page.results {
				urls = append(urls, r.URL)
			}
			if strings.Join(urls, " ") != strings.Join(tt.urls, " ") {
				t.Errorf("urls %v, want %v", urls, tt.urls)
			}
			if tt.title != "" && page.results[0].Title != tt.title {
				t.Errorf("title %q, want %q", page.results[0].Title, tt.title)
			}
		})
	}
}

func FuzzParseBrave(f *testing.F) {
	f.Add([]byte(`{"type":"search","web":{"results":[{"title":"<strong>a</strong>","url":"https://a.b/","description":"<b>x</b>\u001b[1m"}]}}`))
	f.Add([]byte(`{"web":{"results":[null,1,{"url":"javascript:x"}]}}`))
	f.Add([]byte(`{"type":"ErrorResponse"}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		page, err := parseBrave(body)
		if err != nil {
			return
		}
		checkResults(t, page.results)
	})
}
