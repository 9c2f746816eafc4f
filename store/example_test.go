package store_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/store"
)

// Write a session with its events into a new database, then read it back.
func Example() {
	tmp, err := os.MkdirTemp("", "prefrag-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(tmp)
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(tmp, "prefrag.db"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer st.Close()

	at := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	sess := store.Session{ID: "0123456789abcdef", Question: "Which river flows through Prague?", Model: "llama3.1:8b", Started: at}
	if err := st.CreateSession(ctx, sess); err != nil {
		fmt.Println(err)
		return
	}
	for i, ev := range []engine.Event{
		{Payload: engine.SessionStart{Question: sess.Question}},
		{Step: 1, Payload: engine.Answer{Text: "The Vltava"}},
		{Payload: engine.Final{Answer: "The Vltava"}},
	} {
		ev.Session, ev.Seq, ev.Time = sess.ID, i+1, at
		if err := st.AppendEvent(ctx, ev); err != nil {
			fmt.Println(err)
			return
		}
	}
	if err := st.FinishSession(ctx, sess.ID, store.StatusAnswered, "The Vltava", "CORRECT", nil); err != nil {
		fmt.Println(err)
		return
	}

	rec, err := st.GetSession(ctx, "0123") // a unique prefix is enough
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(rec.Session.ID, rec.Session.Status, rec.Session.Answer)
	for _, ev := range rec.Events {
		fmt.Println(ev.Seq, ev.Type())
	}
	// Output:
	// 0123456789abcdef answered The Vltava
	// 1 session
	// 2 answer
	// 3 final
}
