// Package config resolves prefrag's settings: defaults, then the config file
// ($PREFRAG_CONFIG or $XDG_CONFIG_HOME/prefrag/config.toml), then the
// environment, then command-line flags — validated once.
package config

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/prefrag/prefrag/engine"
)

// DefaultModel is the reasoning model when none is configured: the paper's
// smallest open model (Llama3.1-8B-Instruct), as Ollama names it.
const DefaultModel = "llama3.1:8b"

// ErrConfig is matched by every configuration error.
var ErrConfig = errors.New("configuration")

// Config is everything a prefrag command may need.
type Config struct {
	// Home holds prefrag.db and corpora/ ($PREFRAG_HOME).
	Home string
	// File is the config file that was read ("" when none).
	File string
	// Settings of a run (the flags of `ask`).
	Settings engine.RunConfig
	// TUIAnswerStyle is the TUI's answer style (report by default).
	TUIAnswerStyle string
	SearXNGURL     string
	DuckDuckGoURL  string
	BraveURL       string
	// BraveAPIKey is a secret: never printed, logged or stored.
	BraveAPIKey string
	PromptsDir  string
	WebCacheTTL time.Duration
	WebAllow    []string
	WebDeny     []string
	WebTimeout  time.Duration
	// Offline answers web searches from the cache only.
	Offline bool
	// LLMTimeout bounds the wait for an LLM server's first byte and any
	// silence between two streamed chunks (llm_timeout, --llm-timeout).
	LLMTimeout time.Duration
	// MCPToken is the bearer token `prefrag mcp --http` requires (mcp_token,
	// PREFRAG_MCP_TOKEN, or its --token flag). A secret: never printed,
	// logged or stored.
	MCPToken string
	// RunTimeout bounds a whole run of ask or a TUI question, 0 for none
	// (run_timeout, --run-timeout).
	RunTimeout time.Duration
	// BM25Weight and VectorWeight weigh the legs of a hybrid search in
	// the reciprocal rank fusion (bm25_weight, vector_weight).
	BM25Weight, VectorWeight float64
	// FilePath is the config file looked for, found or not ("" when there
	// is no home to look in).
	FilePath string
	// MCPConfig is the file declaring MCP servers (mcp_config,
	// $PREFRAG_MCP_CONFIG); "" for mcp.json in the config folder.
	MCPConfig string
	// configDir is $XDG_CONFIG_HOME/prefrag (or ~/.config/prefrag).
	configDir string
	// Warnings are problems that do not stop a run (unknown keys in the
	// config file); the command line prints them on stderr.
	Warnings []string
	// origins says where each setting's value came from (by key); a
	// missing key is a default.
	origins map[string]Origin
	// webOther holds the endpoints and keys of web engines that have no
	// field above, by config-file key (see webSetting).
	webOther map[string]*string
}

// CorporaDir is where the Bleve indexes live.
func (c *Config) CorporaDir() string { return filepath.Join(c.Home, "corpora") }

// ExportsDir is the folder the workspace's export dialog proposes: in the
// data directory, so an export never lands in a folder being indexed.
func (c *Config) ExportsDir() string { return filepath.Join(c.Home, "exports") }

// DBPath is the SQLite database.
func (c *Config) DBPath() string { return filepath.Join(c.Home, "prefrag.db") }

// LogPath is the log file (never the TUI's stdout).
func (c *Config) LogPath() string { return filepath.Join(c.Home, "prefrag.log") }

// Env is the environment lookup (os.LookupEnv in production).
type Env func(string) (string, bool)

// Load applies defaults, the config file and the environment.
func Load(env Env) (*Config, error) {
	if env == nil {
		env = os.LookupEnv
	}
	c := defaults()
	home, err := dataHome(env)
	if err != nil {
		return nil, err
	}
	c.Home = home
	path, explicit := configPath(env)
	c.FilePath = path
	c.configDir = configDir(env)
	if path != "" {
		b, err := os.ReadFile(path)
		switch {
		case err == nil:
			c.File = path
			if err := c.applyFile(path, b, env); err != nil {
				return nil, err
			}
		case errors.Is(err, fs.ErrNotExist) && !explicit:
		case errors.Is(err, fs.ErrNotExist):
			return nil, fmt.Errorf("%w: PREFRAG_CONFIG names %s, which does not exist: create it (an empty file will do) or unset PREFRAG_CONFIG", ErrConfig, path)
		default:
			return nil, fmt.Errorf("%w: cannot read %s: %v", ErrConfig, path, err)
		}
	}
	c.applyEnv(env)
	return c, nil
}

// defaults is a Config holding every setting's default.
func defaults() *Config {
	c := &Config{Settings: engine.DefaultRunConfig(), origins: map[string]Origin{}}
	for _, st := range schema {
		if st.Default != nil {
			if err := assign(st.field(c), st.Default); err != nil {
				panic("config: default of " + st.Key + ": " + err.Error())
			}
		}
	}
	return c
}

// applyEnv applies the environment variables of the schema.
func (c *Config) applyEnv(env Env) {
	for _, st := range schema {
		for _, ev := range st.Env {
			v, ok := env(ev.Name)
			if !ok || v == "" || ev.Weak && c.Origin(st.Key).Kind != FromDefault || ev.when != nil && !ev.when(c) {
				continue
			}
			if ev.normalise != nil {
				v = ev.normalise(v)
			}
			*st.field(c).(*string) = v
			c.origins[st.Key] = Origin{Kind: FromEnv, Name: ev.Name}
			break
		}
	}
}

func dataHome(env Env) (string, error) {
	if v, ok := env("PREFRAG_HOME"); ok && v != "" {
		return filepath.Abs(v)
	}
	if v, ok := env("XDG_DATA_HOME"); ok && v != "" {
		return filepath.Join(v, "prefrag"), nil
	}
	h, ok := env("HOME")
	if !ok || h == "" {
		var err error
		if h, err = os.UserHomeDir(); err != nil {
			return "", fmt.Errorf("%w: set PREFRAG_HOME (no home directory: %v)", ErrConfig, err)
		}
	}
	return filepath.Join(h, ".local", "share", "prefrag"), nil
}

// configDir is prefrag's folder of the user's configuration.
func configDir(env Env) string {
	if v, ok := env("XDG_CONFIG_HOME"); ok && v != "" {
		return filepath.Join(v, "prefrag")
	}
	if h, ok := env("HOME"); ok && h != "" {
		return filepath.Join(h, ".config", "prefrag")
	}
	return ""
}

// MCPConfigPath is the file declaring MCP servers: the one mcp_config (or
// $PREFRAG_MCP_CONFIG) names, which must exist; else mcp.json in the
// config folder, which may be missing (optional). "" when there is none to
// look for.
func (c *Config) MCPConfigPath() (path string, optional bool) {
	if c.MCPConfig != "" {
		return c.MCPConfig, false
	}
	if c.configDir == "" {
		return "", true
	}
	return filepath.Join(c.configDir, "mcp.json"), true
}

func configPath(env Env) (path string, explicit bool) {
	if v, ok := env("PREFRAG_CONFIG"); ok && v != "" {
		return v, true
	}
	if v, ok := env("XDG_CONFIG_HOME"); ok && v != "" {
		return filepath.Join(v, "prefrag", "config.toml"), false
	}
	if h, ok := env("HOME"); ok && h != "" {
		return filepath.Join(h, ".config", "prefrag", "config.toml"), false
	}
	return "", false
}

// expandHome turns a leading "~/" into the user's home folder (a config
// file is not read by a shell).
func expandHome(p string, env Env) string {
	rest, ok := strings.CutPrefix(p, "~/")
	if !ok && p != "~" {
		return p
	}
	h, found := env("HOME")
	if !found || h == "" {
		var err error
		if h, err = os.UserHomeDir(); err != nil {
			return p
		}
	}
	return filepath.Join(h, rest)
}

// NormaliseHost turns OLLAMA_HOST forms ("0.0.0.0", "host:port",
// "https://h") into a URL a client can dial.
func NormaliseHost(v, defaultPort string) string {
	v = strings.TrimSpace(v)
	scheme := "http"
	if i := strings.Index(v, "://"); i >= 0 {
		scheme, v = v[:i], v[i+3:]
	}
	v = strings.TrimRight(v, "/")
	host, port, err := net.SplitHostPort(v)
	if err != nil {
		host, port = v, defaultPort
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	return (&url.URL{Scheme: scheme, Host: net.JoinHostPort(host, port)}).String()
}
