package config

import (
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prefrag/prefrag/engine"
)

// load writes file (when not empty) as the config file and loads with env
// and then the run flags args.
func load(t *testing.T, file string, env map[string]string, args ...string) (*Config, error) {
	t.Helper()
	dir := t.TempDir()
	e := map[string]string{"PREFRAG_HOME": dir, "HOME": dir}
	if file != "" {
		p := filepath.Join(dir, "config.toml")
		if err := os.WriteFile(p, []byte(file), 0o644); err != nil {
			t.Fatal(err)
		}
		e["PREFRAG_CONFIG"] = p
	}
	for k, v := range env {
		e[k] = v
	}
	c, err := Load(envOf(e))
	if err != nil {
		return nil, err
	}
	fs := flag.NewFlagSet("ask", flag.ContinueOnError)
	rf := BindRunFlags(fs, c)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return c, rf.Apply()
}

// Each origin sets a value and says so; defaults → file → env → flags.
func TestOriginsAndPrecedence(t *testing.T) {
	tests := []struct {
		name   string
		file   string
		env    map[string]string
		args   []string
		key    string
		want   string
		origin Origin
	}{
		{"default", "", nil, nil, "temperature", "0.1", Origin{Kind: FromDefault}},
		{"file", "temperature = 0.5\n", nil, nil, "temperature", "0.5", Origin{Kind: FromFile}},
		{"flag over file", "temperature = 0.5\n", nil, []string{"--temperature", "0.7"}, "temperature", "0.7", Origin{FromFlag, "temperature"}},
		{"env", "", map[string]string{"PREFRAG_MODEL": "qwen"}, nil, "model", `"qwen"`, Origin{FromEnv, "PREFRAG_MODEL"}},
		{"env over file", `model = "a"` + "\n", map[string]string{"PREFRAG_MODEL": "qwen"}, nil, "model", `"qwen"`, Origin{FromEnv, "PREFRAG_MODEL"}},
		{"flag over env", "", map[string]string{"PREFRAG_MODEL": "qwen"}, []string{"--model", "b"}, "model", `"b"`, Origin{FromFlag, "model"}},
		{"weak env", "", map[string]string{"OLLAMA_HOST": "0.0.0.0:11500"}, nil, "llm_url", `"http://127.0.0.1:11500"`, Origin{FromEnv, "OLLAMA_HOST"}},
		{"file over weak env", `llm_url = "http://h:1"` + "\n", map[string]string{"OLLAMA_HOST": "0.0.0.0:11500"}, nil, "llm_url", `"http://h:1"`, Origin{Kind: FromFile}},
		{"flag over weak env", "", map[string]string{"OLLAMA_HOST": "x:1"}, []string{"--llm-url", "http://y:2"}, "llm_url", `"http://y:2"`, Origin{FromFlag, "llm-url"}},
		{"list flag", `corpora = ["a", "b"]` + "\n", nil, []string{"--corpus", "c"}, "corpora", `["c"]`, Origin{FromFlag, "corpus"}},
		{"list file", `corpora = ["a", "b"]` + "\n", nil, nil, "corpora", `["a", "b"]`, Origin{Kind: FromFile}},
		{"seed flag", "", nil, []string{"--seed", "42"}, "seed", "42", Origin{FromFlag, "seed"}},
		{"seed file", "seed = 7\n", nil, nil, "seed", "7", Origin{Kind: FromFile}},
		{"duration file", `llm_timeout = "90s"` + "\n", nil, nil, "llm_timeout", `"1m30s"`, Origin{Kind: FromFile}},
		{"duration flag", "", nil, []string{"--run-timeout", "2m"}, "run_timeout", `"2m0s"`, Origin{FromFlag, "run-timeout"}},
		{"bool file", "web_only = true\n", nil, nil, "web_only", "true", Origin{Kind: FromFile}},
		{"bool flag", "", nil, []string{"--web-only"}, "web_only", "true", Origin{FromFlag, "web-only"}},
		{"secret env", "", map[string]string{"PREFRAG_BRAVE_API_KEY": "sk-123"}, nil, "brave_api_key", "(set)", Origin{FromEnv, "PREFRAG_BRAVE_API_KEY"}},
		{"secret file over weak env", `brave_api_key = "f"` + "\n", map[string]string{"BRAVE_API_KEY": "e"}, nil, "brave_api_key", "(set)", Origin{Kind: FromFile}},
		{"flag-only", "", nil, []string{"--offline"}, "offline", "true", Origin{FromFlag, "offline"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := load(t, tt.file, tt.env, tt.args...)
			if err != nil {
				t.Fatal(err)
			}
			st, ok := lookup(tt.key)
			if !ok {
				t.Fatalf("no setting %s", tt.key)
			}
			if got := st.show(c); got != tt.want {
				t.Errorf("%s = %s, want %s", tt.key, got, tt.want)
			}
			if got := c.Origin(tt.key); got != tt.origin {
				t.Errorf("origin %+v, want %+v", got, tt.origin)
			}
		})
	}
}

// A TOML syntax error names its line; a value of the wrong type its key.
func TestConfigFileErrors(t *testing.T) {
	for _, tt := range []struct{ name, file, want string }{
		{"syntax", "model = \"a\"\nk = 5\ntemperature = = 3\n", "line 3, column"},
		{"unterminated", "model = \"a\n", "line 1, column"},
		{"type", "k = \"five\"\n", `k in `},
		{"list type", "corpora = \"wiki\"\n", "corpora in "},
		{"duration", "llm_timeout = \"soon\"\n", "llm_timeout in "},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := load(t, tt.file, nil)
			if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want ErrConfig with %q", err, tt.want)
			}
		})
	}
}

// An unknown key is a warning naming it; the known keys still apply.
func TestUnknownKeyWarns(t *testing.T) {
	c, err := load(t, "tempature = 0.5\nk = 7\noffline = true\n", nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Settings.K != 7 || c.Offline {
		t.Errorf("k = %d, offline = %v", c.Settings.K, c.Offline)
	}
	if len(c.Warnings) != 2 || !strings.Contains(c.Warnings[1], `"tempature"`) || !strings.Contains(c.Warnings[0], `"offline"`) {
		t.Errorf("warnings %q", c.Warnings)
	}
}

// Validation names a field the way it was given.
func TestValidationWording(t *testing.T) {
	tests := []struct {
		name string
		file string
		env  map[string]string
		args []string
		want string // %s is the config file
	}{
		{"flag", "", nil, []string{"--temperature", "3"}, "--temperature must be between 0 and 2, not 3"},
		{"short flag", "", nil, []string{"-k", "0"}, "-k must be between 1 and 50, not 0"},
		{"key", "temperature = 3\n", nil, nil, "temperature in %s must be between 0 and 2, not 3"},
		{"key, flag fixes it", "temperature = 3\n", nil, []string{"--temperature", "1"}, ""},
		{"config-level key", "llm = \"gpt\"\n", nil, nil, `llm in %s must be ollama, llamacpp or openai, not "gpt"`},
		{"config-level flag", "", nil, []string{"--web-engine", "bing"}, `--web-engine must be duckduckgo, searxng or brave, not "bing"`},
		{"env", "", map[string]string{"OLLAMA_HOST": "http://[::1"}, nil, `OLLAMA_HOST "http://[[::1]:11434" is not a URL`},
		{"cross-field", "", nil, []string{"--web-engine", "searxng"}, "--web-engine searxng needs --searxng-url"},
		{"two fields", "k = 0\n", nil, []string{"--web", "x"}, `--web must be auto, ask or never, not "x"; k in %s must be between 1 and 50, not 0`},
		{"negative duration", "", nil, []string{"--llm-timeout", "-1s"}, "--llm-timeout must not be negative"},
		// Issue 19 item 5: refused while the file is read, for every command.
		{"ftp llm_url", "llm_url = \"ftp://x\"\n", nil, nil, `llm_url in %s must be an http:// or https:// address, not ftp:// ("ftp://x")`},
		{"ftp llm_url flag", "", nil, []string{"--llm-url", "ftp://x"}, `--llm-url must be an http:// or https:// address, not ftp://`},
		{"negative key duration", "web_cache_ttl = \"-5h\"\n", nil, nil, "web_cache_ttl in %s must not be negative, not -5h0m0s"},
		{"negative web_timeout", "web_timeout = \"-1s\"\n", nil, nil, "web_timeout in %s must not be negative, not -1s"},
		{"missing prompts_dir", "prompts_dir = \"/no/such/dir\"\n", nil, nil, `prompts_dir in %s names the folder "/no/such/dir", which does not exist`},
		{"missing prompts_dir flag", "", nil, []string{"--prompts-dir", "/no/such/dir"}, `--prompts-dir names the folder "/no/such/dir", which does not exist`},
		{"prompts_dir under ~", "prompts_dir = \"~/no-such-prompts\"\n", nil, nil, `prompts_dir in %s names the folder "`},
		{"bad searxng_url", "searxng_url = \"gopher://h\"\n", nil, nil, "searxng_url in %s must be an http:// or https:// address"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := load(t, tt.file, tt.env, tt.args...)
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			want := tt.want
			if c == nil {
				// Refused while the file was read: the file is named
				// between the two halves.
				before, after, _ := strings.Cut(want, "%s")
				if msg := err.Error(); !strings.Contains(msg, before) || !strings.Contains(msg, "config.toml"+after) {
					t.Fatalf("err = %v, want %q", err, want)
				}
				want = ""
			} else if strings.Contains(want, "%s") {
				want = strings.ReplaceAll(want, "%s", c.File)
			}
			var se *engine.SettingsError
			if !errors.Is(err, engine.ErrInvalidSettings) || !errors.As(err, &se) || !strings.Contains(err.Error(), want) {
				t.Fatalf("err = %v, want %q", err, want)
			}
		})
	}
}

// Every key bound to engine.RunConfig is that field's JSON name (session
// config, manifest and run.json use it), and the manifest options are
// the ones recorded before the schema.
func TestSchemaKeysAreJSONNames(t *testing.T) {
	s := engine.DefaultRunConfig()
	seed := 1
	s.Seed, s.PerSourceTools, s.NeverLeave, s.WebOnly = &seed, true, []string{"x"}, true
	s.ProxyModel = "x"
	s.Retrieval, s.EmbedModel, s.EmbedLLM, s.EmbedURL = "hybrid", "x", "x", "x"
	b, _ := json.Marshal(s)
	var names map[string]any
	_ = json.Unmarshal(b, &names)
	var c Config
	for _, st := range schema {
		p := st.field(&c)
		inEngine := false
		for _, f := range []any{&c.Settings.Model, &c.Settings.JudgeModel, &c.Settings.LLM, &c.Settings.LLMURL, &c.Settings.Strategy,
			&c.Settings.Corpora, &c.Settings.NeverLeave, &c.Settings.K, &c.Settings.MaxSteps, &c.Settings.MaxReflections,
			&c.Settings.JudgeFirst, &c.Settings.NumCtx, &c.Settings.MaxOutputTokens, &c.Settings.MaxDocChars, &c.Settings.Temperature,
			&c.Settings.TopP, &c.Settings.Seed, &c.Settings.AnswerStyle, &c.Settings.PerSourceTools, &c.Settings.Web,
			&c.Settings.WebOnly, &c.Settings.WebEngine, &c.Settings.RefineBudget, &c.Settings.ProxyModel,
			&c.Settings.Retrieval, &c.Settings.EmbedModel, &c.Settings.EmbedLLM, &c.Settings.EmbedURL} {
			if p == f {
				inEngine = true
			}
		}
		if _, ok := names[st.Key]; inEngine && !ok {
			t.Errorf("setting %s is bound to engine.RunConfig but is not a JSON name of it", st.Key)
		}
		if (st.Setup || st.Manifest) && !inEngine {
			t.Errorf("setting %s is recorded but is not an engine setting", st.Key)
		}
	}
	got := ManifestOptions(engine.DefaultRunConfig())
	want := `{"max_output_tokens":1024,"num_ctx":16384,"refine_budget":85,"seed":null,"temperature":0.1,"top_p":0.9}`
	if b, _ := json.Marshal(got); string(b) != want {
		t.Errorf("manifest options %s, want %s", b, want)
	}
}

// Every flag and key that existed before the schema still works. (The
// output flags of ask, --json and --tokens, are the command line's:
// cli's TestRunFlagsKeepTheContract checks them.)
func TestContractNamesKept(t *testing.T) {
	flags := strings.Fields("corpus never-leave web web-only web-engine searxng-url llm llm-url model judge-model k max-steps max-reflections " +
		"judge-first strategy num-ctx max-output-tokens llm-timeout run-timeout temperature top-p max-doc-chars seed answer-style " +
		"per-source-tools prompts-dir offline")
	keys := strings.Fields("model judge_model llm llm_url web web_engine searxng_url duckduckgo_url brave_url brave_api_key corpora k " +
		"max_steps max_reflections judge_first strategy num_ctx temperature top_p seed answer_style tui_answer_style per_source_tools " +
		"prompts_dir web_cache_ttl web_allow web_deny web_timeout llm_timeout run_timeout max_output_tokens never_leave web_only max_doc_chars")
	fs := flag.NewFlagSet("ask", flag.ContinueOnError)
	BindRunFlags(fs, defaults())
	for _, f := range flags {
		if fs.Lookup(f) == nil {
			t.Errorf("flag --%s is gone", f)
		}
	}
	for _, k := range keys {
		if st, ok := lookup(k); !ok || st.FlagOnly {
			t.Errorf("key %s is gone", k)
		}
	}
}

// A prompts_dir in the file may start with "~/" (the README's example):
// it is the home folder's, and it must exist.
func TestPromptsDirTilde(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "prompts"), 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(p, []byte("prompts_dir = \"~/prompts\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load(envOf(map[string]string{"PREFRAG_HOME": dir, "HOME": dir, "PREFRAG_CONFIG": p}))
	if err != nil {
		t.Fatal(err)
	}
	if c.PromptsDir != filepath.Join(dir, "prompts") {
		t.Errorf("prompts_dir = %q", c.PromptsDir)
	}
}
