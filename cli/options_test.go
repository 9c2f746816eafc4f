package cli

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/prefrag/prefrag/store"
)

// optionsRow is one command line read by a command's parse function: the
// options it must fill (flags anywhere among the positional arguments,
// values from the config file and the environment), without running the
// command.
type optionsRow struct {
	name  string
	parse func(e *env, args []string) (any, error) // nil: check parses
	args  []string
	check func(t *testing.T, w *cliWorld, e *env, o any)
}

// parsing adapts a command's parse function to the table.
func parsing[O any](parse func(*env, []string) (*O, error)) func(*env, []string) (any, error) {
	return func(e *env, args []string) (any, error) {
		return parse(e, args)
	}
}

// is checks that the options are want.
func is[O any](want O) func(*testing.T, *cliWorld, *env, any) {
	return func(t *testing.T, _ *cliWorld, _ *env, got any) {
		t.Helper()
		if g := *got.(*O); !reflect.DeepEqual(g, want) {
			t.Errorf("options\n got %+v\nwant %+v", g, want)
		}
	}
}

// optionsWorld is the world every row reads its command line in: a config
// file naming a model, and an MCP token and an Ollama address in the
// environment.
func optionsWorld(t *testing.T) *cliWorld {
	w := newCLIWorld(t)
	w.write("config/prefrag/config.toml", "model = \"from-file\"\n")
	w.vars["PREFRAG_MCP_TOKEN"] = "from-env"
	w.vars["OLLAMA_HOST"] = "127.0.0.1:11500"
	w.write("shared/ir/README", "")
	w.write("shared/multihop/README", "")
	return w
}

var optionsRows = []optionsRow{
	{"ask: flags around the question, the model from the file", parsing(parseAsk), []string{"what", "--json", "is", "--tokens", "it?"},
		func(t *testing.T, _ *cliWorld, e *env, o any) {
			a := o.(*askOptions)
			if a.Question != "what is it?" || !a.Out.JSON || !a.Out.Tokens || a.Continue != "" || e.cfg.Settings.Model != "from-file" {
				t.Errorf("%+v, model %q", a, e.cfg.Settings.Model)
			}
		}},
	{"ask: a flag beats the file", parsing(parseAsk), []string{"q", "--model", "m2", "--continue", "last"},
		func(t *testing.T, _ *cliWorld, e *env, o any) {
			a := o.(*askOptions)
			if a.Continue != "last" || e.cfg.Settings.Model != "m2" || !a.rf.Set("model") || a.rf.Set("json") || a.Out.JSON {
				t.Errorf("%+v, model %q", a, e.cfg.Settings.Model)
			}
		}},
	{"search", parsing(parseSearch), []string{"ranking", "--corpus", "wiki", "functions", "-k", "3", "--json"},
		is(searchOptions{Corpus: "wiki", K: 3, Out: outputFlags{JSON: true}, Query: "ranking functions"})},
	{"search: defaults", parsing(parseSearch), []string{"q"}, is(searchOptions{K: 10, Query: "q"})},
	{"index", parsing(parseIndex), []string{"a", "--corpus", "c", "b", "--include-exports", "--json"},
		is(indexOptions{Corpus: "c", Out: outputFlags{JSON: true}, IncludeExports: true, QA: indexQAFlags{holdoutSeed: 1}, Paths: []string{"a", "b"}})},
	{"index --reembed needs no path", parsing(parseIndex), []string{"--reembed"}, is(indexOptions{Reembed: true, QA: indexQAFlags{holdoutSeed: 1}})},
	{"corpora rm", parsing(parseCorpora), []string{"rm", "old", "--yes"}, is(corporaOptions{Yes: true, Args: []string{"rm", "old"}})},
	{"corpora --json", parsing(parseCorpora), []string{"--json"}, is(corporaOptions{Out: outputFlags{JSON: true}})},
	{"corpora add: flags before add", parsing(parseCorporaAdd), []string{"--index", "docs", "kb", "--elasticsearch", "http://h:9200", "--api-key-env", "KB_KEY", "--timeout", "3s"},
		func(t *testing.T, _ *cliWorld, _ *env, o any) {
			c := o.(*corporaAddOptions)
			if c.Name != "kb" || c.Spec.Kind != "elasticsearch" || c.Spec.URL != "http://h:9200" || c.Spec.Index != "docs" || c.Spec.APIKeyEnv != "KB_KEY" || c.Spec.Timeout != "3s" {
				t.Errorf("%+v", c)
			}
		}},
	{"completion", parsing(parseCompletion), []string{"zsh"}, is(completionOptions{Shell: "zsh"})},
	{"sources", parsing(parseSources), []string{"--no-connect", "--json"}, is(sourcesOptions{Out: outputFlags{JSON: true}, NoConnect: true})},
	{"sources check", parsing(parseSourcesCheck), []string{"mcp:memory", "--query", "billing"}, is(sourcesCheckOptions{Name: "mcp:memory", Query: "billing"})},
	{"sessions list", parsing(parseSessionsList), []string{"--status", "answered", "-n", "3", "--json", "--text", "pH"},
		is(sessionsListOptions{Out: outputFlags{JSON: true}, Filter: store.Filter{Status: "answered", Limit: 3, Text: "pH"}})},
	{"sessions list --since", parsing(parseSessionsList), []string{"--since", "72h"},
		func(t *testing.T, _ *cliWorld, _ *env, o any) {
			if since := time.Since(o.(*sessionsListOptions).Filter.Since); since < 72*time.Hour || since > 73*time.Hour {
				t.Errorf("since %v ago", since)
			}
		}},
	{"sessions show: --json after the id", parsing(parseSessionsShow), []string{"3f2a", "--json"}, is(sessionsShowOptions{ID: "3f2a", Out: outputFlags{JSON: true}})},
	{"sessions search", parsing(parseSessionsSearch), []string{"BM25", "--json", "ranking"}, is(sessionsSearchOptions{Words: "BM25 ranking", Out: outputFlags{JSON: true}})},
	{"sessions export", parsing(parseSessionsExport), []string{"a", "--format", "html", "b", "-o", "out", "--force"},
		is(sessionsExportOptions{IDs: []string{"a", "b"}, Format: "html", Path: "out", Force: true})},
	{"sessions export --all: answered by default", parsing(parseSessionsExport), []string{"--all", "--corpus", "wiki"},
		is(sessionsExportOptions{All: true, Filter: store.Filter{Status: store.StatusAnswered, Corpus: "wiki"}, Format: "md"})},
	{"sessions import", parsing(parseSessionsImport), []string{"s.json"}, is(sessionsImportOptions{File: "s.json"})},
	{"sessions rerun: OLLAMA_HOST from the environment", parsing(parseSessionsRerun), []string{"last", "--offline", "--model", "m", "--never-leave", "wiki", "--json"},
		func(t *testing.T, _ *cliWorld, _ *env, o any) {
			r := o.(*sessionsRerunOptions)
			if r.ID != "last" || !r.offline || r.o.Model != "m" || !r.o.NeverLeaveSet || !reflect.DeepEqual([]string(r.neverLeave), []string{"wiki"}) ||
				!r.Out.JSON || r.o.OllamaHost != "127.0.0.1:11500" {
				t.Errorf("%+v", r)
			}
		}},
	{"sessions rm --older-than", parsing(parseSessionsRm), []string{"--older-than", "2d", "--yes"}, is(sessionsRmOptions{ByAge: true, OlderThan: 48 * time.Hour, Yes: true})},
	{"sessions rm ids", parsing(parseSessionsRm), []string{"a", "b"}, is(sessionsRmOptions{IDs: []string{"a", "b"}})},
	{"eval", parsing(parseEval), []string{"--data", "qa.jsonl", "--json", "--limit", "5"},
		func(t *testing.T, _ *cliWorld, _ *env, o any) {
			v := o.(*evalOptions)
			if v.data != "qa.jsonl" || !v.Out.JSON || v.limit != 5 || v.parallel != 1 || v.out != "eval-results" {
				t.Errorf("%+v", v)
			}
		}},
	{"bench engine: strategies once each", parsing(parseBenchEngine), []string{"--strategies", "prefrag,react,prefrag", "--json"},
		is(benchEngineOptions{Strategies: []string{"prefrag", "react"}, Hops: 2, Holdout: 0.5, K: 5, MaxSteps: 3, Out: outputFlags{JSON: true}})},
	{"bench evidence", parsing(parseBenchEvidence), []string{"--file", "f.json", "--systems", " aligner ,", "--limit", "2"},
		is(benchEvidenceOptions{File: "f.json", Systems: []string{"aligner"}, Limit: 2})},
	{"bench retrieval --scale: its own default samples", nil, nil,
		func(t *testing.T, w *cliWorld, e *env, _ any) {
			o, err := parseBenchRetrieval(e, []string{"--data", w.path("shared"), "--scale", "1000", "--json"})
			if err != nil || o.Scale != 1000 || o.Rounds != 2 || !o.Out.JSON || o.Samples == 0 {
				t.Fatalf("%+v %v", o, err)
			}
			q, err := parseBenchRetrieval(e, []string{"--data", w.path("shared")})
			if err != nil || q.Samples == o.Samples || q.Data != w.path("shared") {
				t.Errorf("quality run %+v %v: its samples should differ from the scale run's %d", q, err, o.Samples)
			}
		}},
	{"config", parsing(parseConfig), []string{"--top-p", "2"},
		func(t *testing.T, _ *cliWorld, _ *env, o any) {
			if c := o.(*configOptions); c.invalid == nil {
				t.Errorf("an invalid setting is kept to be reported after the settings are printed")
			}
		}},
	{"mcp: the token from the environment", parsing(parseMCP), []string{"--http", "127.0.0.1:0"}, is(mcpOptions{Addr: "127.0.0.1:0", Token: "from-env"})},
	{"mcp: a flag beats the environment", parsing(parseMCP), []string{"--token", "flag"}, is(mcpOptions{Token: "flag"})},
	{"demo: a question asks headless, in the home's demo folder", parsing(parseDemo), []string{"why?"},
		func(t *testing.T, w *cliWorld, _ *env, o any) {
			d := o.(*demoOptions)
			if !d.Ask || d.Question != "why?" || d.Home != filepath.Join(w.vars["PREFRAG_HOME"], "demo") {
				t.Errorf("%+v", d)
			}
		}},
	{"demo --json implies --ask", parsing(parseDemo), []string{"--json", "--home", "h"}, is(demoOptions{Ask: true, Out: outputFlags{JSON: true}, Home: "h"})},
	{"the workspace: its answer style", parsing(parseTUI), []string{"--model", "m"},
		func(t *testing.T, _ *cliWorld, e *env, _ any) {
			if e.cfg.Settings.AnswerStyle != e.cfg.TUIAnswerStyle || e.cfg.Settings.Model != "m" {
				t.Errorf("style %q model %q", e.cfg.Settings.AnswerStyle, e.cfg.Settings.Model)
			}
		}},
}

// Each command's parse function fills its options from the flags (before
// or after the positional arguments), the config file and the
// environment, and does nothing else: no row runs its command.
func TestParseOptions(t *testing.T) {
	for _, r := range optionsRows {
		t.Run(r.name, func(t *testing.T) {
			t.Parallel()
			w := optionsWorld(t)
			e, out, errOut := w.env("")
			var o any
			if r.parse != nil {
				var err error
				if o, err = r.parse(e, r.args); err != nil {
					t.Fatalf("%q: %v", r.args, err)
				}
			}
			r.check(t, w, e, o)
			if out.Len() > 0 || errOut.Len() > 0 {
				t.Errorf("parsing printed %q %q", out, errOut)
			}
			if _, err := os.Stat(w.vars["PREFRAG_HOME"]); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("parsing created the home (%v): it opened something", err)
			}
		})
	}
}
