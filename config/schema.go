package config

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/llm"
	"github.com/prefrag/prefrag/sources"
	"github.com/prefrag/prefrag/sources/web"
)

// Setting describes one setting once: its config-file key, flag,
// environment variables, default, help, validation and where it is
// recorded. Defaults, the TOML keys, the environment, the flags, the
// validation wording, `prefrag config`, the session manifest and eval's
// setup comparison are all driven by Settings().
type Setting struct {
	// Key is the config-file key. For a field of engine.RunConfig it is
	// also the field's JSON name (session config, manifest, run.json).
	Key string
	// Flag is the command-line flag ("" for none).
	Flag string
	// FlagOnly settings have no config-file key.
	FlagOnly bool
	// Env are the environment variables that set it, strongest first.
	Env []EnvVar
	// Help is the flag's usage line.
	Help string
	// Default is the value before any file, variable or flag; nil for a
	// field of engine.RunConfig means engine.DefaultRunConfig's value.
	Default any
	// Manifest settings are recorded in a session manifest's options.
	Manifest bool
	// Setup settings are compared by eval: results produced with another
	// value are never mixed into the same table.
	Setup bool
	// Secret settings are never printed, logged or stored.
	Secret bool
	// URL settings are shown without credentials.
	URL bool
	// check returns the problem with a value ("" when fine), worded after
	// the setting's name ("must be …").
	check func(v any) string
	// limit bounds a duration setting (every one has one): not negative,
	// at most its max.
	limit durationLimit
	// field points at the value in a Config.
	field func(c *Config) any
}

// EnvVar is an environment variable that sets a setting.
type EnvVar struct {
	Name string
	// Weak variables give way to the config file (they apply only while
	// the setting still has its default).
	Weak bool
	// when, if set, must hold for the variable to apply.
	when func(c *Config) bool
	// normalise turns the variable's value into the setting's.
	normalise func(string) string
}

func es(f func(s *engine.RunConfig) any) func(c *Config) any {
	return func(c *Config) any { return f(&c.Settings) }
}

func oneOf(names ...string) func(v any) string {
	return func(v any) string {
		s := v.(string)
		for _, n := range names {
			if s == n {
				return ""
			}
		}
		last := len(names) - 1
		return fmt.Sprintf("must be %s or %s, not %q", strings.Join(names[:last], ", "), names[last], s)
	}
}

func isURL(v any) string {
	s := v.(string)
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return fmt.Sprintf("%q is not a URL like http://127.0.0.1:11434", llm.RedactURL(s))
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Sprintf("must be an http:// or https:// address, not %s:// (%q)", u.Scheme, llm.RedactURL(s))
	}
	return ""
}

// oneOfOrEmpty is oneOf for a setting that may be left unset.
func oneOfOrEmpty(names ...string) func(v any) string {
	check := oneOf(names...)
	return func(v any) string {
		if v.(string) == "" {
			return ""
		}
		return check(v)
	}
}

// positive checks a weight.
func positive(v any) string {
	if f := v.(float64); f <= 0 {
		return fmt.Sprintf("must be above 0, not %g", f)
	}
	return ""
}

// isURLOrEmpty is isURL for an address that may be left unset.
func isURLOrEmpty(v any) string {
	if v.(string) == "" {
		return ""
	}
	return isURL(v)
}

// existingDir checks a folder the user names: it must exist ("" is unset).
func existingDir(v any) string {
	p := v.(string)
	if p == "" {
		return ""
	}
	fi, err := os.Stat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Sprintf("names the folder %q, which does not exist: create it and put the template overrides in it, or remove the setting", p)
	case err != nil:
		return fmt.Sprintf("names the folder %q, which cannot be read (%v)", p, errors.Unwrap(err))
	case !fi.IsDir():
		return fmt.Sprintf("must be a folder, not the file %q", p)
	}
	return ""
}

// problem is what is wrong with the setting's value v ("" when nothing):
// its own check, and for a duration its limit (not negative, at most its
// max).
func (s Setting) problem(v any) string {
	if s.check != nil {
		if p := s.check(v); p != "" {
			return p
		}
	}
	if d, ok := v.(time.Duration); ok {
		return s.limit.problem(d)
	}
	return ""
}

// Backends the configuration accepts: llm's table (web engines:
// web.EngineNames()).
var llmBackends = llm.BackendNames()

// defaultLLMURL is the default backend's address.
var defaultLLMURL = llm.BackendOf(llm.DefaultBackend).DefaultURL

// backendURL is the default address of a backend other than the default
// one (whose address is llm_url's default).
func backendURL(backend string) string {
	if b, ok := llm.LookupBackend(backend); ok && b.DefaultURL != defaultLLMURL {
		return b.DefaultURL
	}
	return ""
}

// urlFromEnv reports whether the backend takes its address from the
// variable name when no llm_url is given (Ollama's OLLAMA_HOST).
func urlFromEnv(backend, name string) bool { return llm.BackendOf(backend).URLEnv == name }

// schema is the table of every setting, in the order `prefrag config`
// prints them. The web engines' endpoint and key rows are generated from
// sources/web's engine table (see webRows).
var schema = withWebRows([]Setting{
	{Key: "model", Flag: "model", Help: "model for reasoning steps", Setup: true, Default: DefaultModel,
		Env: []EnvVar{{Name: "PREFRAG_MODEL"}}, field: es(func(s *engine.RunConfig) any { return &s.Model })},
	{Key: "judge_model", Flag: "judge-model", Help: "model for the selection judge (default: --model)", Setup: true,
		field: es(func(s *engine.RunConfig) any { return &s.JudgeModel })},
	{Key: "proxy_model", Flag: "proxy-model", Help: "small model for the retrieval gate of slimplm, smartrag, prefrag-gated (default: --judge-model)", Setup: true,
		field: es(func(s *engine.RunConfig) any { return &s.ProxyModel })},
	{Key: "llm", Flag: "llm", Help: "LLM backend: " + strings.Join(llmBackends, ", ") + " (openai: an OpenAI-compatible server: vLLM, SGLang, LM Studio, LiteLLM)", Setup: true, check: oneOf(llmBackends...),
		field: es(func(s *engine.RunConfig) any { return &s.LLM })},
	{Key: "llm_url", Flag: "llm-url", Help: "LLM server address", URL: true, Default: defaultLLMURL, check: isURL,
		Env: []EnvVar{{Name: "OLLAMA_HOST", Weak: true,
			when:      func(c *Config) bool { return urlFromEnv(c.Settings.LLM, "OLLAMA_HOST") },
			normalise: func(v string) string { return NormaliseHost(v, "11434") }}},
		field: es(func(s *engine.RunConfig) any { return &s.LLMURL })},
	{Key: "llm_timeout", Flag: "llm-timeout", Help: "give up when the LLM server sends nothing for this long: before its first byte or between two chunks",
		Default: 5 * time.Minute, limit: limitLLMTimeout, field: func(c *Config) any { return &c.LLMTimeout }},
	{Key: "run_timeout", Flag: "run-timeout", Help: "stop the whole run after this long, keeping the partial session (0: no limit)",
		Default: time.Duration(0), limit: limitRunTimeout, field: func(c *Config) any { return &c.RunTimeout }},
	{Key: "strategy", Flag: "strategy", Help: "strategy: " + strings.Join(engine.StrategyNames(), ", "),
		field: es(func(s *engine.RunConfig) any { return &s.Strategy })},
	{Key: "corpora", Flag: "corpus", Help: "corpus to search, repeatable: order = preference order (default: the pinned corpus)", Setup: true,
		field: es(func(s *engine.RunConfig) any { return &s.Corpora })},
	{Key: "prefer", Flag: "prefer", Help: "preference order over corpora and MCP servers (mcp:NAME), comma-separated or repeated; the ones not named follow (default: the corpora, then MCP servers, then the web)",
		field: es(func(s *engine.RunConfig) any { return &s.Prefer })},
	{Key: "mcp_config", Help: "the JSON file declaring MCP servers as sources (mcpServers, servers or mcp; default: mcp.json beside config.toml)",
		Env: []EnvVar{{Name: "PREFRAG_MCP_CONFIG"}}, field: func(c *Config) any { return &c.MCPConfig }},
	{Key: "never_leave", Flag: "never-leave", Help: "corpus whose passages must not leave the machine: no web query from a context holding them without consent (repeatable; a follow-up keeps its thread's, \"\" loosens to none)",
		field: es(func(s *engine.RunConfig) any { return &s.NeverLeave })},
	{Key: "retrieval", Flag: "retrieval", Help: "how a corpus is searched: bm25 (by words), hybrid (by words and meaning, fused) or dense (by meaning); default hybrid for a corpus with vectors, else bm25",
		check: oneOfOrEmpty(sources.RetrievalModes()...), field: es(func(s *engine.RunConfig) any { return &s.Retrieval })},
	{Key: "embed_model", Flag: "embed-model", Help: "embedding model: `index` embeds passages with it, a hybrid search its query (default: the model a corpus was embedded with)", Setup: true,
		field: es(func(s *engine.RunConfig) any { return &s.EmbedModel })},
	{Key: "embed_url", Flag: "embed-url", Help: "address of the embedding server, when it is not the LLM server", URL: true, check: isURLOrEmpty,
		field: es(func(s *engine.RunConfig) any { return &s.EmbedURL })},
	{Key: "embed_llm", Flag: "embed-llm", Help: "backend of the embedding server: " + strings.Join(llmBackends, ", ") + " (default: --llm)", check: oneOfOrEmpty(llmBackends...),
		field: es(func(s *engine.RunConfig) any { return &s.EmbedLLM })},
	{Key: "bm25_weight", Help: "weight of the BM25 leg in a hybrid search's fusion", Default: 1.0, check: positive,
		field: func(c *Config) any { return &c.BM25Weight }},
	{Key: "vector_weight", Help: "weight of the vector leg in a hybrid search's fusion", Default: 1.0, check: positive,
		field: func(c *Config) any { return &c.VectorWeight }},
	{Key: "k", Flag: "k", Help: "documents per retrieval", Setup: true, field: es(func(s *engine.RunConfig) any { return &s.K })},
	{Key: "max_steps", Flag: "max-steps", Help: "soft step limit (hard limit N+1)", Setup: true,
		field: es(func(s *engine.RunConfig) any { return &s.MaxSteps })},
	{Key: "max_reflections", Flag: "max-reflections", Help: "reflection supplements allowed", Setup: true,
		field: es(func(s *engine.RunConfig) any { return &s.MaxReflections })},
	{Key: "judge_first", Flag: "judge-first", Help: "judge the first local retrieval too", Setup: true,
		field: es(func(s *engine.RunConfig) any { return &s.JudgeFirst })},
	{Key: "num_ctx", Flag: "num-ctx", Help: "context window sent to the server", Setup: true, Manifest: true, check: atMostNumCtx,
		field: es(func(s *engine.RunConfig) any { return &s.NumCtx })},
	{Key: "max_output_tokens", Flag: "max-output-tokens", Help: "generation limit of a reasoning step or answer, in tokens (at most a quarter of the context is used)", Manifest: true,
		field: es(func(s *engine.RunConfig) any { return &s.MaxOutputTokens })},
	{Key: "max_doc_chars", Flag: "max-doc-chars", Help: "most characters of one document put in a prompt; longer ones are cut on a sentence or word boundary (0: no cap)",
		field: es(func(s *engine.RunConfig) any { return &s.MaxDocChars })},
	{Key: "refine_budget", Flag: "refine-budget", Help: "percent of the context a step's prompt plus its generation limit may use before earlier observations are refined into a note (10-100)", Manifest: true,
		field: es(func(s *engine.RunConfig) any { return &s.RefineBudget })},
	{Key: "verify_claims", Flag: "verify-claims", Help: "ask the judge model once per answer whether each claim's quotes support it",
		field: es(func(s *engine.RunConfig) any { return &s.VerifyClaims })},
	{Key: "temperature", Flag: "temperature", Help: "sampling temperature", Setup: true, Manifest: true,
		field: es(func(s *engine.RunConfig) any { return &s.Temperature })},
	{Key: "top_p", Flag: "top-p", Help: "nucleus sampling top_p", Setup: true, Manifest: true,
		field: es(func(s *engine.RunConfig) any { return &s.TopP })},
	{Key: "seed", Flag: "seed", Help: "sampling seed (sent only when given)", Setup: true, Manifest: true,
		field: es(func(s *engine.RunConfig) any { return &s.Seed })},
	{Key: "answer_style", Flag: "answer-style", Help: "concise or report", Setup: true,
		field: es(func(s *engine.RunConfig) any { return &s.AnswerStyle })},
	{Key: "tui_answer_style", Help: "the TUI's answer style", Default: engine.StyleReport, check: oneOf(engine.StyleConcise, engine.StyleReport),
		field: func(c *Config) any { return &c.TUIAnswerStyle }},
	{Key: "per_source_tools", Flag: "per-source-tools", Help: "advertise one Search_<name> tool per source instead of Search_Engine", Setup: true,
		field: es(func(s *engine.RunConfig) any { return &s.PerSourceTools })},
	{Key: "prompts_dir", Flag: "prompts-dir", Help: "directory of prompt template overrides", check: existingDir,
		field: func(c *Config) any { return &c.PromptsDir }},
	{Key: "web", Flag: "web", Help: "web policy: auto, ask or never (ask until you choose)", Setup: true, Default: engine.WebAsk,
		field: es(func(s *engine.RunConfig) any { return &s.Web })},
	{Key: "web_only", Flag: "web-only", Help: "allow web search when no local corpus is searched (nothing is sent to the web without a corpus otherwise)",
		field: es(func(s *engine.RunConfig) any { return &s.WebOnly })},
	{Key: "web_engine", Flag: "web-engine", Help: webEngineHelp(), Setup: true, check: oneOf(web.EngineNames()...),
		field: es(func(s *engine.RunConfig) any { return &s.WebEngine })},
	{Key: "web_timeout", Help: "timeout of one web request", Default: 10 * time.Second, limit: limitWebTimeout, field: func(c *Config) any { return &c.WebTimeout }},
	{Key: "web_cache_ttl", Help: "how long a cached web result is reused", Default: 24 * time.Hour, limit: limitCacheTTL, field: func(c *Config) any { return &c.WebCacheTTL }},
	{Key: "web_allow", Help: "domains web results may come from", field: func(c *Config) any { return &c.WebAllow }},
	{Key: "web_deny", Help: "domains web results never come from", field: func(c *Config) any { return &c.WebDeny }},
	{Key: "mcp_token", Help: "bearer token every request to `prefrag mcp --http` must carry (Authorization: Bearer …); needed to listen beyond this machine", Secret: true,
		Env: []EnvVar{{Name: "PREFRAG_MCP_TOKEN"}}, field: func(c *Config) any { return &c.MCPToken }},
	{Key: "offline", Flag: "offline", FlagOnly: true, Help: "answer web searches from the cache only; send no web request",
		field: func(c *Config) any { return &c.Offline }},
})

// lookup finds a setting by key.
func lookup(key string) (Setting, bool) {
	for _, s := range schema {
		if s.Key == key {
			return s, true
		}
	}
	return Setting{}, false
}

// Value returns the setting's current value in c (a string, int, float64,
// bool, time.Duration, []string or *int).
func (s Setting) Value(c *Config) any {
	switch p := s.field(c).(type) {
	case *string:
		return *p
	case *int:
		return *p
	case *float64:
		return *p
	case *bool:
		return *p
	case *time.Duration:
		return *p
	case *[]string:
		return *p
	case **int:
		return *p
	}
	panic("config: setting " + s.Key + " has an unsupported type")
}

// ManifestOptions are the settings recorded in a session manifest's
// options, keyed like the config file.
func ManifestOptions(s engine.RunConfig) map[string]any {
	c := &Config{Settings: s}
	out := map[string]any{}
	for _, st := range schema {
		if st.Manifest {
			out[st.Key] = st.Value(c)
		}
	}
	return out
}

// SetupKeys are the keys of the settings eval compares before mixing
// results into one table.
func SetupKeys() []string {
	var out []string
	for _, st := range schema {
		if st.Setup {
			out = append(out, st.Key)
		}
	}
	return out
}
