package catalog

import (
	"os"
	"path/filepath"
	"testing"
)

// The first corpus ever created is pinned; later ones are not; unpinning or
// deleting the pinned corpus leaves nothing pinned, and no other corpus is
// promoted — not even a corpus created afterwards.
func TestPinLifecycle(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	writeFiles(t, src, map[string]string{"a.txt": "one two three"})
	pinned := func() string {
		t.Helper()
		p, err := Pinned(dir)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	steps := []struct {
		name       string
		do         func() (reportPinned bool)
		wantReport bool
		want       string
	}{
		{"first corpus is pinned", func() bool { return mustIndex(t, dir, "alpha", src).Pinned }, true, "alpha"},
		{"re-indexing it reports no new pin", func() bool { return mustIndex(t, dir, "alpha", src).Pinned }, false, "alpha"},
		{"a second corpus is not pinned", func() bool { return mustIndex(t, dir, "beta", src).Pinned }, false, "alpha"},
		{"deleting the pinned corpus promotes none", func() bool {
			if err := Delete(dir, "alpha"); err != nil {
				t.Fatal(err)
			}
			return false
		}, false, ""},
		{"pin beta", func() bool {
			if err := Pin(dir, "beta"); err != nil {
				t.Fatal(err)
			}
			return false
		}, false, "beta"},
		{"unpin", func() bool {
			was, err := Unpin(dir)
			if err != nil || was != "beta" {
				t.Fatalf("Unpin = %q, %v", was, err)
			}
			return false
		}, false, ""},
		{"unpin again says nothing was pinned", func() bool {
			was, err := Unpin(dir)
			if err != nil || was != "" {
				t.Fatalf("second Unpin = %q, %v", was, err)
			}
			return false
		}, false, ""},
		{"delete every corpus", func() bool {
			if err := Delete(dir, "beta"); err != nil {
				t.Fatal(err)
			}
			return false
		}, false, ""},
		{"a corpus created later is not the first ever", func() bool { return mustIndex(t, dir, "gamma", src).Pinned }, false, ""},
	}
	for _, s := range steps {
		if got := s.do(); got != s.wantReport {
			t.Errorf("%s: report pinned = %v, want %v", s.name, got, s.wantReport)
		}
		if got := pinned(); got != s.want {
			t.Fatalf("%s: pinned = %q, want %q", s.name, got, s.want)
		}
	}
	list, err := List(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range list {
		if in.Pinned {
			t.Errorf("List shows %s pinned", in.Name)
		}
	}
}

// A home that already holds corpora but never had a pin (made before
// pinning existed) does not get its newest corpus pinned.
func TestPinIfFirstNotWithOtherCorpora(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	writeFiles(t, src, map[string]string{"a.txt": "one two three"})
	mustIndex(t, dir, "alpha", src)
	if _, err := Unpin(dir); err != nil {
		t.Fatal(err)
	}
	// Forget the pin file entirely, as an old home would have none.
	if err := os.Remove(filepath.Join(dir, pinFile)); err != nil {
		t.Fatal(err)
	}
	if rep := mustIndex(t, dir, "beta", src); rep.Pinned {
		t.Error("beta was pinned although alpha existed")
	}
	if PinIfFirst(dir, "beta") {
		t.Error("PinIfFirst pinned beta although alpha exists")
	}
}
