package distinct

import (
	"strings"
	"testing"
)

// vaultNotes are a small never-leave corpus: an identifier, a rare name,
// a case number and ordinary prose.
var vaultNotes = [][2]string{
	{"vault.txt", "Vault access. The vault password is hunter2-ZEBRA; only Ada and the facilities manager hold it.\n"},
	{"client.md", "Our client Zorbanek Holdings signed the merger on 12 March. The deal code is BLUEJAY7 and the case number 88213907.\n" +
		"Contact j.doe@zorbanek.example for the board papers. The plant in London will close in the spring."},
	{"memo.txt", "The committee met in the morning. We decided that the quarterly figures would be published after the audit of the refrigerated storerooms."},
}

func vaultSet() *Set {
	b := NewBuilder()
	for _, p := range vaultNotes {
		b.Add(p[0], p[1])
	}
	return b.Set()
}

func TestFind(t *testing.T) {
	s := vaultSet()
	for _, tt := range []struct {
		query string
		kind  Kind
		text  string
	}{
		{"who knows hunter2-ZEBRA", Identifier, "hunter2-ZEBRA"},
		{"who knows HUNTER2-zebra?", Identifier, "HUNTER2-zebra"},
		{"is hunter2 a good password", Identifier, "hunter2"},
		{"zorbanek holdings merger", Name, "zorbanek"},
		{"Zorbanek's annual report", Name, "Zorbanek's"},
		{"what is BLUEJAY7", Identifier, "BLUEJAY7"},
		{"case 88213907 status", Number, "88213907"},
		{"mail j.doe@zorbanek.example", Identifier, "j.doe@zorbanek.example"},
		{"were the quarterly figures published after the audit of the refrigerated storerooms", Words, ""},
		{"we decided that the quarterly figures would be published after", Words, ""},
		{"figures would be published after the audit", 0, ""},
		{"who discovered pH", 0, ""},
		{"vault password policy", 0, ""},
		{"when does the plant in London close", 0, ""},
		{"what happened in the 1990s in 2023-01-15 with 1,000,000 people", 0, ""},
		{"merger deal signed in March by the board", 0, ""},
		{"the committee met in the morning", 0, ""},
	} {
		m, ok := s.Find(tt.query)
		if ok != (tt.kind != 0) || m.Kind != tt.kind || (tt.kind != 0 && tt.kind != Words && m.Text != tt.text) {
			t.Errorf("Find(%q) = %+v, %v; want %v %q", tt.query, m, ok, tt.kind, tt.text)
		}
	}
}

// A Set read back finds what it found; one of another version is refused.
func TestSetRoundTrip(t *testing.T) {
	s := vaultSet()
	b, err := s.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var back Set
	if err := back.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"who knows hunter2-ZEBRA", "the audit of the refrigerated storerooms", "case 88213907"} {
		m1, ok1 := s.Find(q)
		m2, ok2 := back.Find(q)
		if !ok1 || ok1 != ok2 || m1 != m2 {
			t.Errorf("%q: %v %v before, %v %v after", q, m1, ok1, m2, ok2)
		}
	}
	if back.Stats() != s.Stats() {
		t.Errorf("stats %+v, want %+v", back.Stats(), s.Stats())
	}
	if err := back.UnmarshalBinary([]byte("not a set")); err == nil {
		t.Error("garbage decoded")
	}
}

// Find reads any text without failing, and what it returns is a part of
// the text; a Set built from any text reads back.
func FuzzFind(f *testing.F) {
	f.Add("who knows hunter2-ZEBRA?", "The vault password is hunter2-ZEBRA.")
	f.Add("O'Brien's j.doe@x.example 2023-01-15 1,000", "Zorbanek’s deal: BLUEJAY7…")
	f.Add("\xff\xfe-.-", "..--@@''")
	f.Fuzz(func(t *testing.T, query, passage string) {
		b := NewBuilder()
		b.Add("t", passage)
		s := b.Set()
		if m, ok := s.Find(query); ok && !strings.Contains(query, m.Text) {
			t.Fatalf("match %q is not in %q", m.Text, query)
		}
		if m, ok := s.Find(passage); ok && !strings.Contains(passage, m.Text) {
			t.Fatalf("match %q is not in %q", m.Text, passage)
		}
		raw, err := s.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		var back Set
		if err := back.UnmarshalBinary(raw); err != nil {
			t.Fatal(err)
		}
	})
}

// In Chinese, Japanese or Korean text an identifier or a number is
// written against the characters around it, with no space: it is a token
// of its own there, found in a query whatever surrounds it.
func TestFindInCJKText(t *testing.T) {
	b := NewBuilder()
	b.Add("项目", "本项目的交易室密码是ZEBRA7731，案件编号88213907。客户准备收购船厂。")
	b.Add("メモ", "金庫のパスワードはhunter2-ZEBRAです。")
	b.Add("메모", "금고 비밀번호는BLUEJAY7이다.")
	s := b.Set()
	for _, tt := range []struct {
		query string
		kind  Kind
		text  string
	}{
		{"ZEBRA7731", Identifier, "ZEBRA7731"},
		{"ZEBRA7731是什么", Identifier, "ZEBRA7731"},
		{"case 88213907", Number, "88213907"},
		{"what is hunter2-ZEBRA", Identifier, "hunter2-ZEBRA"},
		{"BLUEJAY7 meaning", Identifier, "BLUEJAY7"},
		{"客户准备收购船厂", 0, ""},
	} {
		m, ok := s.Find(tt.query)
		if ok != (tt.kind != 0) || ok && (m.Kind != tt.kind || m.Text != tt.text) {
			t.Errorf("Find(%q) = %+v, %v; want %v %q", tt.query, m, ok, tt.kind, tt.text)
		}
	}
}
