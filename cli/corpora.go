package cli

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"text/tabwriter"

	"github.com/prefrag/prefrag/internal/plural"
	"github.com/prefrag/prefrag/sources/catalog"
)

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// corporaCommand is `prefrag corpora`: list the corpora, pin, unpin or
// remove one, or add a remote one.
func corporaCommand(e *env, args []string) error {
	if rest, ok := corporaAddArgs(args); ok {
		return newCmd(parseCorporaAdd, runCorporaAdd)(e, rest)
	}
	return newCmd(parseCorpora, runCorpora)(e, args)
}

// corporaOptions are `prefrag corpora`'s.
type corporaOptions struct {
	Out   outputFlags
	Yes   bool     // rm without asking
	Names bool     // only the names, for shell completion
	Args  []string // pin NAME | unpin | rm NAME; none: the list
}

func parseCorpora(e *env, args []string) (*corporaOptions, error) {
	fs := flag.NewFlagSet("corpora", flag.ContinueOnError)
	o := &corporaOptions{}
	out := bindJSON(fs, "one JSON object per corpus")
	fs.BoolVar(&o.Yes, "yes", false, "with rm: delete without asking (needed when not on a terminal)")
	fs.BoolVar(&o.Names, "names", false, "only the corpus names, one a line (for shell completion)")
	pos, err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		helpFlags(e.stdout, fs, "corpora [--json] | corpora pin NAME | corpora unpin | corpora rm NAME [--yes] | "+corporaAddUsage)
		return nil, err
	}
	if err != nil {
		return nil, err
	}
	o.Out, o.Args = *out, pos
	return o, checkCorporaArgs(pos)
}

// corporaForms are the subcommands of corpora (but add): how many words
// each takes, itself included, and its usage.
var corporaForms = map[string]struct {
	words int
	usage string
}{
	"pin": {2, "pin NAME"}, "unpin": {1, "unpin"}, "rm": {2, "rm NAME [--yes]"}, "delete": {2, "rm NAME [--yes]"},
}

// checkCorporaArgs refuses a subcommand of corpora that does not exist or
// lacks its argument.
func checkCorporaArgs(pos []string) error {
	if len(pos) == 0 {
		return nil
	}
	form, ok := corporaForms[pos[0]]
	if !ok {
		return usagef("unknown corpora command %q (add, pin, unpin, rm)", pos[0])
	}
	if len(pos) != form.words {
		return usagef("usage: prefrag corpora %s", form.usage)
	}
	return nil
}

func runCorpora(e *env, o *corporaOptions) error {
	dir := e.cfg.CorporaDir()
	if len(o.Args) > 0 {
		return runCorporaCommand(e, dir, o.Args, o.Yes)
	}
	infos, err := catalog.List(dir)
	if err != nil {
		return err
	}
	switch {
	case o.Names:
		for _, in := range infos {
			fmt.Fprintln(e.stdout, in.Name)
		}
		return nil
	case o.Out.JSON:
		return writeCorporaJSON(e, infos, remoteRows(e.ctx, e, infos))
	case len(infos) == 0:
		fmt.Fprintln(e.stdout, "no corpora yet — create one with: prefrag index --corpus NAME FOLDER")
		return nil
	}
	return writeCorporaTable(e, infos, remoteRows(e.ctx, e, infos))
}

// runCorporaCommand runs `corpora pin|unpin|rm …` (checkCorporaArgs
// checked the arguments).
func runCorporaCommand(e *env, dir string, pos []string, yes bool) error {
	switch pos[0] {
	case "pin":
		if err := catalog.Pin(dir, pos[1]); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "pinned %s: it is searched first\n", pos[1])
		return nil
	case "unpin":
		return unpinCorpus(e, dir)
	}
	return removeCorpus(e, dir, pos[1], yes)
}

// writeCorporaJSON prints one JSON object per corpus.
func writeCorporaJSON(e *env, infos []catalog.Info, remotes map[string]remoteRow) error {
	enc := json.NewEncoder(e.stdout)
	for _, in := range infos {
		obj := map[string]any{"name": in.Name, "documents": in.Stats.Documents, "passages": in.Stats.Passages,
			"size": in.Stats.SizeBytes, "updated": in.Stats.Updated, "pinned": in.Pinned, "busy": in.Busy}
		if in.Problem != "" {
			obj["damaged"], obj["problem"] = in.Damaged, in.Problem
		}
		if in.Vectors != nil {
			obj["vectors"] = in.Vectors
		}
		if in.Remote != "" {
			r, ok := remotes[in.Name]
			remoteJSON(obj, in, r, ok)
		}
		if err := enc.Encode(obj); err != nil {
			return err
		}
	}
	return nil
}

// writeCorporaTable prints the corpora as a table, then the details of
// the remote ones and one line per corpus that cannot be read.
func writeCorporaTable(e *env, infos []catalog.Info, remotes map[string]remoteRow) error {
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tDOCUMENTS\tPASSAGES\tSIZE\tUPDATED\tPINNED")
	for _, in := range infos {
		fmt.Fprint(tw, corpusTableRow(in, remotes))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	printRemoteDetails(e, infos, remotes)
	for _, in := range infos {
		if v := in.Vectors; v != nil {
			state := ""
			if !v.Complete {
				state = "; its last embedding did not finish: index it again"
			}
			fmt.Fprintf(e.stdout, "%s: vectors of %s by %s (%d dimensions)%s\n", in.Name, plural.N(v.Vectors, "passage"), line(v.Model), v.Dims, state)
		}
	}
	for _, in := range infos {
		if in.Problem != "" {
			fmt.Fprintln(e.stderr, "prefrag:", oneLine(errors.New(in.Problem)))
		}
	}
	return nil
}

// corpusTableRow is one corpus's row of the table.
func corpusTableRow(in catalog.Info, remotes map[string]remoteRow) string {
	pin := ""
	if in.Pinned {
		pin = "*"
	}
	upd := "-"
	if !in.Stats.Updated.IsZero() {
		upd = in.Stats.Updated.Local().Format("2006-01-02 15:04")
	}
	if in.Busy {
		upd = "indexing…"
	}
	if r, ok := remotes[in.Name]; ok {
		return remoteTableRow(in, r, ok, pin)
	}
	if in.Problem != "" {
		upd = "unreadable"
		if in.Damaged {
			upd = "DAMAGED"
		}
		return fmt.Sprintf("%s\t?\t?\t%s\t%s\t%s\n", in.Name, humanBytes(in.Stats.SizeBytes), upd, pin)
	}
	return fmt.Sprintf("%s\t%d\t%d\t%s\t%s\t%s\n", in.Name, in.Stats.Documents, in.Stats.Passages, humanBytes(in.Stats.SizeBytes), upd, pin)
}
