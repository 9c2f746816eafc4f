package app

import (
	"context"
	"time"

	"github.com/prefrag/prefrag/engine"
)

// Proxy builds the retrieval gate's proxy model (--proxy-model): the judge
// or step client when it names the same model, else a new client, checked
// within seconds.
func (a *App) Proxy(ctx context.Context, s engine.RunConfig, step, judge Model) (Model, error) {
	switch s.ProxyModel {
	case "", s.JudgeModel:
		return judge, nil
	case s.Model:
		return step, nil
	}
	proxy, err := a.NewModel(s, s.ProxyModel)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := proxy.Check(ctx); err != nil {
		return nil, err
	}
	return proxy, nil
}
