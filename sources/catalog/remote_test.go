package catalog

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/prefrag/prefrag/sources/local"
	"github.com/prefrag/prefrag/sources/remote"
)

// A remote registration is a corpus to the directory functions: listed
// (with its kind, no statistics), pinned, counted by PinIfFirst, deleted
// (only the registration), and damaged when its remote.json is unreadable.
// Open refuses it: it has no local index.
func TestRemoteRegistrationInCorporaDir(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	writeFiles(t, src, map[string]string{"a.txt": "one two three"})
	if err := remote.Save(dir, "kb", remote.Spec{Kind: remote.KindElasticsearch, URL: "http://127.0.0.1:9200", Index: "docs"}); err != nil {
		t.Fatal(err)
	}
	if !PinIfFirst(dir, "kb") {
		t.Fatal("the first corpus, remote, was not pinned")
	}
	if mustIndex(t, dir, "wiki", src).Pinned {
		t.Error("a local corpus after a remote one was pinned")
	}
	if p, _ := Pinned(dir); p != "kb" {
		t.Errorf("pinned %q", p)
	}
	if !IsRemote(dir, "kb") || IsRemote(dir, "wiki") || IsRemote(dir, "none") || IsRemote(dir, "../x") {
		t.Error("IsRemote")
	}
	infos, err := List(dir)
	if err != nil || len(infos) != 2 {
		t.Fatalf("list %+v %v", infos, err)
	}
	if in := infos[0]; in.Name != "kb" || in.Remote != "elasticsearch" || !in.Pinned || in.Problem != "" {
		t.Errorf("kb %+v", in)
	}
	if in := infos[1]; in.Name != "wiki" || in.Remote != "" || in.Stats.Passages == 0 {
		t.Errorf("wiki %+v", in)
	}
	if _, err := local.Open(dir, "kb"); !errors.Is(err, local.ErrNotFound) {
		t.Errorf("open: %v", err)
	}
	if err := Pin(dir, "wiki"); err != nil {
		t.Fatal(err)
	}
	if err := Pin(dir, "kb"); err != nil {
		t.Fatal(err)
	}

	os.WriteFile(filepath.Join(dir, "kb", remote.SpecFile), []byte("{not json"), 0o644)
	infos, _ = List(dir)
	if in := infos[0]; in.Name != "kb" || !in.Damaged || in.Problem == "" {
		t.Errorf("damaged registration %+v", in)
	}

	if err := Delete(dir, "kb"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "kb")); err == nil {
		t.Error("the registration is still there")
	}
	if p, _ := Pinned(dir); p != "" {
		t.Errorf("deleting the pinned remote corpus left %q pinned", p)
	}
	if err := Delete(dir, "kb"); !errors.Is(err, local.ErrNotFound) {
		t.Errorf("second delete: %v", err)
	}
}
