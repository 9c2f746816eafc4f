package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/textsafe"
	"github.com/prefrag/prefrag/sources"
	"github.com/prefrag/prefrag/store"
)

// The HTML page's model: plain strings and numbers the template places.
// Every string here is untrusted text made safe for reading (control
// characters and escape sequences removed); html/template escapes it.

type htmlPage struct {
	Title     string
	Policy    string
	Generator string
	Sessions  []htmlSession
}

// kv is one row of a table.
type kv struct{ Key, Value string }

type htmlSession struct {
	Anchor   string
	Question string
	Meta     []kv
	// Thread is set for a session with follow-up questions.
	Thread   bool
	Turns    []htmlTurn
	Settings []kv
	// Manifest is the session's manifest, indented JSON ("" when none).
	Manifest string
}

type htmlTurn struct {
	N      int
	Anchor string
	// Question is as asked; Rewritten the standalone question a follow-up
	// was rewritten into.
	Question, Rewritten string
	Label               string
	LabelClass          string
	// Answer is the answer's Markdown rendered (markdownHTML), its
	// citations linked to the sources.
	Answer       template.HTML
	Forced       bool
	Cancelled    bool
	InvalidCites string
	// Claims are the answer's claims, each with its citations and the
	// sentence of a source that supports it. Empty until the evidence
	// check (issue 22, package evidence) records them: see claims.
	Claims []htmlClaim
	Cited  []htmlSource
	Others []htmlSource
	// Summary is one line on the path: steps, searches, the switch.
	Summary string
	Steps   []htmlStep
	// Notices are errors and notices outside every step.
	Notices []htmlNotice
	Outcome string
	Counts  []kv
}

// htmlSeg is a piece of answer text, or a citation [Cite] linking to its
// source's anchor (Href "" when no document had that number).
type htmlSeg struct {
	Text string
	Cite int
	Href string
}

// htmlClaim is one claim of an answer: its text, the sources it cites,
// every supporting quote (none with Verdict "unsupported" or "uncited"),
// and the judge model's check of those quotes when --verify-claims asked
// for one (Check nil otherwise).
type htmlClaim struct {
	Text    template.HTML // inlineMarkdownHTML
	Cites   []htmlSeg
	Quotes  []htmlQuote
	Verdict string
	Check   *htmlCheck
}

// htmlQuote is one supporting sentence, from source N.
type htmlQuote struct {
	N    int
	Text string
}

// htmlCheck is the judge model's verdict on a claim's quotes: Doubt when it
// found no support in them, with its reason (Analysis).
type htmlCheck struct {
	Doubt    bool
	Analysis string
}

// htmlSource is a numbered document of a turn's context.
type htmlSource struct {
	N      int
	Anchor string
	Title  string
	Kind   string // "local" or "web"
	Source string
	// Ref names a local passage (id, with its place in the file); URL is a
	// web source's http(s) address (the only links the page makes).
	Ref, URL string
	Page     string
	Cached   string
	Missing  bool
}

type htmlNotice struct {
	Kind    string // "Error" or "Notice"
	Where   string
	Message string
}

// newHTMLPage builds the page of recs.
func newHTMLPage(recs []*store.Record) htmlPage {
	p := htmlPage{Policy: contentPolicy, Generator: generator}
	for i, rec := range recs {
		anchor := ""
		if len(recs) > 1 {
			anchor = "s" + strconv.Itoa(i+1) + "-"
		}
		p.Sessions = append(p.Sessions, newHTMLSession(rec, anchor))
	}
	switch {
	case len(p.Sessions) == 1:
		p.Title = oneLineText(p.Sessions[0].Question) + " — prefrag"
	default:
		p.Title = fmt.Sprintf("%d sessions — prefrag", len(p.Sessions))
	}
	return p
}

func newHTMLSession(rec *store.Record, anchor string) htmlSession {
	top := newReport(rec)
	s := htmlSession{Anchor: anchor + "session", Question: oneLineText(rec.Session.Question)}
	turns := splitTurns(rec)
	if len(turns) == 0 {
		turns = []*store.Record{rec} // nothing recorded: the question alone
	}
	s.Thread = len(turns) > 1
	s.Meta = top.metaRows(len(turns))
	for i, sub := range turns {
		r := top
		if s.Thread {
			r = newReport(sub)
			if r.settings == nil {
				r.settings = top.settings
			}
		}
		s.Turns = append(s.Turns, r.htmlTurn(i+1, anchor+"t"+strconv.Itoa(i+1)+"-", sub))
	}
	s.Settings = settingsRows(top.settings)
	s.Manifest = indentJSON(rec.Session.Manifest)
	return s
}

// metaRows are the session's header: id, times, status, models, corpora.
func (r *report) metaRows(turns int) []kv {
	s := r.rec.Session
	var rows []kv
	add := func(k, v string) {
		if v = oneLineText(v); v != "" {
			rows = append(rows, kv{k, v})
		}
	}
	add("Session", s.ID)
	if turns > 1 {
		add("Questions", strconv.Itoa(turns))
	}
	add("Started", stamp(s.Started))
	if s.Finished != nil {
		took := s.Finished.Sub(s.Started).Round(100 * time.Millisecond).String()
		if turns > 1 {
			// A thread's span includes the time between its questions;
			// each question's own time is in its counts.
			took += " from the first question to the last answer"
		}
		add("Finished", fmt.Sprintf("%s (%s)", stamp(*s.Finished), took))
	}
	add("Status", s.Status)
	add("Self-evaluation", s.Label)
	add("Model", s.Model)
	if r.settings != nil {
		if r.settings.JudgeModel != s.Model {
			add("Judge model", r.settings.JudgeModel)
		}
		add("Strategy", r.settings.Strategy)
	}
	add("Corpora", strings.Join(s.Corpora, ", "))
	add("Privacy", privacyText(privacyOf(r.rec)))
	return rows
}

// htmlTurn builds one turn (the whole session when it has no follow-ups)
// from the report of its record.
func (r *report) htmlTurn(n int, anchor string, sub *store.Record) htmlTurn {
	t := htmlTurn{N: n, Anchor: anchor + "turn", Question: oneLineText(sub.Session.Question)}
	if tr := r.tr; len(tr.Turns) > 0 {
		for _, tu := range tr.Turns {
			if tu.Rewritten != "" {
				t.Question, t.Rewritten = oneLineText(tu.Question), oneLineText(tu.Rewritten)
			}
		}
	}
	label := r.rec.Session.Label
	if r.final != nil && r.final.Label != "" {
		label = r.final.Label
	}
	t.Label = oneLineText(label)
	t.LabelClass = "label-" + strings.ToLower(strings.ReplaceAll(t.Label, " ", "-"))
	srcAnchor := func(n int) string { return anchor + "src-" + strconv.Itoa(n) }
	t.Answer = r.answerHTML(srcAnchor)
	if r.final != nil {
		t.Forced, t.Cancelled = r.final.Forced, r.final.Cancelled
		if len(r.final.InvalidCitations) > 0 {
			t.InvalidCites = numberList(r.final.InvalidCitations)
		}
	}
	t.Claims = r.claims(srcAnchor)
	cited := r.cited()
	isCited := map[int]bool{}
	for _, c := range cited {
		isCited[c] = true
		t.Cited = append(t.Cited, r.htmlSource(c, srcAnchor(c)))
	}
	var all []int
	for k := range r.numbered {
		all = append(all, k)
	}
	sort.Ints(all)
	for _, k := range all {
		if !isCited[k] {
			t.Others = append(t.Others, r.htmlSource(k, srcAnchor(k)))
		}
	}
	t.Steps = r.htmlSteps()
	t.Notices = trajectoryNotices(r.tr)
	t.Summary = r.pathSummary(t.Steps)
	t.Outcome = r.outcomeText()
	t.Counts = countsRows(r.counts)
	return t
}

// answerHTML is the answer's Markdown rendered for the page: a citation
// of a numbered document links to it.
func (r *report) answerHTML(anchor func(int) string) template.HTML {
	text := strings.TrimSpace(r.answerText())
	if text == "" {
		return ""
	}
	return markdownHTML(text, r.citeHref(anchor))
}

// citeHref says where citation n links: its source's anchor, "" when no
// document had that number.
func (r *report) citeHref(anchor func(int) string) func(int) string {
	return func(n int) string {
		if _, ok := r.numbered[n]; ok {
			return "#" + anchor(n)
		}
		return ""
	}
}

// claims are the answer's claims as the evidence check recorded them (the
// turn's evidence event, package evidence): each with its citations and
// the supporting quote under it, claims without support marked. Without
// the event the answer is shown with its citations linked to the sources.
func (r *report) claims(anchor func(int) string) []htmlClaim {
	if r.tr == nil || r.tr.Evidence == nil {
		return nil
	}
	var out []htmlClaim
	for i, c := range r.tr.Evidence.Claims {
		h := htmlClaim{Text: inlineMarkdownHTML(c.Text), Verdict: oneLineText(string(c.Verdict))}
		for _, n := range c.Citations {
			seg := htmlSeg{Cite: n}
			if _, ok := r.numbered[n]; ok {
				seg.Href = "#" + anchor(n)
			}
			h.Cites = append(h.Cites, seg)
		}
		for _, sup := range c.Support {
			if q := oneLineText(sup.Quote); q != "" {
				h.Quotes = append(h.Quotes, htmlQuote{N: sup.N, Text: q})
			}
		}
		if ck, ok := r.tr.Evidence.CheckOf(i); ok {
			h.Check = &htmlCheck{Doubt: ck.Doubt(), Analysis: oneLineText(ck.Analysis)}
		}
		switch h.Verdict {
		case "supported", "weak", "unsupported", "uncited":
		default:
			h.Verdict = "unsupported"
		}
		out = append(out, h)
	}
	return out
}

func (r *report) htmlSource(n int, anchor string) htmlSource {
	d, ok := r.numbered[n]
	if !ok {
		return htmlSource{N: n, Anchor: anchor, Missing: true}
	}
	s := htmlSource{N: n, Anchor: anchor, Title: oneLineText(d.Title), Source: oneLineText(d.Source), Page: d.Page()}
	s.Kind, s.Ref, s.URL = docWhere(d)
	if s.Title == "" {
		s.Title = s.Ref
	}
	if r.final != nil {
		s.Cached = d.CacheNote(r.finalTime())
	}
	return s
}

// docWhere tells a web source from a local one and says where it is: a
// web document's http(s) URL, a local passage's one name (Document.Ref).
func docWhere(d sources.Document) (kind, ref, url string) {
	kind = sourceKind(d.Source)
	for _, u := range []string{d.URL, d.Locator, d.ID} {
		if u = strings.TrimSpace(u); isWebURL(u) {
			return kind, "", textsafe.ForTerminal(u)
		}
	}
	return kind, oneLineText(d.Ref()), ""
}

// outcomeText says how the turn ended.
func (r *report) outcomeText() string {
	if r.final == nil {
		return "The run did not finish: no final answer was recorded."
	}
	return strings.Join(outcomeParts(*r.final, "The final answer was forced: the step limit was reached, or the model's output could not be parsed, and the answer was asked for from what had been gathered so far.", oneLineText), " ")
}

func noticeOf(p engine.Notice) htmlNotice {
	n := htmlNotice{Kind: "Notice", Message: oneLineText(p.Message), Where: oneLineText(p.Source)}
	if p.Fatal {
		n.Kind = "Error"
	}
	return n
}

// oneLineText is untrusted text for one line: no control characters or
// escape sequences, white space runs collapsed.
func oneLineText(s string) string {
	return strings.TrimSpace(spaceRun().ReplaceAllString(textsafe.ForTerminal(s), " "))
}

// blockText is untrusted text kept with its lines: no control characters
// or escape sequences.
func blockText(s string) string {
	return strings.TrimSpace(textsafe.ForTerminal(s))
}

// indentJSON is a raw JSON object indented for reading, "" when empty.
func indentJSON(raw json.RawMessage) string {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || bytes.Equal(t, []byte("null")) || bytes.Equal(t, []byte("{}")) {
		return ""
	}
	var b bytes.Buffer
	if json.Indent(&b, t, "", "  ") != nil {
		return ""
	}
	return textsafe.ForTerminal(b.String())
}
