package demo

import (
	"context"
	"io/fs"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/sources"
)

// corpusSource searches the sample corpus in memory as the web stand-in
// searches its pages (word overlap): the engine's real prompts, without an
// index.
type corpusSource struct{ docs []page }

func newCorpusSource(t *testing.T) *corpusSource {
	c := &corpusSource{}
	err := fs.WalkDir(Corpus(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(Corpus(), p)
		if err != nil {
			return err
		}
		title, body, _ := strings.Cut(string(b), "\n")
		c.docs = append(c.docs, page{title: strings.TrimPrefix(title, "# "), url: p, text: strings.TrimSpace(body)})
		return nil
	})
	if err != nil || len(c.docs) < 5 {
		t.Fatalf("sample corpus: %d files, %v", len(c.docs), err)
	}
	return c
}

func (*corpusSource) Name() string       { return sources.CorpusName(CorpusName).String() }
func (*corpusSource) Kind() sources.Kind { return sources.KindLocal }
func (c *corpusSource) Search(ctx context.Context, q string, k int) ([]sources.Document, error) {
	docs := search(c.docs, q, k, c.Name())
	for i := range docs {
		docs[i].URL = ""
	}
	return docs, ctx.Err()
}

// TestSampleQuestionsRunTheLoop: each sample question, run by the real
// engine on the sample corpus and the web stand-in, ends with a CORRECT
// answer whose every citation names a document of the context; the first
// one switches its second search to the stand-in; a question outside the
// script is searched and answered with what was found, saying it is a
// script.
func TestSampleQuestionsRunTheLoop(t *testing.T) {
	local := newCorpusSource(t)
	cite := regexp.MustCompile(`\[(\d+)\]`)
	for i, q := range append(Questions(), "What is the tallest tree of Velloran?") {
		t.Run(q, func(t *testing.T) {
			eng, err := engine.New(engine.Config{LLM: &Model{}, Sources: []engine.Source{local, Web{}}})
			if err != nil {
				t.Fatal(err)
			}
			s := engine.DefaultSettings()
			s.Model, s.Web, s.K = ModelName, engine.WebAuto, 3
			var evs []engine.Event
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			res, err := eng.Run(ctx, engine.Request{SessionID: "s", Question: q, Settings: s, Emit: func(e engine.Event) { evs = append(evs, e) }})
			if err != nil {
				t.Fatal(err)
			}
			var final engine.Final
			web := 0
			for _, e := range evs {
				switch p := e.Payload.(type) {
				case engine.Final:
					final = p
				case engine.Retrieval:
					if p.Source == (Web{}).Name() && len(p.Docs) > 0 {
						web++
					}
				}
			}
			if i == len(Questions()) {
				if !strings.Contains(res.Answer, "scripted demo model") {
					t.Errorf("an unknown question's answer does not say it is a script: %q", res.Answer)
				}
				return
			}
			if res.Label != "CORRECT" || len(final.Citations) == 0 || len(final.InvalidCitations) > 0 {
				t.Errorf("answer %q label %q citations %v invalid %v", res.Answer, res.Label, final.Citations, final.InvalidCitations)
			}
			if len(cite.FindAllString(res.Answer, -1)) < strings.Count(res.Answer, ". ")+1 {
				t.Errorf("a sentence of the answer cites nothing: %q", res.Answer)
			}
			if (i == 0) != (web > 0) {
				t.Errorf("%d searches of the stand-in with results; want them for the first sample only", web)
			}
		})
	}
}

// TestWebStandIn: the stand-in finds its pages by their words, the best
// first, at most k, each marked a stand-in page and a web source.
func TestWebStandIn(t *testing.T) {
	docs, err := Web{}.Search(context.Background(), "Tarn Point keeper's cottage rebuilt", 2)
	if err != nil || len(docs) != 2 {
		t.Fatalf("%d docs, %v", len(docs), err)
	}
	if !strings.Contains(docs[0].Text, "rebuilt in 1963") || docs[0].Source != "web:stand-in" || !strings.Contains(docs[0].Title, "stand-in page") {
		t.Errorf("first hit %+v", docs[0])
	}
	if docs, _ := (Web{}).Search(context.Background(), "quantum chromodynamics", 5); len(docs) != 0 {
		t.Errorf("unrelated query found %d pages", len(docs))
	}
}

// TestRewriteFollowUp: a known follow-up is made standalone, another is
// kept as typed.
func TestRewriteFollowUp(t *testing.T) {
	for in, want := range map[string]string{"Where did she train?": "Where did Maren Osk train as an engineer?", "What else?": "What else?"} {
		if got := rewrite("Conversation:\n…\nFollow-up question: " + in + "\n\nReply with the standalone question only"); got != want {
			t.Errorf("rewrite(%q) = %q, want %q", in, got, want)
		}
	}
}
