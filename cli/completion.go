package cli

import (
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/prefrag/prefrag/config"
	"github.com/prefrag/prefrag/store/export"
)

// completionWords is what the shell completion scripts offer: the
// subcommands, the sessions and bench subcommands, and each command's
// flags. Corpus names are asked of prefrag itself at completion time
// (`prefrag corpora --names`).
func completionWords(cfg *config.Config) (cmds []string, flags map[string]string) {
	for _, c := range commands() {
		cmds = append(cmds, c.name)
	}
	cmds = append(cmds, "help", "version", "completion")
	fs := flag.NewFlagSet("ask", flag.ContinueOnError)
	bindRunFlags(fs, cfg)
	var ask []string
	fs.VisitAll(func(f *flag.Flag) { ask = append(ask, dashed(f.Name)) })
	sort.Strings(ask)
	askFlags := strings.Join(ask, " ")
	flags = map[string]string{
		"ask":      askFlags + " --help",
		"config":   askFlags + " --help",
		"index":    "--corpus --include-exports --help",
		"corpora":  "--json --yes --names --help",
		"search":   "--corpus -k --json --help",
		"sources":  askFlags + " --no-connect --names --query --help",
		"sessions": "--json --status --label --since --corpus --text -n --all --format -o --force --offline --llm --llm-url --model --older-than --yes --help",
		"eval":     "--data --dataset --strategies --limit --parallel --out --holdout-supporting --store-sessions --report " + askFlags + " --help",
		"bench":    "--data --datasets --limit --strategies --hops --holdout --no-tokens --large --file --systems --json --help",
	}
	return cmds, flags
}

func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

var sessionsSubs = "list show search export import rerun rm"

// exportFormatWords are the values `sessions export --format` takes
// (store/export's table), for the completion scripts.
func exportFormatWords() string { return strings.Join(export.FormatNames(), " ") }

// completionOptions are `prefrag completion`'s.
type completionOptions struct {
	Shell string // bash, zsh or fish
}

func parseCompletion(e *env, args []string) (*completionOptions, error) {
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help") {
		fmt.Fprintln(e.stdout, "Print a shell completion script.\n\nUsage:\n  prefrag completion bash|zsh|fish\n\nExamples:\n  source <(prefrag completion bash)        # in ~/.bashrc\n  prefrag completion zsh > \"${fpath[1]}/_prefrag\"\n  prefrag completion fish > ~/.config/fish/completions/prefrag.fish")
		return nil, flag.ErrHelp
	}
	if len(args) != 1 || (args[0] != "bash" && args[0] != "zsh" && args[0] != "fish") {
		return nil, usagef("usage: prefrag completion bash|zsh|fish")
	}
	return &completionOptions{Shell: args[0]}, nil
}

func runCompletion(e *env, o *completionOptions) error {
	cmds, flags := completionWords(e.cfg)
	switch o.Shell {
	case "bash":
		writeBash(e.stdout, cmds, flags)
	case "zsh":
		fmt.Fprintln(e.stdout, "#compdef prefrag\nautoload -U +X bashcompinit && bashcompinit")
		writeBash(e.stdout, cmds, flags)
	case "fish":
		writeFish(e.stdout, cmds, flags)
	}
	return nil
}

func writeBash(w io.Writer, cmds []string, flags map[string]string) {
	fmt.Fprintf(w, `# prefrag bash completion: source <(prefrag completion bash)
_prefrag_corpora() { "${COMP_WORDS[0]}" corpora --names 2>/dev/null; }
_prefrag() {
	local cur="${COMP_WORDS[COMP_CWORD]}" prev="" cmd="${COMP_WORDS[1]}" words=""
	[ "$COMP_CWORD" -gt 0 ] && prev="${COMP_WORDS[COMP_CWORD-1]}"
	COMPREPLY=()
	if [ "$prev" = "--corpus" ]; then
		COMPREPLY=( $(compgen -W "$(_prefrag_corpora)" -- "$cur") ); return 0
	fi
	if [ "$cmd" = sessions ] && [ "$prev" = "--format" ]; then
		COMPREPLY=( $(compgen -W %q -- "$cur") ); return 0
	fi
	if [ "$COMP_CWORD" -eq 1 ]; then
		words=%q
		case "$cur" in -*) words=%q;; esac
		COMPREPLY=( $(compgen -W "$words" -- "$cur") ); return 0
	fi
	case "$cur" in -*)
		case "$cmd" in
`, exportFormatWords(), strings.Join(cmds, " "), flags["ask"])
	keys := make([]string, 0, len(flags))
	for k := range flags {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(w, "\t\t%s) words=%q;;\n", k, flags[k])
	}
	fmt.Fprintf(w, `		esac
		COMPREPLY=( $(compgen -W "$words" -- "$cur") ); return 0;;
	esac
	case "$cmd" in
	sessions) [ "$COMP_CWORD" -eq 2 ] && words=%q;;
	bench) [ "$COMP_CWORD" -eq 2 ] && words="retrieval engine evidence";;
	completion) [ "$COMP_CWORD" -eq 2 ] && words="bash zsh fish";;
	help) [ "$COMP_CWORD" -eq 2 ] && words=%q;;
	corpora)
		if [ "$COMP_CWORD" -eq 2 ]; then words="pin unpin rm add"
		elif [ "$prev" = pin ] || [ "$prev" = rm ]; then words="$(_prefrag_corpora)"; fi;;
	sources)
		if [ "$COMP_CWORD" -eq 2 ]; then words="check"
		elif [ "$prev" = check ]; then words="$("${COMP_WORDS[0]}" sources --names 2>/dev/null)"; fi;;
	index) COMPREPLY=( $(compgen -f -- "$cur") ); return 0;;
	esac
	COMPREPLY=( $(compgen -W "$words" -- "$cur") )
	return 0
}
complete -F _prefrag prefrag
`, sessionsSubs, strings.Join(cmds, " "))
}

func writeFish(w io.Writer, cmds []string, flags map[string]string) {
	fmt.Fprintln(w, "# prefrag fish completion: prefrag completion fish > ~/.config/fish/completions/prefrag.fish")
	fmt.Fprintln(w, "complete -c prefrag -f")
	fmt.Fprintf(w, "complete -c prefrag -n __fish_use_subcommand -a %q\n", strings.Join(cmds, " "))
	fmt.Fprintf(w, "complete -c prefrag -n '__fish_seen_subcommand_from sessions' -a %q\n", sessionsSubs)
	fmt.Fprintln(w, "complete -c prefrag -n '__fish_seen_subcommand_from bench' -a 'retrieval engine evidence'")
	fmt.Fprintln(w, "complete -c prefrag -n '__fish_seen_subcommand_from completion' -a 'bash zsh fish'")
	fmt.Fprintln(w, "complete -c prefrag -n '__fish_seen_subcommand_from pin rm' -a '(prefrag corpora --names 2>/dev/null)'")
	fmt.Fprintln(w, "complete -c prefrag -n '__fish_seen_subcommand_from sources' -a 'check'")
	fmt.Fprintln(w, "complete -c prefrag -n '__fish_seen_subcommand_from check' -a '(prefrag sources --names 2>/dev/null)'")
	fmt.Fprintln(w, "complete -c prefrag -l corpus -x -a '(prefrag corpora --names 2>/dev/null)'")
	fmt.Fprintf(w, "complete -c prefrag -n '__fish_seen_subcommand_from export' -l format -x -a %q\n", exportFormatWords())
	keys := make([]string, 0, len(flags))
	for k := range flags {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		for _, f := range strings.Fields(flags[k]) {
			if f == "--corpus" {
				continue
			}
			opt := "-l " + strings.TrimPrefix(f, "--")
			if !strings.HasPrefix(f, "--") {
				opt = "-o " + strings.TrimPrefix(f, "-")
			}
			fmt.Fprintf(w, "complete -c prefrag -n '__fish_seen_subcommand_from %s' %s\n", k, opt)
		}
	}
}
