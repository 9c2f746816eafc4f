package trajectory

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/prefrag/prefrag/engine"
)

// A run cancelled before the model answered says so where the answer would
// be, instead of an empty answer.
func TestCancelledWithoutAnswerSaysSo(t *testing.T) {
	at := time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		answer string
		want   string
	}{{"", "Cancelled before any answer."}, {"Prague [1]", "Prague [1]"}} {
		tr := FromEvents([]engine.Event{
			{Session: "s", Seq: 1, Time: at, Payload: engine.SessionStart{Question: "Q?"}},
			{Session: "s", Seq: 2, Time: at, Payload: engine.Final{Answer: tc.answer, Cancelled: true, Counts: &engine.Counts{}}},
		})
		out := ansi.Strip(plainRenderer().Render(tr, View{Width: 80, Upto: -1, ShowFinal: true}).Content())
		if !strings.Contains(out, tc.want) {
			t.Errorf("answer %q: the final does not show %q:\n%s", tc.answer, tc.want, out)
		}
		if tc.answer != "" && strings.Contains(out, "Cancelled before any answer.") {
			t.Errorf("a partial answer is announced as none:\n%s", out)
		}
	}
}
