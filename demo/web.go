package demo

import (
	"context"
	"sort"
	"strings"
	"unicode"

	"github.com/prefrag/prefrag/sources"
)

// Web is the web stand-in: a web search engine in process, over a few
// canned pages (below). It is a web source like any other — the judge's
// switch goes to it, the web policy and consent apply to it — but no
// query leaves the machine.
type Web struct{}

// Name is the source's name: "web:stand-in".
func (Web) Name() string { return sources.WebName(WebName).String() }

// Kind is the web's.
func (Web) Kind() sources.Kind { return sources.KindWeb }

// page is a canned web page.
type page struct{ title, url, text string }

// pages are the stand-in's web: every title says it is a stand-in page.
var pages = []page{
	{"Tarn Point cottage rebuilt after the 1961 storm — Velloran Gazette (stand-in page)",
		"https://gazette.velloran.example/1963/tarn-point-cottage",
		"The keeper's cottage at Tarn Point, wrecked by the storm of November 1961, was rebuilt in 1963 by the harbour board. The new cottage kept the old granite walls and gained a slate roof and storm shutters."},
	{"Lighthouses of the western isles — Coastal Heritage Register (stand-in page)",
		"https://heritage-register.example/lighthouses/western-isles",
		"Tarn Point, Velloran: a granite tower of 31 metres designed by the engineer Maren Osk, first lit in 1887 and automated in 1979. A keeper's cottage stands in the lee of the tower."},
	{"Velloran — Island Atlas (stand-in page)",
		"https://island-atlas.example/velloran",
		"Velloran is an island of about 2,400 people off the western coast. Its only town is Haven; its harbour board, founded in 1869, runs the port and the Tarn Point light."},
	{"Tarn (lake) — Glossary of Landforms (stand-in page)",
		"https://landforms.example/tarn",
		"A tarn is a small mountain lake in a hollow scooped out by a glacier."},
}

// Search ranks the pages by the query's words they hold (a title word
// counts twice) and returns the best k that hold any.
func (w Web) Search(ctx context.Context, query string, k int) ([]sources.Document, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return search(pages, query, k, w.Name()), nil
}

// search ranks pages by the words of query they hold and returns the best
// k as documents of source.
func search(pages []page, query string, k int, source string) []sources.Document {
	terms := words(query)
	type hit struct {
		p     page
		score int
	}
	var hits []hit
	for _, p := range pages {
		score := 0
		title, text := words(p.title), words(p.text)
		for t := range terms {
			if title[t] {
				score += 2
			}
			if text[t] {
				score++
			}
		}
		if score > 0 {
			hits = append(hits, hit{p, score})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].score > hits[j].score })
	var out []sources.Document
	for i, h := range hits {
		if i == k {
			break
		}
		out = append(out, sources.Document{ID: h.p.url, URL: h.p.url, Title: h.p.title, Text: h.p.text,
			Source: source, Score: float64(h.score)})
	}
	return out
}

// stopWords are words too common to rank by.
const stopWords = " the a an of in and its was is to what who when which s "

// words are the distinct lower-case words of s, stop words left out.
func words(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if !strings.Contains(stopWords, " "+w+" ") {
			out[w] = true
		}
	}
	return out
}
