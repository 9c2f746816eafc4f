package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/prefrag/prefrag/sources"
)

// braveCount is how many results are asked for: the API's maximum, so one
// cached answer serves any k.
const braveCount = 20

// brave reads the Brave Search API (web search endpoint). The key goes in
// the X-Subscription-Token header and nowhere else.
type brave struct {
	key Secret
}

func (b brave) newRequest(ctx context.Context, endpoint *url.URL, query string) (*http.Request, error) {
	u := *endpoint
	q := u.Query()
	q.Set("q", query)
	q.Set("count", fmt.Sprint(braveCount))
	u.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("X-Subscription-Token", b.key.Reveal())
	return req, nil
}

func (brave) statusError(name string, status int, _ []byte) error {
	switch status {
	case http.StatusOK:
		return nil
	case http.StatusTooManyRequests:
		return &sources.BlockedError{Engine: name, Status: status, Reason: "HTTP 429: rate limit or monthly quota of the API plan reached"}
	case http.StatusUnauthorized, http.StatusForbidden:
		return &sources.UnavailableError{Source: name, Err: fmt.Errorf(
			"the Brave Search API rejected the API key (HTTP %d): check the key and its plan", status)}
	case http.StatusUnprocessableEntity:
		return &sources.UnavailableError{Source: name, Err: fmt.Errorf(
			"the Brave Search API refused the request (HTTP 422): the key or the query is not valid for this plan")}
	}
	return nil
}

func (brave) parse(_ string, body []byte) (parsedPage, error) {
	return parseBrave(body)
}

type braveAnswer struct {
	Type string `json:"type"`
	Web  *struct {
		Results []json.RawMessage `json:"results"`
	} `json:"web"`
}

type braveResult struct {
	Title       string `json:"title"`
	URL         string `json:"url"`
	Description string `json:"description"`
}

// parseBrave reads a web search answer. Titles and descriptions carry
// <strong> highlights, which are stripped. An answer without a "web"
// section has no web results.
func parseBrave(body []byte) (parsedPage, error) {
	var ans braveAnswer
	if err := json.Unmarshal(body, &ans); err != nil {
		return parsedPage{}, fmt.Errorf("%w: the answer is not Brave Search JSON (%v)", errUnrecognised, err)
	}
	if ans.Type != "" && ans.Type != "search" {
		return parsedPage{}, fmt.Errorf("%w: unexpected Brave answer type %q", errUnrecognised, cleanLine(ans.Type))
	}
	var page parsedPage
	if ans.Web == nil {
		return page, nil
	}
	seen := make(map[string]bool)
	for _, raw := range ans.Web.Results {
		var r braveResult
		if json.Unmarshal(raw, &r) != nil {
			continue
		}
		u, err := url.Parse(strings.TrimSpace(r.URL))
		if err != nil {
			continue
		}
		target, _, ok := absoluteHTTP(u)
		if !ok || seen[target] {
			continue
		}
		seen[target] = true
		res := result{URL: target, Title: stripTags(r.Title), Snippet: stripTags(r.Description)}
		if res.Title == "" {
			res.Title = target
		}
		page.results = append(page.results, res)
	}
	return page, nil
}
