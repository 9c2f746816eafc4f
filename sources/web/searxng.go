package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/prefrag/prefrag/sources"
)

// ErrSearXNGJSONDisabled is matched when a SearXNG instance refuses JSON
// output (HTTP 403), a common misconfiguration. The error also matches
// sources.ErrUnavailable.
var ErrSearXNGJSONDisabled = errors.New("the SearXNG instance does not serve JSON")

// UnresponsiveEngine is one of the engines a SearXNG instance reported as
// failing for a query (its unresponsive_engines list). It is reported,
// never turned into a document.
type UnresponsiveEngine struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// searXNG reads a SearXNG instance's JSON API:
// GET <instance>/search?q=<query>&format=json.
type searXNG struct {
	// self is the instance's host (with its port) for dropping results that
	// point back at the instance.
	self string
}

// newSearXNG appends "/search" to the instance's endpoint unless there.
func newSearXNG(s *settings) searXNG {
	if !strings.HasSuffix(s.endpoint.Path, "/search") {
		s.endpoint.Path = strings.TrimRight(s.endpoint.Path, "/") + "/search"
		s.endpoint.RawPath = ""
	}
	return searXNG{self: hostWithPort(s.endpoint)}
}

func (searXNG) newRequest(ctx context.Context, endpoint *url.URL, query string) (*http.Request, error) {
	u := *endpoint
	q := u.Query()
	q.Set("q", query)
	q.Set("format", "json")
	u.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	return req, nil
}

func (searXNG) statusError(name string, status int, _ []byte) error {
	switch status {
	case http.StatusOK:
		return nil
	case http.StatusTooManyRequests:
		return &sources.BlockedError{Engine: name, Status: status, Reason: "HTTP 429: the instance's rate limiter refused the request"}
	case http.StatusForbidden:
		return &sources.UnavailableError{Source: name, Err: fmt.Errorf(
			"%w (HTTP 403): enable it by adding json to search.formats in the instance's settings.yml", ErrSearXNGJSONDisabled)}
	}
	return nil
}

func (s searXNG) parse(name string, body []byte) (parsedPage, error) {
	return parseSearXNG(body, s.self)
}

// searxAnswer is the part of SearXNG's JSON answer we read. Results are
// decoded one by one so one odd entry does not lose the others.
type searxAnswer struct {
	Results             *[]json.RawMessage `json:"results"`
	UnresponsiveEngines []json.RawMessage  `json:"unresponsive_engines"`
}

type searxResult struct {
	URL     string  `json:"url"`
	Title   string  `json:"title"`
	Content string  `json:"content"`
	Score   float64 `json:"score"`
}

// parseSearXNG reads a JSON answer. Results without an absolute http(s)
// URL, duplicates and results on the instance's own host (self) are
// dropped; unresponsive engines are returned apart.
func parseSearXNG(body []byte, self string) (parsedPage, error) {
	var ans searxAnswer
	if err := json.Unmarshal(body, &ans); err != nil {
		return parsedPage{}, fmt.Errorf("%w: the answer is not SearXNG JSON (%v); check the instance URL", errUnrecognised, err)
	}
	if ans.Results == nil {
		return parsedPage{}, fmt.Errorf("%w: the JSON answer has no results list; check the instance URL", errUnrecognised)
	}
	var page parsedPage
	seen := make(map[string]bool)
	for _, raw := range *ans.Results {
		var r searxResult
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
		if self != "" && strings.EqualFold(hostWithPort(u), self) {
			continue
		}
		seen[target] = true
		res := result{URL: target, Title: cleanLine(r.Title), Snippet: cleanLine(r.Content)}
		if r.Score > 0 {
			res.Score = r.Score
		}
		if res.Title == "" {
			res.Title = target
		}
		page.results = append(page.results, res)
	}
	for _, raw := range ans.UnresponsiveEngines {
		if ue, ok := parseUnresponsive(raw); ok {
			page.unresponsive = append(page.unresponsive, ue)
		}
	}
	return page, nil
}

// parseUnresponsive accepts the shapes SearXNG versions use: a pair
// ["engine", "reason"], a bare name, or an object.
func parseUnresponsive(raw json.RawMessage) (UnresponsiveEngine, bool) {
	var pair []any
	if json.Unmarshal(raw, &pair) == nil && len(pair) > 0 {
		ue := UnresponsiveEngine{Name: cleanLine(fmt.Sprint(pair[0]))}
		if len(pair) > 1 {
			ue.Reason = cleanLine(fmt.Sprint(pair[1]))
		}
		return ue, ue.Name != ""
	}
	var name string
	if json.Unmarshal(raw, &name) == nil {
		name = cleanLine(name)
		return UnresponsiveEngine{Name: name}, name != ""
	}
	var obj struct {
		Engine string `json:"engine"`
		Name   string `json:"name"`
		Error  string `json:"error"`
		Reason string `json:"reason"`
	}
	if json.Unmarshal(raw, &obj) == nil {
		ue := UnresponsiveEngine{Name: cleanLine(obj.Engine + obj.Name), Reason: cleanLine(obj.Error + obj.Reason)}
		return ue, ue.Name != ""
	}
	return UnresponsiveEngine{}, false
}

// hostWithPort is u's lower-cased host with its port made explicit, so
// "https://a.org" and "https://a.org:443" compare equal.
func hostWithPort(u *url.URL) string {
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if port == "" {
		switch u.Scheme {
		case "http":
			port = "80"
		case "https":
			port = "443"
		}
	}
	return net.JoinHostPort(host, port)
}
