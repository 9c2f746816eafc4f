package distinct

import "testing"

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
