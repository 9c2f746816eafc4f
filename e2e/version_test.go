package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestVersionShowsCommit builds the binary the way the README says, twice
// from the same sources: from a source tarball (`git archive` of HEAD, no
// .git: the commit comes from the export-subst stamp) and from a fresh git
// checkout of those files (the commit comes from Go's VCS stamping, which
// this machine's GOFLAGS=-buildvcs=false would turn off, so the test sets
// the default back). Each --version must name its commit.
func TestVersionShowsCommit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	git := func(dir string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.invalid",
			"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.invalid", "GIT_CONFIG_GLOBAL=/dev/null")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	if _, err := os.Stat(filepath.Join(root, ".git")); err != nil {
		t.Skip("not run from a git checkout")
	}
	head := git(root, "rev-parse", "HEAD")

	src := t.TempDir()
	archive := exec.Command("git", "archive", "--format=tar", "HEAD")
	archive.Dir = root
	tarball, err := archive.Output()
	if err != nil {
		t.Fatalf("git archive: %v", err)
	}
	untar := exec.Command("tar", "-x", "-C", src)
	untar.Stdin = bytes.NewReader(tarball)
	if out, err := untar.CombinedOutput(); err != nil {
		t.Fatalf("tar: %v\n%s", err, out)
	}
	build := func(name string) string {
		t.Helper()
		bin := filepath.Join(t.TempDir(), name)
		cmd := exec.Command("go", "build", "-o", bin, ".")
		cmd.Dir = src
		// A user's default: stamp when there is a repository.
		cmd.Env = append(os.Environ(), "GOFLAGS=-buildvcs=auto")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build: %v\n%s", err, out)
		}
		out, err := exec.Command(bin, "--version").CombinedOutput()
		if err != nil {
			t.Fatalf("--version: %v\n%s", err, out)
		}
		return strings.TrimSpace(string(out))
	}

	if got := build("from-tarball"); !strings.Contains(got, "commit "+head[:12]+",") {
		t.Errorf("built from a tarball of %s: %q", head[:12], got)
	}

	git(src, "init", "-q")
	git(src, "add", "-A")
	git(src, "commit", "-q", "-m", "snapshot")
	commit := git(src, "rev-parse", "HEAD")
	if got := build("from-checkout"); !strings.Contains(got, "commit "+commit[:12]+",") {
		t.Errorf("built in a git checkout at %s: %q", commit[:12], got)
	}
}
