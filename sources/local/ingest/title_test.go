package ingest

import "testing"

func TestTextTitle(t *testing.T) {
	long := "A Title That Goes On "
	for len(long) <= MaxTitleRunes {
		long += "and on "
	}
	for _, tc := range []struct{ name, in, want string }{
		{"paper", "PrefRAG: Preference-Driven Retrieval\n\nQingfei Zhao, Ruobing Wang\n", "PrefRAG: Preference-Driven Retrieval"},
		{"leading blanks", "\n\n  SMARTRAG: JOINTLY LEARN RAG  \n\nAnonymous authors\n", "SMARTRAG: JOINTLY LEARN RAG"},
		{"markdown heading in txt", "\n# Towards Multi-Source RAG\n\nbody\n", "Towards Multi-Source RAG"},
		{"crlf", "Field Notes\r\n\r\nbody\r\n", "Field Notes"},
		{"sentence", "This file lists the tides.\n\nMore.\n", ""},
		{"lead-in", "Notes on the following:\n\n- a\n", ""},
		{"comma", "Dear Anna,\n\nhello\n", ""},
		{"paragraph", "Tides rise and fall twice a day\nbecause of the moon.\n\nMore.\n", ""},
		{"one line file", "Just one line\n", ""},
		{"one line no newline", "Just one line", ""},
		{"too long", long + "\n\nbody\n", ""},
		{"too short", "ab\n\nbody\n", ""},
		{"no letters", "2024-01-01\n\nbody\n", ""},
		{"empty", "", ""},
		{"control chars", "Ti\x1b[31mtle here\n\nbody\n", "Ti[31mtle here"},
		{"hashtag", "#notes\n\nbody\n", "#notes"},
	} {
		if got := TextTitle([]byte(tc.in)); got != tc.want {
			t.Errorf("%s: TextTitle(%q) = %q, want %q", tc.name, tc.in, got, tc.want)
		}
	}
}

func TestMetadataTitle(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"  Seabird   Census 2024 ", "Seabird Census 2024"},
		{"", ""},
		{"Untitled", ""},
		{"untitled document", ""},
		{"Microsoft Word - report_final.doc", ""},
		{"Microsoft PowerPoint - talk", ""},
		{"paper.pdf", ""},
		{"main.tex", ""},
		{"1234", ""},
		{"On the .doc format: a history", "On the .doc format: a history"},
	} {
		if got := MetadataTitle(tc.in); got != tc.want {
			t.Errorf("MetadataTitle(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestParsePDFInfoTitle(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Title:          Gulls of the North\nProducer:       x\nPages:          2\n", "Gulls of the North"},
		{"Title:          untitled\nPages: 1\n", ""},
		{"Producer:       x\nPages:          2\n", ""},
		{"Title:          Microsoft Word - gulls.docx\n", ""},
	} {
		if got := parsePDFInfoTitle(tc.in); got != tc.want {
			t.Errorf("parsePDFInfoTitle(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestFirstLineTitle(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"\n\n  Cormorants dry their wings \nmore\n", "Cormorants dry their wings"},
		{"12\nTitle\n", ""},
		{"", ""},
	} {
		if got := FirstLineTitle([]byte(tc.in)); got != tc.want {
			t.Errorf("FirstLineTitle(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
