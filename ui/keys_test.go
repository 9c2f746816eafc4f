package ui

import (
	"context"
	"io/fs"
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"

	"github.com/prefrag/prefrag/guide"
)

// everyBinding gathers the bindings of every focus context.
func everyBinding() map[string][]key.Binding {
	f := newFormKeys()
	return map[string][]key.Binding{
		"global":   newGlobalKeys().bindings(),
		"input":    newAskInputKeys().bindings(),
		"ask":      newAskTrajKeys().bindings(),
		"traj":     newTrajKeys().bindings(),
		"passage":  newPassageKeys().bindings(),
		"sessions": newSessionsKeys().bindings(),
		"filter":   newFilterKeys().bindings(),
		"lists":    newListKeys().bindings(),
		"stepper":  newStepperKeys().bindings(),
		"corpora":  newCorporaKeys().bindings(),
		"index":    {newIndexKeys().Cancel},
		"results":  newResultKeys().bindings(),
		"consent":  newConsentKeys().bindings(),
		"forms":    append(f.bindings(), f.Confirm, f.Refuse),
		"help":     newHelpKeys().bindings(),
	}
}

// TestGuideDocumentsEveryKey keeps guide/keys.md and the bindings in step.
func TestGuideDocumentsEveryKey(t *testing.T) {
	b, err := fs.ReadFile(guide.FS(), "keys.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for ctx, bs := range everyBinding() {
		for _, b := range bs {
			h := b.Help()
			if h.Key == "" || h.Desc == "" {
				t.Errorf("%s: binding %v has no help", ctx, b.Keys())
				continue
			}
			if !strings.Contains(doc, "`"+h.Key+"`") {
				t.Errorf("%s: key %q (%s) is not in guide/keys.md", ctx, h.Key, h.Desc)
			}
		}
	}
}

// TestNoKeyClashesWithinAContext: one key, one meaning, in each context
// (a screen's own keys plus the trajectory or list keys it also takes).
func TestNoKeyClashesWithinAContext(t *testing.T) {
	all := everyBinding()
	contexts := map[string][]string{
		"ask trajectory": {"ask", "traj", "global"},
		"stepper":        {"stepper", "traj", "global"},
		"sessions":       {"sessions", "lists", "global"},
		"corpora":        {"corpora", "lists", "global"},
		"results":        {"results", "lists", "global"},
		"consent":        {"consent"},
		"passage":        {"passage", "global"},
	}
	// Keys a context deliberately takes over from the shared set.
	overrides := map[string]bool{"stepper:home": true, "stepper:end": true, "corpora:enter": true}
	for name, parts := range contexts {
		seen := map[string]string{}
		for _, part := range parts {
			for _, b := range all[part] {
				for _, k := range b.Keys() {
					if prev, ok := seen[k]; ok && prev != part && !overrides[name+":"+k] {
						t.Errorf("%s: %q is bound in both %s and %s", name, k, prev, part)
					}
					if _, ok := seen[k]; !ok {
						seen[k] = part
					}
				}
			}
		}
	}
}

func TestCycleWebPolicy(t *testing.T) {
	sh := newShared(context.Background(), Deps{}, Options{})
	var got []string
	for range 4 {
		got = append(got, sh.cycleWeb())
	}
	if strings.Join(got, ",") != "ask,never,auto,ask" {
		t.Fatalf("cycle = %v", got)
	}
	if sh.runSettings().Web != "ask" {
		t.Fatalf("run settings web = %q", sh.runSettings().Web)
	}
}

func TestPinnedReordersExplicitCorpora(t *testing.T) {
	tests := []struct {
		corpora []string
		pin     string
		want    string
	}{
		{nil, "notes", ""},
		{[]string{"wiki", "notes"}, "notes", "notes,wiki"},
		{[]string{"wiki"}, "papers", "papers,wiki"},
	}
	for _, tt := range tests {
		sh := newShared(context.Background(), Deps{}, Options{})
		sh.settings.Corpora = tt.corpora
		sh.corpora = []CorpusInfo{{Name: "wiki", Pinned: true}, {Name: "notes"}}
		sh.pinned(tt.pin)
		if got := strings.Join(sh.settings.Corpora, ","); got != tt.want {
			t.Errorf("pin %s over %v: corpora %q, want %q", tt.pin, tt.corpora, got, tt.want)
		}
		if len(tt.corpora) == 0 && sh.preferred() != tt.pin {
			t.Errorf("preferred %q after pinning %q", sh.preferred(), tt.pin)
		}
	}
}
