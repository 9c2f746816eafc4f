// Package config resolves prefrag's settings: defaults, then the config file
// ($PREFRAG_CONFIG or $XDG_CONFIG_HOME/prefrag/config.toml), then the
// environment, then command-line flags — validated once.
package config

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/llm"
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
	Settings engine.Settings
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
	// RunTimeout bounds a whole run of ask or a TUI question, 0 for none
	// (run_timeout, --run-timeout).
	RunTimeout time.Duration
	// webOther holds the endpoints and keys of web engines that have no
	// field above, by config-file key (see webSetting).
	webOther map[string]*string
	// modelIsDefault is true while the model is DefaultModel because
	// nothing named one: llama.cpp then uses the model its server serves.
	modelIsDefault bool
}

// CorporaDir is where the Bleve indexes live.
func (c *Config) CorporaDir() string { return filepath.Join(c.Home, "corpora") }

// DBPath is the SQLite database.
func (c *Config) DBPath() string { return filepath.Join(c.Home, "prefrag.db") }

// LogPath is the log file (never the TUI's stdout).
func (c *Config) LogPath() string { return filepath.Join(c.Home, "prefrag.log") }

// fileConfig is the TOML file's shape. Keys follow the flag names.
type fileConfig struct {
	Model          *string  `toml:"model"`
	JudgeModel     *string  `toml:"judge_model"`
	LLM            *string  `toml:"llm"`
	LLMURL         *string  `toml:"llm_url"`
	Web            *string  `toml:"web"`
	WebEngine      *string  `toml:"web_engine"`
	SearXNGURL     *string  `toml:"searxng_url"`
	DuckDuckGoURL  *string  `toml:"duckduckgo_url"`
	BraveURL       *string  `toml:"brave_url"`
	BraveAPIKey    *string  `toml:"brave_api_key"`
	Corpora        []string `toml:"corpora"`
	K              *int     `toml:"k"`
	MaxSteps       *int     `toml:"max_steps"`
	MaxReflections *int     `toml:"max_reflections"`
	JudgeFirst     *bool    `toml:"judge_first"`
	Strategy       *string  `toml:"strategy"`
	NumCtx         *int     `toml:"num_ctx"`
	Temperature    *float64 `toml:"temperature"`
	TopP           *float64 `toml:"top_p"`
	Seed           *int     `toml:"seed"`
	AnswerStyle    *string  `toml:"answer_style"`
	TUIAnswerStyle *string  `toml:"tui_answer_style"`
	PerSourceTools *bool    `toml:"per_source_tools"`
	PromptsDir     *string  `toml:"prompts_dir"`
	WebCacheTTL    *string  `toml:"web_cache_ttl"`
	WebAllow       []string `toml:"web_allow"`
	WebDeny        []string `toml:"web_deny"`
	WebTimeout     *string  `toml:"web_timeout"`
	LLMTimeout     *string  `toml:"llm_timeout"`
	RunTimeout     *string  `toml:"run_timeout"`
	MaxOutput      *int     `toml:"max_output_tokens"`
	NeverLeave     []string `toml:"never_leave"`
	WebOnly        *bool    `toml:"web_only"`
	MaxDocChars    *int     `toml:"max_doc_chars"`
}

// Env is the environment lookup (os.LookupEnv in production).
type Env func(string) (string, bool)

// Load applies defaults, the config file and the environment.
func Load(env Env) (*Config, error) {
	if env == nil {
		env = os.LookupEnv
	}
	c := &Config{
		Settings:       engine.DefaultSettings(),
		TUIAnswerStyle: engine.StyleReport,
		WebCacheTTL:    24 * time.Hour,
		WebTimeout:     10 * time.Second,
		LLMTimeout:     5 * time.Minute,
	}
	c.Settings.Model = DefaultModel
	c.modelIsDefault = true
	c.Settings.LLMURL = "http://127.0.0.1:11434"
	home, err := dataHome(env)
	if err != nil {
		return nil, err
	}
	c.Home = home
	path, explicit := configPath(env)
	if path != "" {
		b, err := os.ReadFile(path)
		switch {
		case err == nil:
			var fc fileConfig
			if err := toml.Unmarshal(b, &fc); err != nil {
				return nil, fmt.Errorf("%w: %s: %v", ErrConfig, path, err)
			}
			if err := c.applyFile(fc); err != nil {
				return nil, fmt.Errorf("%w: %s: %v", ErrConfig, path, err)
			}
			if err := c.webFile(b); err != nil {
				return nil, fmt.Errorf("%w: %s: %v", ErrConfig, path, err)
			}
			c.File = path
		case errors.Is(err, fs.ErrNotExist) && !explicit:
		default:
			return nil, fmt.Errorf("%w: cannot read %s: %v", ErrConfig, path, err)
		}
	}
	llmURLFromFile := c.File != "" && c.Settings.LLMURL != "http://127.0.0.1:11434"
	if v, ok := env("OLLAMA_HOST"); ok && v != "" && !llmURLFromFile && c.Settings.LLM == "ollama" {
		c.Settings.LLMURL = NormaliseHost(v, "11434")
	}
	if v, ok := env("PREFRAG_MODEL"); ok && v != "" {
		c.Settings.Model = v
		c.modelIsDefault = false
	}
	c.webEnv(env)
	return c, nil
}

func (c *Config) applyFile(fc fileConfig) error {
	s := &c.Settings
	setS := func(dst *string, v *string) {
		if v != nil {
			*dst = *v
		}
	}
	setI := func(dst *int, v *int) {
		if v != nil {
			*dst = *v
		}
	}
	setS(&s.Model, fc.Model)
	if fc.Model != nil {
		c.modelIsDefault = false
	}
	setI(&s.MaxOutputTokens, fc.MaxOutput)
	setS(&s.JudgeModel, fc.JudgeModel)
	setS(&s.LLM, fc.LLM)
	if fc.LLM != nil && *fc.LLM == "llamacpp" && fc.LLMURL == nil {
		s.LLMURL = "http://127.0.0.1:8080"
	}
	setS(&s.LLMURL, fc.LLMURL)
	setS(&s.Web, fc.Web)
	setS(&s.WebEngine, fc.WebEngine)
	setS(&c.SearXNGURL, fc.SearXNGURL)
	setS(&c.DuckDuckGoURL, fc.DuckDuckGoURL)
	setS(&c.BraveURL, fc.BraveURL)
	setS(&c.BraveAPIKey, fc.BraveAPIKey)
	if fc.Corpora != nil {
		s.Corpora = fc.Corpora
	}
	setI(&s.K, fc.K)
	setI(&s.MaxSteps, fc.MaxSteps)
	setI(&s.MaxReflections, fc.MaxReflections)
	if fc.JudgeFirst != nil {
		s.JudgeFirst = *fc.JudgeFirst
	}
	setS(&s.Strategy, fc.Strategy)
	setI(&s.NumCtx, fc.NumCtx)
	setI(&s.MaxDocChars, fc.MaxDocChars)
	if fc.Temperature != nil {
		s.Temperature = *fc.Temperature
	}
	if fc.TopP != nil {
		s.TopP = *fc.TopP
	}
	if fc.Seed != nil {
		v := *fc.Seed
		s.Seed = &v
	}
	setS(&s.AnswerStyle, fc.AnswerStyle)
	setS(&c.TUIAnswerStyle, fc.TUIAnswerStyle)
	if fc.PerSourceTools != nil {
		s.PerSourceTools = *fc.PerSourceTools
	}
	setS(&c.PromptsDir, fc.PromptsDir)
	c.WebAllow, c.WebDeny = fc.WebAllow, fc.WebDeny
	if fc.NeverLeave != nil {
		s.NeverLeave = fc.NeverLeave
	}
	if fc.WebOnly != nil {
		s.WebOnly = *fc.WebOnly
	}
	for _, d := range []struct {
		dst *time.Duration
		v   *string
		key string
	}{{&c.WebCacheTTL, fc.WebCacheTTL, "web_cache_ttl"}, {&c.WebTimeout, fc.WebTimeout, "web_timeout"}, {&c.LLMTimeout, fc.LLMTimeout, "llm_timeout"}, {&c.RunTimeout, fc.RunTimeout, "run_timeout"}} {
		if d.v == nil {
			continue
		}
		dur, err := time.ParseDuration(*d.v)
		if err != nil {
			return fmt.Errorf("%s: %v", d.key, err)
		}
		*d.dst = dur
	}
	return nil
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

// RunFlags binds the flags of `ask` (shared by the TUI and `eval`) to a
// copy of the settings; call Apply after parsing.
type RunFlags struct {
	c         *Config
	corpora   stringList
	never     stringList
	seed      int
	set       map[string]bool
	fs        *flag.FlagSet
	JSON      bool
	Tokens    bool
	offline   bool
	webEngine string
}

type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

// BindRunFlags registers the run flags on fs.
func BindRunFlags(fs *flag.FlagSet, c *Config) *RunFlags {
	rf := &RunFlags{c: c, fs: fs}
	s := &c.Settings
	fs.Var(&rf.corpora, "corpus", "corpus to search, repeatable: order = preference order (default: the pinned corpus)")
	fs.Var(&rf.never, "never-leave", "corpus whose passages must not leave the machine: no web query from a context holding them without consent (repeatable)")
	fs.StringVar(&s.Web, "web", s.Web, "web policy: auto, ask or never")
	fs.BoolVar(&s.WebOnly, "web-only", s.WebOnly, "allow web search when no local corpus is searched (nothing is sent to the web without a corpus otherwise)")
	fs.StringVar(&s.WebEngine, "web-engine", s.WebEngine, webEngineHelp())
	c.bindWebFlags(fs)
	fs.StringVar(&s.LLM, "llm", s.LLM, "LLM backend: ollama or llamacpp")
	fs.StringVar(&s.LLMURL, "llm-url", s.LLMURL, "LLM server address")
	fs.StringVar(&s.Model, "model", s.Model, "model for reasoning steps")
	fs.StringVar(&s.JudgeModel, "judge-model", s.JudgeModel, "model for the selection judge (default: --model)")
	fs.IntVar(&s.K, "k", s.K, "documents per retrieval")
	fs.IntVar(&s.MaxSteps, "max-steps", s.MaxSteps, "soft step limit (hard limit N+1)")
	fs.IntVar(&s.MaxReflections, "max-reflections", s.MaxReflections, "reflection supplements allowed")
	fs.BoolVar(&s.JudgeFirst, "judge-first", s.JudgeFirst, "judge the first local retrieval too")
	fs.StringVar(&s.Strategy, "strategy", s.Strategy, "strategy: "+strings.Join(engine.StrategyNames(), ", "))
	fs.IntVar(&s.NumCtx, "num-ctx", s.NumCtx, "context window sent to the server")
	fs.IntVar(&s.MaxOutputTokens, "max-output-tokens", s.MaxOutputTokens, "generation limit of a reasoning step or answer, in tokens (at most a quarter of the context is used)")
	fs.DurationVar(&c.LLMTimeout, "llm-timeout", c.LLMTimeout, "give up when the LLM server sends nothing for this long: before its first byte or between two chunks")
	fs.DurationVar(&c.RunTimeout, "run-timeout", c.RunTimeout, "stop the whole run after this long, keeping the partial session (0: no limit)")
	fs.Float64Var(&s.Temperature, "temperature", s.Temperature, "sampling temperature")
	fs.Float64Var(&s.TopP, "top-p", s.TopP, "nucleus sampling top_p")
	fs.IntVar(&s.MaxDocChars, "max-doc-chars", s.MaxDocChars, "most characters of one document put in a prompt; longer ones are cut on a sentence or word boundary (0: no cap)")
	fs.IntVar(&rf.seed, "seed", 0, "sampling seed (sent only when given)")
	fs.StringVar(&s.AnswerStyle, "answer-style", s.AnswerStyle, "concise or report")
	fs.BoolVar(&s.PerSourceTools, "per-source-tools", s.PerSourceTools, "advertise one Search_<name> tool per source instead of Search_Engine")
	fs.StringVar(&c.PromptsDir, "prompts-dir", c.PromptsDir, "directory of prompt template overrides")
	fs.BoolVar(&rf.offline, "offline", false, "answer web searches from the cache only; send no web request")
	fs.BoolVar(&rf.JSON, "json", false, "JSON Lines events on stdout")
	fs.BoolVar(&rf.Tokens, "tokens", false, "with --json: also print streamed token events")
	return rf
}

// Apply finishes the settings after flag parsing and validates them once.
func (rf *RunFlags) Apply() error {
	c := rf.c
	set := map[string]bool{}
	rf.fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	rf.set = set
	if len(rf.corpora) > 0 {
		c.Settings.Corpora = rf.corpora
	}
	if len(rf.never) > 0 {
		c.Settings.NeverLeave = rf.never
	}
	if set["seed"] {
		v := rf.seed
		c.Settings.Seed = &v
	}
	if set["offline"] {
		c.Offline = rf.offline
	}
	if set["llm"] && !set["llm-url"] && c.Settings.LLM == "llamacpp" && strings.HasSuffix(c.Settings.LLMURL, ":11434") {
		c.Settings.LLMURL = "http://127.0.0.1:8080"
	}
	if set["model"] {
		c.modelIsDefault = false
	}
	return c.Validate()
}

// Set reports whether the named flag was given.
func (rf *RunFlags) Set(name string) bool { return rf.set[name] }

// Validate checks everything once.
func (c *Config) Validate() error {
	s := &c.Settings
	if s.LLM == "llamacpp" && c.modelIsDefault {
		// llama-server serves one model: use it (its name is read from
		// the server), not Ollama's default name.
		s.Model = ""
		c.modelIsDefault = false
	}
	if s.JudgeModel == "" {
		s.JudgeModel = s.Model
	}
	if err := s.Validate(); err != nil {
		return err
	}
	switch s.LLM {
	case "ollama", "llamacpp":
	default:
		return fmt.Errorf("%w: --llm must be ollama or llamacpp, not %q", engine.ErrInvalidSettings, s.LLM)
	}
	if err := c.validateWebEngine(*s); err != nil {
		return err
	}
	if u, err := url.Parse(s.LLMURL); err != nil || u.Scheme == "" || u.Host == "" {
		return fmt.Errorf("%w: --llm-url %q is not a URL like http://127.0.0.1:11434", engine.ErrInvalidSettings, llm.RedactURL(s.LLMURL))
	}
	if c.LLMTimeout < 0 || c.RunTimeout < 0 {
		return fmt.Errorf("%w: --llm-timeout and --run-timeout must not be negative", engine.ErrInvalidSettings)
	}
	return nil
}
