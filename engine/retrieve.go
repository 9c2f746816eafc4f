package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/prefrag/prefrag/internal/plural"
	"github.com/prefrag/prefrag/llm"
	"github.com/prefrag/prefrag/prompts"
	"github.com/prefrag/prefrag/sources"
)

// usable drops the sources that obey the web policy (sources.Kind's
// table) when the policy forbids them.
func (r *run) usable(list []Source) []Source {
	if r.webAllowedAtAll() {
		return list
	}
	var out []Source
	for _, s := range list {
		if !s.Kind().FollowsWebPolicy() {
			out = append(out, s)
		}
	}
	return out
}

func (r *run) webAllowedAtAll() bool {
	if r.needsWebOptIn() {
		return false
	}
	switch r.settings.Web {
	case WebNever:
		return false
	case WebAsk:
		return r.req.Consent != nil
	}
	return true
}

// webOffNote says why the web was not used, for the model and the user.
func (r *run) webOffNote() string {
	if r.needsWebOptIn() {
		return noOptInNote
	}
	if r.settings.Web == WebAsk && r.req.Consent == nil {
		return "the web was not searched: policy \"ask\" has no one to ask for consent here, so it acts as \"never\""
	}
	return "the web was not searched: web policy is \"never\""
}

// allowWeb decides whether query may go to src: the web policy and the
// user's consent for a source that obeys it (the web, a remote MCP
// server), and the never-leave rules for every source whose queries leave
// the machine (leak.go). It returns a note for the model when the query
// may not go. It is the one place that decides, and every search of such
// a source passes it first.
func (r *run) allowWeb(ctx context.Context, step int, src Source, query, analysis string) (ok bool, why string, err error) {
	policy := src.Kind().FollowsWebPolicy()
	if !policy && !src.Kind().Leaves() {
		return true, "", nil
	}
	off := "the web was not searched"
	if policy {
		defer func() { why = notSearchedNote(src, why) }()
	} else {
		off = src.Name() + " was not searched"
	}
	if policy && !r.webAllowedAtAll() {
		return false, r.webOffNote(), nil
	}
	hold, err := r.leakCheck(ctx, src, query)
	if err != nil {
		return false, "", err
	}
	switch {
	case hold == nil && (!policy || r.settings.Web != WebAsk):
		return true, "", nil
	case r.sources.allowedForRun[src.Kind()] && (hold == nil || hold.match == nil && hold.unread == nil):
		// Allowed for the run; a query carrying a never-leave corpus's
		// own string is still put to the user.
		return true, "", nil
	}
	if r.sources.deniedForRun[src.Kind()] {
		return false, off + ": " + declinedForRun(src.Kind()), nil
	}
	if r.sources.deniedQueries[query] {
		return false, off + ": the user declined this query earlier in this run", nil
	}
	if r.req.Consent == nil {
		return false, off + ": " + hold.why() + ", and there is no one to ask for consent", nil
	}
	req := ConsentRequest{Step: step, Query: query, Source: src.Name(), Kind: src.Kind(), Analysis: analysis, Reflection: r.phase.reflecting}
	if hold != nil {
		req.Guarded, req.Hold = hold.corpus, hold.why()
		req.Analysis = strings.TrimSpace(analysis + " (" + hold.why() + ")")
		if hold.match != nil {
			req.Carries, req.CarriesKind = hold.match.Text, hold.match.Kind.String()
		}
	}
	c, err := r.req.Consent(ctx, req)
	if ctx.Err() != nil {
		return false, "", ctx.Err()
	}
	if err != nil {
		return false, fmt.Sprintf("%s: %v", off, err), nil
	}
	switch c {
	case ConsentSession:
		r.sources.allowedForRun = setKind(r.sources.allowedForRun, src.Kind())
		return true, "", nil
	case ConsentOnce:
		return true, "", nil
	case ConsentDenyRun:
		r.sources.deniedForRun = setKind(r.sources.deniedForRun, src.Kind())
		return false, off + ": " + declinedForRun(src.Kind()), nil
	}
	// A denied query is not put to the user again in this run.
	if r.sources.deniedQueries == nil {
		r.sources.deniedQueries = map[string]bool{}
	}
	r.sources.deniedQueries[query] = true
	return false, off + ": the user declined", nil
}

// setKind adds k to a set of kinds, making the set on first use.
func setKind(set map[sources.Kind]bool, k sources.Kind) map[sources.Kind]bool {
	if set == nil {
		set = map[sources.Kind]bool{}
	}
	set[k] = true
	return set
}

// declinedForRun says the user declined a kind of source for the rest of
// the run: "the user declined web searches for the rest of this run".
func declinedForRun(k sources.Kind) string {
	if k == sources.KindWeb {
		return "the user declined web searches for the rest of this run"
	}
	return "the user declined " + k.Spec().Queries + " for the rest of this run"
}

// notSearchedNote words a note about the web for another source that obeys
// the web policy: "mcp:kb was not searched (…): web policy is never".
func notSearchedNote(src Source, why string) string {
	if src.Kind() == sources.KindWeb {
		return why
	}
	rest, ok := strings.CutPrefix(why, "the web was not searched")
	if !ok {
		return why
	}
	return src.Name() + " was not searched (a query to it leaves the machine, so the web policy applies)" + rest
}

// retrieve performs the retrieval of one action and records its observation.
func (r *run) retrieve(ctx context.Context, m Strategy, tool, query string) error {
	step := r.pad.turn
	chosen := r.sourceForTool(tool)
	local, web := r.usable(r.sources.local), r.usable(r.sources.web)
	order := append(append([]Source{}, local...), web...)
	if len(order) == 0 {
		return r.observe(step, "", nil, []string{r.nothingToSearchNote()}, nil)
	}
	switch {
	case m.Retrieval == RetrievalMix:
		return r.retrieveMix(ctx, step, query, order)
	case m.Retrieval == RetrievalChosen:
		src := chosen
		if src == nil {
			src = order[0]
		}
		return r.retrieveOne(ctx, step, src, query, "")
	}

	preferred := order[0]
	if ok, why, err := r.allowWeb(ctx, step, preferred, query, ""); err != nil || !ok {
		// The preferred source itself leaves the machine (the web of a
		// --web-only run, a remote index) and the query may not go.
		if err != nil {
			return err
		}
		return r.observe(step, preferred.Name(), nil, notes(why), nil)
	}
	docs, note, err := r.search(ctx, step, preferred, query)
	if err != nil {
		return err
	}
	if preferred.Kind() == sources.KindWeb || !m.Judge {
		return r.observe(step, preferred.Name(), docs, notes(note, r.webNoteIfAny(web)), nil)
	}
	next := r.nextSource(preferred, chosen, order)
	if next == nil {
		// Nowhere to switch to: no judge, the local documents stay.
		return r.observe(step, preferred.Name(), docs, notes(note, r.webNoteIfAny(web)), nil)
	}
	if !r.settings.JudgeFirst && r.ledger.obtained.Len() == 0 {
		return r.observe(step, preferred.Name(), docs, notes(note), nil)
	}
	dec, err := r.selectDocs(ctx, step, preferred, docs, next)
	if err != nil {
		return err
	}
	if dec.Status {
		return r.observe(step, preferred.Name(), docs, notes(note), nil)
	}
	return r.switchTo(ctx, step, query, dec.Analysis, preferred, next, order, docs, note)
}

// switchTo searches next after the judge found the preferred source's
// documents not enough. When next cannot be used (unreachable, a server
// that failed), the query goes on to the source after it in the order; when
// none answers, the preferred documents stay, with every source's reason.
func (r *run) switchTo(ctx context.Context, step int, query, analysis string, preferred, next Source, order []Source, docs []Document, prefNote string) error {
	var failed []string
	for next != nil && next.Name() != preferred.Name() {
		ok, why, err := r.allowWeb(ctx, step, next, query, analysis)
		if err != nil {
			return err
		}
		if !ok {
			return r.observe(step, preferred.Name(), docs, notes(append(append([]string{prefNote}, failed...), why)...), nil)
		}
		alt, altNote, err := r.search(ctx, step, next, query)
		if err != nil {
			return err
		}
		if altNote == "" && after(next, order) != nil {
			// A source that brings nothing new is no reason to stop short
			// of the ones after it (an MCP server before the web).
			if fresh, _ := r.splitSeen(alt); len(fresh) == 0 {
				altNote = nothingNewFrom(next, len(alt))
			}
		}
		if altNote == "" {
			r.tally.counts.Switches++
			return r.observe(step, next.Name(), alt, notes(failed...), docs)
		}
		// The switch failed (blocked, unreachable): the model is told, and
		// the next source in the order is tried.
		failed = append(failed, altNote)
		next = after(next, order)
	}
	return r.observe(step, preferred.Name(), docs, notes(append([]string{prefNote}, failed...)...), nil)
}

// nothingNewFrom says a switch's source brought nothing new (n documents,
// all obtained before), so the next source is tried.
func nothingNewFrom(src Source, n int) string {
	if n == 0 {
		return src.Name() + " found nothing, so the next source was searched"
	}
	return src.Name() + " brought only documents obtained before, so the next source was searched"
}

// webNoteIfAny explains the sources that obey the web policy and were
// left out because it does not allow them: the web, an MCP server over
// the network.
func (r *run) webNoteIfAny(usableWeb []Source) string {
	if r.webAllowedAtAll() {
		return ""
	}
	var out []string
	if len(r.sources.web) > 0 && len(usableWeb) == 0 {
		out = append(out, r.webOffNote())
	}
	for _, s := range r.sources.local {
		if s.Kind().FollowsWebPolicy() {
			out = append(out, notSearchedNote(s, r.webOffNote()))
		}
	}
	return strings.Join(out, "; ")
}

func notes(list ...string) []string {
	var out []string
	for _, n := range list {
		if n != "" {
			out = append(out, n)
		}
	}
	return out
}

// nextSource is where a false judgement switches to: the model's chosen
// source when it named another one, else the next in preference order.
func (r *run) nextSource(preferred, chosen Source, order []Source) Source {
	if chosen != nil && chosen != preferred {
		return chosen
	}
	for i, s := range order {
		if s == preferred && i+1 < len(order) {
			return order[i+1]
		}
	}
	return nil
}

// after is the source after s in order (nil for the last). Sources are
// told apart by name: a source's value need not be comparable.
func after(s Source, order []Source) Source {
	for i, o := range order {
		if o.Name() == s.Name() && i+1 < len(order) {
			return order[i+1]
		}
	}
	return nil
}

// selectDocs decides whether a retrieval's documents enter the context or the
// next source is searched. Documents seen before are no new information:
// when the search brought nothing new (no document, or only documents
// already obtained) that is recorded as such and the judge is not asked;
// otherwise the judge sees the new documents as new and is told which were
// retrieved again (their text is in what was already obtained, never shown
// twice).
func (r *run) selectDocs(ctx context.Context, step int, src Source, docs []Document, next Source) (JudgeDecision, error) {
	fresh, again := r.splitSeen(docs)
	if len(fresh) > 0 {
		return r.judge(ctx, step, src, fresh, again, next)
	}
	dec := JudgeDecision{Analysis: nothingNewText(again)}
	name := next.Name()
	no := false
	r.emit(Event{Step: step, Payload: Selection{Status: &no, Analysis: dec.Analysis, Source: src.Name(), NextSource: &name, NothingNew: true}})
	return dec, nil
}

// splitSeen parts a retrieval into the documents not yet obtained (each
// once) and the numbers of those obtained before.
func (r *run) splitSeen(docs []Document) (fresh []Document, again []int) {
	dup := map[string]bool{}
	for _, d := range docs {
		k := docKey(d)
		if dup[k] {
			continue
		}
		dup[k] = true
		if n, ok := r.ledger.docNum[k]; ok {
			again = append(again, n)
			continue
		}
		fresh = append(fresh, d)
	}
	return fresh, again
}

// nothingNewText says why a retrieval brought nothing new.
func nothingNewText(again []int) string {
	if len(again) == 0 {
		return "nothing new: the search found no documents, so the judge was not asked"
	}
	return fmt.Sprintf("nothing new: %s retrieved %s obtained before (%s), so the judge was not asked",
		plural.N(len(again), "document"), plural.Noun(len(again), "was", "were all"), citeNums(again))
}

// citeNums writes document numbers as citations: "[1], [3]".
func citeNums(ns []int) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = fmt.Sprintf("[%d]", n)
	}
	return strings.Join(parts, ", ")
}

// judge asks the selection judge whether the new documents (fresh, none
// obtained before) add anything; again are the numbers of the documents
// the search brought again, named to the judge without their text.
func (r *run) judge(ctx context.Context, step int, src Source, fresh []Document, again []int, next Source) (JudgeDecision, error) {
	data := judgeInputs{fresh: r.preview(fresh), again: r.repeatedList(again)}
	bare, err := r.prompts.Judge(prompts.JudgeData{Question: r.req.Question, New: data.fresh, Repeated: data.again})
	if err != nil {
		return JudgeDecision{}, &FatalError{Err: err}
	}
	build := func() (llm.Request, error) {
		// Never a judge prompt larger than its budget: the oldest
		// documents already obtained are left out first (fit.go).
		data.obtained = trimNL(r.judgeObtained(trimNL(r.ledger.obtained.String()), r.count(bare)))
		prompt, err := r.prompts.Judge(prompts.JudgeData{Question: r.req.Question, Obtained: data.obtained, New: data.fresh, Repeated: data.again})
		if err != nil {
			return llm.Request{}, &FatalError{Err: err}
		}
		return llm.Request{Purpose: llm.PurposeJudge, Prompt: prompt, Schema: judgeSchema, Options: r.options()}, nil
	}
	resp, err := r.sendFitted(ctx, r.eng.cfg.Judge, step, build)
	if err != nil {
		return JudgeDecision{}, err
	}
	dec := ParseJudge(resp.Text)
	sel := Selection{Status: &dec.Status, Analysis: dec.Analysis, Source: src.Name(), JudgeObtained: data.obtained, JudgeNew: data.fresh, JudgeRepeated: data.again}
	if !dec.Status {
		name := next.Name()
		sel.NextSource = &name
	}
	if dec.Malformed {
		r.warn(step, "", "the judge's reply was not the requested JSON; read as status "+fmt.Sprint(dec.Status))
	}
	r.emit(Event{Step: step, Payload: sel})
	return dec, nil
}

type judgeInputs struct{ obtained, fresh, again string }

// repeatedList names documents obtained before by number and title, for
// the judge: "[1] S. P. L. Sørensen; [3] Carlsberg Laboratory".
func (r *run) repeatedList(nums []int) string {
	parts := make([]string, 0, len(nums))
	for _, n := range nums {
		if n >= 1 && n <= len(r.ledger.docs) {
			parts = append(parts, fmt.Sprintf("[%d] %s", n, r.promptDoc(n, r.ledger.docs[n-1]).Title))
		}
	}
	return strings.Join(parts, "; ")
}

func trimNL(s string) string {
	for len(s) > 0 && s[len(s)-1] == '\n' {
		s = s[:len(s)-1]
	}
	return s
}

// retrieveOne searches one source (after consent for the web) and observes.
func (r *run) retrieveOne(ctx context.Context, step int, src Source, query, analysis string) error {
	ok, why, err := r.allowWeb(ctx, step, src, query, analysis)
	if err != nil {
		return err
	}
	if !ok {
		return r.observe(step, src.Name(), nil, notes(why), nil)
	}
	docs, note, err := r.search(ctx, step, src, query)
	if err != nil {
		return err
	}
	return r.observe(step, src.Name(), docs, notes(note), nil)
}

// retrieveMix searches every usable source and concatenates the results.
func (r *run) retrieveMix(ctx context.Context, step int, query string, order []Source) error {
	var all []Document
	var ns []string
	for _, src := range order {
		ok, why, err := r.allowWeb(ctx, step, src, query, "")
		if err != nil {
			return err
		}
		if !ok {
			ns = append(ns, why)
			continue
		}
		docs, note, err := r.search(ctx, step, src, query)
		if err != nil {
			return err
		}
		all = append(all, docs...)
		ns = append(ns, note)
	}
	return r.observe(step, "mix", all, notes(ns...), nil)
}

// supplement is the reflection's multi-source retrieval: the original
// question, verbatim, against the preferred source, the first MCP server
// when that is not it, and the web.
func (r *run) supplement(ctx context.Context) error {
	step := r.pad.turn
	q := r.req.Question
	var targets []Source
	if l := r.usable(r.sources.local); len(l) > 0 {
		targets = append(targets, l[0])
		for _, s := range l[1:] {
			if s.Kind().IsMCP() && !l[0].Kind().IsMCP() {
				targets = append(targets, s)
				break
			}
		}
	}
	if len(r.sources.web) > 0 {
		targets = append(targets, r.sources.web[0])
	}
	// Its searches are marked as the reflection's, and its web query obeys
	// the web policy, consent and never-leave corpora like any other: the
	// passages it just took from a never-leave corpus count as context.
	r.phase.reflecting = true
	defer func() { r.phase.reflecting, r.phase.pending = false, nil }()
	var all []Document
	var ns []string
	for _, src := range targets {
		r.phase.pending = all
		ok, why, err := r.allowWeb(ctx, step, src, q, "no judge decision: the self-evaluation judged the answer weak, and the reflection supplements it from every source with the question verbatim")
		if err != nil {
			return err
		}
		if !ok {
			ns = append(ns, why)
			continue
		}
		docs, note, err := r.search(ctx, step, src, q)
		if err != nil {
			return err
		}
		all = append(all, docs...)
		ns = append(ns, note)
	}
	obs := r.number(all)
	sup := Supplement{Query: q, Note: strings.Join(notes(ns...), "; ")}
	for i, d := range all {
		sup.DocIDs = append(sup.DocIDs, d.ID)
		sup.DocNums = append(sup.DocNums, obs[i].Num)
	}
	// number() above registered the documents; observe renders them with
	// the same numbers and appends them to the scratchpad.
	if err := r.appendObservation(obs, notes(ns...), all); err != nil {
		return err
	}
	r.emit(Event{Step: step, Payload: sup})
	return nil
}
