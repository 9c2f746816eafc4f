package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/testdouble/chromium"
)

// wireEvent is what this test reads of an event line (CONTRACT.md's
// fields).
type wireEvent struct {
	Type     string `json:"type"`
	Session  string `json:"session"`
	Source   string `json:"source"`
	Analysis string `json:"analysis"`
	Status   *bool  `json:"status"`
	Docs     []struct {
		ID, URL, Text, Source string
	} `json:"docs"`
	Sources []struct {
		ID, Text, Source string
	} `json:"sources"`
	SourceNums []int  `json:"source_nums"`
	Answer     string `json:"answer"`
}

func wireEvents(t *testing.T, out string) []wireEvent {
	t.Helper()
	var evs []wireEvent
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var ev wireEvent
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		evs = append(evs, ev)
	}
	return evs
}

// TestExportHTMLThreadInBrowser: a two-question thread whose first
// question switched to the web, exported with --format html, opened in
// headless Chromium offline: the page shows both questions, the answers,
// the judge's reason for the switch, the web source's URL and the
// follow-up's supporting quote (its evidence event's); a
// screenshot is not blank; printed to PDF it holds the answer's text, the
// second question on a page of its own.
func TestExportHTMLThreadInBrowser(t *testing.T) {
	browser := chromium.New(t)
	w, script, out := caseStudyTurn1(t)
	first := wireEvents(t, out)
	id := first[0].Session
	reason, webURL, num := "", "", 0
	for _, ev := range first {
		switch {
		case ev.Type == "selection" && ev.Status != nil && !*ev.Status:
			reason = ev.Analysis
		case ev.Type == "retrieval" && strings.HasPrefix(ev.Source, "web:") && len(ev.Docs) > 0 && webURL == "":
			webURL = ev.Docs[0].URL
		case ev.Type == "final":
			for i, d := range ev.Sources {
				if strings.Contains(d.Text, "concept of pH") && strings.HasPrefix(d.Source, "local:") && i < len(ev.SourceNums) {
					num = ev.SourceNums[i]
				}
			}
		}
	}
	if reason == "" || !strings.HasPrefix(webURL, "https://") || num == 0 {
		t.Fatalf("the first question did not switch to the web as scripted: reason %q, web URL %q, [%d]", reason, webURL, num)
	}
	cite := "[" + itoa(num) + "]"
	// The follow-up's answer cites the passage on Sørensen for what it
	// says of him: its quote is on the page.
	answer2 := "At the Carlsberg Laboratory in Copenhagen, assisting Sørensen, who introduced the concept of pH " + cite + "."
	steps := followUpSteps(cite)
	steps[len(steps)-1] = strings.Replace(steps[len(steps)-1], "assisting Sørensen "+cite+".", answer2[len("At the Carlsberg Laboratory in Copenhagen, "):], 1)
	if !strings.Contains(steps[len(steps)-1], answer2) {
		t.Fatalf("the scripted answer is not %q: %s", answer2, steps[len(steps)-1])
	}
	script.add(steps, nil)
	second, errOut, code := w.run(w.askArgs("--json", "--continue", "last", followUp)...)
	if code != 0 {
		t.Fatalf("follow-up: exit %d\n%s", code, errOut)
	}
	// The follow-up's supporting quote, as the evidence event gives it.
	quote := ""
	for _, ev := range payloadsOf[engine.Evidence](parseEvents(t, second)) {
		for _, c := range ev.Claims {
			if len(c.Support) > 0 && quote == "" {
				quote = c.Support[0].Quote
			}
		}
	}
	if quote == "" {
		t.Fatal("the follow-up's answer has no supporting quote to look for")
	}
	dir := t.TempDir()
	page := filepath.Join(dir, "thread.html")
	if _, errOut, code := w.run("sessions", "export", id, "--format", "html", "-o", page); code != 0 {
		t.Fatalf("export html: exit %d\n%s", code, errOut)
	}
	if fi, err := os.Stat(page); err == nil {
		t.Logf("the thread's page: %d bytes", fi.Size())
	}
	// --all with the filters: the thread's page in the folder.
	all := filepath.Join(dir, "all") + string(filepath.Separator)
	if _, errOut, code := w.run("sessions", "export", "--all", "--label", "CORRECT", "--format", "html", "-o", all); code != 0 {
		t.Fatalf("export --all html: exit %d\n%s", code, errOut)
	}
	if m, _ := filepath.Glob(filepath.Join(all, "*.html")); len(m) != 1 {
		t.Errorf("export --all wrote %v, want the thread's page", m)
	}

	ctx := context.Background()
	dom, err := browser.DOM(ctx, page)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("dom", func(t *testing.T) {
		doc, err := html.Parse(strings.NewReader(dom))
		if err != nil {
			t.Fatal(err)
		}
		text, hrefs := visible(doc)
		// The settings and the manifest are there too (collapsed).
		for _, want := range []string{caseQuestion, followUp, rewritten, "1974", answer2, reason, webURL, quote, "documents per retrieval (k)", `"prompts_hash"`} {
			if !strings.Contains(text, want) {
				t.Errorf("the page in the browser does not show %q", want)
			}
		}
		if !supportQuoted(doc, quote) {
			t.Errorf("the page does not quote %q as a claim's support", quote)
		}
		if !contains(hrefs, webURL) {
			t.Errorf("the web source %s is not a link (links %q)", webURL, hrefs)
		}
		if strings.Contains(dom, "<script") {
			t.Error("the page holds a script")
		}
	})
	t.Run("screenshot", func(t *testing.T) {
		shot, err := browser.Screenshot(ctx, page, chromium.Laptop, false)
		if err != nil {
			t.Fatal(err)
		}
		ink, _, err := chromium.Ink(shot)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot: %d bytes, %.1f%% of the pixels differ from the background", len(shot), 100*ink)
		if ink < 0.01 {
			t.Errorf("the screenshot is blank (%.2f%% ink)", 100*ink)
		}
	})
	t.Run("print", func(t *testing.T) {
		chromium.Poppler(t)
		pdf, err := browser.PDF(ctx, page)
		if err != nil {
			t.Fatal(err)
		}
		pages, err := chromium.PDFPages(pdf)
		if err != nil {
			t.Fatal(err)
		}
		text, err := chromium.PDFText(pdf)
		if err != nil {
			t.Fatal(err)
		}
		flat := strings.Join(strings.Fields(text), " ")
		if !strings.Contains(flat, strings.Join(strings.Fields(answer2), " ")) {
			t.Errorf("the PDF lacks the answer %q:\n%s", answer2, text)
		}
		// The second question starts a page of its own.
		sheets := strings.Split(text, "\f")
		t.Logf("PDF: %d pages", pages)
		if pages < 2 || len(sheets) < pages {
			t.Fatalf("the PDF has %d pages (%d in its text)", pages, len(sheets))
		}
		starts := false
		for _, s := range sheets {
			if strings.Contains(s, "QUESTION 2") {
				starts = strings.HasPrefix(strings.TrimSpace(s), "QUESTION 2")
			}
		}
		if !starts {
			t.Error("the second question does not start a page: no page break between the questions")
		}
	})
}

// visible is a parsed page's text (styles left out) and its link targets.
func visible(doc *html.Node) (string, []string) {
	var b strings.Builder
	var hrefs []string
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && (n.Data == "style" || n.Data == "head") {
			return
		}
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		if n.Type == html.ElementNode && n.Data == "a" {
			for _, a := range n.Attr {
				if a.Key == "href" {
					hrefs = append(hrefs, a.Val)
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return b.String(), hrefs
}

// supportQuoted reports whether a claim's support quote on the page (a
// blockquote of class "support") holds quote.
func supportQuoted(doc *html.Node, quote string) bool {
	var found bool
	var walk func(*html.Node, bool)
	walk = func(n *html.Node, in bool) {
		if n.Type == html.ElementNode && n.Data == "blockquote" {
			for _, a := range n.Attr {
				if a.Key == "class" && strings.Contains(" "+a.Val+" ", " support ") {
					in = true
				}
			}
		}
		if in && n.Type == html.TextNode && strings.Contains(n.Data, quote) {
			found = true
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, in)
		}
	}
	walk(doc, false)
	return found
}
