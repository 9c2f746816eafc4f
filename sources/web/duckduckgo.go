package web

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"golang.org/x/net/html"

	"github.com/prefrag/prefrag/sources"
)

// duckDuckGo reads the html endpoint (html.duckduckgo.com/html/), the
// JavaScript-free result page.
type duckDuckGo struct{}

func (duckDuckGo) newRequest(ctx context.Context, endpoint *url.URL, query string) (*http.Request, error) {
	u := *endpoint
	q := u.Query()
	q.Set("q", query)
	u.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "text/html,application/xhtml+xml")
	req.Header.Set("Accept-Language", "en-US,en;q=0.8")
	return req, nil
}

// statusError: DuckDuckGo answers a rate-limited or suspected bot with 202
// (and a challenge page), 403, 418 or 429.
func (duckDuckGo) statusError(name string, status int, body []byte) error {
	switch status {
	case http.StatusOK:
		return nil
	case http.StatusAccepted, http.StatusForbidden, http.StatusTeapot, http.StatusTooManyRequests:
		reason := fmt.Sprintf("HTTP %d", status)
		if isChallengePage(body) {
			reason += " with a bot-challenge page"
		}
		return &sources.BlockedError{Engine: name, Status: status, Reason: reason}
	}
	return nil
}

func (duckDuckGo) parse(name string, body []byte) (parsedPage, error) {
	page, err := parseDuckDuckGo(body)
	if err != nil {
		return parsedPage{}, err
	}
	if page.challenge {
		return parsedPage{}, &sources.BlockedError{Engine: name, Reason: "bot-challenge page (anomaly) instead of results"}
	}
	if len(page.results) == 0 && !page.recognised {
		return parsedPage{}, fmt.Errorf("%w: the answer is not a DuckDuckGo result page (layout changed, or the URL is not the html endpoint)", errUnrecognised)
	}
	return parsedPage{results: page.results}, nil
}

// ddgPage is what a DuckDuckGo html page holds.
type ddgPage struct {
	results []result
	// ads counts advertisements dropped.
	ads int
	// challenge is set for a bot-challenge ("anomaly") page.
	challenge bool
	// recognised is set when the page has a result list or a "no
	// results" notice, so an empty list is a real empty answer.
	recognised bool
}

// parseDuckDuckGo extracts organic results from an html-endpoint page.
// Ads (result--ad, badge--ad, y.js redirects) are dropped, redirect links
// unwrapped, and text cleaned of control characters.
func parseDuckDuckGo(body []byte) (ddgPage, error) {
	doc, err := html.Parse(bytes.NewReader(body))
	if err != nil {
		return ddgPage{}, fmt.Errorf("%w: %v", errUnrecognised, err)
	}
	var page ddgPage
	seen := make(map[string]bool)
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			if isChallengeElement(n) {
				page.challenge = true
			}
			if attr(n, "id") == "links" || hasClass(n, "results") || hasClass(n, "serp__results") || hasClass(n, "no-results") {
				page.recognised = true
			}
			if hasClass(n, "result") || hasClass(n, "web-result") {
				page.recognised = true
				r, ad, ok := parseDuckDuckGoResult(n)
				switch {
				case ad:
					page.ads++
				case ok && !seen[r.URL]:
					seen[r.URL] = true
					page.results = append(page.results, r)
				}
				return
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return page, nil
}

// parseDuckDuckGoResult reads one result block.
func parseDuckDuckGoResult(n *html.Node) (r result, ad, ok bool) {
	ad = hasClass(n, "result--ad")
	var title, snippet, shown *html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch {
			case hasClass(n, "badge--ad") || hasClass(n, "result__ad"):
				ad = true
			case title == nil && hasClass(n, "result__a"):
				title = n
			case snippet == nil && hasClass(n, "result__snippet"):
				snippet = n
			case shown == nil && hasClass(n, "result__url"):
				shown = n
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	if ad || title == nil {
		return result{}, ad, false
	}
	target, isAd, ok := unwrapDuckDuckGoLink(attr(title, "href"))
	if !ok && shown != nil && !isAd {
		target, isAd, ok = unwrapDuckDuckGoLink(attr(shown, "href"))
	}
	if isAd {
		return result{}, true, false
	}
	if !ok {
		return result{}, false, false
	}
	r = result{URL: target, Title: cleanLine(textOf(title))}
	if snippet != nil {
		r.Snippet = cleanLine(textOf(snippet))
	}
	if r.Title == "" {
		r.Title = target
	}
	return r, false, true
}

// unwrapDuckDuckGoLink turns a result href into the page's own URL.
// DuckDuckGo wraps organic links as //duckduckgo.com/l/?uddg=<url>&rut=…
// and ads as duckduckgo.com/y.js?…; direct http(s) links pass unchanged.
// ok is false for anything that is not an absolute http(s) URL in the
// end; ad is true for ad redirects.
func unwrapDuckDuckGoLink(href string) (target string, ad, ok bool) {
	href = strings.TrimSpace(href)
	switch {
	case strings.HasPrefix(href, "//"):
		href = "https:" + href
	case strings.HasPrefix(href, "/"):
		href = "https://duckduckgo.com" + href
	}
	u, err := url.Parse(href)
	if err != nil {
		return "", false, false
	}
	if isDuckDuckGoHost(u.Hostname()) {
		switch strings.TrimSuffix(u.Path, "/") {
		case "/y.js":
			return "", true, false
		case "/l":
			inner := u.Query().Get("uddg")
			iu, err := url.Parse(inner)
			if err != nil {
				return "", false, false
			}
			if isDuckDuckGoHost(iu.Hostname()) && strings.TrimSuffix(iu.Path, "/") == "/y.js" {
				return "", true, false
			}
			return absoluteHTTP(iu)
		}
		return "", false, false
	}
	return absoluteHTTP(u)
}

func isDuckDuckGoHost(host string) bool {
	host = strings.ToLower(host)
	return host == "duckduckgo.com" || strings.HasSuffix(host, ".duckduckgo.com")
}

// absoluteHTTP accepts only absolute http(s) URLs with a host and returns
// them in canonical form.
func absoluteHTTP(u *url.URL) (string, bool, bool) {
	if (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" || u.User != nil {
		return "", false, false
	}
	return escapeURL(u.String()), false, true
}

// escapeURL percent-encodes the bytes a URL must not carry raw: controls,
// spaces and everything outside ASCII (url.URL.String keeps a raw query's
// bytes as they came, invalid UTF-8 included).
func escapeURL(s string) string {
	clean := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c >= 0x7f {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f {
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// isChallengeElement spots DuckDuckGo's bot challenge: the anomaly modal,
// the challenge form posting to anomaly.js, or a captcha widget.
func isChallengeElement(n *html.Node) bool {
	if hasClassPrefix(n, "anomaly-modal") || attr(n, "id") == "challenge-form" {
		return true
	}
	if n.Data == "form" && strings.Contains(attr(n, "action"), "anomaly.js") {
		return true
	}
	return hasClass(n, "g-recaptcha") || hasClass(n, "h-captcha") || hasClass(n, "cf-turnstile")
}

// isChallengePage is the cheap byte-level test used on refused answers.
func isChallengePage(body []byte) bool {
	return bytes.Contains(body, []byte("anomaly-modal")) ||
		bytes.Contains(body, []byte("anomaly.js")) ||
		bytes.Contains(body, []byte("bots use DuckDuckGo too"))
}
