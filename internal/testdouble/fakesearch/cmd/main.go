// Command fakesearch runs the fake search engine of internal/testdouble/fakesearch as
// a process, for end-to-end tests of the real prefrag binary. It listens
// on 127.0.0.1, prints its base URL as the first line of stdout, serves
// the documents of a JSON Lines file ({"title","text","url"} per line) as
// SearXNG (/search?format=json), DuckDuckGo (/html/) and Brave
// (/res/v1/web/search), and exits when stdin is closed, on SIGINT or
// SIGTERM, or after -max-lifetime, whichever comes first.
//
//	fakesearch -docs web.jsonl [-port 0] [-mode ok] [-max-lifetime 10m]
//
// A test switches modes with GET /_fakesearch/mode?set=<mode> and reads
// the request count at /_fakesearch/requests.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/prefrag/prefrag/internal/testdouble/fakesearch"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is the whole program; it returns the exit status (2 for usage
// errors, 1 for runtime failures).
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("fakesearch", flag.ContinueOnError)
	fl.SetOutput(stderr)
	port := fl.Int("port", 0, "port on 127.0.0.1 (0: any free port)")
	docsPath := fl.String("docs", "", "JSON Lines file of documents {\"title\",\"text\",\"url\"}")
	modeName := fl.String("mode", string(fakesearch.ModeOK), "initial mode")
	ddgPage := fl.String("ddg-page", "", "HTML file served as DuckDuckGo's answer to every query (e.g. a captured page)")
	anomalyPage := fl.String("anomaly-page", "", "HTML file served as the bot-challenge page")
	slow := fl.Duration("slow", 3*time.Second, "delay of the slow mode")
	lifetime := fl.Duration("max-lifetime", 10*time.Minute, "exit after this long")
	pageSize := fl.Int("page-size", 10, "most results per answer")
	snippetChars := fl.Int("snippet-chars", 0, "cut snippets to about this many characters (0: whole text)")
	ads := fl.Bool("ads", false, "put an ad first on DuckDuckGo pages")
	selfLinks := fl.Bool("self-links", false, "put a link to the instance itself first in SearXNG answers")
	braveKey := fl.String("brave-key", "", "the only Brave API key accepted (empty: any)")
	if err := fl.Parse(args); err != nil {
		return 2
	}
	if fl.NArg() > 0 {
		fmt.Fprintf(stderr, "fakesearch: unexpected argument %q; see -help\n", fl.Arg(0))
		return 2
	}
	mode, err := fakesearch.ParseMode(*modeName)
	if err != nil {
		fmt.Fprintf(stderr, "fakesearch: -mode: %v\n", err)
		return 2
	}
	if *port < 0 || *port > 65535 {
		fmt.Fprintf(stderr, "fakesearch: -port must be between 0 and 65535, not %d\n", *port)
		return 2
	}
	opts := fakesearch.Options{
		Mode: mode, SlowDelay: *slow, PageSize: *pageSize, SnippetChars: *snippetChars,
		Ads: *ads, SelfLinks: *selfLinks, BraveKey: *braveKey,
	}
	if *docsPath != "" {
		f, err := os.Open(*docsPath)
		if err != nil {
			fmt.Fprintf(stderr, "fakesearch: %v\n", err)
			return 1
		}
		opts.Docs, err = fakesearch.ReadDocs(f)
		f.Close()
		if err != nil {
			fmt.Fprintf(stderr, "fakesearch: %s: %v\n", *docsPath, err)
			return 1
		}
	}
	for _, p := range []struct {
		path string
		into *[]byte
	}{{*ddgPage, &opts.DuckDuckGoPage}, {*anomalyPage, &opts.AnomalyPage}} {
		if p.path == "" {
			continue
		}
		if *p.into, err = os.ReadFile(p.path); err != nil {
			fmt.Fprintf(stderr, "fakesearch: %v\n", err)
			return 1
		}
	}

	srv, err := fakesearch.Listen("127.0.0.1:"+strconv.Itoa(*port), opts)
	if err != nil {
		fmt.Fprintf(stderr, "fakesearch: %v\n", err)
		return 1
	}
	defer srv.Close()
	fmt.Fprintln(stdout, srv.URL())

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	stdinClosed := make(chan struct{})
	go func() {
		io.Copy(io.Discard, stdin)
		close(stdinClosed)
	}()
	timer := time.NewTimer(*lifetime)
	defer timer.Stop()
	select {
	case <-stdinClosed:
	case <-ctx.Done():
	case <-timer.C:
		fmt.Fprintf(stderr, "fakesearch: exiting after -max-lifetime %s\n", *lifetime)
	}
	return 0
}
