package cli

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/prefrag/prefrag/app"
	"github.com/prefrag/prefrag/config"
	"github.com/prefrag/prefrag/demo"
	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/sources/catalog"
	"github.com/prefrag/prefrag/sources/local"
	"github.com/prefrag/prefrag/ui"
)

// `prefrag demo`: the whole loop for a new user with no model — the
// workspace (or, with --ask, one question headless) on the bundled sample
// corpus, with the scripted model and the web stand-in of package demo.
//
// The demo keeps its own home, $PREFRAG_HOME/demo by default: its own
// database, corpus and exports, so its sessions never appear among the
// user's (`prefrag sessions list`, the workspace) and the user's pinned
// corpus and config are untouched. Removing prefrag's data directory
// removes it too; --home puts it elsewhere (--home "$PREFRAG_HOME" keeps
// the demo's sessions with the user's own, its corpus listed as "demo").

// demoLabel marks every screen of the demo.
const demoLabel = "scripted demo: sample corpus, web stand-in, nothing leaves this machine"

// demoPace is the scripted model's pause between streamed words where
// someone watches (the workspace, a terminal).
const demoPace = 25 * time.Millisecond

// demoOptions are `prefrag demo`'s.
type demoOptions struct {
	Ask      bool // one question headless
	Out      outputFlags
	Home     string // where the demo keeps its corpus and sessions
	Question string // "": the first sample question
}

func parseDemo(e *env, args []string) (*demoOptions, error) {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	o := &demoOptions{}
	fs.BoolVar(&o.Ask, "ask", false, "ask one question headless and print its steps (the first sample question unless one is given)")
	out := bindJSON(fs, "JSON Lines events instead of text (implies --ask)")
	fs.StringVar(&o.Home, "home", "", "where the demo keeps its corpus and sessions (default $PREFRAG_HOME/demo)")
	pos, err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		helpDemo(e, fs)
		return nil, err
	}
	if err != nil {
		return nil, err
	}
	o.Out, o.Question = *out, strings.TrimSpace(strings.Join(pos, " "))
	o.Ask = o.Ask || o.Out.JSON || o.Question != ""
	if o.Home == "" {
		o.Home = filepath.Join(e.cfg.Home, "demo")
	}
	return o, nil
}

func runDemo(e *env, o *demoOptions) error {
	headless := o.Ask
	if !headless && needTerminal(e.stdin, e.stdout) != nil {
		fmt.Fprintln(e.stderr, "prefrag: demo: no terminal for the workspace, so one sample question is asked here instead (prefrag demo --ask)")
		headless = true
	}
	a, s, err := openDemo(e, o.Home, !o.Out.JSON)
	if err != nil {
		return err
	}
	defer a.Close()
	if headless {
		return demoAsk(e, a, s, o.Question, o.Out.JSON)
	}
	s.AnswerStyle = engine.StyleReport
	deps := ui.Deps{Runner: tuiRunner{a}, Sessions: tuiSessions{a}, Corpora: tuiCorpora{a}, Health: tuiHealth{a}}
	qs := demo.Questions()
	return ui.Run(e.ctx, deps, ui.Options{Settings: s, ExportDir: a.Cfg.ExportsDir(), Label: demoLabel, Draft: qs[0], History: qs[1:]})
}

// openDemo opens the demo's home (created and its sample corpus indexed
// when needed) with the stand-ins, and returns the demo's run settings.
// The user's config file and PREFRAG_* variables do not apply: the demo
// runs the same for everyone.
func openDemo(e *env, dir string, say bool) (*app.App, engine.RunConfig, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, engine.RunConfig{}, err
	}
	cfg, err := config.Load(demoEnv(dir))
	if err != nil {
		return nil, engine.RunConfig{}, err
	}
	a, err := app.Open(e.ctx, cfg)
	if err != nil {
		return nil, engine.RunConfig{}, err
	}
	pace := time.Duration(0)
	if isTerminal(e.stdout) {
		pace = demoPace
	}
	a.StandIns = &app.StandIns{Model: &demo.Model{Pace: pace}, Web: demo.Web{}}
	rep, err := indexDemoCorpus(e, cfg)
	if err != nil {
		a.Close()
		return nil, engine.RunConfig{}, err
	}
	if say && rep.Indexed > 0 {
		fmt.Fprintf(e.stderr, "prefrag: demo: the sample corpus (%d files about the island of Velloran) is indexed in %s\n", rep.Indexed, dir)
	}
	return a, demoSettings(cfg.Settings), nil
}

// demoSettings are the demo's run settings: the scripted model, the
// sample corpus, the web stand-in under policy auto (it is in process:
// nothing leaves the machine), three documents a search.
func demoSettings(s engine.RunConfig) engine.RunConfig {
	s.Model, s.JudgeModel, s.LLM, s.LLMURL = demo.ModelName, "", demo.Backend, demo.Server
	s.Corpora = []string{demo.CorpusName}
	s.Web, s.WebChosen, s.WebEngine = engine.WebAuto, true, demo.WebName
	s.K = 3
	return s
}

// demoEnv is the environment the demo's configuration is read with: the
// process's, with the demo's home, no config file (one under the demo's
// home that does not exist) and none of prefrag's own variables.
func demoEnv(home string) config.Env {
	return func(name string) (string, bool) {
		switch {
		case name == "PREFRAG_HOME":
			return home, true
		case name == "XDG_CONFIG_HOME":
			return filepath.Join(home, "no-config"), true
		case strings.HasPrefix(name, "PREFRAG_"), name == "OLLAMA_HOST":
			return "", false
		}
		return os.LookupEnv(name)
	}
}

// indexDemoCorpus writes the sample corpus under the demo's home and
// indexes it (again: only what changed).
func indexDemoCorpus(e *env, cfg *config.Config) (local.Report, error) {
	dir := filepath.Join(cfg.Home, "sample")
	if err := writeEmbedded(demo.Corpus(), dir); err != nil {
		return local.Report{}, fmt.Errorf("cannot write the demo's sample corpus to %s: %w", dir, err)
	}
	return catalog.Index(e.ctx, cfg.CorporaDir(), demo.CorpusName, []string{dir}, local.IndexOptions{})
}

// demoAsk asks one question headless (the first sample question when none
// is given) and prints its steps as `prefrag ask` does.
func demoAsk(e *env, a *app.App, s engine.RunConfig, question string, asJSON bool) error {
	if question == "" {
		question = demo.Questions()[0]
	}
	out := newEventWriter(e.stdout, asJSON, false)
	out.attachTerminal(e.stdout, e.getenv)
	_, err := a.Ask(e.ctx, app.AskRequest{Question: question, Settings: s, Emit: out.write})
	out.flush()
	if !asJSON && err == nil {
		fmt.Fprintf(e.stdout, "\nThis was prefrag's scripted demo (%s). `prefrag demo` opens the workspace on it; `prefrag demo --ask \"%s\"` asks another sample question.\n",
			"no model: the steps follow a script, the web is a stand-in", demo.Questions()[1])
	}
	return err
}

func helpDemo(e *env, fs *flag.FlagSet) {
	helpFlags(e.stdout, fs, "demo [--home DIR] [--ask] [--json] [QUESTION]")
}
