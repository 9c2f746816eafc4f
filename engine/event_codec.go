package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
	"time"
)

// Header is what every event carries, whatever its type.
type Header struct {
	Session string
	Seq     int
	Time    time.Time
	// Turn numbers the questions of a thread (0: not written).
	Turn int
	// Step is written according to the payload's StepRule.
	Step int
}

// wireField is one payload field on the wire.
type wireField struct {
	key       string
	index     int
	omitEmpty bool
	rule      string // "", "list", "false", "zero"
	with      int    // index of the companion field of event:"with=F", or -1
	flat      int    // index of the same field in Event, or -1
}

// wireType is a registered payload type.
type wireType struct {
	typ    reflect.Type
	step   StepRule
	fields []wireField
	// mirrored is set when every field has a twin in Event (the legacy
	// flat fields); such payloads live in those fields, others in
	// Event.Extra.
	mirrored bool
}

var (
	registryMu sync.RWMutex
	registry   = map[string]*wireType{}
)

// register adds a payload type. It panics on a malformed type: that is a
// programming error found by any test.
func register(p Payload) {
	t := reflect.TypeOf(p)
	if t.Kind() != reflect.Struct {
		panic(fmt.Sprintf("engine: payload %v is not a struct", t))
	}
	wt := &wireType{typ: t, mirrored: true}
	if r, ok := p.(stepRuler); ok {
		wt.step = r.StepRule()
	}
	flatT := reflect.TypeOf(Event{})
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" || strings.ContainsAny(name, "\"\\<>&") {
			panic(fmt.Sprintf("engine: payload field %v.%s has no json key", t, f.Name))
		}
		wf := wireField{key: name, index: i, omitEmpty: opts == "omitempty", with: -1, flat: -1}
		rule := f.Tag.Get("event")
		if comp, ok := strings.CutPrefix(rule, "with="); ok {
			cf, found := t.FieldByName(comp)
			if !found {
				panic(fmt.Sprintf("engine: payload field %v.%s: no field %s", t, f.Name, comp))
			}
			wf.with = cf.Index[0]
			rule = ""
		}
		wf.rule = rule
		if ff, ok := flatT.FieldByName(f.Name); ok && ff.Type == f.Type {
			wf.flat = ff.Index[0]
		} else {
			wt.mirrored = false
		}
		wt.fields = append(wt.fields, wf)
	}
	registryMu.Lock()
	defer registryMu.Unlock()
	registry[p.EventType()] = wt
}

func lookup(typ string) *wireType {
	registryMu.RLock()
	defer registryMu.RUnlock()
	return registry[typ]
}

// NewEvent builds an event from its header and payload.
func NewEvent(h Header, p Payload) Event {
	e := Event{Type: p.EventType(), Session: h.Session, Seq: h.Seq, Time: h.Time, Turn: h.Turn, Step: h.Step}
	wt := lookup(e.Type)
	if wt == nil || !wt.mirrored {
		e.Extra = p
		return e
	}
	pv := reflect.ValueOf(p)
	ev := reflect.ValueOf(&e).Elem()
	for _, f := range wt.fields {
		ev.Field(f.flat).Set(pv.Field(f.index))
	}
	return e
}

// Header returns the event's header.
func (e Event) Header() Header {
	return Header{Session: e.Session, Seq: e.Seq, Time: e.Time, Turn: e.Turn, Step: e.Step}
}

// Payload returns the event's typed payload (a value of one of the payload
// types), or nil for a type this build does not know.
func (e Event) Payload() Payload {
	if e.Extra != nil {
		return e.Extra
	}
	wt := lookup(e.Type)
	if wt == nil || !wt.mirrored {
		return nil
	}
	pv := reflect.New(wt.typ).Elem()
	ev := reflect.ValueOf(e)
	for _, f := range wt.fields {
		pv.Field(f.index).Set(ev.Field(f.flat))
	}
	return pv.Interface().(Payload)
}

// MarshalJSON writes the header plus the payload's fields, keys sorted
// (CONTRACT.md). Contract fields are always present for their type (even
// when empty or false); extension fields only when set. A type this build
// does not know is written with every set field.
func (e Event) MarshalJSON() ([]byte, error) {
	p := e.Payload()
	if p == nil {
		type plain Event
		return json.Marshal(plain(e))
	}
	wt := lookup(e.Type)
	type kv struct {
		key string
		val any
	}
	kvs := make([]kv, 0, 6+len(wt.fields))
	kvs = append(kvs, kv{"type", e.Type}, kv{"session", e.Session}, kv{"seq", e.Seq},
		kv{"time", e.Time.UTC().Format(time.RFC3339Nano)})
	if e.Turn != 0 {
		kvs = append(kvs, kv{"turn", e.Turn})
	}
	if wt.step == StepAlways || (wt.step == StepOptional && e.Step != 0) {
		kvs = append(kvs, kv{"step", e.Step})
	}
	pv := reflect.ValueOf(p)
	for _, f := range wt.fields {
		v := pv.Field(f.index)
		if f.omitEmpty && empty(v) && (f.with < 0 || empty(pv.Field(f.with))) {
			continue
		}
		if v.Kind() == reflect.Pointer || v.Kind() == reflect.Slice {
			if v.IsNil() {
				switch f.rule {
				case "list":
					v = reflect.MakeSlice(v.Type(), 0, 0)
				case "false", "zero":
					v = reflect.New(v.Type().Elem())
				}
			}
		}
		kvs = append(kvs, kv{f.key, v.Interface()})
	}
	sort.Slice(kvs, func(i, j int) bool { return kvs[i].key < kvs[j].key })
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf) // escapes HTML, as json.Marshal does
	buf.WriteByte('{')
	for i, x := range kvs {
		if i > 0 {
			buf.WriteByte(',')
		}
		// keys are plain ASCII json tags
		buf.WriteByte('"')
		buf.WriteString(x.key)
		buf.WriteString(`":`)
		if err := enc.Encode(x.val); err != nil {
			return nil, fmt.Errorf("event %s field %s: %w", e.Type, x.key, err)
		}
		buf.Truncate(buf.Len() - 1) // Encode's newline
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// UnmarshalJSON reads an event written by MarshalJSON (or by an older
// build): the header, then the payload of its type. A type this build does
// not know keeps whatever fields Event has.
func (e *Event) UnmarshalJSON(b []byte) error {
	var h struct {
		Type    string    `json:"type"`
		Session string    `json:"session"`
		Seq     int       `json:"seq"`
		Time    time.Time `json:"time"`
		Turn    int       `json:"turn"`
		Step    int       `json:"step"`
	}
	if err := json.Unmarshal(b, &h); err != nil {
		return err
	}
	wt := lookup(h.Type)
	if wt == nil {
		type plain Event
		var p plain
		if err := json.Unmarshal(b, &p); err != nil {
			return err
		}
		*e = Event(p)
		return nil
	}
	pv := reflect.New(wt.typ)
	if err := json.Unmarshal(b, pv.Interface()); err != nil {
		return fmt.Errorf("%s event: %w", h.Type, err)
	}
	*e = NewEvent(Header{Session: h.Session, Seq: h.Seq, Time: h.Time, Turn: h.Turn, Step: h.Step}, pv.Elem().Interface().(Payload))
	return nil
}

// empty is encoding/json's notion of an omitempty value.
func empty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Slice, reflect.Map, reflect.String, reflect.Array:
		return v.Len() == 0
	}
	return v.IsZero()
}
