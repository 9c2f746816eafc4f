package web

import (
	"net/url"
	"strings"
	"time"
)

// EngineSpec is one row of the web-engine table: what config, help text and
// construction need to know about an engine. Adding an engine is one file
// (its backend) and one row of engineTable.
type EngineSpec struct {
	// Name is the --web-engine value; the source is "web:<Name>".
	Name string
	// Title names the engine in help text and errors.
	Title string
	// DefaultURL is the endpoint when none is configured; "" means the
	// user must give one (URLFlag or URLSetting).
	DefaultURL string
	// URLSetting is the config-file key of the endpoint ("<name>_url");
	// URLFlag its command-line flag ("" when there is none); URLEnv its
	// environment variable ("" when there is none).
	URLSetting string
	URLFlag    string
	URLEnv     string
	// KeySetting is the config-file key of the API key ("" when the
	// engine needs none); KeyEnv the environment variables that may hold
	// it, the first set one wins.
	KeySetting string
	KeyEnv     []string
	// MinInterval is the default spacing of requests to its host.
	MinInterval time.Duration
	// backend builds the engine's request/answer handling; it may adjust
	// the endpoint (SearXNG appends "/search").
	backend func(s *settings) backend
}

// NeedsURL reports whether the engine has no default endpoint.
func (e EngineSpec) NeedsURL() bool { return e.DefaultURL == "" }

// NeedsKey reports whether the engine needs an API key.
func (e EngineSpec) NeedsKey() bool { return e.KeySetting != "" }

// engineTable lists the engines New accepts; the first is the default.
var engineTable = []EngineSpec{
	{
		Name: DuckDuckGo, Title: "DuckDuckGo (html endpoint)",
		DefaultURL: DefaultDuckDuckGoURL, URLSetting: "duckduckgo_url",
		MinInterval: DefaultDuckDuckGoInterval,
		backend:     func(*settings) backend { return duckDuckGo{} },
	},
	{
		Name: SearXNG, Title: "SearXNG (an instance's JSON API)",
		URLSetting: "searxng_url", URLFlag: "searxng-url", URLEnv: "PREFRAG_SEARXNG_URL",
		MinInterval: DefaultInterval,
		backend:     func(s *settings) backend { return newSearXNG(s) },
	},
	{
		Name: Brave, Title: "Brave Search API",
		DefaultURL: DefaultBraveURL, URLSetting: "brave_url",
		KeySetting: "brave_api_key", KeyEnv: []string{"PREFRAG_BRAVE_API_KEY", "BRAVE_API_KEY"},
		MinInterval: DefaultInterval,
		backend:     func(s *settings) backend { return brave{key: s.APIKey} },
	},
}

// Engines lists the web-engine table.
func Engines() []EngineSpec { return append([]EngineSpec(nil), engineTable...) }

// LookupEngine finds an engine by name (case and spaces ignored).
func LookupEngine(name string) (EngineSpec, bool) {
	name = strings.ToLower(strings.TrimSpace(name))
	for _, e := range engineTable {
		if e.Name == name {
			return e, true
		}
	}
	return EngineSpec{}, false
}

// EngineNames lists the engine names in table order.
func EngineNames() []string {
	out := make([]string, len(engineTable))
	for i, e := range engineTable {
		out[i] = e.Name
	}
	return out
}

// endpointURL parses an endpoint, accepting only http(s) with a host.
func endpointURL(raw string) (*url.URL, bool) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, false
	}
	return u, true
}
