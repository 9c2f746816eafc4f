package main

import (
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
	failed, err := report(strings.NewReader(in), &out)
	if err != nil || !failed {
		t.Fatalf("failed %v, err %v; want a failure", failed, err)
	}
	want := "    c_test.go:5: got 1, want 2\n    --- FAIL: TestC/sub (0.00s)\nFAIL\n" +
		"FAIL\t" + p + "\t0.1s\nok  \t" + p + "/y\t0.2s\n?   \t" + p + "/z\t[no test files]\n" +
		"skipped tests: 1\n  x TestB: shared/data absent; skipping\n"
	if out.String() != want {
		t.Errorf("output\n%s\nwant\n%s", out.String(), want)
	}
	out.Reset()
	if failed, _ := report(strings.NewReader(`{"Action":"pass","Package":"`+p+`"}`), &out); failed || out.String() != "skipped tests: 0\n" {
		t.Errorf("a clean run: failed %v, output %q", failed, out.String())
	}
}
