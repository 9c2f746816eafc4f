package engine

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// TestEventPayloadRoundTrip: every golden event converts to its typed
// payload and back without change, and decoding its wire form gives back
// the same typed payload.
func TestEventPayloadRoundTrip(t *testing.T) {
	for _, e := range goldenTable() {
		p := e.Payload()
		if e.Type == "future_thing" {
			if p != nil {
				t.Errorf("unknown type has payload %T", p)
			}
			continue
		}
		if p == nil || p.EventType() != e.Type {
			t.Fatalf("%s: payload %T", e.Type, p)
		}
		back := NewEvent(e.Header(), p)
		if !reflect.DeepEqual(back, e) {
			t.Errorf("%s: NewEvent(Header, Payload) = %+v, want %+v", e.Type, back, e)
		}
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		var dec Event
		if err := json.Unmarshal(b, &dec); err != nil {
			t.Fatal(err)
		}
		if dec.Type != e.Type || dec.Seq != e.Seq || dec.Session != e.Session || !dec.Time.Equal(e.Time) {
			t.Errorf("%s: header %+v, want %+v", e.Type, dec.Header(), e.Header())
		}
		if got, want := wireNormal(t, dec.Payload()), wireNormal(t, p); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: decoded payload\n got %#v\nwant %#v", e.Type, got, want)
		}
	}
}

// wireNormal is a payload as the wire sees it: a value written as [] or
// false or {} decodes as such, not as nil.
func wireNormal(t *testing.T, p Payload) Payload {
	t.Helper()
	b, err := json.Marshal(NewEvent(Header{}, p))
	if err != nil {
		t.Fatal(err)
	}
	var e Event
	if err := json.Unmarshal(b, &e); err != nil {
		t.Fatal(err)
	}
	return e.Payload()
}

// TestEventTypesRegistered: every emitted type has a payload whose fields
// all live in Event's flat fields; the CONTRACT's future types are
// registered too.
func TestEventTypesRegistered(t *testing.T) {
	for _, typ := range []string{EventSession, EventThought, EventAction, EventRetrieval, EventSelection, EventObservation,
		EventAnswer, EventSupplement, EventFinal, EventError, EventToken} {
		wt := lookup(typ)
		if wt == nil || !wt.mirrored {
			t.Errorf("%s: registered %v, mirrored in Event's fields %v", typ, wt != nil, wt != nil && wt.mirrored)
		}
	}
	for _, typ := range []string{EventGate, EventRefinement, EventRewrite} {
		if lookup(typ) == nil {
			t.Errorf("%s not registered", typ)
		}
	}
}

// TestEventContractFutureTypes: the payload-only types (no flat twins)
// write the CONTRACT's fields and decode back to the same payload.
func TestEventContractFutureTypes(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	cases := []struct {
		p    Payload
		step int
		want string
	}{
		{Gate{HeuristicAnswer: "1974?", Retrieve: true, Analysis: "unsure", Queries: []string{"q1", "q2"}}, 0,
			`{"analysis":"unsure","heuristic_answer":"1974?","queries":["q1","q2"],"retrieve":true,"seq":1,"session":"s","time":"2026-01-02T03:04:05Z","type":"gate"}`},
		{Gate{}, 0,
			`{"analysis":"","heuristic_answer":"","queries":[],"retrieve":false,"seq":1,"session":"s","time":"2026-01-02T03:04:05Z","type":"gate"}`},
		{Refinement{BeforeChars: 900, AfterChars: 300, Steps: []int{1, 2}}, 3,
			`{"after_chars":300,"before_chars":900,"seq":1,"session":"s","step":3,"steps":[1,2],"time":"2026-01-02T03:04:05Z","type":"refinement"}`},
		{Rewrite{Original: "and him?", Rewritten: "When did Olsen die?"}, 0,
			`{"original":"and him?","rewritten":"When did Olsen die?","seq":1,"session":"s","time":"2026-01-02T03:04:05Z","turn":2,"type":"rewrite"}`},
	}
	for _, c := range cases {
		h := Header{Session: "s", Seq: 1, Time: at, Step: c.step}
		if c.p.EventType() == EventRewrite {
			h.Turn = 2
		}
		e := NewEvent(h, c.p)
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != c.want {
			t.Errorf("%s:\n got %s\nwant %s", e.Type, b, c.want)
		}
		var back Event
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if got, want := back.Payload(), wireNormal(t, c.p); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: decoded %#v, want %#v", e.Type, got, want)
		}
		if back.Header() != h {
			t.Errorf("%s: header %+v, want %+v", e.Type, back.Header(), h)
		}
	}
}

// FuzzEventUnmarshal: stored and imported events are outside text. Whatever
// decodes must encode, and encode to a fixed point.
func FuzzEventUnmarshal(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "events_*.golden.jsonl"))
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
			f.Add(line)
		}
	}
	f.Add([]byte(`{"type":"selection","status":null,"next_source":3}`))
	f.Add([]byte(`{"type":"gate","queries":null}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var e Event
		if json.Unmarshal(b, &e) != nil {
			return
		}
		out, err := json.Marshal(e)
		if err != nil {
			t.Fatalf("decoded %q but cannot encode: %v", b, err)
		}
		var again Event
		if err := json.Unmarshal(out, &again); err != nil {
			t.Fatalf("cannot decode own output %s: %v", out, err)
		}
		out2, err := json.Marshal(again)
		if err != nil || !bytes.Equal(out, out2) {
			t.Fatalf("not a fixed point:\n%s\n%s (%v)", out, out2, err)
		}
	})
}
