package local_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/prefrag/prefrag/sources/local"
)

// Index a folder of notes into a corpus, open it and search it.
func Example() {
	tmp, err := os.MkdirTemp("", "prefrag-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(tmp)
	notes := filepath.Join(tmp, "notes")
	_ = os.MkdirAll(notes, 0o755)
	_ = os.WriteFile(filepath.Join(notes, "prague.md"), []byte("# Prague\n\nThe Vltava flows through Prague.\n"), 0o644)
	_ = os.WriteFile(filepath.Join(notes, "vienna.md"), []byte("# Vienna\n\nThe Danube flows through Vienna.\n"), 0o644)

	corpora := filepath.Join(tmp, "corpora")
	w, err := local.OpenWriter(corpora, "notes", local.WriterOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	rep, err := w.Index(context.Background(), []string{notes}, local.IndexOptions{})
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("files indexed:", rep.Indexed)

	c, err := local.Open(corpora, "notes")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	docs, err := c.Search(context.Background(), "river through Vienna", 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, d := range docs {
		fmt.Println(c.Name(), "→", d.Title+":", strings.Join(strings.Fields(d.Text), " "))
	}
	// Output:
	// files indexed: 2
	// local:notes → Vienna: # Vienna The Danube flows through Vienna.
}
