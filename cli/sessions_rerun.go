package cli

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/prefrag/prefrag/app"
	"github.com/prefrag/prefrag/config"
	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/textsafe"
	"github.com/prefrag/prefrag/sources/web"
	"github.com/prefrag/prefrag/store"
)

const rerunUsage = "sessions rerun ID|last [--offline] [--web auto|ask|never] [--never-leave NAME] [--llm B] [--llm-url URL] [--model M] [--json]"

// sessionsRerunOptions are `prefrag sessions rerun`'s: the overrides of
// the recorded settings, and the flags they were given with.
type sessionsRerunOptions struct {
	ID         string // an id, a unique prefix, or "last"
	o          config.RerunOverrides
	neverLeave stringsFlag
	offline    bool
	Out        outputFlags
}

// stringsFlag is a repeatable string flag.
type stringsFlag []string

func (l *stringsFlag) String() string     { return strings.Join(*l, ",") }
func (l *stringsFlag) Set(v string) error { *l = append(*l, v); return nil }

func bindRerunFlags(fs *flag.FlagSet) *sessionsRerunOptions {
	f := &sessionsRerunOptions{}
	fs.BoolVar(&f.offline, "offline", false, "use only the cached web results; send no web request")
	fs.StringVar(&f.o.LLM, "llm", "", "LLM backend: ollama, llamacpp or openai (default: the recorded one; an imported session's: the configured one)")
	fs.StringVar(&f.o.LLMURL, "llm-url", "", "LLM server address (default: llm_url from the config file or OLLAMA_HOST when set for the same backend, else the recorded one; never an imported session's)")
	fs.StringVar(&f.o.Web, "web", "", "web policy: auto, ask or never (default: the stricter of the recorded one, when it was chosen, and the configured one)")
	fs.Var(&f.neverLeave, "never-leave", "never-leave corpus, repeatable; replaces the recorded and configured ones (\"\" for none)")
	fs.StringVar(&f.o.Model, "model", "", "model for reasoning steps, and for the judge when it was the same (default: the recorded one)")
	return f
}

// refuseEmpty refuses a flag given an empty value, as `ask` does: ""
// never means "as recorded".
func refuseEmpty(fs *flag.FlagSet) error {
	want := map[string]string{"web": "auto, ask or never", "llm": "ollama, llamacpp or openai",
		"llm-url": "a URL like http://127.0.0.1:11434", "model": "a model name"}
	var err error
	fs.Visit(func(f *flag.Flag) {
		if w, ok := want[f.Name]; ok && err == nil && strings.TrimSpace(f.Value.String()) == "" {
			err = usagef("--%s needs %s, not %q", f.Name, w, f.Value.String())
		}
	})
	return err
}

func parseSessionsRerun(e *env, args []string) (*sessionsRerunOptions, error) {
	fs := flag.NewFlagSet("sessions rerun", flag.ContinueOnError)
	f := bindRerunFlags(fs)
	out := bindJSON(fs, jsonEventsHelp)
	pos, err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		helpFlags(e.stdout, fs, rerunUsage)
	}
	if err != nil {
		return nil, err
	}
	if len(pos) != 1 {
		return nil, usagef("usage: prefrag %s", rerunUsage)
	}
	if err := refuseEmpty(fs); err != nil {
		return nil, err
	}
	f.ID, f.Out = pos[0], *out
	fs.Visit(func(fl *flag.Flag) { f.o.NeverLeaveSet = f.o.NeverLeaveSet || fl.Name == "never-leave" })
	f.o.OllamaHost = e.getenv("OLLAMA_HOST")
	return f, nil
}

func runSessionsRerun(e *env, f *sessionsRerunOptions) error {
	// A re-run needs the question and the settings, not the stored events.
	a, rec, err := openSession(e, f.ID)
	if a == nil {
		return err
	}
	defer a.Close()
	s, changed, err := rerunSettings(e, a, rec, f)
	if err != nil {
		return err
	}
	// The same corpora, in the same order, and the same web engine as the
	// recorded run; an imported session's web engine address is not used.
	a.Cfg.Offline = f.offline
	configured, _ := a.Cfg.WebEndpoint(s.WebEngine)
	if !f.o.Imported {
		a.RestoreWeb(s, rec.Session.Manifest)
	}
	reportRerun(e, a, s, changed, f.o.Imported)
	reportWebAddress(e, a, s, configured != "")
	if f.offline {
		fmt.Fprintln(e.stderr, "prefrag: offline re-run: web searches are answered from the cache only")
	}
	var diff []config.RerunChange
	for _, c := range changed {
		if c.Changed() {
			diff = append(diff, c)
		}
	}
	out := newEventWriter(e.stdout, f.Out.JSON, false)
	res, err := a.Ask(e.ctx, app.AskRequest{Question: rec.Session.Question, Settings: s, Emit: out.write,
		Rerun: &app.Rerun{Of: rec.Session.ID, Changed: diff}})
	if err == nil {
		// A thread is re-run turn by turn.
		err = rerunFollowUps(e, a, res.SessionID, followUps(rec.Events), s, out.write)
	}
	out.flush()
	if err != nil {
		var fe *engine.FatalError
		if errors.As(err, &fe) {
			return fe.Err
		}
		return err
	}
	fmt.Fprintf(e.stderr, "prefrag: re-run stored as session %s\n", res.SessionID)
	return nil
}

// rerunSettings are the settings of a re-run of rec: never looser than
// the recording or today's configuration without a flag (config.Rerun),
// with every never-leave name — recorded, configured or given —
// resolved to today's corpora or refused.
func rerunSettings(e *env, a *app.App, rec *store.Record, f *sessionsRerunOptions) (engine.RunConfig, []config.RerunChange, error) {
	var recorded engine.RunConfig
	if err := json.Unmarshal(rec.Session.Config, &recorded); err != nil {
		return recorded, nil, fmt.Errorf("session %s has no readable settings: %w", rec.Session.ID, err)
	}
	f.o.Imported = !rec.Session.Imported.IsZero()
	p := engine.Privacy{Web: recorded.Web, NeverLeave: recorded.NeverLeave}
	if th := engine.ThreadFrom(rec.Events); th != nil && th.Privacy != nil {
		p = *th.Privacy
	}
	var err error
	from := "the never-leave corpora recorded in session " + rec.Session.ID + " (pass --never-leave to name others)"
	if p.NeverLeave, err = resolveNames(e, a, p.NeverLeave, from); err != nil {
		return recorded, nil, err
	}
	f.o.Recorded = &p
	if err := resolveNeverLeave(e); err != nil {
		return recorded, nil, err
	}
	if f.o.NeverLeave, err = resolveNames(e, a, f.neverLeave, "--never-leave"); err != nil {
		return recorded, nil, err
	}
	return e.cfg.Rerun(recorded, f.o)
}

// resolveNames resolves never-leave names given from somewhere, saying on
// stderr how a name that was not exact was read.
func resolveNames(e *env, a *app.App, names []string, from string) ([]string, error) {
	out, notes, err := a.ResolveNeverLeave(names, from)
	for _, n := range notes {
		fmt.Fprintln(e.stderr, "prefrag: "+textsafe.OneLine(n))
	}
	return out, err
}

// reportRerun says on stderr, one line per setting, what the re-run uses
// and where it came from: recorded, a flag, the config file, the
// environment or a default.
func reportRerun(e *env, a *app.App, s engine.RunConfig, changed []config.RerunChange, imported bool) {
	if imported {
		fmt.Fprintln(e.stderr, "prefrag: this session was imported: the servers its file names are not used without a flag naming them")
	}
	for _, c := range changed {
		if !c.Changed() && c.Origin == config.Recorded {
			fmt.Fprintf(e.stderr, "prefrag: re-run with %s %s (as recorded)\n", settingWord(c.Setting), textsafe.OneLine(c.To))
			continue
		}
		fmt.Fprintf(e.stderr, "prefrag: re-run with %s %s (recorded: %s; from %s)\n", settingWord(c.Setting),
			textsafe.OneLine(c.To), textsafe.OneLine(c.From), c.Origin)
	}
	if s.Web == engine.WebAsk {
		if s.WebChosen {
			fmt.Fprintln(e.stderr, "prefrag: --web ask needs the interactive app to ask in; headless it acts as --web never")
		} else {
			fmt.Fprintln(e.stderr, "prefrag: "+e.cfg.WebChoiceHint())
		}
	}
}

// settingWord is a setting's key as the re-run's lines say it.
func settingWord(key string) string {
	if key == "never_leave" {
		return "never-leave"
	}
	return key
}

// reportWebAddress says which address the re-run's web engine uses and
// where it came from (configured: the configuration named one; else the
// recording's, restored, or the engine's default), when the web may be
// searched.
func reportWebAddress(e *env, a *app.App, s engine.RunConfig, configured bool) {
	spec, ok := web.LookupEngine(s.WebEngine)
	if !ok || s.Web == engine.WebNever || spec.URLSetting == "" {
		return
	}
	u, _ := a.Cfg.WebEndpoint(s.WebEngine)
	origin := "recorded"
	switch {
	case configured:
		origin = "from " + e.cfg.Name(spec.URLSetting)
	case u == "":
		u, origin = spec.DefaultURL, "the engine's default"
	}
	if u != "" {
		fmt.Fprintf(e.stderr, "prefrag: re-run with %s %s (%s)\n", spec.URLSetting, textsafe.ForTerminal(u), origin)
	}
}
