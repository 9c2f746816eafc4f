package ui

import (
	"context"
	"strings"
	"testing"
)

// TestGuideTellsTheWelcomeDialogsTruth: the welcome dialog's folder box
// starts empty and Enter on it indexes nothing (it asks for a folder); the
// guide says so — it does not promise the current directory by default —
// and names the corpora the two choices make.
func TestGuideTellsTheWelcomeDialogsTruth(t *testing.T) {
	d := newFirstRunDialog(newShared(context.Background(), Deps{}, Options{WorkDir: "/work/notes"}))
	if v := d.path.Value(); v != "" {
		t.Fatalf("the folder box starts with %q", v)
	}
	if _, done := d.update(keyMsg("enter")); done || !d.hint {
		t.Fatalf("enter on an empty folder box: done %v hint %v; want the dialog open, asking for a folder", done, d.hint)
	}
	page := guidePage(t, "getting-started.md")
	if strings.Contains(page, "current directory by default") {
		t.Error("getting-started.md says the folder defaults to the current directory")
	}
	for _, want := range []string{"nothing is filled in", "`.` is the folder prefrag was started in", "corpus named `default`", "corpus named `guide`"} {
		if !strings.Contains(page, want) {
			t.Errorf("getting-started.md does not say %s", want)
		}
	}
	if firstRunCorpus != "default" || GuideCorpus != "guide" {
		t.Errorf("the dialog's corpora are %q and %q", firstRunCorpus, GuideCorpus)
	}
}
