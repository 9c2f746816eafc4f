package fakesearch

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

var docs = []Doc{
	{Title: "Go", Text: "Go is a programming language.", URL: "https://go.dev/"},
	{Title: "Rust", Text: "Rust is a programming language focused on safety.", URL: "https://www.rust-lang.org/"},
	{Title: "Gopher", Text: "A small rodent.", URL: "https://animals.example.org/gopher"},
	{Title: "Local page", Text: "Served by the fake itself.\nSecond paragraph."},
}

func get(t *testing.T, rawURL string, header http.Header) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, rawURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}

func TestRank(t *testing.T) {
	tests := []struct {
		query string
		n     int
		want  []int
	}{
		{"programming language", 0, []int{0, 1}},
		{"Rust programming", 0, []int{1, 0}},
		{"safety, rodent!", 0, []int{1, 2}},
		{"language language", 1, []int{0}},
		{"nothing matches", 0, nil},
		{"", 0, nil},
	}
	for _, tt := range tests {
		var got []int
		for _, h := range Rank(docs, tt.query, tt.n) {
			got = append(got, h.Index)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("Rank(%q) = %v, want %v", tt.query, got, tt.want)
		}
	}
}

func TestReadDocs(t *testing.T) {
	got, err := ReadDocs(strings.NewReader(`{"title":"A","text":"a","url":"https://a.example/"}

  {"title":"B","text":"b","id":"ignored"}
`))
	if err != nil || len(got) != 2 || got[0].URL != "https://a.example/" || got[1].Title != "B" {
		t.Fatalf("docs %+v err %v", got, err)
	}
	_, err = ReadDocs(strings.NewReader("{\"title\":\"A\"}\nnot json\n"))
	if err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("err %v, want one naming line 2", err)
	}
}

func FuzzReadDocs(f *testing.F) {
	f.Add("{\"title\":\"A\",\"text\":\"a\"}\n\n{\"url\":\"u\"}")
	f.Add("[1]\n")
	f.Fuzz(func(t *testing.T, in string) {
		got, err := ReadDocs(strings.NewReader(in))
		if err == nil && len(got) > strings.Count(in, "\n")+1 {
			t.Fatalf("%d docs from %d lines", len(got), strings.Count(in, "\n")+1)
		}
	})
}

func TestModes(t *testing.T) {
	s := New(Options{Docs: docs, SlowDelay: time.Millisecond})
	defer s.Close()
	endpoints := map[string]string{
		"ddg":     s.DuckDuckGoURL() + "?q=go",
		"searxng": s.URL() + "/search?q=go&format=json",
		"brave":   s.BraveURL() + "?q=go",
	}
	tests := []struct {
		mode   Mode
		status map[string]int
		marker map[string]string // in the body
	}{
		{ModeOK, map[string]int{"ddg": 200, "searxng": 200, "brave": 200},
			map[string]string{"ddg": "uddg=https%3A%2F%2Fgo.dev%2F", "searxng": `"url":"https://go.dev/"`, "brave": `"url":"https://go.dev/"`}},
		{ModeBlocked429, map[string]int{"ddg": 429, "searxng": 429, "brave": 429}, nil},
		{ModeBlocked403, map[string]int{"ddg": 403, "searxng": 403, "brave": 403}, nil},
		{ModeBlocked202, map[string]int{"ddg": 202, "searxng": 202, "brave": 202}, map[string]string{"ddg": "anomaly-modal"}},
		{ModeAnomaly, map[string]int{"ddg": 200}, map[string]string{"ddg": "anomaly.js"}},
		{ModeSlow, map[string]int{"ddg": 200, "searxng": 200}, map[string]string{"ddg": "go.dev"}},
		{ModeEmpty, map[string]int{"ddg": 200, "searxng": 200, "brave": 200},
			map[string]string{"ddg": `class="no-results"`, "searxng": `"results":[]`, "brave": `"results":[]`}},
		{ModeJSONDisabled, map[string]int{"ddg": 200, "searxng": 403, "brave": 200}, nil},
		{ModeUnresponsive, map[string]int{"searxng": 200}, map[string]string{"searxng": `"unresponsive_engines":[["google","timeout"],["bing","CAPTCHA"]]`}},
		{ModeServerError, map[string]int{"ddg": 500, "searxng": 500, "brave": 500}, nil},
		{ModeTruncated, map[string]int{"ddg": 200, "searxng": 200}, map[string]string{"ddg": "go.dev", "searxng": `"padding":"`}},
		{ModeGzipBomb, map[string]int{"ddg": 200, "searxng": 200}, map[string]string{"ddg": "go.dev", "searxng": `"padding":"`}},
	}
	for _, tt := range tests {
		s.SetMode(tt.mode)
		for name, status := range tt.status {
			got, body := get(t, endpoints[name], nil)
			if got != status {
				t.Errorf("%s %s: status %d, want %d", tt.mode, name, got, status)
			}
			if m := tt.marker[name]; m != "" && !strings.Contains(body, m) {
				t.Errorf("%s %s: body lacks %q:\n%s", tt.mode, name, m, body)
			}
		}
	}
	if len(tests) != len(Modes()) {
		t.Errorf("%d modes tested, %d exist", len(tests), len(Modes()))
	}
}

func TestParseMode(t *testing.T) {
	for _, m := range Modes() {
		if got, err := ParseMode(string(m)); got != m || err != nil {
			t.Errorf("ParseMode(%q) = %q, %v", m, got, err)
		}
	}
	if _, err := ParseMode("sideways"); err == nil || !strings.Contains(err.Error(), "blocked-429") {
		t.Errorf("unknown mode error %v should list the modes", err)
	}
}

func TestCountsAndControl(t *testing.T) {
	s := New(Options{Docs: docs})
	defer s.Close()
	get(t, s.DuckDuckGoURL()+"?q=first", nil)
	get(t, s.URL()+"/search?q=second&format=json", http.Header{"User-Agent": {"tester/1"}})
	get(t, s.DocURL(3), nil)
	get(t, s.URL()+"/elsewhere", nil)
	if s.Requests() != 4 || !slices.Equal(s.Queries(), []string{"first", "second"}) {
		t.Errorf("requests %d queries %v", s.Requests(), s.Queries())
	}
	if ua := s.LastHeader().Get("User-Agent"); ua == "tester/1" {
		t.Errorf("LastHeader is not the last request's")
	}

	status, body := get(t, s.URL()+"/_fakesearch/mode?set=blocked-429", nil)
	if status != 200 || s.Mode() != ModeBlocked429 || !strings.Contains(body, "blocked-429") {
		t.Errorf("set mode: %d %s, mode %s", status, body, s.Mode())
	}
	if status, _ := get(t, s.URL()+"/_fakesearch/mode?set=nope", nil); status != 400 {
		t.Errorf("bad mode: status %d", status)
	}
	_, body = get(t, s.URL()+"/_fakesearch/requests", nil)
	var counts struct {
		Requests int      `json:"requests"`
		Queries  []string `json:"queries"`
	}
	if err := json.Unmarshal([]byte(body), &counts); err != nil || counts.Requests != 4 || len(counts.Queries) != 2 {
		t.Errorf("requests endpoint: %s (%v)", body, err)
	}
	if s.Requests() != 4 {
		t.Errorf("control requests were counted: %d", s.Requests())
	}

	s.SetMode(ModeOK)
	s.FailNext(1)
	if status, _ := get(t, s.URL()+"/search?q=x&format=json", nil); status != 503 {
		t.Errorf("FailNext: status %d", status)
	}
	if status, _ := get(t, s.URL()+"/search?q=x&format=json", nil); status != 200 {
		t.Errorf("after FailNext: status %d", status)
	}
	if status, _ := get(t, s.URL()+"/search?q=x", nil); status != 400 {
		t.Errorf("without format=json: status %d", status)
	}
}

func TestGeneratedPages(t *testing.T) {
	s := New(Options{Docs: docs, Ads: true, SelfLinks: true, SnippetChars: 12, BraveKey: "secret"})
	defer s.Close()

	_, page := get(t, s.DuckDuckGoURL()+"?q=programming", nil)
	ad := strings.Index(page, "result--ad")
	goRes := strings.Index(page, "uddg=https%3A%2F%2Fgo.dev%2F")
	if ad < 0 || goRes < ad || !strings.Contains(page, "Go is a ...") || strings.Contains(page, "Gopher") {
		t.Errorf("DuckDuckGo page: ad first, Go result with cut snippet, no gopher expected:\n%s", page)
	}

	_, body := get(t, s.URL()+"/search?q=local+page&format=json", nil)
	var ans struct {
		Results []struct{ URL string } `json:"results"`
	}
	if err := json.Unmarshal([]byte(body), &ans); err != nil {
		t.Fatal(err)
	}
	if len(ans.Results) != 2 || ans.Results[0].URL != s.URL()+"/preferences" || ans.Results[1].URL != s.DocURL(3) {
		t.Errorf("SearXNG results %v, want the self link then the served document", ans.Results)
	}

	if status, _ := get(t, s.BraveURL()+"?q=go", nil); status != 401 {
		t.Errorf("Brave without the key: %d", status)
	}
	status, body := get(t, s.BraveURL()+"?q=go+rust&count=1", http.Header{"X-Subscription-Token": {"secret"}})
	if status != 200 || strings.Count(body, `"url"`) != 1 || !strings.Contains(body, "<strong>Go</strong>") {
		t.Errorf("Brave with the key: %d %s", status, body)
	}

	status, page = get(t, s.DocURL(3), nil)
	if status != 200 || !strings.Contains(page, "<main>") || !strings.Contains(page, "<p>Second paragraph.</p>") {
		t.Errorf("document page: %d %s", status, page)
	}
	if status, _ := get(t, s.DocURL(99), nil); status != 404 {
		t.Errorf("missing document: %d", status)
	}
}

// TestServesCapturedPage serves a DuckDuckGo page verbatim: the project's
// own (sources/web/testdata) always, the real capture where shared/data
// exists.
func TestServesCapturedPage(t *testing.T) {
	pages := []string{filepath.Join("..", "..", "..", "sources", "web", "testdata", "ddg_results.html")}
	if p, ok := findSharedData("web-fixtures/lofi_duckduckgo_html.html"); ok {
		pages = append(pages, p)
	} else {
		t.Log("shared/data/web-fixtures not found: serving the project's own page only")
	}
	for _, p := range pages {
		t.Run(filepath.Base(p), func(t *testing.T) { servesPage(t, p) })
	}
}

func servesPage(t *testing.T, p string) {
	page, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	s := New(Options{DuckDuckGoPage: page})
	defer s.Close()
	_, body := get(t, s.DuckDuckGoURL()+"?q=anything", nil)
	if body != string(page) {
		t.Error("the captured page was not served verbatim")
	}
	s.SetMode(ModeEmpty)
	if _, body := get(t, s.DuckDuckGoURL()+"?q=anything", nil); !strings.Contains(body, "no-results") {
		t.Error("empty mode served the captured page")
	}
}

func TestCloseEndsSlowAnswers(t *testing.T) {
	s := New(Options{Docs: docs, Mode: ModeSlow, SlowDelay: time.Hour})
	errc := make(chan error, 1)
	go func() {
		resp, err := http.Get(s.URL() + "/search?q=go&format=json")
		if err == nil {
			resp.Body.Close()
		}
		errc <- err
	}()
	for s.Requests() == 0 {
		time.Sleep(time.Millisecond)
	}
	s.Close() // would block for an hour if the slow answer ignored it
	<-errc
}

func TestListen(t *testing.T) {
	s, err := Listen("127.0.0.1:0", Options{Docs: docs})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	u, err := url.Parse(s.URL())
	if err != nil || u.Hostname() != "127.0.0.1" || u.Port() == "0" {
		t.Fatalf("URL %q", s.URL())
	}
	if _, err := Listen(u.Host, Options{}); err == nil {
		t.Error("a second server on the same port started")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.URL()+"/search?q=go&format=json", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("%v %v", resp, err)
	}
	resp.Body.Close()
}

// findSharedData walks up from the package folder to shared/data/<rel>.
func findSharedData(rel string) (string, bool) {
	dir, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for {
		p := filepath.Join(dir, "shared", "data", filepath.FromSlash(rel))
		if _, err := os.Stat(p); err == nil {
			return p, true
		} else if !errors.Is(err, os.ErrNotExist) {
			return "", false
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}
