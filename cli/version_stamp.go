package cli

import (
	_ "embed"
	"strings"
)

// Commit is the commit a binary was built from when the builder says so:
// -ldflags "-X github.com/prefrag/prefrag/cli.Commit=$(git rev-parse HEAD)".
// It wins over everything else.
var Commit = ""

// archiveStamp is "$Format:%H %cI$" in the repository; `git archive` (and
// so every GitHub source tarball) replaces it with the commit and its time
// (.gitattributes: export-subst), so a binary built from a tarball, with no
// .git to stamp from, still knows its commit.
//
//go:embed version_stamp.txt
var archiveStamp string

// stampedCommit is the commit and time from an archive stamp, or empty
// strings when the file was not substituted (a git checkout).
func stampedCommit(stamp string) (rev, at string) {
	stamp = strings.TrimSpace(stamp)
	if stamp == "" || strings.Contains(stamp, "$") {
		return "", ""
	}
	rev, at, _ = strings.Cut(stamp, " ")
	if len(rev) < 7 || strings.Trim(rev, "0123456789abcdef") != "" {
		return "", ""
	}
	return rev, strings.TrimSpace(at)
}
