// Package scripted holds one realistic PrefRAG session as engine events, for
// the UI's tests, golden files and benchmarks: a local retrieval the judge
// accepts, a second one it rejects (switch to the web), an answer the model
// itself labels INCORRECT, the reflection supplement, a CORRECT answer and
// the final event. Times advance by fixed amounts from the start given, so
// nothing depends on the wall clock.
package scripted

import (
	"strings"
	"time"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/sources"
)

// SessionID is the id of the scripted session.
const SessionID = "7f3c2a1e-5b4d-4c8e-9a10-2b3c4d5e6f70"

// Question is the scripted session's question.
const Question = "Which river flows through the city where the author of The Trial was born?"

// Settings are the settings the scripted session ran with.
func Settings() engine.RunConfig {
	s := engine.DefaultRunConfig()
	s.Corpora = []string{"wiki"}
	s.Model = "qwen2.5:7b-instruct"
	s.JudgeModel = s.Model
	s.K = 3
	s.AnswerStyle = engine.StyleReport
	return s
}

func doc(src, id, title, text string, score float64, url string) sources.Document {
	return sources.Document{ID: id, Title: title, Text: text, Source: src, Score: score, URL: url, Locator: url}
}

var (
	kafka = doc("local:wiki", "wiki:kafka#1", "Franz Kafka",
		"Franz Kafka (3 July 1883 – 3 June 1924) was a German-speaking Bohemian novelist and short-story writer, born in Prague, then part of Austria-Hungary. He is widely regarded as one of the major figures of 20th-century literature.", 14.21, "")
	trial = doc("local:wiki", "wiki:the-trial#1", "The Trial",
		"The Trial (German: Der Process) is a novel written by Franz Kafka in 1914 and 1915 and published posthumously in 1925. It tells the story of Josef K., a man arrested and prosecuted by a remote, inaccessible authority.", 12.87, "")
	brod = doc("local:wiki", "wiki:max-brod#2", "Max Brod",
		"Max Brod was a Prague-born writer, composer and journalist. A friend and biographer of Franz Kafka, he published most of Kafka's works after his death, against Kafka's wish that they be burned.", 9.02, "")
	vltava = doc("web:duckduckgo", "https://en.wikipedia.org/wiki/Vltava", "Vltava - Wikipedia",
		"The Vltava (German: Moldau) is the longest river in the Czech Republic. It runs southeast along the Bohemian Forest and then north across Bohemia, through Český Krumlov, České Budějovice and Prague, merging with the Elbe at Mělník.", 0, "https://en.wikipedia.org/wiki/Vltava")
	prague = doc("web:duckduckgo", "https://en.wikipedia.org/wiki/Geography_of_Prague", "Geography of Prague",
		"Prague is situated on the Vltava river, at the centre of the Bohemian basin. The river flows through the city from south to north in a wide meander.", 0, "https://en.wikipedia.org/wiki/Geography_of_Prague")
	bridge = doc("web:duckduckgo", "https://www.prague.eu/en/charles-bridge", "Charles Bridge | Prague.eu",
		"Charles Bridge is a medieval stone arch bridge that crosses the Vltava river in Prague. Its construction started in 1357.", 0, "https://www.prague.eu/en/charles-bridge")
	elbe = doc("local:wiki", "wiki:elbe#1", "Elbe",
		"The Elbe is one of the major rivers of Central Europe. It rises in the Krkonoše Mountains of the northern Czech Republic; its largest tributary, the Vltava, joins it at Mělník, north of Prague.", 7.45, "")
)

// Step texts: what the model streamed for each reasoning call.
const (
	raw1 = "Thought: I need to find out who wrote The Trial and where that author was born.\nAction: Search_Engine\nAction Input: author of The Trial novel birthplace\n"
	raw2 = "Thought: Franz Kafka wrote The Trial and was born in Prague. Now I need the river that flows through Prague.\nAction: Search_Engine\nAction Input: river flowing through Prague\n"
	raw3 = "Thought: The documents mention the Elbe near Prague.\nFinal Answer: The Elbe.\nSelf-Evaluation: INCORRECT\nExplanation: The documents say the Vltava flows through Prague; the Elbe is only joined by it at Mělník, north of the city.\nImprovement Suggestions: Name the river that passes through Prague itself.\n"
	raw4 = "Thought: The author of The Trial is Franz Kafka, born in Prague, and the Vltava flows through Prague.\nFinal Answer: The **Vltava** (German: *Moldau*) flows through Prague, the birthplace of Franz Kafka, author of *The Trial* [1][4].\nSelf-Evaluation: CORRECT\nExplanation: Both hops are supported by the documents.\nImprovement Suggestions: None.\n"
)

// FinalAnswer is the scripted session's final answer (Markdown).
const FinalAnswer = "The **Vltava** (German: *Moldau*) flows through Prague, the birthplace of Franz Kafka, author of *The Trial* [1][4].\n\n- Kafka was born in Prague in 1883 [1].\n- The Vltava runs through Prague from south to north [4]."

// Events returns the whole scripted session, tokens included, starting at
// start; each event is one second after the previous one. Token events
// carry the raw text each reasoning call streamed, cut into words.
func Events(start time.Time) []engine.Event {
	b := &builder{t: start}
	st := Settings()
	yes, no := true, false
	web := "web:duckduckgo"
	ids := func(ds ...sources.Document) []string {
		out := make([]string, len(ds))
		for i, d := range ds {
			out[i] = d.ID
		}
		return out
	}

	b.add(engine.Event{Payload: engine.SessionStart{Question: Question, Config: &st}})

	b.tokens(1, "step", raw1)
	b.add(engine.Event{Step: 1, Payload: engine.Thought{Role: "step", Text: "I need to find out who wrote The Trial and where that author was born."}})
	b.add(engine.Event{Step: 1, Payload: engine.Action{Tool: "Search_Engine", Query: "author of The Trial novel birthplace"}})
	b.add(engine.Event{Step: 1, Payload: engine.Retrieval{Source: "local:wiki", Query: "author of The Trial novel birthplace", Docs: []sources.Document{kafka, trial, brod}}})
	b.add(engine.Event{Step: 1, Payload: engine.Selection{Source: "local:wiki", Status: &yes, Analysis: "The documents name Franz Kafka as the author of The Trial and say he was born in Prague. This is new and answers the first hop."}})
	b.add(engine.Event{Step: 1, Payload: engine.Observation{Source: "local:wiki", DocIDs: ids(kafka, trial, brod), DocNums: []int{1, 2, 3}}})

	b.tokens(2, "step", raw2)
	b.add(engine.Event{Step: 2, Payload: engine.Thought{Role: "step", Text: "Franz Kafka wrote The Trial and was born in Prague. Now I need the river that flows through Prague."}})
	b.add(engine.Event{Step: 2, Payload: engine.Action{Tool: "Search_Engine", Query: "river flowing through Prague"}})
	b.add(engine.Event{Step: 2, Payload: engine.Retrieval{Source: "local:wiki", Query: "river flowing through Prague", Docs: []sources.Document{kafka, brod, trial}}})
	b.add(engine.Event{Step: 2, Payload: engine.Selection{Source: "local:wiki", Status: &no, NextSource: &web, Analysis: "The new documents repeat what was already observed about Kafka and say nothing about rivers. The local corpus has nothing new for this query.", JudgeObtained: "title: Franz Kafka\ncontent: Franz Kafka (3 July 1883 – 3 June 1924) was a German-speaking Bohemian novelist…", JudgeNew: "title: Franz Kafka\ncontent: Franz Kafka (3 July 1883 – 3 June 1924)…\ntitle: Max Brod\ncontent: Max Brod was a Prague-born writer…"}})
	b.add(engine.Event{Step: 2, Payload: engine.Retrieval{Source: web, Query: "river flowing through Prague", Docs: []sources.Document{vltava, prague, bridge}}})
	b.add(engine.Event{Step: 2, Payload: engine.Observation{Source: web, DocIDs: ids(vltava, prague, bridge), DocNums: []int{4, 5, 6}, Discarded: ids(kafka, brod, trial)}})

	b.tokens(3, "step", raw3)
	b.add(engine.Event{Step: 3, Payload: engine.Thought{Role: "step", Text: "The documents mention the Elbe near Prague."}})
	b.add(engine.Event{Step: 3, Payload: engine.Answer{Role: "step", Text: "The Elbe.", Label: "INCORRECT", Explanation: "The documents say the Vltava flows through Prague; the Elbe is only joined by it at Mělník, north of the city.", Suggestions: "Name the river that passes through Prague itself."}})

	b.add(engine.Event{Step: 3, Payload: engine.Retrieval{Source: "local:wiki", Query: Question, Docs: []sources.Document{kafka, elbe, trial}}})
	b.add(engine.Event{Step: 3, Payload: engine.Retrieval{Source: web, Query: Question, Docs: []sources.Document{vltava, prague}}})
	b.add(engine.Event{Step: 3, Payload: engine.Supplement{Query: Question, DocIDs: ids(elbe, vltava, prague), DocNums: []int{7, 4, 5}}})

	b.tokens(4, "step", raw4)
	b.add(engine.Event{Step: 4, Payload: engine.Thought{Role: "step", Text: "The author of The Trial is Franz Kafka, born in Prague, and the Vltava flows through Prague."}})
	b.add(engine.Event{Step: 4, Payload: engine.Answer{Role: "step", Text: "The **Vltava** (German: *Moldau*) flows through Prague, the birthplace of Franz Kafka, author of *The Trial* [1][4].", Label: "CORRECT", Explanation: "Both hops are supported by the documents.", Suggestions: "None."}})
	b.add(engine.Event{Payload: engine.Final{Answer: FinalAnswer, Label: "CORRECT", Citations: []int{1, 4}, Sources: []sources.Document{kafka, vltava}, Counts: &engine.Counts{LLMCalls: 6, StepCalls: 4, JudgeCalls: 2, LocalRetrievals: 3, WebRetrievals: 2,
		UsedRetrievals: 3, UsedLocalRetrievals: 1, UsedDocs: 9, PromptTokens: 9214, CachedPromptTokens: 6120,
		OutputTokens: 412, Reflections: 1, Switches: 1, LLMMillis: 16400, RetrievalMillis: 1300, TotalMillis: 18200}}})
	return b.evs
}

// Stored returns Events without the token events: what the store keeps.
func Stored(start time.Time) []engine.Event {
	var out []engine.Event
	for _, ev := range Events(start) {
		if _, token := ev.Payload.(engine.Token); !token {
			out = append(out, ev)
		}
	}
	return out
}

type builder struct {
	t   time.Time
	seq int
	evs []engine.Event
}

func (b *builder) add(ev engine.Event) {
	b.seq++
	ev.Session, ev.Seq, ev.Time = SessionID, b.seq, b.t
	b.t = b.t.Add(time.Second)
	b.evs = append(b.evs, ev)
}

// tokens streams text as token events, one per word (with its trailing
// space or newline); tokens are not numbered (they are never stored).
func (b *builder) tokens(step int, role, text string) {
	for _, tok := range Split(text) {
		b.evs = append(b.evs, engine.Event{Session: SessionID, Step: step, Time: b.t, Payload: engine.Token{Role: role, Text: tok}})
	}
}

// Split cuts text into word tokens that concatenate back to text.
func Split(text string) []string {
	var out []string
	for len(text) > 0 {
		i := strings.IndexAny(text, " \n")
		if i < 0 {
			out = append(out, text)
			break
		}
		out = append(out, text[:i+1])
		text = text[i+1:]
	}
	return out
}

// Long returns a session of n reasoning steps for benchmarks: the scripted
// session's first two steps (a local retrieval the judge accepts, then a
// switch to the web) repeated, without an answer.
func Long(n int, start time.Time) []engine.Event {
	base := Stored(start)
	var one, two []engine.Event
	for _, ev := range base {
		switch {
		case ev.Step == 1 && !isAnswer(ev):
			one = append(one, ev)
		case ev.Step == 2:
			two = append(two, ev)
		}
	}
	out := []engine.Event{base[0]}
	seq := 1
	for s := 1; s <= n; s++ {
		src := one
		if s%2 == 0 {
			src = two
		}
		for _, ev := range src {
			seq++
			ev.Step, ev.Seq = s, seq
			out = append(out, ev)
		}
	}
	return out
}

func isAnswer(ev engine.Event) bool {
	_, ok := ev.Payload.(engine.Answer)
	return ok
}
