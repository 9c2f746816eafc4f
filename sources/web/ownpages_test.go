package web

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/prefrag/prefrag/sources"
)

// The project's own DuckDuckGo pages (testdata/ddg_*.html) are written for
// these tests, with the HTML structure of the real html-endpoint pages in
// shared/data/web-fixtures, so the parser tests run on a machine without
// ../shared too.

// ownPage reads a page of testdata.
func ownPage(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sharedFixtureHere reports whether the shared fixture a test case needs is
// present ("" needs none); without it the case is left out, and said so.
func sharedFixtureHere(t *testing.T, name string) bool {
	t.Helper()
	if name == "" {
		return true
	}
	if _, ok := findSharedData(filepath.Join("web-fixtures", name)); ok {
		return true
	}
	t.Logf("shared/data/web-fixtures/%s not found: that case is left out", name)
	return false
}

// ownExchange is a recorded exchange made of the project's own page: the
// request the engine sends, and a 200 answer with the headers DuckDuckGo
// sends with its html endpoint.
func ownExchange(t testing.TB, query, page string) exchange {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, "https://html.duckduckgo.com/html/?q="+url.QueryEscape(query), nil)
	if err != nil {
		t.Fatal(err)
	}
	body := ownPage(t, page)
	h := http.Header{}
	h.Set("Content-Type", "text/html; charset=UTF-8")
	h.Set("Cache-Control", "max-age=1")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("Referrer-Policy", "origin")
	h.Set("X-Robots-Tag", "noindex")
	h.Set("X-Frame-Options", "SAMEORIGIN")
	return exchange{req: req, resp: &http.Response{StatusCode: http.StatusOK, Header: h, Request: req}, body: body}
}

// TestParseDuckDuckGoOwnPages checks what the own pages are made to show:
// every organic result in order, the ad and the repeated result dropped,
// redirect links unwrapped (a query string included), entities decoded and
// whitespace collapsed; an empty answer; a challenge.
func TestParseDuckDuckGoOwnPages(t *testing.T) {
	page, err := parseDuckDuckGo(ownPage(t, "ddg_results.html"))
	if err != nil {
		t.Fatal(err)
	}
	want := []result{
		{URL: "https://en.wikipedia.org/wiki/Waggle_dance", Title: "Waggle dance - Wikipedia"},
		{URL: "https://beelab.example.edu/research/dance-language", Title: "How Honeybees Talk: The Dance Language | Bee Lab"},
		{URL: "https://www.pollinators.example.org/articles/bee-pheromones", Title: "Pheromones & Scent: The Chemical Language of the Hive",
			Snippet: "Besides dancing, honeybees use pheromones: the queen's scent keeps the colony together, and an alarm odour calls guards to defend the entrance."},
		{URL: "https://gardening.example.net/q/why-do-bees-buzz", Title: "Why do bees buzz? – Garden Questions",
			Snippet: "The buzz is the sound of wing muscles; some vibration signals, such as the “stop signal”, are used inside the hive to tell dancers to stop recruiting."},
		{URL: "https://kids.example.com/science/bees", Title: "Bees for Kids: Dances, Hives and Honey"},
		{URL: "https://www.apiary-notes.example/round-dance-vs-waggle-dance", Title: "Round Dance vs. Waggle Dance — What’s the Difference?"},
		{URL: "https://journal.example.org/insect-behaviour/2019/trophallaxis", Title: "Trophallaxis and information flow in honeybee colonies"},
		{URL: "https://museum.example/exhibits/bienen?lang=de&view=full", Title: "Bienen: Wie sie sich verständigen – Naturkundemuseum",
			Snippet: "Eine Ausstellung über Tanzsprache, Duftstoffe und Vibrationen im Bienenstock."},
	}
	if len(page.results) != len(want) || page.ads != 1 || page.challenge || !page.recognised {
		t.Fatalf("%d results, %d ads, challenge %v, recognised %v; want %d results and 1 ad: %+v", len(page.results), page.ads, page.challenge, page.recognised, len(want), page.results)
	}
	for i, w := range want {
		got := page.results[i]
		if got.URL != w.URL || got.Title != w.Title || (w.Snippet != "" && got.Snippet != w.Snippet) || got.Snippet == "" {
			t.Errorf("result %d = %+v\nwant %+v", i+1, got, w)
		}
	}
	checkResults(t, page.results)

	empty, err := parseDuckDuckGo(ownPage(t, "ddg_no_results.html"))
	if err != nil || len(empty.results) != 0 || !empty.recognised || empty.challenge {
		t.Errorf("no-results page: %+v, %v; want a recognised empty page", empty, err)
	}
	if got, err := (duckDuckGo{}).parse("web:duckduckgo", ownPage(t, "ddg_no_results.html")); err != nil || len(got.results) != 0 {
		t.Errorf("no-results page: %d results, err %v; want none and no error", len(got.results), err)
	}

	_, err = (duckDuckGo{}).parse("web:duckduckgo", ownPage(t, "ddg_anomaly.html"))
	var blocked *sources.BlockedError
	if !errors.As(err, &blocked) {
		t.Errorf("challenge page: err %v, want a BlockedError", err)
	}
	if !isChallengePage(ownPage(t, "ddg_anomaly.html")) || isChallengePage(ownPage(t, "ddg_results.html")) {
		t.Error("isChallengePage does not tell the own challenge page from the result page")
	}
}

// TestDuckDuckGoRefusedWithOwnChallengePage: a 202 answer carrying the own
// challenge page is a block that says so.
func TestDuckDuckGoRefusedWithOwnChallengePage(t *testing.T) {
	page := ownPage(t, "ddg_anomaly.html")
	err := (duckDuckGo{}).statusError("web:duckduckgo", http.StatusAccepted, page)
	var blocked *sources.BlockedError
	if !errors.As(err, &blocked) || blocked.Status != http.StatusAccepted || !bytes.Contains([]byte(blocked.Reason), []byte("bot-challenge")) {
		t.Errorf("err = %v, want a 202 block naming the bot-challenge page", err)
	}
	cfg := testConfig(newFakeClock())
	ex := ownExchange(t, "how do honeybees communicate", "ddg_no_results.html")
	srv := serveExchange(t, ex)
	cfg.BaseURL = srv + "/html/"
	docs, err := mustNew(t, DuckDuckGo, cfg).Search(context.Background(), "qzxv honeybee lantern isles semaphore", 5)
	if err != nil || len(docs) != 0 {
		t.Errorf("no-results answer: docs %v, err %v; want none and no error", docs, err)
	}
}

// serveExchange serves ex's answer to every request on 127.0.0.1.
func serveExchange(t *testing.T, ex exchange) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		for k, v := range ex.resp.Header {
			if k != "Content-Length" {
				w.Header()[k] = v
			}
		}
		w.WriteHeader(ex.resp.StatusCode)
		w.Write(ex.body)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}
