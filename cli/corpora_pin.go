package cli

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/prefrag/prefrag/internal/plural"
	"github.com/prefrag/prefrag/sources/catalog"
	"github.com/prefrag/prefrag/sources/local"
)

// noPinAdvice is what follows when nothing is pinned.
const noPinAdvice = "`prefrag ask` and the app now search no corpus unless you name one with --corpus " +
	"(and without a corpus send nothing to the web unless you pass --web-only); `prefrag corpora pin NAME` picks the corpus searched first"

func unpinCorpus(e *env, dir string) error {
	was, err := catalog.Unpin(dir)
	if err != nil {
		return err
	}
	if was == "" {
		fmt.Fprintln(e.stdout, "no corpus was pinned; "+noPinAdvice)
		return nil
	}
	fmt.Fprintf(e.stdout, "unpinned %s: nothing is pinned; %s\n", was, noPinAdvice)
	return nil
}

// removeCorpus deletes a corpus for good: on a terminal it asks first;
// elsewhere it needs --yes.
func removeCorpus(e *env, dir, name string, yes bool) error {
	infos, err := catalog.List(dir)
	if err != nil {
		return err
	}
	var info *catalog.Info
	for i := range infos {
		if infos[i].Name == name {
			info = &infos[i]
		}
	}
	if info == nil {
		return &local.NotFoundError{Name: name}
	}
	if info.Remote != "" {
		return removeRemote(e, dir, name, info)
	}
	if !yes {
		in, ok := terminalIn(e.stdin)
		if !ok {
			return usagef("corpora rm deletes corpus %s and its index for good: pass --yes to confirm (there is no terminal to ask on)", name)
		}
		pinned := ""
		if info.Pinned {
			pinned = "; it is the pinned corpus, and nothing will be pinned afterwards"
		}
		q := fmt.Sprintf("Delete corpus %s (%s, %s%s)? This cannot be undone. [y/N] ",
			name, plural.N(info.Stats.Documents, "document"), plural.N(info.Stats.Passages, "passage"), pinned)
		if !confirm(in, e.stderr, q) {
			fmt.Fprintf(e.stdout, "kept corpus %s\n", name)
			return nil
		}
	}
	if err := catalog.Delete(dir, name); err != nil {
		return err
	}
	if info.Pinned {
		fmt.Fprintf(e.stdout, "deleted corpus %s; it was pinned, and no other corpus takes its place: %s\n", name, noPinAdvice)
		return nil
	}
	fmt.Fprintf(e.stdout, "deleted corpus %s\n", name)
	return nil
}

// terminalIn returns stdin when it is a terminal.
func terminalIn(r io.Reader) (io.Reader, bool) {
	f, ok := r.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil, false
	}
	return f, true
}

// confirm asks a yes/no question; only "y" or "yes" is yes.
func confirm(in io.Reader, out io.Writer, question string) bool {
	fmt.Fprint(out, question)
	line, _ := bufio.NewReader(in).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true
	}
	return false
}
