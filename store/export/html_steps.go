package export

import (
	"fmt"
	"html/template"
	"strconv"
	"strings"
	"time"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/engine/fold"
	"github.com/prefrag/prefrag/internal/plural"
	"github.com/prefrag/prefrag/sources"
)

// The HTML report's timeline: one entry per folded block (engine/fold) —
// a reasoning step, a reflection supplement, or a note of the run (the
// retrieval gate, a rewrite, a refinement).

type htmlStep struct {
	Kind  string // "step", "supplement" or "note"
	Title string
	// Used is where the context of this step came from ("local", "web");
	// UsedSource names the source.
	Used, UsedSource string
	// SwitchTo names the source the judge switched to ("" when it did
	// not).
	SwitchTo string
	Thought  string
	Tool     string
	Query    string
	Trace    []htmlTrace
	// Kept entered the reasoning context; KeptNote says why the web was
	// wanted but not used. Discarded were retrieved and kept out.
	Kept      []htmlDoc
	KeptNote  string
	Discarded []htmlDoc
	Answer    *htmlStepAnswer
	// Text is a note block's sentence, Items its list (the gate's queries).
	Text    string
	Items   []string
	Quote   string
	Notices []htmlNotice
}

// htmlTrace is one search, judge decision or notice of a step's retrieval,
// in the order they happened (exactly one is set).
type htmlTrace struct {
	Search *htmlSearch
	Judge  *htmlJudge
	Notice *htmlNotice
}

type htmlSearch struct {
	Source, Kind, Query string
	// Result says what came back: "3 documents", "nothing came back", or
	// how the search failed.
	Result string
	Cached bool
	Docs   []htmlDoc
}

type htmlJudge struct {
	// Label is "Judge", or "Nothing new" for a search that brought only
	// documents seen before (no judge was asked).
	Label string
	// Class is "kept", "switch" or "stay" (not useful, nowhere to go).
	Class   string
	Source  string
	Verdict string
	Reason  string
	// Analyst is the analyst's verdict on this decision, if any.
	Analyst string
	// Repeated names the documents retrieved again, which the judge was
	// told were obtained before.
	Repeated string
}

type htmlDoc struct {
	N     int
	Title string
	Kind  string
	Ref   string
	URL   string
	Score string
	// Legs says which legs of a hybrid search found it.
	Legs string
	// TitleNote says why the title heuristics ranked it ahead.
	TitleNote string
	Cached    string
}

type htmlStepAnswer struct {
	What       string
	Label      string
	LabelClass string
	// Text is the answer's Markdown rendered (markdownHTML).
	Text        template.HTML
	Explanation string
	Suggestions string
}

// htmlSteps are the timeline of the report's trajectory.
func (r *report) htmlSteps() []htmlStep {
	var out []htmlStep
	for _, b := range r.tr.Blocks {
		switch b.Kind {
		case fold.KindNote:
			if s, ok := r.noteStep(b); ok {
				out = append(out, s)
			}
		default:
			out = append(out, r.loopStep(b))
		}
	}
	return out
}

func (r *report) loopStep(b *fold.Block) htmlStep {
	s := htmlStep{Kind: "step", Title: "Step " + strconv.Itoa(b.Step)}
	if b.Kind == fold.KindSupplement {
		s.Kind, s.Title = "supplement", "Reflection supplement"
	}
	s.Thought = blockText(b.Thought)
	if b.HasAction {
		s.Tool, s.Query = oneLineText(b.Tool), oneLineText(b.Query)
	}
	decisions := 0
	for _, item := range b.Trace {
		switch {
		case item.Retrieval != nil:
			s.Trace = append(s.Trace, htmlTrace{Search: r.search(*item.Retrieval)})
		default:
			if sel, ok := traceSelection(item); ok {
				j := r.judge(sel, selectionSeq(b, decisions))
				decisions++
				if j.Class == "switch" && s.SwitchTo == "" && sel.NextSource != nil {
					s.SwitchTo = oneLineText(*sel.NextSource)
				}
				s.Trace = append(s.Trace, htmlTrace{Judge: j})
			} else if n, ok := traceNotice(item); ok {
				s.Trace = append(s.Trace, htmlTrace{Notice: &n})
			}
		}
	}
	var nums []int
	if o, ok := blockObservation(b); ok {
		s.UsedSource = oneLineText(o.Source)
		s.Used = sourceKind(o.Source)
		s.KeptNote = oneLineText(o.Note)
		nums = o.DocNums
	} else if sup, ok := blockSupplement(b); ok {
		s.KeptNote = oneLineText(sup.Note)
		nums = sup.DocNums
		s.Query = oneLineText(sup.Query)
	}
	for i, d := range r.tr.ObservedDocs(b) {
		n := 0
		if i < len(nums) {
			n = nums[i]
		}
		s.Kept = append(s.Kept, htmlDocOf(d, n, time.Time{}))
	}
	for _, d := range r.tr.Discarded(b) {
		s.Discarded = append(s.Discarded, htmlDocOf(d, 0, time.Time{}))
	}
	if a, ok := blockAnswer(b); ok {
		sa := &htmlStepAnswer{What: "Answer", Label: oneLineText(a.Label), Text: markdownHTML(a.Text, nil),
			Explanation: blockText(a.Explanation), Suggestions: blockText(a.Suggestions)}
		if a.Role == "forced" {
			sa.What = "Forced answer"
		}
		sa.LabelClass = "label-" + strings.ToLower(strings.ReplaceAll(sa.Label, " ", "-"))
		s.Answer = sa
	}
	s.Notices = blockNotices(b)
	return s
}

func (r *report) search(rt fold.Retrieval) *htmlSearch {
	s := &htmlSearch{Source: oneLineText(rt.Source), Kind: sourceKind(rt.Source), Query: oneLineText(rt.Query), Cached: rt.Cached}
	for _, d := range rt.Docs {
		if d.Source == "" {
			d.Source = rt.Source
		}
		if d.Cached {
			s.Cached = true
		}
		s.Docs = append(s.Docs, htmlDocOf(d, 0, rt.At))
	}
	switch {
	case rt.Outcome == engine.OutcomeDegraded:
		s.Result = plural.N(len(rt.Docs), "document") + " (" + degradedText(oneLineText(rt.Note)) + ")"
	case rt.Outcome != "" && len(rt.Docs) == 0:
		s.Result = failedSearchText(rt.Outcome, rt.Note)
	case len(rt.Docs) == 0 && rt.Cached:
		s.Result = "the web cache held an empty answer (no request was sent)"
	case len(rt.Docs) == 0:
		s.Result = "nothing came back"
	default:
		s.Result = plural.N(len(rt.Docs), "document")
		if rt.Outcome == engine.OutcomeTruncated {
			s.Result += "; the answer was truncated at the size limit and later results are lost"
		}
	}
	return s
}

// failedSearchText says how a search that returned nothing failed.
func failedSearchText(outcome, note string) string {
	what := "the source was unavailable, no documents"
	switch outcome {
	case engine.OutcomeBlocked:
		what = "the search was blocked, no documents"
	case engine.OutcomeTruncated:
		what = "the answer was truncated at the size limit, no documents could be read"
	}
	if note = oneLineText(note); note != "" {
		what += " (" + note + ")"
	}
	return what
}

func (r *report) judge(p engine.Selection, seq int) *htmlJudge {
	j := &htmlJudge{Label: "Judge", Source: oneLineText(p.Source), Reason: blockText(p.Analysis), Repeated: oneLineText(p.JudgeRepeated)}
	if j.Source == "" {
		j.Source = "the retrieval"
	}
	switch {
	case p.Status != nil && *p.Status:
		j.Class, j.Verdict = "kept", "useful, the documents are kept"
	case p.NextSource != nil && *p.NextSource != "":
		j.Class, j.Verdict = "switch", "not useful, switching to "+oneLineText(*p.NextSource)
	default:
		j.Class, j.Verdict = "stay", "not useful, but there is no other source to switch to"
	}
	if p.NothingNew {
		j.Label, j.Verdict, j.Reason = "Nothing new", strings.TrimPrefix(j.Verdict, "not useful, "), blockText(p.NothingNewReason())
	}
	if v, ok := r.rec.Verdicts[seq]; ok {
		j.Analyst = oneLineText(v)
	}
	return j
}

// noteStep is a note block: the retrieval gate, a rewrite, a refinement.
func (r *report) noteStep(b *fold.Block) (htmlStep, bool) {
	if b.Note == nil {
		return htmlStep{}, false
	}
	s := htmlStep{Kind: "note"}
	switch p := notePayload(b).(type) {
	case engine.Gate:
		s.Title = "Retrieval gate"
		s.Text = "Answered without retrieval."
		if p.Retrieve {
			s.Text = "Retrieval needed."
		}
		if a := blockText(p.Analysis); a != "" {
			s.Text += " " + a
		}
		for _, q := range p.Queries {
			s.Items = append(s.Items, oneLineText(q))
		}
		s.Quote = blockText(p.HeuristicAnswer)
	case engine.Rewrite:
		s.Title = "Question rewritten"
		s.Text = fmt.Sprintf("The follow-up “%s” was rewritten as the standalone question “%s”.", oneLineText(p.Original), oneLineText(p.Rewritten))
	case engine.ThreadContext:
		s.Title = "Thread context"
		s.Text = "The follow-up " + p.Summary() + "."
	case engine.Refinement:
		s.Title = "Observations refined"
		s.Text = fmt.Sprintf("To fit the context, the observations%s%s were cut from %d to %d characters.", refinedSteps(p.Steps), p.ThreadNote(), p.BeforeChars, p.AfterChars)
	default:
		return htmlStep{}, false
	}
	return s, true
}

// pathSummary is one line on how the answer was found.
// switchSummary says where a step that the judge switched went: to the
// source it named, on past it to the one that answered (a source with
// nothing new, or that failed, passes the query on), or nowhere (the
// step kept the preferred source's documents: declined, unavailable).
func switchSummary(s htmlStep) string {
	at := " at " + strings.ToLower(s.Title)
	preferred := ""
	if len(s.Trace) > 0 && s.Trace[0].Search != nil {
		preferred = s.Trace[0].Search.Source
	}
	switch {
	case s.UsedSource == "" || s.UsedSource == s.SwitchTo:
		return "switched to " + sourceWords(s.SwitchTo) + at
	case s.UsedSource == preferred:
		return "stayed with " + s.UsedSource + at + " (" + sourceWords(s.SwitchTo) + " not used)"
	}
	return "switched to " + sourceWords(s.SwitchTo) + ", then " + sourceWords(s.UsedSource) + at
}

// sourceWords names a source in a sentence: "the web", or its name.
func sourceWords(source string) string {
	if sources.IsWeb(source) {
		return "the web"
	}
	return source
}

func (r *report) pathSummary(steps []htmlStep) string {
	nSteps, local, mcp, web, sups := 0, 0, 0, 0, 0
	var switches []string
	for _, s := range steps {
		switch s.Kind {
		case "step":
			nSteps++
		case "supplement":
			sups++
		}
		for _, t := range s.Trace {
			if t.Search != nil {
				switch t.Search.Kind {
				case sources.RoleWeb.String():
					web++
				case sources.RoleMCP.String():
					mcp++
				default:
					local++
				}
			}
		}
		if s.SwitchTo != "" {
			switches = append(switches, switchSummary(s))
		}
	}
	parts := []string{plural.N(nSteps, "step")}
	switch {
	case mcp > 0:
		parts = append(parts, fmt.Sprintf("%s (%d local, %d MCP, %d web)", plural.Of(local+mcp+web, "search", "searches"), local, mcp, web))
	case local+web > 0:
		parts = append(parts, fmt.Sprintf("%s (%d local, %d web)", plural.Of(local+web, "search", "searches"), local, web))
	}
	parts = append(parts, switches...)
	if sups > 0 {
		parts = append(parts, plural.N(sups, "reflection supplement"))
	}
	return strings.Join(parts, " · ")
}

func htmlDocOf(d sources.Document, n int, at time.Time) htmlDoc {
	h := htmlDoc{N: n, Title: oneLineText(d.DisplayTitle())}
	h.Kind, h.Ref, h.URL = docWhere(d)
	if h.Title == "" {
		h.Title = "(untitled)"
	}
	if d.Score != 0 {
		h.Score = strconv.FormatFloat(d.Score, 'f', 2, 64)
	}
	h.Legs, h.TitleNote = d.LegNote(), d.TitleNote()
	h.Cached = d.CacheNote(at)
	return h
}

// sourceKind is the CSS class of a source's colour role (sources' kinds
// table): "web" for a web engine, "mcp" for an MCP server, "local" for a
// corpus and for anything else.
func sourceKind(source string) string {
	n, ok := sources.ParseName(source)
	if !ok || n.Role() == sources.RoleNeutral {
		return sources.RoleLocal.String()
	}
	return n.Role().String()
}
