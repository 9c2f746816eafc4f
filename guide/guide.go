// Package guide is prefrag's user guide, embedded in the binary: the TUI
// offers to index it as corpus "guide" on first run, so a first question
// can be asked before the user has indexed anything of their own, and it
// is real documentation of the program.
package guide

import (
	"embed"
	"io/fs"
)

//go:embed *.md
var files embed.FS

// FS returns the guide's Markdown files.
func FS() fs.FS { return files }
