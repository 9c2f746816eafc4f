package e2e

import (
	"bufio"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/testdouble/fakeelastic"
	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
	"github.com/prefrag/prefrag/internal/testdouble/sphinxtest"
)

// The Manticore/Sphinx corpus: shard 1 on node 0 (which also serves the
// distributed index "dist"), shard 2 on node 1. Sphinx's default charset
// folds only ASCII and Cyrillic, so the texts spell Sorensen without ø.
var mcShards = [2][]sphinxtest.Doc{
	{
		{ID: "mc-kjeldahl", Title: "Johan Kjeldahl", Text: "Johan Kjeldahl (1849-1900) was a Danish chemist who led the chemistry department of the Carlsberg Laboratory in Copenhagen.", URL: "https://mc.example/kjeldahl"},
		{ID: "mc-brewery", Title: "Carlsberg brewery", Text: "The Carlsberg brewery in Copenhagen funded the Carlsberg Laboratory and its chemistry department."},
	},
	{
		{ID: "mc-sorensen", Title: "S. P. L. Sorensen", Text: "Sorensen succeeded Kjeldahl as head of the chemistry department of the Carlsberg Laboratory in 1901 and introduced pH in 1909.", URL: "https://mc.example/sorensen"},
		{ID: "mc-enzymes", Title: "Enzyme studies", Text: "The Carlsberg Laboratory chemistry department studied enzymes and proteins."},
	},
}

// The Manticore credentials: Sphinx 2.2 accepts any user and password on
// its SphinxQL port, so they travel harmlessly; they must appear nowhere
// prefrag writes.
const (
	mcUser     = "mc-reader-7f3a91"
	mcPassword = "bWMtcGFzc3dvcmQtbmV2ZXItc2hvd24tOTk="
)

// mcWorld is a world with a two-shard Sphinx cluster registered as corpus
// mc (ids from doc_id, URLs from url) and an Elasticsearch stand-in
// registered as corpus es, each with credentials from the environment.
type mcWorld struct {
	*world
	cl   *sphinxtest.Cluster
	es   *fakeelastic.Server
	env  []string
	outs []string
}

func newMCWorld(t *testing.T, r fakellm.Responder, timeout string) *mcWorld {
	t.Helper()
	if _, _, err := sphinxtest.Installed(); err != nil {
		t.Skipf("skipping the Manticore/Sphinx e2e test: %v", err)
	}
	cl := sphinxtest.Start(t, mcShards)
	w := &mcWorld{world: newWorld(t, r), cl: cl,
		es:  fakeelastic.New(t, fakeelastic.Options{Index: "kb-docs", Docs: esDocs, APIKey: esKey}),
		env: []string{"KB_ES_KEY=" + esKey, "MC_USER=" + mcUser, "MC_PASSWORD=" + mcPassword}}
	o, e, code := w.runMC("corpora", "add", "mc", "--manticore", cl.Addr, "--index", sphinxtest.Distributed,
		"--id-field", sphinxtest.IDField, "--url-field", sphinxtest.URLField,
		"--user-env", "MC_USER", "--password-env", "MC_PASSWORD", "--timeout", timeout)
	if code != 0 || !strings.Contains(o, "registered remote corpus mc") || !strings.Contains(o, "health: ok (Manticore/Sphinx 2.2.11") {
		t.Fatalf("add mc: exit %d\n%s\n%s", code, o, e)
	}
	o, e, code = w.runMC("corpora", "add", "es", "--elasticsearch", w.es.URL(), "--index", "kb-docs", "--api-key-env", "KB_ES_KEY", "--timeout", "5s")
	if code != 0 || !strings.Contains(o, "health: ok") {
		t.Fatalf("add es: exit %d\n%s\n%s", code, o, e)
	}
	return w
}

func (w *mcWorld) runMC(args ...string) (string, string, int) {
	w.t.Helper()
	o, e, c := w.runEnv(w.env, args...)
	w.outs = append(w.outs, o, e)
	return o, e, c
}

func (w *mcWorld) assertNoSecrets() {
	w.t.Helper()
	assertNoSecret(w.t, w.home, esKey, w.outs...)
	assertNoSecret(w.t, w.home, mcPassword, w.outs...)
	assertNoSecret(w.t, w.home, mcUser, w.outs...)
}

func shardOf(id string) int {
	for s, docs := range mcShards {
		for _, d := range docs {
			if d.ID == id {
				return s
			}
		}
	}
	return -1
}

func retrievalQueries(evs []engine.Event) string {
	var out []string
	for _, e := range payloadsOf[engine.Retrieval](evs) {
		out = append(out, e.Source+"|"+e.Query)
	}
	return strings.Join(out, ",")
}

// `prefrag ask` over a two-shard Sphinx distributed index and an
// Elasticsearch stand-in, in both orders: the judge's false switches from
// the first corpus to the second, then (the model asking for the web) to
// the web; a true keeps the first. Documents of both shards come back,
// sources and citations are local:mc and local:es, the manifest records
// both clusters, and no credential is printed or stored.
func TestRemoteManticoreAndElasticsearch(t *testing.T) {
	const (
		q1 = "Carlsberg Laboratory chemistry department"
		q2 = "Danish plant ecologist who assisted Sorensen"
		q3 = "Sorensen pH 1909"
	)
	for _, tc := range []struct {
		first, second string
		// citations: the context numbers the answer cites, and the
		// sources they must have
		final     string
		citations map[int]string
		// searches that reach the Elasticsearch stand-in
		esSearches int
	}{
		// Context numbers: mc-first: es's 2 documents for q1 [1–2], the
		// web's 2 [3–4], mc's 1 for q3 [5]; es-first: mc's 4 for q1
		// (2 per shard) [1–4], the web's [5–6], es's 1 for q3 [7].
		{"mc", "es", "Final Answer: 1974 [1] [3] [5]", map[int]string{1: "local:es", 3: "web:searxng", 5: "local:mc"}, 1},
		{"es", "mc", "Final Answer: 1974 [1] [5] [7]", map[int]string{1: "local:mc", 5: "web:searxng", 7: "local:es"}, 3},
	} {
		t.Run(tc.first+"-first", func(t *testing.T) {
			script := &fakellm.Script{
				Steps: []string{
					"Thought: Who led the Carlsberg chemistry department?\nAction: Search_Engine\nAction Input: " + q1,
					"Thought: Find the assistant on the web.\nAction: Search_Web\nAction Input: " + q2,
					"Thought: Check pH.\nAction: Search_Engine\nAction Input: " + q3,
					"Thought: I now know the final answer to the original question\n" + tc.final + "\nSelf-Evaluation: CORRECT",
				},
				Judges: []string{
					`{"analysis": "The first corpus does not name the assistant.", "status": false}`,
					`{"analysis": "Still not the assistant.", "status": false}`,
					`{"analysis": "The pH passage is relevant.", "status": true}`,
				},
			}
			w := newMCWorld(t, script, "10s")

			t0 := time.Now()
			o, e, code := w.runMC(w.askArgs("--corpus", tc.first, "--corpus", tc.second, "--max-steps", "4", "--json", caseQuestion)...)
			took := time.Since(t0)
			if code != 0 {
				t.Fatalf("ask: exit %d: %s", code, e)
			}
			evs := parseEvents(t, o)
			F, S := "local:"+tc.first, "local:"+tc.second
			want := "search " + F + ",switch→" + S + ",search " + S + ",observe " + S + "," +
				"search " + F + ",switch→web:searxng,search web:searxng,observe web:searxng," +
				"search " + F + ",observe " + F
			if got := sourceOrder(evs); got != want {
				t.Errorf("sources\n got %s\nwant %s", got, want)
			}
			wantQ := strings.Join([]string{F + "|" + q1, S + "|" + q1, F + "|" + q2, "web:searxng|" + q2, F + "|" + q3}, ",")
			if got := retrievalQueries(evs); got != wantQ {
				t.Errorf("retrieval queries\n got %s\nwant %s", got, wantQ)
			}
			for _, ev := range payloadsOf[engine.Notice](evs) {
				t.Errorf("unexpected notice: %s", ev.Message)
			}

			// Every document names its corpus; the Manticore search for
			// q1 brings documents of both shards, with their own ids and
			// URLs.
			for _, ev := range payloadsOf[engine.Retrieval](evs) {
				if len(ev.Docs) == 0 {
					t.Errorf("retrieval %s %q: no documents", ev.Source, ev.Query)
				}
				for _, d := range ev.Docs {
					if d.Source != ev.Source {
						t.Errorf("retrieval %s: document %s has source %s", ev.Source, d.ID, d.Source)
					}
				}
				if ev.Source != "local:mc" || ev.Query != q1 {
					continue
				}
				seen := map[int]bool{}
				for _, d := range ev.Docs {
					seen[shardOf(d.ID)] = true
					if d.ID == "mc-kjeldahl" && d.URL != "https://mc.example/kjeldahl" {
						t.Errorf("mc-kjeldahl URL %q", d.URL)
					}
				}
				if !seen[0] || !seen[1] || seen[-1] {
					t.Errorf("the distributed index's documents %v do not come from both shards", docIDs(ev.Docs))
				}
			}

			final := payloadsOf[engine.Final](evs)
			if len(final) != 1 || !strings.Contains(final[0].Answer, "1974") {
				t.Fatalf("final %+v", final)
			}
			f := final[0]
			got := map[int]string{}
			for i, d := range f.Sources {
				if i < len(f.SourceNums) && slices.Contains(f.Citations, f.SourceNums[i]) {
					got[f.SourceNums[i]] = d.Source
				}
			}
			if len(got) != len(tc.citations) || len(f.InvalidCitations) > 0 {
				t.Errorf("citations %v → %v; want %v (sources %+v)", f.Citations, got, tc.citations, f.Sources)
			}
			for n, src := range tc.citations {
				if got[n] != src {
					t.Errorf("citation [%d] is %q, want %q", n, got[n], src)
				}
			}
			if f.Counts == nil || f.Counts.LocalRetrievals != 4 || f.Counts.WebRetrievals != 1 {
				t.Errorf("counts %+v", f.Counts)
			}
			if n := w.es.Searches(); n != tc.esSearches {
				t.Errorf("%d searches reached the Elasticsearch stand-in, want %d", n, tc.esSearches)
			}
			for _, a := range w.es.Authorizations() {
				if a != "ApiKey "+esKey {
					t.Errorf("authorization %q", a)
				}
			}

			// The manifest records both clusters' identity.
			sid := evs[0].Session
			o, _, code = w.runMC("sessions", "export", sid, "--format", "json")
			if code != 0 {
				t.Fatalf("export: exit %d", code)
			}
			var exp struct {
				Session struct {
					Manifest struct {
						Corpora []struct {
							Name   string         `json:"name"`
							Remote map[string]any `json:"remote"`
						} `json:"corpora"`
					} `json:"manifest"`
				} `json:"session"`
			}
			if err := json.Unmarshal([]byte(o), &exp); err != nil {
				t.Fatalf("export: %v\n%s", err, o)
			}
			ids := map[string]map[string]any{}
			var names []string
			for _, c := range exp.Session.Manifest.Corpora {
				ids[c.Name] = c.Remote
				names = append(names, c.Name)
			}
			if strings.Join(names, ",") != F+","+S {
				t.Errorf("manifest corpora %v", names)
			}
			mc, es := ids["local:mc"], ids["local:es"]
			if mc == nil || mc["kind"] != "manticore" || mc["url"] != w.cl.Addr || mc["index"] != "dist" ||
				!strings.HasPrefix(mc["version"].(string), "2.2.11") {
				t.Errorf("manifest of mc: %v", mc)
			}
			if es == nil || es["kind"] != "elasticsearch" || es["url"] != w.es.URL() || es["index"] != "kb-docs" ||
				es["cluster_uuid"] == nil || es["version"] == nil {
				t.Errorf("manifest of es: %v", es)
			}
			w.runMC("sessions", "show", sid, "--json")
			w.runMC("sessions", "export", sid, "--format", "md")
			w.assertNoSecrets()
			t.Logf("ask took %s", took)
		})
	}
}

func docIDs(docs []engine.Document) []string {
	var out []string
	for _, d := range docs {
		out = append(out, d.ID)
	}
	return out
}

// `prefrag corpora --json` checks the Manticore corpus: healthy, with the
// server's version.
func TestRemoteManticoreListed(t *testing.T) {
	w := newMCWorld(t, &fakellm.Script{}, "10s")
	o, e, code := w.runMC("corpora", "--json")
	if code != 0 {
		t.Fatalf("corpora --json: exit %d: %s", code, e)
	}
	var mc map[string]any
	sc := bufio.NewScanner(strings.NewReader(o))
	for sc.Scan() {
		var obj map[string]any
		if err := json.Unmarshal(sc.Bytes(), &obj); err != nil {
			t.Fatalf("%q: %v", sc.Text(), err)
		}
		if obj["name"] == "mc" {
			mc = obj
		}
	}
	if mc == nil || mc["remote"] != "manticore" || mc["health"] != "ok" || mc["healthy"] != true ||
		mc["index"] != "dist" || mc["url"] != w.cl.Addr || mc["documents_known"] != false {
		// A distributed index has no cheap count: documents_known says so.
		t.Errorf("corpora --json mc: %v", mc)
	}
	if v, _ := mc["version"].(string); !strings.HasPrefix(v, "2.2.11") {
		t.Errorf("version %q", v)
	}
	o, e, code = w.runMC("corpora")
	if code != 0 || !strings.Contains(o, "mc: manticore index dist at "+w.cl.Addr+" — ok (Manticore/Sphinx 2.2.11") {
		t.Errorf("corpora: exit %d\n%s\n%s", code, o, e)
	}
	w.assertNoSecrets()
	t.Logf("corpora:\n%s", o)
}

// A Manticore node hangs (SIGSTOP) in the middle of a session: the next
// search times out after the corpus's --timeout, the run goes on with a
// notice (the Elasticsearch corpus answers instead) and ends in bounded time.
func TestRemoteManticoreFrozenMidSession(t *testing.T) {
	script := &fakellm.Script{
		Steps: []string{
			"Thought: Search.\nAction: Search_Engine\nAction Input: Carlsberg Laboratory chemistry department",
			"Thought: More.\nAction: Search_Engine\nAction Input: Danish plant ecologist Carlsberg",
			"Thought: I now know the final answer to the original question\nFinal Answer: 1974\nSelf-Evaluation: CORRECT",
		},
		Judges: []string{
			`{"analysis": "Relevant.", "status": true}`,
			`{"analysis": "Nothing came back.", "status": false}`,
		},
	}
	var (
		w      *mcWorld
		once   sync.Once
		frozen = make(chan struct{})
	)
	// The node freezes while the first judgement is made: after the first
	// search answered, before the second.
	r := fakellm.ResponderFunc(func(c fakellm.Call) fakellm.Reply {
		if c.Kind() == fakellm.KindJudge {
			once.Do(func() { w.cl.Node(0).Freeze(); close(frozen) })
		}
		return script.Respond(c)
	})
	w = newMCWorld(t, r, "2s")
	t0 := time.Now()
	o, e, code := w.runMC(w.askArgs("--corpus", "mc", "--corpus", "es", "--web", "never", "--json", caseQuestion)...)
	took := time.Since(t0)
	// While the node hangs, the listing says so within the timeout.
	t1 := time.Now()
	lo, le, lcode := w.runMC("corpora", "--json")
	listTook := time.Since(t1)
	w.cl.Node(0).Thaw()
	if code != 0 {
		t.Fatalf("ask: exit %d: %s", code, e)
	}
	if lcode != 0 || !strings.Contains(lo, `"name":"mc"`) || !strings.Contains(lo, `"healthy":false`) ||
		!strings.Contains(lo, "no answer within 2s") || listTook > 30*time.Second {
		t.Errorf("corpora --json with the node frozen: exit %d in %s\n%s\n%s", lcode, listTook, lo, le)
	}
	select {
	case <-frozen:
	default:
		t.Fatal("the node was never frozen")
	}
	if took > 30*time.Second {
		t.Errorf("took %s", took)
	}
	evs := parseEvents(t, o)
	rets := payloadsOf[engine.Retrieval](evs)
	if len(rets) < 2 || rets[0].Source != "local:mc" || len(rets[0].Docs) == 0 || rets[1].Source != "local:mc" ||
		rets[1].Outcome == "" || len(rets[1].Docs) != 0 {
		t.Errorf("retrievals %+v", rets)
	}
	var notices []string
	for _, ev := range payloadsOf[engine.Notice](evs) {
		if ev.Fatal {
			t.Errorf("fatal error: %s", ev.Message)
		}
		notices = append(notices, ev.Message)
	}
	all := strings.Join(notices, "\n")
	if len(notices) != 1 || !strings.Contains(all, "local:mc") || !strings.Contains(all, "2s") {
		t.Errorf("notices:\n%s", all)
	}
	// The timed-out search leaves nothing to judge: the judge's false
	// moves on to the Elasticsearch corpus, which answers.
	want := "search local:mc,observe local:mc,search local:mc,switch→local:es,search local:es,observe local:es"
	if got := sourceOrder(evs); got != want {
		t.Errorf("sources\n got %s\nwant %s", got, want)
	}
	final := payloadsOf[engine.Final](evs)
	if len(final) != 1 || !strings.Contains(final[0].Answer, "1974") {
		t.Errorf("final %+v", final)
	}
	w.assertNoSecrets()
	t.Logf("run took %s, listing with the node frozen %s; order %s; notices:\n%s", took, listTook, sourceOrder(evs), all)
}
