// Command testreport reads `go test -json` on stdin and prints what a
// plain `go test` run prints (one line per package, and the output of
// failing tests), then the tests that skipped, with their reasons, and how
// many. It exits 1 when a test or a build failed. scripts/test.sh uses it
// so the suite runs once and still reports its skips.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

type skip struct{ pkg, test, reason string }

func main() {
	failed, err := report(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testreport:", err)
		os.Exit(2)
	}
	if failed {
		os.Exit(1)
	}
}

func report(in io.Reader, out io.Writer) (failed bool, err error) {
	buf := map[string][]string{} // package + "\x00" + test → its output lines
	var skips []skip
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if json.Unmarshal(line, &e) != nil {
			// Not an event (go test writes some build errors as text).
			fmt.Fprintln(out, string(line))
			continue
		}
		key := e.Package + "\x00" + e.Test
		switch {
		case e.Action == "build-output":
			fmt.Fprint(out, e.Output)
		case e.Action == "build-fail":
			failed = true
		case e.Test == "" && e.Action == "output":
			if o := e.Output; o != "PASS\n" && !strings.HasPrefix(o, "=== ") && !strings.HasPrefix(o, "testing: warning: no tests to run") {
				fmt.Fprint(out, o)
			}
		case e.Test == "" && e.Action == "fail":
			failed = true
		case e.Test == "":
			// A package's start, pass or skip (no test files).
		case e.Action == "output":
			buf[key] = append(buf[key], e.Output)
		case e.Action == "fail":
			failed = true
			for _, o := range buf[key] {
				if !strings.HasPrefix(strings.TrimSpace(o), "=== ") {
					fmt.Fprint(out, o)
				}
			}
			delete(buf, key)
		case e.Action == "skip":
			skips = append(skips, skip{e.Package, e.Test, reason(buf[key])})
			delete(buf, key)
		case e.Action == "pass":
			delete(buf, key)
		}
	}
	if err := sc.Err(); err != nil {
		return true, err
	}
	sort.SliceStable(skips, func(i, j int) bool { return skips[i].pkg < skips[j].pkg })
	fmt.Fprintf(out, "skipped tests: %d\n", len(skips))
	for _, s := range skips {
		fmt.Fprintf(out, "  %s %s: %s\n", strings.TrimPrefix(s.pkg, "github.com/prefrag/prefrag/"), s.test, s.reason)
	}
	return failed, nil
}

// reason is the last message a skipped test logged (its t.Skip text).
func reason(lines []string) string {
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if l == "" || strings.HasPrefix(l, "--- SKIP") || strings.HasPrefix(l, "=== ") {
			continue
		}
		if j := strings.Index(l, ": "); j > 0 && strings.Contains(l[:j], ".go:") {
			l = l[j+2:]
		}
		return l
	}
	return "(no reason given)"
}
