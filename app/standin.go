package app

import "github.com/prefrag/prefrag/engine"

// StandIns replace what a run would otherwise reach outside the process:
// the model server and the web engine. `prefrag demo` sets them to its
// scripted model and web stand-in (package demo), so the whole loop runs
// with no server and nothing leaves the machine. A nil field leaves the
// configured one.
type StandIns struct {
	// Model answers every call (reasoning, judge, rewrite).
	Model Model
	// Web is the run's web source, in place of the configured engine; the
	// web policy still decides whether it is searched.
	Web engine.Source
}

// standInModel is the stand-in model, nil when there is none.
func (a *App) standInModel() Model {
	if a.StandIns == nil {
		return nil
	}
	return a.StandIns.Model
}

// standInWeb is the stand-in web source, nil when there is none.
func (a *App) standInWeb() engine.Source {
	if a.StandIns == nil {
		return nil
	}
	return a.StandIns.Web
}
