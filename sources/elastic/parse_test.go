package elastic

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseSearch(t *testing.T) {
	f := Fields{Title: "title", Text: "text", URL: "url"}
	for _, tc := range []struct {
		name   string
		body   string
		total  int64
		ids    []string
		failed int
		err    bool
	}{
		{"es8 object total", `{"took":1,"timed_out":false,"_shards":{"total":1,"successful":1,"skipped":0,"failed":0},"hits":{"total":{"value":2,"relation":"eq"},"max_score":1.3,"hits":[{"_index":"kb","_id":"a","_score":1.3,"_source":{"title":"A","text":"alpha"}},{"_index":"kb","_id":"b","_score":0.5,"_source":{"title":"B","text":"beta"}}]}}`, 2, []string{"a", "b"}, 0, false},
		{"es6 numeric total", `{"hits":{"total":7,"hits":[{"_index":"kb","_type":"_doc","_id":"a","_score":2,"_source":{"text":"x"}}]}}`, 7, []string{"a"}, 0, false},
		{"null score, arrays, nested", `{"hits":{"total":{"value":1},"hits":[{"_index":"kb","_id":"n","_score":null,"_source":{"title":["T1","T2"],"meta":{"text":"nested"},"text":["p1","p2"]}}]}}`, 1, []string{"n"}, 0, false},
		{"shard failures", `{"_shards":{"total":3,"successful":2,"failed":1,"failures":[{"shard":0,"index":"kb","reason":{"type":"node_not_connected_exception","reason":"gone"}}]},"hits":{"total":{"value":1},"hits":[{"_id":"a","_source":{"text":"x"}}]}}`, 1, []string{"a"}, 1, false},
		{"no hits", `{"took":1}`, 0, nil, 0, true},
		{"error body", `{"error":{"type":"x","reason":"y"},"status":500}`, 0, nil, 0, true},
		{"not json", `<html>`, 0, nil, 0, true},
		{"source not object skipped", `{"hits":{"hits":[{"_id":"a","_source":"str"},{"_id":"b","_source":{"text":"t"}}]}}`, -1, []string{"b"}, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := ParseSearch([]byte(tc.body), f)
			if (err != nil) != tc.err {
				t.Fatalf("err %v", err)
			}
			if err != nil {
				return
			}
			var ids []string
			for _, d := range r.Docs {
				ids = append(ids, d.ID)
			}
			if strings.Join(ids, ",") != strings.Join(tc.ids, ",") || r.Total != tc.total || r.ShardsFailed != tc.failed {
				t.Errorf("ids %v total %d failed %d", ids, r.Total, r.ShardsFailed)
			}
		})
	}
	r, _ := ParseSearch([]byte(`{"hits":{"hits":[{"_id":"n","_source":{"title":["T1","T2"],"meta":{"text":"nested"}}}]}}`), Fields{Title: "title", Text: "meta.text"})
	if d := r.Docs[0]; d.Text != "nested" || !strings.Contains(d.Title, "T1") {
		t.Errorf("doc %+v", d)
	}
}

func FuzzParseSearch(f *testing.F) {
	f.Add([]byte(`{"hits":{"total":{"value":1},"hits":[{"_index":"kb","_id":"a","_score":1,"_source":{"title":"A\u001b[2J","text":"x"}}]}}`))
	f.Add([]byte(`{"_shards":{"total":2,"failed":1,"failures":[{"reason":"boom"}]},"hits":{"total":3,"hits":[]}}`))
	f.Add([]byte(`{"hits":{"hits":[{"_id":5,"_source":{"title":[1,true,null,{"a":1}],"meta":{"text":["a","b"]}}}]}}`))
	f.Add([]byte(`{"error":{"root_cause":[{"type":"t","reason":"r"}],"type":"t","reason":"q"}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		r, err := ParseSearch(body, Fields{Title: "title", Text: "meta.text", URL: "url", ID: "id"})
		if err != nil {
			return
		}
		for _, d := range r.Docs {
			for _, s := range []string{d.ID, d.Title, d.Text, d.URL, d.Locator} {
				if !utf8.ValidString(s) || strings.ContainsRune(s, 0x1b) {
					t.Fatalf("unsafe field %q", s)
				}
			}
			if strings.ContainsAny(d.Title+d.URL+d.Locator, "\n\r") {
				t.Fatalf("multi-line title/url/locator %q", d.Title)
			}
		}
	})
}
