package export

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/lazyre"
	"github.com/prefrag/prefrag/store"
)

// Threads: a session with follow-up questions is exported turn by turn.
// JSON and JSON Lines hold every event (each carries its turn); Markdown
// gives each turn its own section (question, rewrite, answer, sources,
// steps and counts); pairs name the turn of each judge decision.

// splitTurns cuts a record into one record per turn of its thread, in
// order. Each holds the events of its turn; its session is the thread's,
// with the turn's question as asked and its answer and label.
func splitTurns(rec *store.Record) []*store.Record {
	var out []*store.Record
	byTurn := map[int]*store.Record{}
	for i, ev := range rec.Events {
		t := engine.TurnOf(ev)
		sub := byTurn[t]
		if sub == nil {
			sub = &store.Record{Session: rec.Session, Verdicts: rec.Verdicts, CacheKeys: rec.CacheKeys}
			sub.Session.Answer, sub.Session.Label, sub.Session.Counts = "", "", nil
			byTurn[t] = sub
			out = append(out, sub)
		}
		sub.Events = append(sub.Events, ev)
		if i < len(rec.Lines) {
			sub.Lines = append(sub.Lines, rec.Lines[i])
		}
		switch p := ev.Payload.(type) {
		case engine.Rewrite:
			sub.Session.Question = p.Original
		case engine.Final:
			sub.Session.Answer, sub.Session.Label = p.Answer, p.Label
			if p.Counts != nil {
				sub.Session.Counts, _ = json.Marshal(p.Counts)
			}
		}
	}
	// A session recorded without a final event has its answer in the
	// session row only. In a thread that row holds the last answer given,
	// which a follow-up cancelled before answering did not give: each turn
	// keeps its own answer and label.
	if len(out) == 1 && out[0].Session.Answer == "" {
		out[0].Session.Answer, out[0].Session.Label = rec.Session.Answer, rec.Session.Label
	}
	return out
}

// sectionHeading matches the headings a report writes, to nest them under
// a turn's heading.
var sectionHeading = lazyre.New(`(?m)^(##+) (Answer|Sources|Also in the context|Documents in the context|Appendix: how the answer was found|Step \d+|Outcome|Counts)$`)

// threadMarkdown writes a session with follow-ups: the thread's header,
// then one section per turn, then the settings.
func threadMarkdown(b *strings.Builder, rec *store.Record, turns []*store.Record) {
	top := newReport(rec)
	top.header(b)
	fmt.Fprintf(b, "This session is a thread of %d questions: each follow-up was rewritten into a standalone question and answered with the documents of the earlier turns still in the context, under their numbers.\n\n", len(turns))
	for i, sub := range turns {
		r := newReport(sub)
		if r.settings == nil {
			r.settings = top.settings
		}
		var t strings.Builder
		fmt.Fprintf(&t, "## Turn %d: %s\n\n", i+1, inline(sub.Session.Question))
		for _, ev := range sub.Events {
			if p, ok := ev.Payload.(engine.Rewrite); ok {
				fmt.Fprintf(&t, "*Rewritten as:* %s\n\n", inline(p.Rewritten))
			}
		}
		var body strings.Builder
		r.answer(&body)
		r.trajectory(&body)
		r.countsTable(&body)
		nested := sectionHeading().ReplaceAllString(body.String(), "#$1 $2")
		// The counts are the turn's own: the heading says so.
		nested = strings.Replace(nested, "### Counts\n", fmt.Sprintf("### Counts of turn %d\n", i+1), 1)
		t.WriteString(nested)
		b.WriteString(t.String())
	}
	top.settingsTable(b)
}
