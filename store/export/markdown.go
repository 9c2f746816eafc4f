package export

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/engine/fold"
	"github.com/prefrag/prefrag/internal/lazyre"
	"github.com/prefrag/prefrag/internal/textsafe"
	"github.com/prefrag/prefrag/sources"
	"github.com/prefrag/prefrag/store"
)

// Markdown writes one session as a standalone Markdown document: the
// question, the answer with its numbered sources and their locators, then as
// an appendix the trajectory (thoughts, actions, retrievals, the selection
// judge's decisions, observations, self-evaluations, supplements), the
// settings and the counts. All stored text is untrusted: control characters
// and escape sequences are removed and inline text is escaped.
func Markdown(w io.Writer, rec *store.Record) error {
	var b strings.Builder
	if turns := splitTurns(rec); len(turns) > 1 {
		threadMarkdown(&b, rec, turns)
		_, err := io.WriteString(w, b.String())
		return err
	}
	r := newReport(rec)
	r.header(&b)
	r.answer(&b)
	r.trajectory(&b)
	r.settingsTable(&b)
	r.countsTable(&b)
	_, err := io.WriteString(w, b.String())
	return err
}

type report struct {
	rec *store.Record
	// tr is the session folded (engine/fold): the appendix walks its
	// events, the numbering its blocks.
	tr       *fold.Trajectory
	settings *engine.RunConfig
	final    *engine.Final
	finalAt  time.Time
	counts   *engine.Counts
	// numbered maps a citation number [n] to the document it stood for.
	numbered map[int]sources.Document
}

func newReport(rec *store.Record) *report {
	r := &report{rec: rec, numbered: map[int]sources.Document{}}
	tr := fold.FromEvents(rec.Events)
	r.tr = tr
	r.settings, r.final, r.finalAt = tr.Config, tr.Final, tr.FinalAt
	if r.final != nil {
		r.counts = r.final.Counts
	}
	if r.counts == nil && len(rec.Session.Counts) > 0 {
		var c engine.Counts
		if json.Unmarshal(rec.Session.Counts, &c) == nil {
			r.counts = &c
		}
	}
	r.number()
	return r
}

// number rebuilds the [n] → document map from the observations and
// supplements of the folded blocks, with document details from the
// retrievals of the blocks up to it.
func (r *report) number() {
	bySourceID := map[string]sources.Document{}
	byID := map[string]sources.Document{}
	next := 0
	assign := func(source string, ids []string, nums []int) {
		for i, id := range ids {
			d, ok := bySourceID[source+"\x00"+id]
			if !ok {
				if d, ok = byID[id]; !ok {
					d = sources.Document{ID: id, Source: source}
				}
			}
			n := next + 1
			if i < len(nums) {
				n = nums[i]
			}
			if n > next {
				next = n
			}
			if _, seen := r.numbered[n]; !seen {
				r.numbered[n] = d
			}
		}
	}
	for _, b := range r.tr.Blocks {
		for _, rt := range b.Retrievals {
			for _, d := range rt.Docs {
				if d.Source == "" {
					d.Source = rt.Source
				}
				bySourceID[d.Source+"\x00"+d.ID] = d
				byID[d.ID] = d
			}
		}
		obs := func() {
			if o := b.Observation; o != nil {
				assign(o.Source, o.DocIDs, o.DocNums)
			}
		}
		sup := func() {
			if s := b.Supplement; s != nil {
				assign("", s.DocIDs, s.DocNums)
			}
		}
		if b.SupplementFirst() {
			sup()
			obs()
		} else {
			obs()
			sup()
		}
	}
	if r.final == nil {
		return
	}
	// The final event carries the cited documents with their locators.
	f := r.final
	switch {
	case len(f.Sources) > 0 && len(f.Sources) == len(f.SourceNums):
		for i, d := range f.Sources {
			r.numbered[f.SourceNums[i]] = d
		}
	case len(f.Sources) > 0 && len(f.Sources) == len(f.Citations):
		for i, d := range f.Sources {
			r.numbered[f.Citations[i]] = d
		}
	case len(f.Sources) > 0 && len(r.numbered) == 0:
		for i, d := range f.Sources {
			r.numbered[i+1] = d
		}
	}
}

var citationRe = lazyre.New(`\[(\d{1,4})\]`)

func (r *report) answerText() string {
	if r.final != nil && r.final.Answer != "" {
		return r.final.Answer
	}
	return r.rec.Session.Answer
}

// cited are the source numbers the answer refers to, in order.
func (r *report) cited() []int {
	if r.final != nil && (len(r.final.Citations) > 0 || len(r.final.InvalidCitations) > 0) {
		return r.final.Citations
	}
	var out []int
	seen := map[int]bool{}
	for _, m := range citationRe().FindAllStringSubmatch(r.answerText(), -1) {
		n, _ := strconv.Atoi(m[1])
		if _, ok := r.numbered[n]; ok && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

func (r *report) header(b *strings.Builder) {
	s := r.rec.Session
	fmt.Fprintf(b, "# %s\n\n", inline(s.Question))
	b.WriteString("| | |\n|---|---|\n")
	row := func(k, v string) {
		if v != "" {
			fmt.Fprintf(b, "| %s | %s |\n", k, v)
		}
	}
	row("Session", codeSpan(s.ID))
	row("Started", stamp(s.Started))
	if s.Finished != nil {
		took := s.Finished.Sub(s.Started).Round(100 * time.Millisecond).String()
		if s.Turns > 1 {
			// A thread's span includes the time between its turns; each
			// turn's own time is in its counts.
			took += " from the first question to the last answer"
		}
		row("Finished", fmt.Sprintf("%s (%s)", stamp(*s.Finished), took))
	}
	row("Status", cell(s.Status))
	row("Self-evaluation", cell(s.Label))
	row("Model", cell(s.Model))
	if r.settings != nil {
		if r.settings.JudgeModel != "" && r.settings.JudgeModel != s.Model {
			row("Judge model", cell(r.settings.JudgeModel))
		}
		row("Strategy", cell(r.settings.Strategy))
	}
	row("Corpora", cell(strings.Join(s.Corpora, ", ")))
	row("Privacy", cell(privacyText(privacyOf(r.rec))))
	b.WriteString("\n")
}

func (r *report) answer(b *strings.Builder) {
	b.WriteString("## Answer\n\n")
	text := strings.TrimSpace(block(r.answerText()))
	if text == "" {
		text = "*No answer was given.*"
	}
	b.WriteString(text + "\n\n")
	if r.final != nil && r.final.Forced {
		b.WriteString("*This answer was forced: the step limit was reached, or the model's output could not be parsed, and the answer was asked for from what had been gathered so far.*\n\n")
	}
	if r.final != nil && len(r.final.InvalidCitations) > 0 {
		fmt.Fprintf(b, "*The answer cites %s, which no document in the context had.*\n\n", numberList(r.final.InvalidCitations))
	}
	r.unbacked(b)
	cited := r.cited()
	var all []int
	for n := range r.numbered {
		all = append(all, n)
	}
	sort.Ints(all)
	if len(all) == 0 {
		return
	}
	isCited := map[int]bool{}
	for _, n := range cited {
		isCited[n] = true
	}
	if len(cited) > 0 {
		b.WriteString("### Sources\n\n")
		for _, n := range cited {
			r.sourceItem(b, n)
		}
		b.WriteString("\n")
	}
	var rest []int
	for _, n := range all {
		if !isCited[n] {
			rest = append(rest, n)
		}
	}
	if len(rest) > 0 {
		if len(cited) > 0 {
			b.WriteString("### Also in the context\n\n")
		} else {
			b.WriteString("### Documents in the context\n\n")
		}
		for _, n := range rest {
			r.sourceItem(b, n)
		}
		b.WriteString("\n")
	}
}

func (r *report) sourceItem(b *strings.Builder, n int) {
	d, ok := r.numbered[n]
	if !ok {
		fmt.Fprintf(b, "- [%d] *(not in the record)*\n", n)
		return
	}
	title := inline(d.DisplayTitle())
	if title == "" {
		title = codeSpan(d.ID)
	}
	parts := []string{}
	if d.Source != "" {
		parts = append(parts, inline(d.Source))
	}
	if loc := locator(d); loc != "" {
		parts = append(parts, loc)
	}
	if r.final != nil {
		if note := d.CacheNote(r.finalAt); note != "" {
			parts = append(parts, note)
		}
	}
	fmt.Fprintf(b, "- [%d] **%s**", n, title)
	if len(parts) > 0 {
		b.WriteString(" — " + strings.Join(parts, ", "))
	}
	b.WriteString("\n")
	r.quotes(b, n)
}

// locator renders where a document came from: a link for URLs, a code span
// with the passage's one name (Document.Ref) for local passages.
func locator(d sources.Document) string {
	loc := d.Locator
	if loc == "" {
		loc = d.URL
	}
	if !isWebURL(loc) {
		loc = d.Ref()
	}
	if loc == "" {
		return ""
	}
	loc = textsafe.ForTerminal(loc)
	if isWebURL(loc) {
		return "<" + strings.NewReplacer("<", "%3C", ">", "%3E", " ", "%20").Replace(loc) + ">"
	}
	return codeSpan(loc)
}

func isWebURL(s string) bool {
	return (strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "http://")) && !strings.ContainsAny(s, "\n\t")
}

func stamp(t time.Time) string {
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}

func numberList(ns []int) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = "[" + strconv.Itoa(n) + "]"
	}
	return strings.Join(parts, ", ")
}
