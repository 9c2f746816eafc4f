package engine

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestEventPayloadRoundTrip: decoding every golden event's wire form gives
// back its header and the same typed payload.
func TestEventPayloadRoundTrip(t *testing.T) {
	for _, e := range goldenTable() {
		if e.Payload == nil || e.Payload.EventType() != e.Type() {
			t.Fatalf("%s: payload %T", e.Type(), e.Payload)
		}
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		var dec Event
		if err := json.Unmarshal(b, &dec); err != nil {
			t.Fatal(err)
		}
		if dec.Type() != e.Type() || dec.Seq != e.Seq || dec.Session != e.Session || !dec.Time.Equal(e.Time) || dec.Step != e.Step {
			t.Errorf("%s: header %+v, want %+v", e.Type(), dec, e)
		}
		if got, want := wireNormal(t, dec.Payload), wireNormal(t, e.Payload); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: decoded payload\n got %#v\nwant %#v", e.Type(), got, want)
		}
	}
}

// wireNormal is a payload as the wire sees it: a value written as [] or
// false or {} decodes as such, not as nil.
func wireNormal(t *testing.T, p Payload) Payload {
	t.Helper()
	b, err := json.Marshal(Event{Payload: p})
	if err != nil {
		t.Fatal(err)
	}
	var e Event
	if err := json.Unmarshal(b, &e); err != nil {
		t.Fatal(err)
	}
	return e.Payload
}

// TestEventTypesRegistered: the event types are the decoder table's rows.
// Every Event… constant of the package has a row, every payload type of the
// package (a type with an EventType method, Unknown aside) is the payload
// of one, and every row decodes to its own payload type; a type this build
// does not know decodes to Unknown.
//
// Mutations this catches (each made by hand once): the thread_context row
// removed from payloadDecoders (the hand-written list this test had missed
// it); a new payload type and its constant added without a row.
func TestEventTypesRegistered(t *testing.T) {
	consts, payloads := eventDeclarations(t)
	if len(consts) < 16 || len(payloads) < 16 {
		t.Fatalf("found %d Event constants and %d payload types: the test is not looking", len(consts), len(payloads))
	}
	decoded := map[string]bool{}
	for typ := range payloadDecoders {
		var e Event
		if err := json.Unmarshal([]byte(`{"type":"`+typ+`"}`), &e); err != nil {
			t.Fatalf("%s: %v", typ, err)
		}
		if _, unknown := e.Payload.(Unknown); unknown || e.Type() != typ {
			t.Errorf("%s decodes to %T (type %q)", typ, e.Payload, e.Type())
		}
		decoded[reflect.TypeOf(e.Payload).Name()] = true
	}
	for name, typ := range consts {
		if _, ok := payloadDecoders[typ]; !ok {
			t.Errorf("%s (%q) has no row in payloadDecoders", name, typ)
		}
	}
	for _, name := range payloads {
		if !decoded[name] {
			t.Errorf("payload type %s is no row's payload in payloadDecoders", name)
		}
	}
	var e Event
	if err := json.Unmarshal([]byte(`{"type":"future_thing","seq":3,"b":[1, 2],"a":"<x>"}`), &e); err != nil {
		t.Fatal(err)
	}
	if u, ok := e.Payload.(Unknown); !ok || u.Type != "future_thing" || len(u.Fields) != 2 {
		t.Fatalf("unknown type decodes to %#v", e.Payload)
	}
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"future_thing","session":"","seq":3,"time":"0001-01-01T00:00:00Z","a":"\u003cx\u003e","b":[1,2]}`
	if string(b) != want {
		t.Errorf("unknown type written as\n%s\nwant\n%s", b, want)
	}
}

// TestEventContractFutureTypes: gate, refinement and rewrite write the
// CONTRACT's fields and decode back to the same payload.
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
		e := Event{Session: "s", Seq: 1, Time: at, Step: c.step, Payload: c.p}
		if c.p.EventType() == EventRewrite {
			e.Turn = 2
		}
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != c.want {
			t.Errorf("%s:\n got %s\nwant %s", e.Type(), b, c.want)
		}
		var back Event
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if got, want := back.Payload, wireNormal(t, c.p); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: decoded %#v, want %#v", e.Type(), got, want)
		}
		back.Payload = e.Payload
		if !reflect.DeepEqual(back, e) {
			t.Errorf("%s: header %+v, want %+v", e.Type(), back, e)
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

// eventDeclarations reads the package's product files: its Event… string
// constants (name → value) and its payload types (types with an EventType
// method, Unknown aside).
func eventDeclarations(t *testing.T) (map[string]string, []string) {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	consts := map[string]string{}
	var payloads []string
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.GenDecl:
				if d.Tok != token.CONST {
					continue
				}
				for _, spec := range d.Specs {
					vs := spec.(*ast.ValueSpec)
					for i, n := range vs.Names {
						if !strings.HasPrefix(n.Name, "Event") || i >= len(vs.Values) {
							continue
						}
						if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
							consts[n.Name], _ = strconv.Unquote(lit.Value)
						}
					}
				}
			case *ast.FuncDecl:
				if d.Recv == nil || d.Name.Name != "EventType" {
					continue
				}
				typ := d.Recv.List[0].Type
				if star, ok := typ.(*ast.StarExpr); ok {
					typ = star.X
				}
				if id, ok := typ.(*ast.Ident); ok && id.Name != "Unknown" {
					payloads = append(payloads, id.Name)
				}
			}
		}
	}
	return consts, payloads
}
