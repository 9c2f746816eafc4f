package export

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/exportmark"
	"github.com/prefrag/prefrag/internal/testdouble/fixture"
	"github.com/prefrag/prefrag/sources"
	"github.com/prefrag/prefrag/store"
)

// styleBody matches the inline style sheet: the golden files guard the
// page's structure, not its looks.
var styleBody = regexp.MustCompile(`(?s)<style>.*?</style>`)

// normaliseHTML is the page as the golden files hold it: the style sheet
// elided, no trailing spaces.
func normaliseHTML(page []byte) []byte {
	out := styleBody.ReplaceAll(page, []byte("<style>/* report.css */</style>"))
	return regexp.MustCompile(`(?m)[ \t]+$`).ReplaceAll(out, nil)
}

func renderHTML(t *testing.T, recs ...*store.Record) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, FormatHTML, recs...); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestHTMLGolden: the case study (a switch to the web, a reflection
// supplement) and a two-question thread, normalised, against their golden
// files; and the page holds what the issue lists.
func TestHTMLGolden(t *testing.T) {
	single := renderHTML(t, storeCaseStudy(t, openStore(t), caseID))
	golden(t, "casestudy.html.golden", normaliseHTML(single))
	threadRec := storeThread(t, openStore(t))
	fin := threadRec.Events[len(threadRec.Events)-1].Time // the wall clock, pinned
	threadRec.Session.Finished = &fin
	thread := renderHTML(t, threadRec)
	golden(t, "thread.html.golden", normaliseHTML(thread))

	if !exportmark.Is(single[:min(len(single), exportmark.HeadSize)]) || !exportmark.Is(thread[:exportmark.HeadSize]) {
		t.Error("the page does not carry the export mark prefrag index recognises")
	}
	page := string(single)
	for _, want := range []string{
		`<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;; style-src &#39;unsafe-inline&#39;`,
		`<meta name="generator" content="prefrag session export">`,
		`@media (prefers-color-scheme: dark)`,
		`@media print`,
		`died in 1974 <a class="cite" href="#t1-src-6">[6]</a>.`,
		`<li id="t1-src-6" class="source local"><span class="num">[6]</span> <span class="title">Carsten Olsen</span> <span class="badge local">local:wiki</span> <code class="loc">Carsten_Olsen#0 (at wiki/2wikimqa.jsonl#1311)</code></li>`,
		`<a class="url" href="https://da.wikipedia.org/wiki/Carsten_Olsen" rel="noopener noreferrer">`,
		`<span class="badge switch">switched to web:duckduckgo</span>`,
		`<strong>not useful, switching to web:duckduckgo</strong>`,
		`Johannes Schmidt was a biologist, not a plant ecologist.`,
		`Analyst's verdict on this decision: agree.`,
		`Kept out of the context, judged not useful (3)`,
		`<h4>Reflection supplement</h4>`,
		`4 steps · 5 searches (3 local, 2 web) · switched to the web at step 2 · 1 reflection supplement`,
		`<tr><th scope="row">LLM calls</th><td>6 (reasoning 4, judge 2, forced 0)</td></tr>`,
		`<tr><th scope="row">temperature</th><td>0.1</td></tr>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	tp := string(thread)
	for _, want := range []string{
		`a thread of 2 questions`,
		`<h2><span class="turn-n">Question 2</span> and where did he study?</h2>`,
		`Rewritten as the standalone question: <q>Where did Carsten Erik Olsen study?</q>`,
		`In Copenhagen <a class="cite" href="#t2-src-8">[8]</a>; he is the ecologist of <a class="cite" href="#t2-src-6">[6]</a>.`,
		`<summary>Counts of question 2</summary>`,
	} {
		if !strings.Contains(tp, want) {
			t.Errorf("the thread's page lacks %s", want)
		}
	}
}

// Hostile text: each string an attacker controls (a web page's title, URL
// and text, the model's answer, thought and judge analysis, the question).
const (
	hostileScript = `<script>document.title="PWNED"</script>`
	hostileImg    = `<img src=x onerror="document.title='PWNED'">`
	hostileFrame  = `</details></li></ol><iframe src="https://evil.example/frame"></iframe>`
	hostileLink   = `<a href="javascript:document.title='PWNED'">click me</a>`
	hostileMDLink = `[open](javascript:alert(1))`
	hostileStyle  = `<style>body{display:none}</style>`
)

// storeHostile stores a session whose every untrusted text is hostile: a
// web result with a javascript: URL and markup in its title and text, an
// answer with raw HTML and a javascript: link, terminal escapes.
func storeHostile(t testing.TB, s *store.Store) *store.Record {
	t.Helper()
	ctx := context.Background()
	const id = "hostile"
	q := "Which " + hostileScript + " is \x1b]0;pwned\x07 safe?"
	if err := s.CreateSession(ctx, store.Session{ID: id, Question: q, Started: fixture.Start}); err != nil {
		t.Fatal(err)
	}
	evil := map[string]any{"id": "javascript:document.title='PWNED'", "url": "javascript:document.title='PWNED'",
		"locator": "javascript:document.title='PWNED'", "title": "Evil " + hostileFrame + hostileStyle,
		"text": hostileImg, "source": "web:duckduckgo", "score": 1}
	odd := map[string]any{"id": `https://ok.example/?q="><script>alert(1)</script>`, "url": `https://ok.example/?q="><script>alert(1)</script>`,
		"title": "Odd but http " + hostileLink, "text": "t", "source": "web:duckduckgo", "score": 0.5}
	local := map[string]any{"id": "notes/evil.md#0", "locator": "notes/evil.md#0", "title": "Local " + hostileImg,
		"text": hostileScript, "source": "local:notes", "score": 3}
	f := false
	web := "web:duckduckgo"
	lines := []map[string]any{
		{"type": "session", "question": q, "config": fixture.Settings()},
		{"type": "thought", "step": 1, "text": "Thinking " + hostileScript + "\x1b[2J"},
		{"type": "action", "step": 1, "tool": "Search_Engine", "query": "q " + hostileImg},
		{"type": "retrieval", "step": 1, "source": "local:notes", "query": "q", "docs": []any{local}},
		{"type": "selection", "step": 1, "status": f, "analysis": "Not useful " + hostileFrame, "next_source": web, "source": "local:notes"},
		{"type": "retrieval", "step": 1, "source": web, "query": "q", "docs": []any{evil, odd}},
		{"type": "observation", "step": 1, "source": web, "doc_ids": []string{evil["id"].(string), odd["id"].(string)}, "doc_nums": []int{1, 2}, "discarded": []string{"notes/evil.md#0"}},
		{"type": "answer", "step": 2, "text": "Safe [1] " + hostileImg, "label": "CORRECT " + hostileScript, "explanation": hostileLink, "suggestions": hostileMDLink},
		{"type": "error", "message": "notice " + hostileFrame, "fatal": false},
		{"type": "final", "answer": "Safe [1][2]. " + hostileScript + " " + hostileImg + " " + hostileFrame + " " + hostileLink + " " + hostileMDLink,
			"forced": false, "label": "CORRECT", "citations": []int{1, 2}, "counts": map[string]any{"llm_calls": 3, "judge_calls": 1}},
	}
	return storeLines(t, s, id, "Safe [1][2]. "+hostileScript, lines)
}

// storeLines stores events given in their wire form (CONTRACT.md) for the
// created session id, finishes it with answer, and reads it back.
func storeLines(t testing.TB, s *store.Store, id, answer string, lines []map[string]any) *store.Record {
	t.Helper()
	ctx := context.Background()
	for i, l := range lines {
		l["session"], l["seq"], l["time"] = id, i+1, fixture.Start
		b, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		var ev engine.Event
		if err := json.Unmarshal(b, &ev); err != nil {
			t.Fatalf("event %s: %v", b, err)
		}
		if err := s.AppendEvent(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.FinishSession(ctx, id, store.StatusAnswered, answer, "CORRECT", nil); err != nil {
		t.Fatal(err)
	}
	rec, err := s.GetSession(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// TestHTMLSourcesPageAndCache: a PDF passage shows its page, a web result
// from the cache is marked cached (with its age) in the sources and in the
// search, a failed search says how it failed, a forced answer says so.
func TestHTMLSourcesPageAndCache(t *testing.T) {
	s := openStore(t)
	const id = "marks"
	if err := s.CreateSession(context.Background(), store.Session{ID: id, Question: "Where do gulls nest?", Started: fixture.Start}); err != nil {
		t.Fatal(err)
	}
	pdf := map[string]any{"id": "gulls.pdf#5", "locator": "gulls.pdf#p3", "title": "Gulls of the North", "text": "Gulls nest on cliffs.", "source": "local:birds", "score": 2}
	cached := map[string]any{"id": "https://birds.example/gulls", "url": "https://birds.example/gulls", "title": "Gulls", "text": "On cliffs.",
		"source": "web:searxng", "cached": true, "cached_at": fixture.Start.Add(-3 * time.Hour)}
	web := "web:searxng"
	f := false
	rec := storeLines(t, s, id, "On cliffs [1][2].", []map[string]any{
		{"type": "session", "question": "Where do gulls nest?", "config": fixture.Settings()},
		{"type": "action", "step": 1, "tool": "Search_Engine", "query": "gulls nest"},
		{"type": "retrieval", "step": 1, "source": "local:birds", "query": "gulls nest", "docs": []any{pdf}},
		{"type": "selection", "step": 1, "status": f, "analysis": "more needed", "next_source": web, "source": "local:birds"},
		{"type": "retrieval", "step": 1, "source": "web:duckduckgo", "query": "gulls nest", "docs": []any{}, "outcome": "blocked", "note": "HTTP 429"},
		{"type": "retrieval", "step": 1, "source": web, "query": "gulls nest", "docs": []any{cached}},
		{"type": "retrieval", "step": 1, "source": "web:brave", "query": "gulls nest", "docs": []any{}, "cached": true},
		{"type": "observation", "step": 1, "source": web, "doc_ids": []string{"https://birds.example/gulls"}, "doc_nums": []int{2}},
		{"type": "final", "answer": "On cliffs [1][2].", "forced": true, "citations": []int{1, 2}, "counts": map[string]any{"llm_calls": 2},
			"sources": []any{pdf, cached}, "source_nums": []int{1, 2}},
	})
	page := string(renderHTML(t, rec))
	for _, want := range []string{
		`<span class="title">Gulls of the North</span> <span class="badge local">local:birds</span> <code class="loc">gulls.pdf#5 (page 3)</code> <span class="page">page 3</span>`,
		`<a class="url" href="https://birds.example/gulls" rel="noopener noreferrer">https://birds.example/gulls</a> <span class="badge cached">cached, 3 h old</span>`,
		`searched for <q>gulls nest</q>: 1 document <span class="badge cached">from the web cache</span>`,
		`searched for <q>gulls nest</q>: the search was blocked, no documents (HTTP 429)`,
		`searched for <q>gulls nest</q>: the web cache held an empty answer (no request was sent) <span class="badge cached">from the web cache</span>`,
		`This answer was forced`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
}

// checkInert parses a page (as written, or as a browser serialised it) and
// reports every live element or attribute a hostile text could have made:
// scripts, frames, objects, images, style sheets beyond the page's own,
// event handler attributes, links that are not in-page or http(s), and a
// Content-Security-Policy that is missing or allows scripts.
func checkInert(t *testing.T, page string) {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	styles, csp := 0, ""
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch n.Data {
			case "script", "iframe", "frame", "object", "embed", "img", "link", "base", "form", "svg", "math", "video", "audio", "source":
				t.Errorf("the page has a <%s> element", n.Data)
			case "style":
				styles++
			}
			for _, a := range n.Attr {
				key := strings.ToLower(a.Key)
				switch {
				case strings.HasPrefix(key, "on"):
					t.Errorf("<%s> has an event handler %s=%q", n.Data, a.Key, a.Val)
				case key == "src" || key == "srcset" || key == "action" || key == "formaction" || key == "style":
					t.Errorf("<%s> has %s=%q", n.Data, a.Key, a.Val)
				case key == "href" && !strings.HasPrefix(a.Val, "#") && !strings.HasPrefix(a.Val, "https://") && !strings.HasPrefix(a.Val, "http://"):
					t.Errorf("<%s> links to %q", n.Data, a.Val)
				case key == "http-equiv" && strings.EqualFold(a.Val, "Content-Security-Policy"):
					for _, b := range n.Attr {
						if b.Key == "content" {
							csp = b.Val
						}
					}
				case key == "http-equiv":
					t.Errorf("<meta http-equiv=%q>", a.Val)
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	if styles != 1 {
		t.Errorf("the page has %d style sheets, want its own only", styles)
	}
	for _, want := range []string{"default-src 'none'", "style-src 'unsafe-inline'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("Content-Security-Policy %q lacks %s", csp, want)
		}
	}
	if strings.Contains(csp, "script-src") {
		t.Errorf("Content-Security-Policy %q allows scripts", csp)
	}
}

// textOf is the page's visible text (what a reader sees, markup gone).
func textOf(t *testing.T, page string) string {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && (n.Data == "style" || n.Data == "head") {
			return
		}
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return b.String()
}

// TestHTMLHostileText: every hostile text stays text — no element, handler
// or link comes out of it — and is still there to read.
func TestHTMLHostileText(t *testing.T) {
	rec := storeHostile(t, openStore(t))
	page := string(renderHTML(t, rec))
	checkInert(t, page)
	for _, bad := range []string{"\x1b", "\x07", `href="javascript`, "<script>", "<iframe", "<img"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page contains %q", bad)
		}
	}
	text := textOf(t, page)
	for _, want := range []string{hostileScript, hostileImg, hostileFrame, hostileLink, hostileMDLink, "javascript:document.title='PWNED'"} {
		if !strings.Contains(text, want) {
			t.Errorf("the page does not show %q as text", want)
		}
	}
	// The odd but http(s) URL stays a link, escaped inside its attribute.
	if !strings.Contains(page, `href="https://ok.example/?q=%22%3e%3cscript%3ealert%281%29%3c/script%3e"`) {
		t.Errorf("the http(s) source's link is missing or not escaped")
	}
}

// FuzzHTMLText: whatever a document title, a URL or the answer holds, the
// page has no live element, handler or foreign link.
func FuzzHTMLText(f *testing.F) {
	for _, s := range []string{hostileScript, hostileImg, hostileFrame, hostileLink, hostileMDLink, hostileStyle, "javascript:x", "<svg onload=x>", "]]><!--", "\x00\x1b[2J"} {
		f.Add(s, s, s)
	}
	f.Fuzz(func(t *testing.T, title, url, answer string) {
		rec := &store.Record{Session: store.Session{ID: "fuzz", Question: answer}}
		d := engine.Document{ID: url, URL: url, Locator: url, Title: title, Source: "web:x"}
		for _, l := range []string{
			`{"type":"retrieval","session":"fuzz","seq":1,"step":1,"source":"web:x","query":"q","docs":[]}`,
			`{"type":"observation","session":"fuzz","seq":2,"step":1,"source":"web:x","doc_ids":[],"doc_nums":[1]}`,
		} {
			var ev engine.Event
			if err := json.Unmarshal([]byte(l), &ev); err != nil {
				t.Fatal(err)
			}
			rec.Events = append(rec.Events, ev)
		}
		var final engine.Event
		fj, _ := json.Marshal(map[string]any{"type": "final", "session": "fuzz", "seq": 3, "answer": answer, "forced": false,
			"sources": []engine.Document{d}, "source_nums": []int{1}, "counts": nil})
		if err := json.Unmarshal(fj, &final); err != nil {
			t.Skip()
		}
		rec.Events = append(rec.Events, final)
		var b bytes.Buffer
		if err := HTML(&b, rec); err != nil {
			t.Fatal(err)
		}
		checkInert(t, b.String())
	})
}

// TestHTMLSaveOneFilePerSession: several sessions exported as HTML are one
// page each in the chosen folder; a file name is refused for several.
func TestHTMLSaveOneFilePerSession(t *testing.T) {
	s := openStore(t)
	a := storeCaseStudy(t, s, caseID)
	b := storeCaseStudy(t, s, "second-session")
	dir := filepath.Join(t.TempDir(), "pages")
	got, err := Save(dir, FormatHTML, false, a, b)
	if err != nil || got != dir {
		t.Fatalf("Save = %q, %v", got, err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Fatalf("%d files in %s, want 2", len(entries), dir)
	}
	for _, e := range entries {
		page, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		if !strings.HasSuffix(e.Name(), ".html") || bytes.Count(page, []byte("<h1>")) != 1 {
			t.Errorf("%s is not one session's page", e.Name())
		}
	}
	if _, err := Save(dir, FormatHTML, false, a, b); err == nil {
		t.Error("existing pages were replaced without force")
	}
	if _, err := Save(dir, FormatHTML, true, a, b); err != nil {
		t.Errorf("force: %v", err)
	}
	if _, err := Save(filepath.Join(t.TempDir(), "x.html"), FormatHTML, false, a, b); err == nil {
		t.Error("several sessions written to one .html name")
	}
	// One session: the file named, as for every format.
	one := filepath.Join(t.TempDir(), "one.html")
	if got, err := Save(one, FormatHTML, false, a); err != nil || got != one {
		t.Errorf("Save one = %q, %v", got, err)
	}
}

// TestHTMLClaims: when the evidence check has recorded the answer's claims
// (an "evidence" event, CONTRACT.md), each shows under the answer with its
// citations and its supporting quote; a claim without support says so.
func TestHTMLClaims(t *testing.T) {
	rec := storeCaseStudy(t, openStore(t), caseID)
	line := `{"type":"evidence","session":"` + caseID + `","seq":99,"time":"2025-03-14T09:27:34Z","claims":[` +
		`{"text":"Carsten Erik Olsen died in 1974","citations":[6],"support":[{"n":6,"quote":"Carsten Erik Olsen (1891–1974) was a Danish plant ecologist.","start":0,"end":60,"score":0.9}],"verdict":"supported"},` +
		`{"text":"He assisted Sørensen <script>x</script>","citations":[6],"support":[],"verdict":"unsupported"}]}`
	var ev engine.Event
	if err := json.Unmarshal([]byte(line), &ev); err != nil {
		t.Fatal(err)
	}
	rec.Lines = append(rec.Lines, json.RawMessage(line))
	rec.Events = append(rec.Events, ev)
	page := string(renderHTML(t, rec))
	checkInert(t, page)
	for _, want := range []string{
		`<li class="claim verdict-supported"><span class="claim-text">Carsten Erik Olsen died in 1974</span> <a class="cite" href="#t1-src-6">[6]</a>`,
		`<blockquote class="support"><span class="support-n">[6]</span> Carsten Erik Olsen (1891–1974) was a Danish plant ecologist.</blockquote>`,
		`<li class="claim verdict-unsupported"><span class="claim-text">He assisted Sørensen &lt;script&gt;x&lt;/script&gt;</span>`,
		`No sentence of the cited sources supports this claim.`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	// Without the evidence event there are no claims, only the answer.
	if plain := string(renderHTML(t, storeCaseStudy(t, openStore(t), caseID))); strings.Contains(plain, `class="claims"`) {
		t.Error("claims shown without an evidence event")
	}
}

// TestHTMLEmptySession: a session that recorded no event (it failed at
// once) still exports: its question and that nothing was recorded.
func TestHTMLEmptySession(t *testing.T) {
	rec := &store.Record{Session: store.Session{ID: "empty", Question: "Why?", Status: store.StatusFailed, Started: fixture.Start}}
	page := string(renderHTML(t, rec))
	for _, want := range []string{"<h1>Why?</h1>", "<dd>failed</dd>", "No answer was given.", "The run did not finish"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
}

// TestHTMLClaimsModelChecksAndEveryQuote: a claim supported by several
// sentences shows each of them, and the judge model's check of the quotes
// (--verify-claims) shows under its claim: its doubt with its reason, or
// its agreement.
func TestHTMLClaimsModelChecksAndEveryQuote(t *testing.T) {
	rec := storeCaseStudy(t, openStore(t), caseID)
	line := `{"type":"evidence","session":"` + caseID + `","seq":99,"time":"2025-03-14T09:27:34Z","claims":[` +
		`{"text":"Olsen was a Danish ecologist who died in 1974","citations":[6,7],"support":[` +
		`{"n":6,"quote":"Carsten Erik Olsen (1891–1974) was a Danish plant ecologist.","start":0,"end":60,"score":0.9},` +
		`{"n":7,"quote":"He worked in Copenhagen until his death.","start":0,"end":40,"score":0.6}],"verdict":"supported"},` +
		`{"text":"He assisted Sørensen","citations":[6],"support":[{"n":6,"quote":"Olsen met Sørensen once.","start":0,"end":24,"score":0.5}],"verdict":"weak"}],` +
		`"model_checks":[{"claim":0,"verdict":"supported","analysis":"Both quotes give it."},{"claim":1,"verdict":"unsupported","analysis":"Meeting is not <b>assisting</b>."}]}`
	var ev engine.Event
	if err := json.Unmarshal([]byte(line), &ev); err != nil {
		t.Fatal(err)
	}
	rec.Lines = append(rec.Lines, json.RawMessage(line))
	rec.Events = append(rec.Events, ev)
	page := string(renderHTML(t, rec))
	checkInert(t, page)
	for _, want := range []string{
		`<span class="support-n">[6]</span> Carsten Erik Olsen (1891–1974) was a Danish plant ecologist.</blockquote>`,
		`<span class="support-n">[7]</span> He worked in Copenhagen until his death.</blockquote>`,
		`The judge model finds the claim supported by these quotes: Both quotes give it.`,
		`The judge model doubts these quotes support the claim: Meeting is not &lt;b&gt;assisting&lt;/b&gt;.`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	// The doubt sits under its own claim, not the first one.
	if i, j := strings.Index(page, "He assisted Sørensen"), strings.Index(page, "doubts these quotes"); i < 0 || j < i {
		t.Error("the doubt is not under the claim it is about")
	}
}

// The path summary says where a switched step's documents came from: the
// source the judge named, the one after it when that one had nothing new
// or failed, or none when the step kept the preferred source's.
func TestPathSummarySwitches(t *testing.T) {
	step := func(used string, searched ...string) htmlStep {
		s := htmlStep{Kind: "step", Title: "Step 1", SwitchTo: "mcp:memory", UsedSource: used}
		for _, src := range searched {
			s.Trace = append(s.Trace, htmlTrace{Search: &htmlSearch{Source: src, Kind: sources.RoleLocal.String()}})
		}
		return s
	}
	for _, c := range []struct {
		step htmlStep
		want string
	}{
		{step("mcp:memory", "local:notes", "mcp:memory"), "switched to mcp:memory at step 1"},
		{step("web:searxng", "local:notes", "mcp:memory", "web:searxng"), "switched to mcp:memory, then the web at step 1"},
		{step("local:notes", "local:notes", "mcp:memory", "web:searxng"), "stayed with local:notes at step 1 (mcp:memory not used)"},
	} {
		if got := (&report{}).pathSummary([]htmlStep{c.step}); !strings.Contains(got, c.want) {
			t.Errorf("summary %q, want %q in it", got, c.want)
		}
	}
}
