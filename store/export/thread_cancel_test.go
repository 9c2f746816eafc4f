package export

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/testdouble/fixture"
	"github.com/prefrag/prefrag/store"
)

// TestThreadCancelledFollowUpKeepsItsOwnLabel: a follow-up cancelled
// before it answered is exported (Markdown, HTML) without an answer and
// without a label: not with turn 1's answer and CORRECT, which the
// session row still holds as the thread's last answer.
func TestThreadCancelledFollowUpKeepsItsOwnLabel(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	first := storeCaseStudy(t, s, caseID)
	if err := s.ContinueSession(ctx, caseID); err != nil {
		t.Fatal(err)
	}
	evs := []engine.Event{
		{Payload: engine.Rewrite{Original: "and where did he study?", Rewritten: "Where did Carsten Erik Olsen study?"}},
		{Step: 1, Payload: engine.Thought{Text: "Search his studies."}},
		{Payload: engine.Final{Cancelled: true, Counts: &engine.Counts{LLMCalls: 1}}},
	}
	last := first.Events[len(first.Events)-1].Seq
	for i := range evs {
		evs[i].Session, evs[i].Seq, evs[i].Turn, evs[i].Time = caseID, last+1+i, 2, fixture.Start.Add(time.Hour+time.Duration(i)*time.Second)
	}
	if err := s.AppendEvents(ctx, evs); err != nil {
		t.Fatal(err)
	}
	// As the app finishes a cancelled follow-up: the thread's last answer.
	if err := s.FinishSession(ctx, caseID, store.StatusCancelled, fixture.FinalAnswer, "CORRECT", nil); err != nil {
		t.Fatal(err)
	}
	rec, err := s.GetSession(ctx, caseID)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{FormatMarkdown, FormatHTML} {
		var b bytes.Buffer
		if err := Write(&b, f, rec); err != nil {
			t.Fatal(err)
		}
		doc := b.String()
		marker := "## Turn 2"
		if f == FormatHTML {
			marker = `id="t2-turn"`
		}
		i := strings.Index(doc, marker)
		if i < 0 {
			t.Fatalf("%s: no turn 2:\n%s", f, doc)
		}
		turn2 := doc[i:]
		if j := strings.Index(turn2, "Settings"); j > 0 {
			turn2 = turn2[:j]
		}
		for _, bad := range []string{"CORRECT", "died in 1974"} {
			if strings.Contains(turn2, bad) {
				t.Errorf("%s: the cancelled turn 2 shows turn 1's %q:\n%s", f, bad, turn2)
			}
		}
		if !strings.Contains(doc[:i], "CORRECT") {
			t.Errorf("%s: turn 1 lost its label", f)
		}
	}
}
