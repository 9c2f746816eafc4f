package cli

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/prefrag/prefrag/app"
	"github.com/prefrag/prefrag/config"
	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/textsafe"
)

const rerunUsage = "sessions rerun ID [--offline] [--web auto|ask|never] [--llm B] [--llm-url URL] [--model M] [--json]"

func sessionsRerun(e *env, args []string) error {
	fs := flag.NewFlagSet("sessions rerun", flag.ContinueOnError)
	offline := fs.Bool("offline", false, "use only the cached web results; send no web request")
	asJSON := fs.Bool("json", false, "JSON Lines events on stdout")
	var o config.RerunOverrides
	fs.StringVar(&o.LLM, "llm", "", "LLM backend: ollama, llamacpp or openai (default: the recorded one)")
	fs.StringVar(&o.LLMURL, "llm-url", "", "LLM server address (default: llm_url from the config file or OLLAMA_HOST when set for the same backend, else the recorded one)")
	fs.StringVar(&o.Web, "web", "", "web policy: auto, ask or never (default: the recorded one when it was chosen, else the configured one)")
	fs.StringVar(&o.Model, "model", "", "model for reasoning steps, and for the judge when it was the same (default: the recorded one)")
	pos, err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		helpFlags(e.stdout, fs, rerunUsage)
	}
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("usage: prefrag %s", rerunUsage)
	}
	o.OllamaHost = os.Getenv("OLLAMA_HOST")
	// A re-run needs the question and the settings, not the stored events.
	a, rec, err := openSession(e, pos[0])
	if a == nil {
		return err
	}
	defer a.Close()
	var recorded engine.RunConfig
	if err := json.Unmarshal(rec.Session.Config, &recorded); err != nil {
		return fmt.Errorf("session %s has no readable settings: %w", rec.Session.ID, err)
	}
	s, changed, err := e.cfg.Rerun(recorded, o)
	if err != nil {
		return err
	}
	for _, c := range changed {
		fmt.Fprintf(e.stderr, "prefrag: re-run with %s %s (recorded: %s; from %s)\n", c.Setting,
			textsafe.ForTerminal(c.To), textsafe.ForTerminal(c.From), c.Origin)
	}
	if s.Web == engine.WebAsk {
		if s.WebChosen {
			fmt.Fprintln(e.stderr, "prefrag: --web ask needs the interactive app to ask in; headless it acts as --web never")
		} else {
			fmt.Fprintln(e.stderr, "prefrag: "+e.cfg.WebChoiceHint())
		}
	}
	// The same corpora, in the same order, and the same web engine as the
	// recorded run.
	a.Cfg.Offline = *offline
	a.RestoreWeb(s, rec.Session.Manifest)
	if *offline {
		fmt.Fprintln(e.stderr, "prefrag: offline re-run: web searches are answered from the cache only")
	}
	out := newEventWriter(e.stdout, *asJSON, false)
	res, err := a.Ask(e.ctx, app.AskRequest{Question: rec.Session.Question, Settings: s, Emit: out.write,
		Rerun: &app.Rerun{Of: rec.Session.ID, Changed: changed}})
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
