package cli

import (
	"errors"
	"io"
	"os"

	"golang.org/x/term"
)

// errNoTerminal is the one sentence the interactive app says when it is
// started without a terminal to draw on and read keys from.
var errNoTerminal = errors.New("the interactive app needs a terminal, and stdin or stdout is not one: run `prefrag` in a terminal, or ask from a script with `prefrag ask \"…\"`")

// needTerminal checks that both stdin and stdout are terminals.
func needTerminal(stdin io.Reader, stdout io.Writer) error {
	if !isTerminal(stdin) || !isTerminal(stdout) {
		return errNoTerminal
	}
	return nil
}

func isTerminal(v any) bool {
	f, ok := v.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
