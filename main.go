// Command prefrag is a terminal research assistant: it answers a question
// step by step with a local LLM, searching the analyst's pinned corpus first
// and the web only when the corpus is not enough (the PrefRAG method).
package main

import (
	"os"

	"github.com/prefrag/prefrag/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
