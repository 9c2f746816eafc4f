package app

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prefrag/prefrag/config"
	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/sources/catalog"
	"github.com/prefrag/prefrag/sources/local"
)

// ResolveNeverLeave reads every name as the corpus it names, drops empty
// ones (`--never-leave ""` asks for none) and duplicates, says how a name
// in another case was read, and refuses a name that names none with an
// error that is a usage error (engine.ErrInvalidSettings) naming where it
// was given.
func TestResolveNeverLeave(t *testing.T) {
	dir, src := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(src, "a.txt"), []byte("private text"), 0o644)
	if _, err := local.Index(context.Background(), dir, "notes", []string{src}, local.IndexOptions{}); err != nil {
		t.Fatal(err)
	}
	got, notes, err := ResolveNeverLeave(dir, []string{"Notes", "", "local:notes", " notes "}, "--never-leave")
	if err != nil || strings.Join(got, ",") != "notes" || len(notes) != 1 || !strings.HasPrefix(notes[0], `--never-leave: "Notes" is read as corpus "notes"`) {
		t.Fatalf("got %q, notes %q, %v", got, notes, err)
	}
	if got, _, err := ResolveNeverLeave(dir, []string{""}, "--never-leave"); err != nil || len(got) != 0 {
		t.Errorf(`--never-leave "": %q %v; want none`, got, err)
	}
	_, _, err = ResolveNeverLeave(dir, []string{"notes", "nottes"}, "never_leave in config.toml")
	if !errors.Is(err, engine.ErrInvalidSettings) || !errors.Is(err, catalog.ErrUnknownCorpus) ||
		!strings.HasPrefix(err.Error(), `never_leave in config.toml: no corpus is named "nottes" — did you mean "notes"?`) {
		t.Errorf("nottes: %v", err)
	}

	// A thread's recorded names are read as today's corpora where they
	// resolve, and kept where they do not: protection is never dropped.
	th := &engine.Thread{Privacy: &engine.Privacy{NeverLeave: []string{"Notes", "notes", "gone"}}}
	resolveThreadNeverLeave(dir, th)
	if strings.Join(th.Privacy.NeverLeave, ",") != "notes,gone" {
		t.Errorf("thread never-leave %q", th.Privacy.NeverLeave)
	}
}

// The app builds a never-leave corpus's distinctive strings from its
// passages, keeps them in the corpus's folder (readable by the user alone)
// and builds them again when the corpus changes.
func TestDistinctiveBuiltAndKept(t *testing.T) {
	home, src := t.TempDir(), t.TempDir()
	cfg := &config.Config{Home: home}
	a := &App{Cfg: cfg, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	os.WriteFile(filepath.Join(src, "vault.txt"), []byte("The vault password is hunter2-ZEBRA."), 0o644)
	if _, err := local.Index(context.Background(), cfg.CorporaDir(), "notes", []string{src}, local.IndexOptions{}); err != nil {
		t.Fatal(err)
	}
	d, err := a.Distinctive(context.Background(), "notes")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := d.Find("who knows hunter2-zebra"); !ok {
		t.Fatal("the password is not distinctive")
	}
	kept := filepath.Join(cfg.CorporaDir(), "notes", "never-leave.set")
	if fi, err := os.Stat(kept); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("kept set: %v %v", fi, err)
	}
	fresh := &App{Cfg: cfg, Log: a.Log}
	if d, err := fresh.Distinctive(context.Background(), "notes"); err != nil {
		t.Fatal(err)
	} else if _, ok := d.Find("hunter2-ZEBRA"); !ok {
		t.Error("the kept set does not find the password")
	}
	os.WriteFile(filepath.Join(src, "vault.txt"), []byte("The vault password is now swordfish-8841."), 0o644)
	if _, err := local.Index(context.Background(), cfg.CorporaDir(), "notes", []string{src}, local.IndexOptions{}); err != nil {
		t.Fatal(err)
	}
	d, err = fresh.Distinctive(context.Background(), "notes")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := d.Find("swordfish-8841"); !ok {
		t.Error("the set was not built again after the corpus changed")
	}
}
