package fakesearch

import (
	"fmt"
	"hash/fnv"
	"html"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/prefrag/prefrag/internal/searxwire"
)

// hits ranks the documents for query, giving server-served documents their
// /doc/<n> URL.
func (s *Server) hits(query string, n int, mode Mode) []Hit {
	if mode == ModeEmpty {
		return nil
	}
	hits := Rank(s.opts.Docs, query, n)
	for i := range hits {
		if hits[i].URL == "" {
			hits[i].URL = s.DocURL(hits[i].Index)
		}
	}
	return hits
}

// DocURL is where the server serves document i when it has no URL of its
// own.
func (s *Server) DocURL(i int) string {
	return s.srv.URL + DocPathPrefix + strconv.Itoa(i)
}

// serveDuckDuckGo answers like html.duckduckgo.com/html/.
func (s *Server) serveDuckDuckGo(w http.ResponseWriter, query string, mode Mode) {
	if mode == ModeOK && s.opts.DuckDuckGoPage != nil {
		writeHTML(w, http.StatusOK, s.opts.DuckDuckGoPage)
		return
	}
	var b strings.Builder
	esc := html.EscapeString
	fmt.Fprintf(&b, `<!DOCTYPE html>
<html xmlns="http://www.w3.org/1999/xhtml">
<head>
  <meta http-equiv="content-type" content="text/html; charset=UTF-8" />
  <title>%s at DuckDuckGo</title>
</head>
<body class="body--html">
  <div class="serp__results">
  <div id="links" class="results">
`, esc(query))
	hits := s.hits(query, s.opts.PageSize, mode)
	if len(hits) > 0 && s.opts.Ads {
		b.WriteString(`    <div class="result results_links results_links_deep result--ad ">
      <div class="links_main links_deep result__body">
        <h2 class="result__title">
          <a rel="nofollow" class="result__a" href="https://duckduckgo.com/y.js?ad_domain=ads.example&amp;ad_provider=fake&amp;u3=https%3A%2F%2Fads.example%2Fbuy">Buy everything - Ads Example</a>
          <span class="badge--ad">Ad</span>
        </h2>
        <a class="result__snippet" href="https://duckduckgo.com/y.js?ad_domain=ads.example">The best deals, sponsored.</a>
      </div>
    </div>
`)
	}
	for _, h := range hits {
		link := "//duckduckgo.com/l/?uddg=" + url.QueryEscape(h.URL) + "&rut=" + rut(h.URL)
		fmt.Fprintf(&b, `    <div class="result results_links results_links_deep web-result ">
      <div class="links_main links_deep result__body">
        <h2 class="result__title">
          <a rel="nofollow" class="result__a" href="%[1]s">%[2]s</a>
        </h2>
        <div class="result__extras"><div class="result__extras__url">
          <a class="result__url" href="%[1]s">%[3]s</a>
        </div></div>
        <a class="result__snippet" href="%[1]s">%[4]s</a>
        <div class="clear"></div>
      </div>
    </div>
`, esc(link), esc(h.Title), esc(displayURL(h.URL)), esc(snippet(h.Text, s.opts.SnippetChars)))
	}
	if len(hits) == 0 {
		b.WriteString("    <div class=\"no-results\">No results.</div>\n")
	}
	b.WriteString("  </div>\n  </div>\n</body>\n</html>\n")
	writeHTML(w, http.StatusOK, []byte(b.String()))
}

// rut stands in for DuckDuckGo's per-link tracking hash.
func rut(u string) string {
	h := fnv.New64a()
	h.Write([]byte(u))
	return fmt.Sprintf("%016x", h.Sum64())
}

func displayURL(u string) string {
	return strings.TrimPrefix(strings.TrimPrefix(u, "https://"), "http://")
}

// serveSearXNG answers like a SearXNG instance's /search?format=json.
func (s *Server) serveSearXNG(w http.ResponseWriter, r *http.Request, query string, mode Mode) {
	if r.FormValue("format") != "json" {
		http.Error(w, "fakesearch serves SearXNG's format=json only", http.StatusBadRequest)
		return
	}
	results := []searxwire.Result{}
	hits := s.hits(query, s.opts.PageSize, mode)
	if s.opts.SelfLinks && len(hits) > 0 {
		results = append(results, searxwire.Result{
			URL: s.srv.URL + "/preferences", Title: "Preferences - SearXNG", Content: "Change the instance's settings.",
			Engine: "searxng", Engines: []string{"searxng"}, Positions: []int{1}, Score: 9, Category: "general",
		})
	}
	for i, h := range hits {
		results = append(results, searxwire.Result{
			URL: h.URL, Title: h.Title, Content: snippet(h.Text, s.opts.SnippetChars),
			Engine: "fakesearch", Engines: []string{"fakesearch"}, Positions: []int{i + 1},
			Score: float64(h.Overlap), Category: "general",
		})
	}
	var unresponsive [][2]string
	if mode == ModeUnresponsive {
		unresponsive = [][2]string{{"google", "timeout"}, {"bing", "CAPTCHA"}}
	}
	writeJSON(w, http.StatusOK, searxwire.NewAnswer(query, results, unresponsive))
}

// serveBrave answers like the Brave Search API's web search.
func (s *Server) serveBrave(w http.ResponseWriter, r *http.Request, query string, mode Mode) {
	if s.opts.BraveKey != "" && r.Header.Get("X-Subscription-Token") != s.opts.BraveKey {
		writeJSON(w, http.StatusUnauthorized, map[string]any{
			"type":  "ErrorResponse",
			"error": map[string]any{"code": "SUBSCRIPTION_TOKEN_INVALID", "detail": "The provided subscription token is invalid.", "status": 401},
		})
		return
	}
	n := 20
	if c, err := strconv.Atoi(r.FormValue("count")); err == nil && c > 0 && c < n {
		n = c
	}
	if s.opts.PageSize < n {
		n = s.opts.PageSize
	}
	results := []map[string]any{}
	for _, h := range s.hits(query, n, mode) {
		results = append(results, map[string]any{
			"title":       h.Title,
			"url":         h.URL,
			"description": highlight(snippet(h.Text, s.opts.SnippetChars), query),
			"language":    "en",
		})
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"type":  "search",
		"query": map[string]any{"original": query},
		"web":   map[string]any{"type": "search", "results": results},
	})
}

// highlight wraps query terms in <strong>, as Brave's descriptions do.
func highlight(text, query string) string {
	terms := make(map[string]bool)
	for _, t := range words(query) {
		terms[t] = true
	}
	fields := strings.Fields(text)
	for i, f := range fields {
		if terms[strings.ToLower(strings.Trim(f, ".,;:!?\"'()"))] {
			fields[i] = "<strong>" + html.EscapeString(f) + "</strong>"
		} else {
			fields[i] = html.EscapeString(f)
		}
	}
	return strings.Join(fields, " ")
}

// serveDoc serves document n as a web page with navigation and a footer
// around its <main> text.
func (s *Server) serveDoc(w http.ResponseWriter, r *http.Request) {
	i, err := strconv.Atoi(strings.TrimPrefix(r.URL.Path, DocPathPrefix))
	if err != nil || i < 0 || i >= len(s.opts.Docs) {
		http.NotFound(w, r)
		return
	}
	d := s.opts.Docs[i]
	var b strings.Builder
	fmt.Fprintf(&b, `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>%[1]s</title><script>var tracking = "script text is not content";</script></head>
<body>
<nav><a href="/">Home</a> <a href="/about">About</a></nav>
<main>
<h1>%[1]s</h1>
`, html.EscapeString(d.Title))
	for _, p := range strings.Split(d.Text, "\n") {
		if p = strings.TrimSpace(p); p != "" {
			fmt.Fprintf(&b, "<p>%s</p>\n", html.EscapeString(p))
		}
	}
	b.WriteString("</main>\n<footer>fakesearch document page</footer>\n</body>\n</html>\n")
	writeHTML(w, http.StatusOK, []byte(b.String()))
}

// generatedAnomalyPage carries the markers of DuckDuckGo's bot challenge:
// the anomaly modal, the challenge form posting to anomaly.js, its title.
const generatedAnomalyPage = `<!DOCTYPE html>
<html lang="en">
<head><meta charset="UTF-8"><title>DuckDuckGo</title></head>
<body>
<form id="challenge-form" action="//duckduckgo.com/anomaly.js?sv=html&amp;cc=botnet" method="POST">
  <div class="anomaly-modal__mask">
    <div class="anomaly-modal__modal" data-testid="anomaly-modal">
      <div class="anomaly-modal__title">Unfortunately, bots use DuckDuckGo too.</div>
      <div class="anomaly-modal__description">Please complete the following challenge to confirm this search was made by a human.</div>
    </div>
  </div>
</form>
</body>
</html>
`
