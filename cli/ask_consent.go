package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/textsafe"
)

// Consent on the terminal. Under web policy "ask" (and for a query held
// back because the context holds never-leave passages) `prefrag ask` in a
// terminal puts each web query to the user before it leaves: the query,
// where it goes and why, then y/N. Without a terminal there is no one to
// ask and the engine acts as under "never" (and says so).

// terminalConsent asks on the terminal: the question on out (stderr), the
// answer read from in (stdin), one line per query.
type terminalConsent struct {
	in  *bufio.Reader
	out io.Writer
	// hold clears the spinner line before the question is printed.
	hold func()

	mu sync.Mutex
}

// newTerminalConsent returns the asker when stdin and stderr are both
// terminals, nil otherwise.
func newTerminalConsent(stdin io.Reader, stderr io.Writer, hold func()) *terminalConsent {
	if !isTerminal(stdin) || !isTerminal(stderr) {
		return nil
	}
	return &terminalConsent{in: bufio.NewReader(stdin), out: stderr, hold: hold}
}

// ask is the engine.ConsentFunc: y or yes sends this query, a or all
// sends it and every further query of this run to the same kind of source
// (the web, MCP servers over the network), anything else (Enter alone
// included) keeps it on the machine. It returns when ctx ends.
func (c *terminalConsent) ask(ctx context.Context, req engine.ConsentRequest) (engine.Consent, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.hold != nil {
		c.hold()
	}
	fmt.Fprint(c.out, consentQuestion(req))
	answer := make(chan string, 1)
	go func() {
		line, _ := c.in.ReadString('\n')
		answer <- line
	}()
	select {
	case <-ctx.Done():
		fmt.Fprintln(c.out)
		return engine.ConsentDeny, ctx.Err()
	case line := <-answer:
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "y", "yes":
			return engine.ConsentOnce, nil
		case "a", "all":
			return engine.ConsentSession, nil
		}
		fmt.Fprintln(c.out, "  kept on this machine: the query was not sent")
		return engine.ConsentDeny, nil
	}
}

// consentQuestion words the question: what would be sent where, why, and
// the answers.
func consentQuestion(req engine.ConsentRequest) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\nSend this query to %s?\n    “%s”\n", line(req.Source), line(req.Query))
	switch {
	case req.Carries != "":
		fmt.Fprintf(&b, "  careful: it carries “%s”, %s found in never-leave corpus %s\n", line(req.Carries), line(req.CarriesKind), line(req.Guarded))
	case req.Guarded != "" && req.Hold != "" && !strings.HasPrefix(req.Hold, "the context"):
		fmt.Fprintf(&b, "  careful: %s\n", line(req.Hold))
	case req.Guarded != "":
		fmt.Fprintf(&b, "  careful: the context holds passages of never-leave corpus %s\n", line(req.Guarded))
	case req.Reflection:
		b.WriteString("  why: the answer was judged weak; the question itself is searched again on every source\n")
	}
	if why := line(req.Analysis); why != "" && !req.Reflection {
		fmt.Fprintf(&b, "  why: %s\n", textsafe.ElideMiddle(why, 300))
	}
	fmt.Fprintf(&b, "  [y]es · [a]ll %s for the rest of this run · [N]o, keep it on this machine: ", req.Kind.Spec().Queries)
	return b.String()
}

// holdSpinner erases the spinner line so that a question can be printed;
// the next event draws it again.
func (o *eventWriter) holdSpinner() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.spin != nil {
		o.spin.erase(o.w)
	}
	o.w.Flush()
}
