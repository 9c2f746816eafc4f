package engine

import (
	"errors"
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/prefrag/prefrag/llm"
)

// hugeText is a 200,000-character passage of sentences ending in a marker
// that must never reach a prompt.
func hugeText() string {
	var b strings.Builder
	for b.Len() < 200000-len("TAILMARKER") {
		b.WriteString("The river was measured again this year. ")
	}
	s := b.String()[:200000-len("TAILMARKER")] + "TAILMARKER"
	return s
}

// One 200,000-character document is cut to max_doc_chars in the judge's
// prompt and in the step prompt, on a sentence end, with a note for the
// model and one notice for the user.
func TestDocumentCapInJudgeAndStepPrompts(t *testing.T) {
	for _, tc := range []struct {
		name string
		max  int
		cut  bool
	}{{"default cap", 0, true}, {"cap 1000", 1000, true}, {"no cap", -1, false}} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			huge := hugeText()
			h.local.answers["river"] = []Document{doc("local:wiki", "big", "Big", huge), doc("local:wiki", "small", "Small", "A short passage.")}
			h.llm.steps = []reply{
				{text: "Thought: search.\nAction: Search_Engine\nAction Input: river"},
				{text: "Thought: done.\nFinal Answer: measured [1]\nSelf-Evaluation: CORRECT\nExplanation: ok\nImprovement Suggestions: None"},
			}
			h.llm.judges = []reply{judgeJSON(true, "useful")}
			max := DefaultMaxDocChars
			_, err := h.run(t, "What about the river?", func(s *Settings) {
				switch {
				case tc.max > 0:
					s.MaxDocChars, max = tc.max, tc.max
				case tc.max < 0:
					// Uncapped, the document needs a context that holds it:
					// a prompt that does not fit is never sent (issue 21).
					s.MaxDocChars, s.NumCtx = 0, 131072
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			judge := h.llm.prompts(llm.PurposeJudge)
			steps := h.llm.prompts(llm.PurposeStep)
			if len(judge) != 1 || len(steps) != 2 {
				t.Fatalf("%d judge and %d step prompts", len(judge), len(steps))
			}
			for name, p := range map[string]string{"judge": judge[0], "step": steps[1]} {
				if !strings.Contains(p, "A short passage.") {
					t.Errorf("%s prompt lost the short document", name)
				}
				if got := strings.Contains(p, "TAILMARKER"); got == tc.cut {
					t.Errorf("%s prompt holds the end of the long document: %v, want %v", name, got, !tc.cut)
				}
				if !tc.cut {
					continue
				}
				if utf8.RuneCountInString(p) > max+3000 {
					t.Errorf("%s prompt is %d characters with a cap of %d", name, utf8.RuneCountInString(p), max)
				}
				i := strings.Index(p, " […]\n(document cut: only its first ")
				if i < 0 {
					t.Fatalf("%s prompt does not say the document was cut:\n%s", name, tail(p, 600))
				}
				if !strings.HasSuffix(p[:i], "this year.") {
					t.Errorf("%s prompt: the cut is not on a sentence end: %q", name, tail(p[:i], 40))
				}
				if !strings.Contains(p[i:], "of 200,000 characters are shown)") {
					t.Errorf("%s prompt: the note does not give the sizes: %q", name, p[i:i+120])
				}
			}
			var notices []Notice
			for _, ev := range payloads[Notice](h.rec) {
				if strings.Contains(ev.Message, "max_doc_chars") {
					notices = append(notices, ev)
				}
			}
			want := 0
			if tc.cut {
				want = 1
			}
			if len(notices) != want {
				t.Fatalf("%d notices about the cut, want %d: %+v", len(notices), want, notices)
			}
			if want == 1 {
				n := notices[0]
				if n.Fatal || n.Source != "local:wiki" || !strings.Contains(n.Message, "document big is 200,000 characters long") {
					t.Errorf("notice = %+v", n)
				}
			}
		})
	}
}

func TestCapText(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		max      int
		want     string
		cut      bool
	}{
		{"short", "Short text.", 100, "Short text.", false},
		{"exact", "abcde", 5, "abcde", false},
		{"sentence", "One two. Three four five. Six seven eight nine ten", 30, "One two. Three four five.", true},
		{"word", "alpha beta gamma delta epsilon zeta", 20, "alpha beta gamma", true},
		{"no space", strings.Repeat("x", 50), 10, strings.Repeat("x", 10), true},
		{"runes", strings.Repeat("é", 50), 10, strings.Repeat("é", 10), true},
		{"early sentence ignored", "Hi. " + strings.Repeat("word ", 20), 40, "Hi. word word word word word word word", true},
		{"no cap", strings.Repeat("x", 50), 0, strings.Repeat("x", 50), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, cut := capText(tc.in, tc.max)
			if got != tc.want || cut != tc.cut {
				t.Errorf("capText(%q, %d) = %q, %v; want %q, %v", tc.in, tc.max, got, cut, tc.want, tc.cut)
			}
			if !utf8.ValidString(got) {
				t.Errorf("invalid UTF-8: %q", got)
			}
		})
	}
}

func FuzzCapText(f *testing.F) {
	f.Add("One two. Three four five. Six", 12)
	f.Add(strings.Repeat("é", 30), 7)
	f.Add("a\n\nb c d", 3)
	f.Fuzz(func(t *testing.T, s string, max int) {
		if max < 0 || max > 1<<20 {
			return
		}
		got, cut := capText(s, max)
		n := utf8.RuneCountInString(s)
		if max == 0 || n <= max {
			if got != s || cut {
				t.Fatalf("uncut text changed: %q → %q, %v", s, got, cut)
			}
			return
		}
		if !cut || utf8.RuneCountInString(got) > max || !strings.HasPrefix(s, got) {
			t.Fatalf("capText(%q, %d) = %q, %v", s, max, got, cut)
		}
	})
}

// NaN, infinities and out-of-range values of every float setting are
// refused (NaN passed: every comparison with it is false).
func TestFloatSettingsValidation(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	for _, tc := range []struct {
		name string
		mod  func(*Settings)
		want string
	}{
		{"temperature NaN", func(s *Settings) { s.Temperature = nan }, "temperature"},
		{"temperature +Inf", func(s *Settings) { s.Temperature = inf }, "temperature"},
		{"temperature -Inf", func(s *Settings) { s.Temperature = -inf }, "temperature"},
		{"temperature negative", func(s *Settings) { s.Temperature = -0.1 }, "temperature"},
		{"temperature too high", func(s *Settings) { s.Temperature = 2.5 }, "temperature"},
		{"top_p NaN", func(s *Settings) { s.TopP = nan }, "top_p"},
		{"top_p +Inf", func(s *Settings) { s.TopP = inf }, "top_p"},
		{"top_p zero", func(s *Settings) { s.TopP = 0 }, "top_p"},
		{"top_p above 1", func(s *Settings) { s.TopP = 1.01 }, "top_p"},
		{"max_doc_chars negative", func(s *Settings) { s.MaxDocChars = -1 }, "max_doc_chars"},
		{"max_doc_chars tiny", func(s *Settings) { s.MaxDocChars = 10 }, "max_doc_chars"},
		{"valid edges", func(s *Settings) { s.Temperature, s.TopP, s.MaxDocChars = 0, 1, 0 }, ""},
		{"valid", func(s *Settings) { s.Temperature, s.TopP = 2, 0.01 }, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := DefaultSettings()
			tc.mod(&s)
			err := s.Validate()
			if tc.want == "" {
				if err != nil {
					t.Fatalf("valid settings refused: %v", err)
				}
				return
			}
			var se *SettingsError
			if !errors.Is(err, ErrInvalidSettings) || !errors.As(err, &se) || len(se.Fields) != 1 || se.Fields[0].Field != tc.want {
				t.Fatalf("Validate() = %v, want an ErrInvalidSettings naming field %s", err, tc.want)
			}
		})
	}
}
