package sse

import (
	"strings"
	"testing"
)

func TestChatChunk(t *testing.T) {
	tests := []struct {
		data    string
		text    string
		finish  string
		cached  int
		isError bool
	}{
		{`{"object":"chat.completion.chunk","choices":[{"delta":{"content":"Hi"},"finish_reason":null}],"usage":null}`, "Hi", "", 0, false},
		{`{"choices":[{"delta":{},"finish_reason":"length"}]}`, "", "length", 0, false},
		{`{"choices":[],"usage":{"prompt_tokens":9,"completion_tokens":2,"prompt_tokens_details":{"cached_tokens":7}}}`, "", "", 7, false},
		{`{"choices":[],"usage":{"prompt_tokens":9,"completion_tokens":2,"prompt_tokens_details":null}}`, "", "", 0, false},
		{`{"object":"error","message":"boom","code":500}`, "", "", 0, true},
		{`{"error":{"message":"boom"}}`, "", "", 0, true},
		{`{"error":null,"choices":[]}`, "", "", 0, false},
	}
	for _, tt := range tests {
		c, err := ParseChatChunk([]byte(tt.data))
		if err != nil {
			t.Fatalf("%s: %v", tt.data, err)
		}
		var text, finish string
		for _, ch := range c.Choices {
			if ch.Delta.Content != nil {
				text += *ch.Delta.Content
			}
			if ch.FinishReason != nil {
				finish = *ch.FinishReason
			}
		}
		if text != tt.text || finish != tt.finish || c.Usage.Cached() != tt.cached || c.HasError() != tt.isError {
			t.Errorf("%s: text %q finish %q cached %d error %v", tt.data, text, finish, c.Usage.Cached(), c.HasError())
		}
	}
	if !IsDone([]byte(" [DONE] ")) || IsDone([]byte(`{"a":1}`)) {
		t.Error("IsDone")
	}
}

// FuzzReadEvents: arbitrary streams never panic, fields never contain
// the separator, and chunks decode or fail cleanly.
func FuzzReadEvents(f *testing.F) {
	f.Add([]byte("data: {\"choices\":[{\"delta\":{\"content\":\"a\"},\"finish_reason\":null}]}\n\ndata: [DONE]\n\n"))
	f.Add([]byte(":ping\r\nerror: {\"message\":\"x\"}\r\n"))
	f.Fuzz(func(t *testing.T, stream []byte) {
		err := ReadEvents(strings.NewReader(string(stream)), func(ev Line) (bool, error) {
			if strings.Contains(ev.Field, ":") {
				t.Fatalf("field %q contains ':'", ev.Field)
			}
			if c, err := ParseChatChunk(ev.Value); err == nil {
				_ = c.Usage.Cached()
				_ = c.HasError()
			}
			return false, nil
		})
		if err != nil && !strings.Contains(err.Error(), "token too long") {
			t.Fatalf("reading from memory failed: %v", err)
		}
	})
}

func TestParseLine(t *testing.T) {
	tests := []struct {
		line  string
		field string
		value string
	}{
		{`data: {"a":1}`, "data", `{"a":1}`},
		{"data:{\"a\":1}\r", "data", `{"a":1}`},
		{"data:  two spaces", "data", " two spaces"},
		{"error: {\"code\":500}", "error", `{"code":500}`},
		{": keep-alive comment", "", ""},
		{"", "", ""},
		{"data", "data", ""},
		{"data: [DONE]", "data", "[DONE]"},
	}
	for _, tt := range tests {
		got := ParseLine([]byte(tt.line))
		if got.Field != tt.field || string(got.Value) != tt.value {
			t.Errorf("ParseLine(%q) = %q, %q; want %q, %q", tt.line, got.Field, got.Value, tt.field, tt.value)
		}
	}
}
