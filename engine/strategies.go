package engine

import (
	"context"
	"strings"

	"github.com/prefrag/prefrag/prompts"
	"github.com/prefrag/prefrag/sources"
)

// runSingle is vanilla RAG: retrieve once with the question from the first
// source of each kind, then answer in one call.
func runSingle(ctx context.Context, r *run, kinds []sources.Kind) error {
	r.pad.turn = 1
	var all []Document
	var ns []string
	for _, k := range kinds {
		list := r.usable(r.sources.local)
		if k == sources.KindWeb {
			list = r.usable(r.sources.web)
			if len(list) == 0 && len(r.sources.web) > 0 {
				ns = append(ns, r.webOffNote())
			}
		}
		if len(list) == 0 {
			continue
		}
		ok, why, err := r.allowWeb(ctx, r.pad.turn, list[0], r.req.Question, "")
		if err != nil {
			return err
		}
		if !ok {
			ns = append(ns, why)
			continue
		}
		docs, note, err := r.search(ctx, r.pad.turn, list[0], r.req.Question)
		if err != nil {
			return err
		}
		all = append(all, docs...)
		ns = append(ns, note)
	}
	var block string
	var err error
	if len(kinds) > 0 {
		source := "mix"
		if len(kinds) == 1 {
			source = kinds[0].String()
		}
		obs := r.number(all)
		block, err = r.prompts.Observation(prompts.ObservationData{Docs: obs, Notes: notes(ns...)})
		if err != nil {
			return &FatalError{Err: err}
		}
		r.countUsed(all)
		o := Observation{Source: source, Note: strings.Join(notes(ns...), "; ")}
		for i, d := range all {
			o.DocIDs = append(o.DocIDs, d.ID)
			o.DocNums = append(o.DocNums, obs[i].Num)
		}
		r.emit(Event{Step: r.pad.turn, Payload: o})
	}
	return r.answerNow(ctx, block)
}
