package cli

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/prefrag/prefrag/app"
	"github.com/prefrag/prefrag/config"
	"github.com/prefrag/prefrag/internal/textsafe"
	"github.com/prefrag/prefrag/sources"
	"github.com/prefrag/prefrag/sources/catalog"
)

// searchOptions are `prefrag search`'s: the retrieval and embedding
// settings are applied to the configuration.
type searchOptions struct {
	Corpus string // "": the first corpus of the preference order
	K      int
	Out    outputFlags
	Query  string
}

func parseSearch(e *env, args []string) (*searchOptions, error) {
	fs := flag.NewFlagSet("search", flag.ContinueOnError)
	o := &searchOptions{}
	fs.StringVar(&o.Corpus, "corpus", "", "corpus to search (default: the pinned corpus)")
	fs.IntVar(&o.K, "k", 10, "number of documents")
	out := bindJSON(fs, "one JSON document per line (with bm25_rank and vector_rank when searched by meaning, title_match when its title ranked it ahead)")
	rf := config.BindSettingFlags(fs, e.cfg, "retrieval", "embed_model", "embed_url", "embed_llm")
	pos, err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		helpFlags(e.stdout, fs, "search [--corpus NAME] [-k N] [--retrieval bm25|hybrid|dense] [--json] QUERY")
		return nil, err
	}
	if err != nil {
		return nil, err
	}
	if err := rf.Apply(); err != nil {
		return nil, err
	}
	o.Out, o.Query = *out, strings.TrimSpace(strings.Join(pos, " "))
	if o.Query == "" {
		return nil, usagef("search needs a query")
	}
	if o.K < 1 || o.K > 1000 {
		return nil, usagef("-k must be between 1 and 1000")
	}
	return o, nil
}

func runSearch(e *env, o *searchOptions) error {
	name := o.Corpus
	if name == "" {
		var err error
		if name, err = searchCorpus(e); err != nil {
			return err
		}
	}
	search := searchLocal
	if catalog.IsRemote(e.cfg.CorporaDir(), name) {
		search = searchRemote
	}
	docs, err := search(e, name, o.Query, o.K)
	if err != nil {
		return err
	}
	if o.Out.JSON {
		enc := json.NewEncoder(e.stdout)
		for _, d := range docs {
			enc.Encode(d.Sanitized())
		}
		return nil
	}
	printHits(e, name, o.Query, docs)
	return nil
}

// searchCorpus is the corpus `search` searches without --corpus: the first
// of the preference order.
func searchCorpus(e *env) (string, error) {
	a := &app.App{Cfg: e.cfg}
	names, err := a.CorpusOrder(e.cfg.Settings)
	if err != nil {
		return "", err
	}
	if len(names) == 0 {
		if infos, _ := catalog.List(e.cfg.CorporaDir()); len(infos) > 0 {
			return "", errors.New("no corpus is pinned — name one with --corpus NAME, or pin one with: prefrag corpora pin NAME")
		}
		return "", errors.New("no corpus yet — create one with: prefrag index --corpus NAME FOLDER")
	}
	return names[0], nil
}

// printHits prints search results as text, best first.
func printHits(e *env, name, query string, docs []sources.Document) {
	if len(docs) == 0 {
		fmt.Fprintf(e.stdout, "no documents in %s match %q\n", name, query)
		return
	}
	for i, d := range docs {
		score := fmt.Sprintf("%.3f", d.Score)
		for _, note := range []string{d.LegNote(), d.TitleNote()} {
			if note != "" {
				score += " · " + note
			}
		}
		fmt.Fprintf(e.stdout, "%2d. %s  (%s)  %s\n    %s\n", i+1, line(d.DisplayTitle()), score, line(d.Ref()),
			textsafe.Truncate(line(d.Text), 200))
	}
}

func searchLocal(e *env, name, query string, k int) ([]sources.Document, error) {
	a := &app.App{Cfg: e.cfg}
	c, err := a.OpenLocal(e.cfg.Settings, name, map[string]*app.Embedder{})
	if err != nil {
		return nil, err
	}
	defer c.Close()
	docs, err := c.Search(e.ctx, query, k)
	if errors.Is(err, sources.ErrDegraded) {
		// Searched by words only: the documents stand, the reason is said.
		fmt.Fprintln(e.stderr, "prefrag: note:", oneLine(err))
		return docs, nil
	}
	return docs, err
}
