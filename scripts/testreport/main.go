// Command testreport reads `go test -json` on stdin and prints what a
// plain `go test` run prints (one line per package, and the output of
// failing tests), then the tests that skipped, with their reasons, and how
// many. It exits 1 when a test or a build failed. scripts/test.sh uses it
// so the suite runs once and still reports its skips.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strconv"
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
	readme := flag.String("readme", "", "check the README's count of tests that skip without the shared data against this run")
	data := flag.String("data", "../shared/data", "the shared data folder (the check runs only when it is absent)")
	flag.Parse()
	skips, failed, err := collect(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testreport:", err)
		os.Exit(2)
	}
	if *readme != "" {
		text, err := os.ReadFile(*readme)
		if err != nil {
			fmt.Fprintln(os.Stderr, "testreport:", err)
			os.Exit(2)
		}
		_, statErr := os.Stat(*data)
		if !checkREADME(string(text), *readme, *data, statErr != nil, skips, os.Stdout) {
			failed = true
		}
	}
	if failed {
		os.Exit(1)
	}
}

// needsData reports whether a skip's reason is the shared data's absence.
func needsData(s skip) bool { return strings.Contains(s.reason, "shared/data") }

// readmeCount finds the README's statement of how many tests skip without
// the shared data: "skip when it is absent (N of them".
var readmeCount = regexp.MustCompile(`skip when it is absent\s+\((\d+) of them`)

// checkREADME compares the README's count of tests that skip without the
// shared data with this run's, when the data is absent (with the data
// present nothing skips for it, and the figure cannot be checked). It
// prints the outcome and reports whether the README is right.
func checkREADME(text, readmePath, dataDir string, dataAbsent bool, skips []skip, out io.Writer) bool {
	m := readmeCount.FindStringSubmatch(text)
	if m == nil {
		fmt.Fprintf(out, "%s does not say how many tests skip without %s (\"skip when it is absent (N of them\")\n", readmePath, dataDir)
		return false
	}
	said, _ := strconv.Atoi(m[1])
	if !dataAbsent {
		fmt.Fprintf(out, "%s is present: %s's count (%d tests skip without it) is checked by a run without it\n", dataDir, readmePath, said)
		return true
	}
	n := 0
	for _, s := range skips {
		if needsData(s) {
			n++
		}
	}
	if n != said {
		fmt.Fprintf(out, "%s says %d tests skip without %s; this run skipped %d for it: correct the README\n", readmePath, said, dataDir, n)
		return false
	}
	fmt.Fprintf(out, "%s's count of tests that skip without %s (%d) matches this run\n", readmePath, dataDir, n)
	return true
}

// collect prints the run as `go test` would, then the skips, and returns
// them.
func collect(in io.Reader, out io.Writer) (skips []skip, failed bool, err error) {
	buf := map[string][]string{} // package + "\x00" + test → its output lines
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
		return skips, true, err
	}
	sort.SliceStable(skips, func(i, j int) bool { return skips[i].pkg < skips[j].pkg })
	data := 0
	for _, s := range skips {
		if needsData(s) {
			data++
		}
	}
	if data > 0 {
		fmt.Fprintf(out, "skipped tests: %d (%d without the shared data)\n", len(skips), data)
	} else {
		fmt.Fprintf(out, "skipped tests: %d\n", len(skips))
	}
	for _, s := range skips {
		fmt.Fprintf(out, "  %s %s: %s\n", strings.TrimPrefix(s.pkg, "github.com/prefrag/prefrag/"), s.test, s.reason)
	}
	return skips, failed, nil
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
