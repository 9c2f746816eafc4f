package main

import (
	"os"
	"strings"
	"testing"
)

func TestReport(t *testing.T) {
	const p = "github.com/prefrag/prefrag/x"
	in := strings.Join([]string{
		`{"Action":"start","Package":"` + p + `"}`,
		`{"Action":"run","Package":"` + p + `","Test":"TestA"}`,
		`{"Action":"output","Package":"` + p + `","Test":"TestA","Output":"=== RUN   TestA\n"}`,
		`{"Action":"output","Package":"` + p + `","Test":"TestA","Output":"    a_test.go:3: chatter\n"}`,
		`{"Action":"pass","Package":"` + p + `","Test":"TestA"}`,
		`{"Action":"output","Package":"` + p + `","Test":"TestB","Output":"=== RUN   TestB\n"}`,
		`{"Action":"output","Package":"` + p + `","Test":"TestB","Output":"    b_test.go:9: shared/data absent; skipping\n"}`,
		`{"Action":"output","Package":"` + p + `","Test":"TestB","Output":"--- SKIP: TestB (0.00s)\n"}`,
		`{"Action":"skip","Package":"` + p + `","Test":"TestB"}`,
		`{"Action":"output","Package":"` + p + `","Test":"TestC/sub","Output":"    c_test.go:5: got 1, want 2\n"}`,
		`{"Action":"output","Package":"` + p + `","Test":"TestC/sub","Output":"    --- FAIL: TestC/sub (0.00s)\n"}`,
		`{"Action":"fail","Package":"` + p + `","Test":"TestC/sub"}`,
		`{"Action":"output","Package":"` + p + `","Output":"FAIL\n"}`,
		`{"Action":"output","Package":"` + p + `","Output":"FAIL\t` + p + `\t0.1s\n"}`,
		`{"Action":"fail","Package":"` + p + `"}`,
		`{"Action":"output","Package":"` + p + `/y","Output":"ok  \t` + p + `/y\t0.2s\n"}`,
		`{"Action":"pass","Package":"` + p + `/y"}`,
		`{"Action":"output","Package":"` + p + `/z","Output":"?   \t` + p + `/z\t[no test files]\n"}`,
		`{"Action":"skip","Package":"` + p + `/z"}`,
	}, "\n")
	var out strings.Builder
	_, failed, err := collect(strings.NewReader(in), &out)
	if err != nil || !failed {
		t.Fatalf("failed %v, err %v; want a failure", failed, err)
	}
	want := "    c_test.go:5: got 1, want 2\n    --- FAIL: TestC/sub (0.00s)\nFAIL\n" +
		"FAIL\t" + p + "\t0.1s\nok  \t" + p + "/y\t0.2s\n?   \t" + p + "/z\t[no test files]\n" +
		"skipped tests: 1 (1 without the shared data)\n  x TestB: shared/data absent; skipping\n"
	if out.String() != want {
		t.Errorf("output\n%s\nwant\n%s", out.String(), want)
	}
	out.Reset()
	if _, failed, _ := collect(strings.NewReader(`{"Action":"pass","Package":"`+p+`"}`), &out); failed || out.String() != "skipped tests: 0\n" {
		t.Errorf("a clean run: failed %v, output %q", failed, out.String())
	}
}

// The README's count of tests that skip without ../shared/data is checked
// against a run without it.
func TestCheckREADME(t *testing.T) {
	skips := []skip{
		{"p", "TestA", "../shared/data is absent"},
		{"p", "TestB", "shared/data/multihop not found above /x; skipping"},
		{"p", "TestC", "tmux is not installed"},
	}
	readme := func(n string) string {
		return "Tests that use the shared research data in\n`../shared/data` skip when it is absent (" + n + " of them: the retrieval…"
	}
	for _, c := range []struct {
		text   string
		absent bool
		ok     bool
		says   string
	}{
		{readme("2"), true, true, "matches this run"},
		{readme("8"), true, false, "says 8 tests skip without ../shared/data; this run skipped 2"},
		{readme("8"), false, true, "is present"},
		{"no count here", true, false, "does not say"},
	} {
		var out strings.Builder
		if ok := checkREADME(c.text, "README.md", "../shared/data", c.absent, skips, &out); ok != c.ok || !strings.Contains(out.String(), c.says) {
			t.Errorf("checkREADME(%q, absent %v) = %v, %q; want %v, %q", c.text, c.absent, ok, out.String(), c.ok, c.says)
		}
	}
}

// The project's README states the count the check reads.
func TestREADMEStatesTheCount(t *testing.T) {
	text, err := os.ReadFile("../../docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	if readmeCount.FindStringSubmatch(string(text)) == nil {
		t.Error("docs/architecture.md no longer says how many tests skip without ../shared/data in the form the check reads")
	}
}
