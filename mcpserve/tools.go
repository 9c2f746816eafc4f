package mcpserve

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/textsafe"
)

// ToolNames are the tools the server offers.
var ToolNames = []string{"search", "fetch", "ask", "sessions"}

// addTools registers the four tools. The SDK infers each input and output
// schema from the Go types (their jsonschema tags describe the fields),
// validates arguments against it, and returns a result both as
// structuredContent and as the same JSON in a text block; a handler's
// error becomes a tool error (isError) with its one-line reason.
func (s *Server) addTools() {
	no := false
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "search", Title: "Search the user's corpus",
		Description: "Search the user's curated corpus (the pinned one unless corpus is given) and return its best passages: id, title, url, text, score and locator. " +
			"Fast: no language model and no web; a corpus with vectors is searched by meaning too (each result then gives bm25_rank and vector_rank), its query embedded by the user's embedding server. Use fetch with a result's id for a passage's whole text.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &no}}, cleaned(s.search))
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "fetch", Title: "Fetch a passage",
		Description: "Return one passage of the user's corpus whole, by the id search gave (CORPUS:PASSAGE): id, title, text, url and locator.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &no}}, cleaned(s.fetch))
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "ask", Title: "Ask prefrag for a cited, judged answer",
		Description: "Answer a research question with prefrag's PrefRAG loop: reason step by step with the user's local model, search the user's corpus first, let a judge decide whether what came back is enough, and go to the web only when it is not and the user's web policy allows it. " +
			"Returns the answer, its claims with citations and the supporting sentence of each, the sources, what was done about the web and why, counts, and the stored session's id. " +
			"Takes seconds to minutes: send a progress token to get one notification per step. The arguments can make the user's privacy stricter (web, never_leave), never looser.",
		InputSchema: askInputSchema()}, cleaned(s.ask))
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "sessions", Title: "List stored sessions",
		Description: "List prefrag's stored sessions (questions asked with prefrag, by the user or through ask), newest first, each with its answer, status and resource URIs (Markdown and the HTML report).",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &no}}, cleaned(s.sessions))
}

// cleaned is a tool handler whose result has every string made safe to
// show (textsafe.ForTerminal: no escape sequence, no control character):
// agents show tool results, terminal agents among them, and a stored text
// (an imported session's question, a passage) may carry one.
func cleaned[In, Out any](h mcp.ToolHandlerFor[In, Out]) mcp.ToolHandlerFor[In, Out] {
	return func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
		res, out, err := h(ctx, req, in)
		if err != nil {
			return res, out, err
		}
		b, merr := json.Marshal(out)
		if merr != nil {
			return res, out, err
		}
		if c := textsafe.JSONStrings(b); !bytes.Equal(c, b) {
			var safe Out
			if json.Unmarshal(c, &safe) == nil {
				out = safe
			}
		}
		return res, out, err
	}
}

// askInputSchema is AskInput's inferred schema with the web policies
// listed.
func askInputSchema() *jsonschema.Schema {
	sch, err := jsonschema.For[AskInput](nil)
	if err != nil {
		panic("mcpserve: ask's input schema: " + err.Error())
	}
	sch.Properties["web"].Enum = []any{engine.WebAuto, engine.WebAsk, engine.WebNever}
	return sch
}

// addResources registers the session resources (their URIs come from the
// sessions tool and the ask result).
func (s *Server) addResources() {
	s.mcp.AddResourceTemplate(&mcp.ResourceTemplate{Name: "session", Title: "A prefrag session (Markdown)",
		URITemplate: sessionPrefix + "{id}", MIMEType: "text/markdown",
		Description: "A stored session: its question, every step (searches, judge decisions, the switch to the web), the answer with its evidence."}, s.readSession)
	s.mcp.AddResourceTemplate(&mcp.ResourceTemplate{Name: "session-report", Title: "A prefrag session (HTML report)",
		URITemplate: sessionPrefix + "{id}" + reportSuffix, MIMEType: "text/html",
		Description: "A stored session as the self-contained HTML report prefrag exports."}, s.readSession)
}
