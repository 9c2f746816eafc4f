// Command mcpfake runs the test MCP server over stdio (see package
// mcpfake). Flags: -mode (ok, text, fetch, exit, hang, error, notjson,
// huge, nosearch, spawn, nostart), -docs FILE (a JSON array of
// {id,title,url,text}), -starts FILE (a line is appended at every start),
// -child-pid FILE (spawn: where the child's pid goes).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/prefrag/prefrag/internal/testdouble/mcpfake"
)

func main() {
	mode := flag.String("mode", mcpfake.ModeOK, "how the server behaves")
	docsFile := flag.String("docs", "", "JSON array of documents to search")
	starts := flag.String("starts", "", "file a line is appended to at every start")
	childPID := flag.String("child-pid", "", "spawn mode: file for the child's pid")
	queries := flag.String("queries", "", "file every query is appended to, one a line")
	flag.Parse()
	if *starts != "" {
		f, err := os.OpenFile(*starts, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err == nil {
			fmt.Fprintln(f, os.Getpid())
			f.Close()
		}
	}
	if *mode == "nostart" {
		fmt.Fprintln(os.Stderr, "mcpfake: cannot open the index: permission denied")
		os.Exit(2)
	}
	o := mcpfake.Options{Mode: *mode, ChildPIDFile: *childPID}
	if *docsFile != "" {
		b, err := os.ReadFile(*docsFile)
		if err == nil {
			err = json.Unmarshal(b, &o.Docs)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "mcpfake:", err)
			os.Exit(2)
		}
	}
	if *queries != "" {
		o.Log = func(q string) {
			if f, err := os.OpenFile(*queries, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644); err == nil {
				fmt.Fprintln(f, q)
				f.Close()
			}
		}
	}
	if err := mcpfake.New(o).Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "mcpfake:", err)
		os.Exit(1)
	}
}
