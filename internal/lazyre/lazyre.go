// Package lazyre compiles a regular expression on its first use instead
// of at package initialisation: Go runs the initialisation of every linked
// package on every start of the binary, `prefrag --help` included, and a
// package-level regexp.MustCompile costs there whether or not the command
// ever matches anything.
package lazyre

import (
	"regexp"
	"sync"
)

// New returns a function that compiles expr the first time it is called
// (panicking then, as regexp.MustCompile would, if expr is invalid) and
// returns the same compiled expression on every call. It is safe for
// concurrent use.
func New(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
