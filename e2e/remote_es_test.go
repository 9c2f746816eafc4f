package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/testdouble/fakeelastic"
	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
)

// esKey is the API key of the Elasticsearch stand-in: it may be read from
// the environment, and must appear nowhere prefrag writes.
const esKey = "ZXMtYXBpLWtleS12YWx1ZS1kby1ub3QtbGVhaw=="

var esDocs = []fakeelastic.Doc{
	{ID: "kb-olsen", Title: "Carsten Olsen (botanist)", Text: "Carsten Olsen (1891–1974) was a Danish plant ecologist who assisted Søren Sørensen at the Carlsberg Laboratory.", URL: "https://kb.example/olsen"},
	{ID: "kb-ph", Title: "pH", Text: "The concept of pH was introduced by the Danish chemist Søren Peder Lauritz Sørensen in 1909."},
	{ID: "kb-lab", Title: "Carlsberg Laboratory", Text: "The Carlsberg Laboratory in Copenhagen was founded in 1875 by J. C. Jacobsen."},
}

// runEnv runs the binary with extra environment variables.
func (w *world) runEnv(extra []string, args ...string) (stdout, stderr string, code int) {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := w.command(ctx, args...)
	cmd.Env = append(cmd.Env, extra...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	code = cmd.ProcessState.ExitCode()
	if err != nil && code == 0 {
		w.t.Fatalf("%v: %v", args, err)
	}
	return o.String(), e.String(), code
}

// assertNoSecret fails when the key is in any file under the home (the
// registration, the database, logs, exports) or in the outputs.
func assertNoSecret(t *testing.T, home, secret string, outputs ...string) {
	t.Helper()
	for _, o := range outputs {
		if strings.Contains(o, secret) {
			t.Errorf("the secret was printed: %q", o)
		}
	}
	filepath.WalkDir(home, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err == nil && bytes.Contains(b, []byte(secret)) {
			t.Errorf("the secret is stored in %s", p)
		}
		return nil
	})
}

func sourceOrder(evs []engine.Event) string {
	var order []string
	for _, e := range evs {
		switch e := e.Payload.(type) {
		case engine.Retrieval:
			order = append(order, "search "+e.Source)
		case engine.Selection:
			if e.NextSource != nil {
				order = append(order, "switch→"+*e.NextSource)
			}
		case engine.Observation:
			order = append(order, "observe "+e.Source)
		}
	}
	return strings.Join(order, ",")
}

// An Elasticsearch index registered as a corpus is listed with its health,
// pinned, searched first, judged, and left for the web on a false
// judgement; its API key is read from the environment and stored nowhere.
func TestRemoteElasticsearchCorpus(t *testing.T) {
	script := &fakellm.Script{
		Steps: []string{
			"Thought: Who assisted Sørensen?\nAction: Search_Engine\nAction Input: Danish plant ecologist Sørensen assistant",
			"Thought: Check the knowledge base on pH.\nAction: Search_Engine\nAction Input: pH introduced Sørensen",
			"Thought: I now know the final answer to the original question\nFinal Answer: 1974 [1]\nSelf-Evaluation: CORRECT",
		},
		Judges: []string{
			`{"analysis": "The knowledge base does not say when he died.", "status": false}`,
			`{"analysis": "The pH passage is relevant.", "status": true}`,
		},
	}
	w := newWorld(t, script)
	es := fakeelastic.New(t, fakeelastic.Options{Index: "kb-docs", Docs: esDocs, APIKey: esKey, Flavor: fakeelastic.OpenSearch2})
	keyEnv := []string{"KB_ES_KEY=" + esKey}
	var outs []string
	run := func(args ...string) (string, string, int) {
		o, e, c := w.runEnv(keyEnv, args...)
		outs = append(outs, o, e)
		return o, e, c
	}

	// Credentials in the URL are refused without being repeated.
	_, e, code := run("corpora", "add", "kb", "--elasticsearch", strings.Replace(es.URL(), "http://", "http://admin:"+esKey+"@", 1), "--index", "kb-docs")
	if code != 2 || !strings.Contains(e, "user name or password") {
		t.Fatalf("credentials in URL: exit %d: %s", code, e)
	}
	o, e, code := run("corpora", "add", "kb", "--elasticsearch", es.URL(), "--index", "kb-docs", "--api-key-env", "KB_ES_KEY", "--timeout", "5s")
	if code != 0 || !strings.Contains(o, "registered remote corpus kb") || !strings.Contains(o, "$KB_ES_KEY") || !strings.Contains(o, "3 documents") {
		t.Fatalf("add: exit %d\n%s\n%s", code, o, e)
	}
	if _, e, code := run("corpora", "pin", "kb"); code != 0 {
		t.Fatalf("pin: %s", e)
	}
	o, _, _ = run("corpora", "--json")
	var kb, wiki map[string]any
	sc := bufio.NewScanner(strings.NewReader(o))
	for sc.Scan() {
		var obj map[string]any
		json.Unmarshal(sc.Bytes(), &obj)
		switch obj["name"] {
		case "kb":
			kb = obj
		case "wiki":
			wiki = obj
		}
	}
	if kb == nil || kb["remote"] != "elasticsearch" || kb["health"] != "ok" || kb["healthy"] != true || kb["documents"] != 3.0 ||
		kb["pinned"] != true || kb["index"] != "kb-docs" || kb["version"] != "2.11.0" || kb["distribution"] != "opensearch" {
		t.Errorf("corpora --json kb: %v", kb)
	}
	for _, f := range []string{"name", "documents", "passages", "size", "updated", "pinned", "busy"} {
		if _, ok := kb[f]; !ok {
			t.Errorf("kb lacks the field %s", f)
		}
	}
	if wiki == nil || wiki["remote"] != nil || wiki["passages"].(float64) < 1 {
		t.Errorf("local corpus listing changed: %v", wiki)
	}
	o, _, _ = run("corpora")
	if !strings.Contains(o, "remote: ok") || !strings.Contains(o, "kb: elasticsearch index kb-docs") {
		t.Errorf("corpora:\n%s", o)
	}

	// A remote corpus is read-only.
	_, e, code = run("index", "--corpus", "kb", w.docs)
	if code != 2 || !strings.Contains(e, "remote corpus") || strings.Count(strings.TrimSpace(e), "\n") > 0 {
		t.Errorf("index into a remote corpus: exit %d: %q", code, e)
	}

	o, e, code = run("search", "--corpus", "kb", "--json", "Danish plant ecologist")
	if code != 0 || !strings.Contains(o, `"id":"kb-olsen"`) || !strings.Contains(o, `"source":"local:kb"`) {
		t.Errorf("search: exit %d\n%s\n%s", code, o, e)
	}

	// A wrong key is named by its variable, never shown; an unset one too.
	wrong := "d3Jvbmcta2V5LXZhbHVlLW5ldmVyLXNob3du"
	o, e, code = w.runEnv([]string{"KB_ES_KEY=" + wrong}, "search", "--corpus", "kb", "pH")
	if code != 1 || !strings.Contains(e, "$KB_ES_KEY") || strings.Contains(o+e, wrong) || strings.Count(strings.TrimSpace(e), "\n") > 0 {
		t.Errorf("wrong key: exit %d\n%s\n%s", code, o, e)
	}
	o, e, code = w.run("search", "--corpus", "kb", "pH")
	if code != 1 || !strings.Contains(e, "KB_ES_KEY") || !strings.Contains(e, "not set") {
		t.Errorf("unset key: exit %d\n%s\n%s", code, o, e)
	}

	o, e, code = run(w.askArgs("--json", caseQuestion)...)
	if code != 0 {
		t.Fatalf("ask: exit %d: %s", code, e)
	}
	evs := parseEvents(t, o)
	want := "search local:kb,switch→web:searxng,search web:searxng,observe web:searxng,search local:kb,observe local:kb"
	if got := sourceOrder(evs); got != want {
		t.Errorf("sources\n got %s\nwant %s", got, want)
	}
	if es.Searches() < 3 {
		t.Errorf("%d searches reached the stand-in", es.Searches())
	}
	for _, a := range es.Authorizations() {
		if a != "ApiKey "+esKey && a != "ApiKey "+wrong {
			t.Errorf("authorization %q", a)
		}
	}
	sid := evs[0].Session
	o, _, _ = run("sessions", "export", sid, "--format", "json")
	outs = append(outs, o)
	o = strings.Join(strings.Fields(o), "")
	if !strings.Contains(o, `"kind":"elasticsearch"`) || !strings.Contains(o, `"index":"kb-docs"`) || !strings.Contains(o, `"cluster_uuid"`) {
		t.Errorf("the export's manifest lacks the corpus identity:\n%s", o)
	}
	o2, _, _ := run("sessions", "show", sid, "--json")
	outs = append(outs, o2)
	assertNoSecret(t, w.home, esKey, outs...)

	o, e, code = run("corpora", "rm", "kb")
	if code != 0 || !strings.Contains(o, "untouched") {
		t.Errorf("rm: exit %d\n%s\n%s", code, o, e)
	}
	if _, err := os.Stat(filepath.Join(w.home, "data", "corpora", "kb")); err == nil {
		t.Error("the registration is still there")
	}
}

// Elasticsearch goes down mid-session: the failed searches are notices,
// the circuit opens, later steps skip it at once, and the run answers.
func TestRemoteElasticsearchDownMidSession(t *testing.T) {
	script := &fakellm.Script{
		Steps: []string{
			"Thought: Search.\nAction: Search_Engine\nAction Input: Carlsberg Laboratory founded",
			"Thought: More.\nAction: Search_Engine\nAction Input: Danish plant ecologist",
			"Thought: More.\nAction: Search_Engine\nAction Input: Sørensen pH",
			"Thought: More.\nAction: Search_Engine\nAction Input: Olsen death",
			"Thought: I now know the final answer to the original question\nFinal Answer: 1974\nSelf-Evaluation: CORRECT",
		},
		Judges: []string{
			`{"analysis": "Relevant.", "status": true}`,
			`{"analysis": "Nothing came back.", "status": true}`,
			`{"analysis": "Nothing came back.", "status": true}`,
			`{"analysis": "Nothing came back.", "status": true}`,
		},
	}
	w := newWorld(t, script)
	es := fakeelastic.New(t, fakeelastic.Options{Index: "kb-docs", Docs: esDocs})
	if o, e, code := w.run("corpora", "add", "kb", "--elasticsearch", es.URL(), "--index", "kb-docs", "--timeout", "3s"); code != 0 {
		t.Fatalf("add: %s %s", o, e)
	}
	es.SetFault(fakeelastic.Fault{DownAfter: 1})
	t0 := time.Now()
	o, e, code := w.run(w.askArgs("--corpus", "kb", "--web", "never", "--max-steps", "4", "--json", caseQuestion)...)
	took := time.Since(t0)
	if code != 0 {
		t.Fatalf("ask: exit %d: %s", code, e)
	}
	if took > 30*time.Second {
		t.Errorf("took %s", took)
	}
	evs := parseEvents(t, o)
	var notices []string
	for _, ev := range payloadsOf[engine.Notice](evs) {
		if ev.Fatal {
			t.Errorf("fatal error: %s", ev.Message)
		}
		notices = append(notices, ev.Message)
	}
	all := strings.Join(notices, "\n")
	if len(notices) < 3 || !strings.Contains(all, "local:kb") || !strings.Contains(all, "skipped for") || !strings.Contains(all, "not searched") {
		t.Errorf("notices:\n%s", all)
	}
	if n := es.Searches(); n != 3 {
		t.Errorf("%d searches reached the stand-in; want 3 (one answered, two failed, then the circuit is open)", n)
	}
	final := payloadsOf[engine.Final](evs)
	if len(final) != 1 || !strings.Contains(final[0].Answer, "1974") {
		t.Errorf("final %+v", final)
	}
	t.Logf("run took %s; notices:\n%s", took, all)
}

// An Elasticsearch corpus first, a local corpus second, the web last: the
// judge's false moves from one to the next exactly as between local corpora.
func TestRemoteElasticsearchThenLocalThenWeb(t *testing.T) {
	script := &fakellm.Script{
		Steps: []string{
			"Thought: Who assisted Sørensen?\nAction: Search_Engine\nAction Input: Sørensen Carlsberg chemistry",
			"Thought: Try the web.\nAction: Search_Web\nAction Input: Danish plant ecologist who assisted Sørensen",
			"Thought: I now know the final answer to the original question\nFinal Answer: 1974\nSelf-Evaluation: CORRECT",
		},
		Judges: []string{
			`{"analysis": "The cluster's passages do not name the assistant.", "status": false}`,
			`{"analysis": "Still nothing new.", "status": false}`,
		},
	}
	w := newWorld(t, script)
	es := fakeelastic.New(t, fakeelastic.Options{Index: "kb-docs", Docs: esDocs, Flavor: fakeelastic.Elasticsearch7, ES6Totals: true})
	if o, e, code := w.run("corpora", "add", "kb", "--elasticsearch", es.URL(), "--index", "kb-docs"); code != 0 {
		t.Fatalf("add: %s %s", o, e)
	}
	out, errOut, code := w.run(w.askArgs("--corpus", "kb", "--corpus", "wiki", "--json", caseQuestion)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	evs := parseEvents(t, out)
	want := "search local:kb,switch→local:wiki,search local:wiki,observe local:wiki," +
		"search local:kb,switch→web:searxng,search web:searxng,observe web:searxng"
	if got := sourceOrder(evs); got != want {
		t.Errorf("switch order\n got %s\nwant %s", got, want)
	}
	if c := evs[0].Payload.(engine.SessionStart).Config; c == nil || strings.Join(c.Corpora, ",") != "kb,wiki" {
		t.Errorf("session config corpora %+v", c)
	}
}

// Failed shards: the other shards' hits are used, and a notice says the
// answer was partial.
func TestRemoteElasticsearchShardFailure(t *testing.T) {
	script := &fakellm.Script{
		Steps: []string{
			"Thought: Search.\nAction: Search_Engine\nAction Input: Danish Carlsberg Sørensen pH",
			"Thought: I now know the final answer to the original question\nFinal Answer: 1974\nSelf-Evaluation: CORRECT",
		},
	}
	w := newWorld(t, script)
	es := fakeelastic.New(t, fakeelastic.Options{Index: "kb-docs", Docs: esDocs})
	if o, e, code := w.run("corpora", "add", "kb", "--elasticsearch", es.URL(), "--index", "kb-docs"); code != 0 {
		t.Fatalf("add: %s %s", o, e)
	}
	es.SetFault(fakeelastic.Fault{ShardsFailed: 1})
	out, errOut, code := w.run(w.askArgs("--corpus", "kb", "--web", "never", "--json", caseQuestion)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	evs := parseEvents(t, out)
	ret := payloadsOf[engine.Retrieval](evs)
	if len(ret) != 1 || len(ret[0].Docs) == 0 || ret[0].Outcome != engine.OutcomeTruncated {
		t.Fatalf("retrieval %+v", ret)
	}
	obs := payloadsOf[engine.Observation](evs)
	if len(obs) != 1 || obs[0].Source != "local:kb" || len(obs[0].DocIDs) != len(ret[0].Docs) {
		t.Errorf("observation %+v", obs)
	}
	notes := payloadsOf[engine.Notice](evs)
	if len(notes) != 1 || notes[0].Fatal || !strings.Contains(notes[0].Message, "answered from 1 of 2 shards") {
		t.Errorf("notices %+v", notes)
	}
}
