package web

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"

	"github.com/prefrag/prefrag/internal/textsafe"
	"github.com/prefrag/prefrag/sources"
)

// fetchParallel bounds how many pages are fetched at once.
const fetchParallel = 4

// errPrivateAddress refuses page fetches to the analyst's own network.
var errPrivateAddress = errors.New("refusing to fetch a page on a loopback, private or link-local address")

// cgnat is the shared address space (RFC 6598), private in practice.
var cgnat = netip.MustParsePrefix("100.64.0.0/10")

// newPageClient is the client for result pages. Unless allowPrivate, its
// dialer refuses non-public addresses, which also covers redirects and
// DNS names resolving to such addresses.
func newPageClient(allowPrivate bool) *http.Client {
	d := &net.Dialer{Timeout: 10 * time.Second}
	if !allowPrivate {
		d.Control = refusePrivate
	}
	tr := &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		DialContext:         d.DialContext,
		ForceAttemptHTTP2:   true,
		MaxIdleConns:        16,
		IdleConnTimeout:     30 * time.Second,
		TLSHandshakeTimeout: 10 * time.Second,
	}
	return &http.Client{Transport: tr, CheckRedirect: limitRedirects}
}

func refusePrivate(_, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return err
	}
	ip = ip.Unmap()
	if ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified() || cgnat.Contains(ip) {
		return errPrivateAddress
	}
	return nil
}

// fetchPages replaces each document's snippet by its page's main text
// where the page can be had: from the cache, else (online) from the page
// itself. A page that cannot be fetched keeps its snippet; only
// cancellation is an error.
func (e *Engine) fetchPages(ctx context.Context, docs []sources.Document) error {
	var wg sync.WaitGroup
	slots := make(chan struct{}, fetchParallel)
	for i := range docs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				return
			}
			defer func() { <-slots }()
			if text := e.pageText(ctx, docs[i].URL); text != "" {
				docs[i].Text = text
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return e.cancelled(err)
	}
	return nil
}

// pageText returns a page's main text, "" when it cannot be had.
func (e *Engine) pageText(ctx context.Context, pageURL string) string {
	key := PageKey(pageURL)
	if cached, ok, _ := e.cacheGet(ctx, key); ok && len(cached) > 0 {
		return cached[0].Text
	}
	if e.s.Offline || ctx.Err() != nil {
		return ""
	}
	text, err := e.fetchPage(ctx, pageURL)
	if err != nil {
		if ctx.Err() == nil {
			e.s.Logger.Info("result page not fetched", "source", e.name, "url", pageURL, "err", err)
		}
		return ""
	}
	if e.s.Cache != nil && text != "" {
		doc := sources.Document{ID: pageURL, URL: pageURL, Locator: pageURL, Source: e.name, Text: text}
		if err := e.s.Cache.Put(ctx, key, []sources.Document{doc}); err != nil {
			e.s.Logger.Warn("web cache: storing a page failed", "source", e.name, "err", err)
		}
	}
	return text
}

// fetchPage downloads one page within the fetch limits and extracts its
// main text.
func (e *Engine) fetchPage(ctx context.Context, pageURL string) (string, error) {
	u, err := url.Parse(pageURL)
	if err != nil {
		return "", err
	}
	if err := e.s.Guard.Wait(ctx, hostWithPort(u), e.s.Fetch.MinInterval); err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, e.s.Fetch.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, pageURL, nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("User-Agent", e.s.UserAgent)
	req.Header.Set("Accept", "text/html,application/xhtml+xml,text/plain;q=0.8")
	resp, err := e.pages.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	contentType := resp.Header.Get("Content-Type")
	mediaType, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return "", fmt.Errorf("content type %q: %w", contentType, err)
	}
	body := io.LimitReader(resp.Body, e.s.Fetch.MaxBytes)
	switch mediaType {
	case "text/html", "application/xhtml+xml":
		r, err := charset.NewReader(body, contentType)
		if err != nil {
			return "", err
		}
		return extractMainText(r, e.s.Fetch.MaxChars)
	case "text/plain":
		b, err := io.ReadAll(body)
		if err != nil {
			return "", err
		}
		return textsafe.Truncate(cleanBlock(string(b)), e.s.Fetch.MaxChars), nil
	}
	return "", fmt.Errorf("content type %q is not a text page", mediaType)
}

// skippedElements hold no main text.
var skippedElements = map[string]bool{
	"head": true, "script": true, "style": true, "noscript": true, "template": true,
	"svg": true, "math": true, "nav": true, "header": true, "footer": true, "aside": true,
	"form": true, "button": true, "select": true, "iframe": true, "object": true,
	"canvas": true, "dialog": true, "menu": true,
}

// blockElements end a line of text.
var blockElements = map[string]bool{
	"p": true, "div": true, "br": true, "li": true, "ul": true, "ol": true, "dl": true,
	"dt": true, "dd": true, "h1": true, "h2": true, "h3": true, "h4": true, "h5": true,
	"h6": true, "tr": true, "table": true, "section": true, "article": true, "main": true,
	"blockquote": true, "pre": true, "figcaption": true, "hr": true, "body": true,
}

// extractMainText returns the readable text of a page: the <main>
// element, else the longest <article>, else the body, without navigation,
// scripts and forms; one line per block, cut to maxChars runes.
func extractMainText(r io.Reader, maxChars int) (string, error) {
	doc, err := html.Parse(r)
	if err != nil {
		return "", err
	}
	root := mainElement(doc)
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		switch n.Type {
		case html.TextNode:
			b.WriteString(n.Data)
			return
		case html.CommentNode, html.DoctypeNode:
			return
		case html.ElementNode:
			if skippedElements[n.Data] || hasAttr(n, "hidden") || attr(n, "aria-hidden") == "true" {
				return
			}
		}
		block := n.Type == html.ElementNode && blockElements[n.Data]
		if block {
			b.WriteByte('\n')
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
		if block {
			b.WriteByte('\n')
		}
	}
	walk(root)
	return textsafe.Truncate(cleanBlock(b.String()), maxChars), nil
}

// mainElement picks the part of the page that holds its content.
func mainElement(doc *html.Node) *html.Node {
	var main, body, article *html.Node
	articleLen := -1
	var find func(*html.Node)
	find = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch n.Data {
			case "main":
				if main == nil {
					main = n
				}
			case "body":
				if body == nil {
					body = n
				}
			case "article":
				if l := len(strings.TrimSpace(textOf(n))); l > articleLen {
					article, articleLen = n, l
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			find(c)
		}
	}
	find(doc)
	switch {
	case main != nil:
		return main
	case article != nil:
		return article
	case body != nil:
		return body
	}
	return doc
}

// cleanBlock keeps line structure: each line cleaned and collapsed, empty
// lines dropped.
func cleanBlock(s string) string {
	lines := strings.Split(textsafe.ForTerminal(s), "\n")
	out := lines[:0]
	for _, l := range lines {
		if l = strings.Join(strings.Fields(l), " "); l != "" {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
