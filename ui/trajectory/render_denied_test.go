package trajectory

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/sources"
)

// A judge that wanted the web, followed by an observation that stayed
// local (consent denied, web off or blocked), is not shown as a switch.
func TestRenderSwitchNotMade(t *testing.T) {
	no := false
	web := "web:duckduckgo"
	doc := sources.Document{ID: "a", Title: "A", Source: "local:wiki"}
	wdoc := sources.Document{ID: "w", Title: "W", Source: web}
	base := []engine.Event{
		{Payload: engine.SessionStart{Question: "q"}},
		{Step: 1, Payload: engine.Thought{Text: "t"}},
		{Step: 1, Payload: engine.Action{Tool: "Search_Engine", Query: "q"}},
		{Step: 1, Payload: engine.Retrieval{Source: "local:wiki", Query: "q", Docs: []sources.Document{doc}}},
	}
	tests := []struct {
		name      string
		evs       []engine.Event
		want, not string
	}{
		{"consent denied", []engine.Event{
			{Step: 1, Payload: engine.Selection{Status: &no, NextSource: &web, Analysis: "nothing new"}},
			{Step: 1, Payload: engine.Observation{Source: "local:wiki", DocIDs: []string{"a"}, Note: "the web was not used: you declined"}},
		}, "local not enough · web (duckduckgo) not used", "switching to"},
		{"no source to switch to", []engine.Event{
			{Step: 1, Payload: engine.Selection{Status: &no, Analysis: "nothing new"}},
			{Step: 1, Payload: engine.Observation{Source: "local:wiki", DocIDs: []string{"a"}, Note: "web policy never"}},
		}, "local not enough · web not used", "switching to"},
		{"waiting for consent", []engine.Event{
			{Step: 1, Payload: engine.Selection{Status: &no, NextSource: &web, Analysis: "nothing new"}},
		}, "switching to web (duckduckgo)", "not used"},
		{"switched, the web search blocked", []engine.Event{
			{Step: 1, Payload: engine.Selection{Status: &no, NextSource: &web, Analysis: "nothing new"}},
			{Step: 1, Payload: engine.Retrieval{Source: web, Query: "q", Outcome: engine.OutcomeBlocked}},
			{Step: 1, Payload: engine.Observation{Source: "local:wiki", DocIDs: []string{"a"}, Note: "web unavailable"}},
		}, "switching to web (duckduckgo)", "not used"},
		{"switched", []engine.Event{
			{Step: 1, Payload: engine.Selection{Status: &no, NextSource: &web, Analysis: "nothing new"}},
			{Step: 1, Payload: engine.Retrieval{Source: web, Query: "q", Docs: []sources.Document{wdoc}}},
			{Step: 1, Payload: engine.Observation{Source: web, DocIDs: []string{"w"}, Discarded: []string{"a"}}},
		}, "switching to web (duckduckgo)", "not used"},
	}
	for _, tt := range tests {
		tr := FromEvents(append(append([]engine.Event(nil), base...), tt.evs...))
		out := ansi.Strip(plainRenderer().Render(tr, View{Width: 100, Upto: -1, ShowFinal: true}).Content())
		if !strings.Contains(out, tt.want) || strings.Contains(out, tt.not) {
			t.Errorf("%s: want %q and no %q:\n%s", tt.name, tt.want, tt.not, out)
		}
	}
}
