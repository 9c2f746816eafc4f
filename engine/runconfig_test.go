package engine

import (
	"bufio"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
)

// The golden lines were written by json.Marshal of the one Settings struct
// that held both the engine's settings and the wiring (commit 763f5c7):
// every field set, none set, and the defaults. A RunConfig writes the same
// bytes, key order included, and reads them back to the same value.
func TestRunConfigWireUnchanged(t *testing.T) {
	seed := 7
	configs := []RunConfig{
		{
			Settings: Settings{Strategy: "prefrag-gated", Web: WebAsk, Model: "qwen", K: 7, MaxSteps: 4, MaxReflections: 2, JudgeFirst: true,
				NumCtx: 8192, Temperature: 0.3, TopP: 0.8, Seed: &seed, AnswerStyle: StyleReport, PerSourceTools: true, MaxOutputTokens: 512,
				ServerCtx: 4096, NeverLeave: []string{"notes"}, WebOnly: true, CorpusChoice: CorporaGiven, MaxDocChars: 3000, RefineBudget: 70},
			Wiring: Wiring{Corpora: []string{"wiki", "notes"}, WebEngine: "searxng", LLM: "llamacpp", LLMURL: "http://127.0.0.1:8080",
				JudgeModel: "judge", ProxyModel: "proxy"},
		},
		{},
		DefaultRunConfig(),
	}
	f, err := os.Open("testdata/runconfig.golden.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for i, c := range configs {
		if !sc.Scan() {
			t.Fatalf("golden has %d lines, want %d", i, len(configs))
		}
		want := sc.Text()
		got, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Errorf("config %d:\n got %s\nwant %s", i, got, want)
		}
		var back RunConfig
		if err := json.Unmarshal([]byte(want), &back); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(back, c) {
			t.Errorf("config %d read back as %+v, want %+v", i, back, c)
		}
		// Through a pointer, as the session payload holds it.
		got, _ = json.Marshal(&back)
		if string(got) != want {
			t.Errorf("config %d through a pointer:\n got %s\nwant %s", i, got, want)
		}
	}
}

// Every Wiring key has its place among the Settings keys, and no key is in
// both: the two halves of the config object are declared once each.
func TestRunConfigKeysDeclaredOnce(t *testing.T) {
	keys := func(v any) map[string]bool {
		ms, err := objectMembers(v)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]bool{}
		for _, m := range ms {
			out[m.key] = true
		}
		return out
	}
	all := RunConfig{Wiring: Wiring{ProxyModel: "p", WebChosen: true, MCP: []string{"mcp:x"}, Prefer: []string{"x"}}, Settings: Settings{PerSourceTools: true, Seed: new(int), ServerCtx: 1,
		NeverLeave: []string{"x"}, WebOnly: true, CorpusChoice: "c", RefineBudget: 1}}
	settings, wiring := keys(all.Settings), keys(all.Wiring)
	for k := range wiring {
		if settings[k] {
			t.Errorf("key %q is both a setting and wiring", k)
		}
		before, ok := wiringBefore[k]
		if !ok || !settings[before] {
			t.Errorf("wiring key %q has no place before a setting (wiringBefore: %q)", k, before)
		}
	}
	if len(wiringBefore) != len(wiring) {
		t.Errorf("wiringBefore has %d keys, Wiring %d", len(wiringBefore), len(wiring))
	}
}

// web_chosen only extends the config object: a config with it is the
// golden one with "web_chosen":true after "web", and the golden lines,
// written before it existed, read back as not chosen.
func TestRunConfigWebChosenIsAdditive(t *testing.T) {
	b, err := os.ReadFile("testdata/runconfig.golden.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var c RunConfig
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			t.Fatal(err)
		}
		if c.WebChosen {
			t.Errorf("golden %d reads as web chosen", i)
		}
		c.WebChosen = true
		got, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		at := strings.Index(line, `"web_engine":`)
		want := line[:at] + `"web_chosen":true,` + line[at:]
		if string(got) != want {
			t.Errorf("config %d chosen:\n got %s\nwant %s", i, got, want)
		}
	}
}
