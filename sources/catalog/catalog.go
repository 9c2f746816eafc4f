// Package catalog is the list of a home's corpora: local indexes and remote
// registrations side by side under one directory, which of them is pinned
// (searched first), and their deletion. It knows where each kind lives
// (package local for indexes, package remote for registrations) and owns
// the pin; it searches nothing.
package catalog

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/prefrag/prefrag/sources/local"
	"github.com/prefrag/prefrag/sources/local/vector"
	"github.com/prefrag/prefrag/sources/remote"
)

// pinFile, in the corpora directory, holds the name of the pinned corpus.
// Corpus names cannot start with a dot, so it never clashes with one.
const pinFile = ".pinned"

// Info describes one corpus in a listing.
type Info struct {
	Name   string      `json:"name"`
	Stats  local.Stats `json:"stats"`
	Pinned bool        `json:"pinned"`
	// Busy is set when another process is indexing the corpus; Stats are
	// then unknown (zero).
	Busy bool `json:"busy,omitempty"`
	// Problem says why the statistics could not be read, for a corpus that
	// is neither healthy nor busy.
	Problem string `json:"problem,omitempty"`
	// Damaged is set when the problem is damage to the index files: the
	// corpus must be deleted and indexed again.
	Damaged bool `json:"damaged,omitempty"`
	// Remote is the kind of a remote corpus ("elasticsearch",
	// "manticore"): a registration (remote.json) with no local index, whose
	// statistics are its cluster's (see package remote).
	Remote string `json:"remote,omitempty"`
	// Vectors describes a local corpus's vectors (hybrid retrieval), nil
	// when it has none.
	Vectors *vector.Status `json:"vectors,omitempty"`
}

// registered reports whether <dir>/<name> is a corpus: a local index or a
// remote registration.
func registered(dir, name string) bool {
	return local.Exists(dir, name) || remote.IsRemote(dir, name)
}

// IsRemote reports whether corpus name is a remote registration (and not a
// local index).
func IsRemote(dir, name string) bool {
	return local.ValidateName(name) == nil && !local.Exists(dir, name) && remote.IsRemote(dir, name)
}

// List returns the corpora under dir, sorted by name. A missing dir is an
// empty list.
func List(dir string) ([]Info, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading corpora directory: %w", err)
	}
	pinned, err := Pinned(dir)
	if err != nil {
		return nil, err
	}
	var out []Info
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() || local.ValidateName(name) != nil {
			continue
		}
		if !local.Exists(dir, name) {
			if remote.IsRemote(dir, name) {
				out = append(out, remoteInfo(dir, name, pinned))
			}
			continue
		}
		info := Info{Name: name, Pinned: name == pinned}
		if vs, err := vector.ReadStatus(vector.Dir(filepath.Join(dir, name))); err == nil {
			info.Vectors = &vs
		}
		st, err := local.ReadStats(dir, name)
		switch {
		case err == nil:
			info.Stats = st
		case errors.Is(err, local.ErrBusy):
			info.Busy = true
		default:
			info.Problem = err.Error()
			info.Damaged = errors.Is(err, local.ErrDamaged)
			info.Stats.SizeBytes = local.DirSize(filepath.Join(dir, name))
		}
		out = append(out, info)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// remoteInfo lists a remote registration; an unreadable one is damaged.
func remoteInfo(dir, name, pinned string) Info {
	info := Info{Name: name, Pinned: name == pinned, Remote: "unknown"}
	spec, err := remote.Load(dir, name)
	if err != nil {
		info.Problem, info.Damaged = err.Error(), true
		return info
	}
	info.Remote = spec.Kind
	return info
}

// Pin makes name the preferred corpus.
func Pin(dir, name string) error {
	if err := local.ValidateName(name); err != nil {
		return err
	}
	if !registered(dir, name) {
		return &local.NotFoundError{Name: name}
	}
	if err := writePin(dir, name+"\n"); err != nil {
		return fmt.Errorf("pinning corpus %q: %w", name, err)
	}
	return nil
}

// Unpin leaves no corpus pinned and returns the name that was pinned (""
// when none was). The pin file stays, empty: the home remembers that a
// corpus existed, so a later new corpus is not pinned by PinIfFirst.
func Unpin(dir string) (string, error) {
	was, err := Pinned(dir)
	if err != nil {
		return "", err
	}
	if err := writePin(dir, ""); err != nil {
		return "", fmt.Errorf("unpinning: %w", err)
	}
	return was, nil
}

// writePin replaces the pin file atomically.
func writePin(dir, content string) error {
	tmp, err := os.CreateTemp(dir, pinFile+".tmp*")
	if err != nil {
		return err
	}
	_, werr := tmp.WriteString(content)
	cerr := tmp.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), filepath.Join(dir, pinFile))
	}
	if werr != nil {
		_ = os.Remove(tmp.Name())
	}
	return werr
}

// PinIfFirst pins name when it is the first corpus ever created under dir:
// no pin file exists yet (not even an empty one, left by Unpin or by
// deleting the pinned corpus) and no other corpus is there. It reports
// whether it pinned. Two processes creating corpora at once cannot both
// win: the pin file is created exclusively.
func PinIfFirst(dir, name string) bool {
	if _, err := os.Lstat(filepath.Join(dir, pinFile)); !errors.Is(err, fs.ErrNotExist) {
		return false
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if e.IsDir() && e.Name() != name && local.ValidateName(e.Name()) == nil && registered(dir, e.Name()) {
			return false
		}
	}
	f, err := os.OpenFile(filepath.Join(dir, pinFile), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return false
	}
	_, werr := f.WriteString(name + "\n")
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		_ = os.Remove(filepath.Join(dir, pinFile))
		return false
	}
	return true
}

// Pinned returns the pinned corpus name, or "" when none is pinned or the
// pinned corpus no longer exists.
func Pinned(dir string) (string, error) {
	raw, err := os.ReadFile(filepath.Join(dir, pinFile))
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("reading the pinned corpus: %w", err)
	}
	name := strings.TrimSpace(string(raw))
	if local.ValidateName(name) != nil || !registered(dir, name) {
		return "", nil
	}
	return name, nil
}

// Delete removes corpus name and its pin (leaving none pinned): a local
// index with its files, a remote registration without touching the
// cluster's data. It fails with local.ErrBusy when another process is
// indexing or searching a local one.
func Delete(dir, name string) error {
	if err := local.ValidateName(name); err != nil {
		return err
	}
	isLocal := local.Exists(dir, name)
	if !isLocal && !remote.IsRemote(dir, name) {
		return &local.NotFoundError{Name: name}
	}
	if isLocal {
		// Checks first that nobody is using it.
		if err := local.Remove(dir, name); err != nil {
			return err
		}
	} else if err := os.RemoveAll(filepath.Join(dir, name)); err != nil {
		return fmt.Errorf("removing remote corpus %q: %w", name, err)
	}
	if pinned, _ := pinnedName(dir); pinned == name {
		// Nothing is pinned afterwards: no other corpus is promoted.
		if err := writePin(dir, ""); err != nil {
			return fmt.Errorf("unpinning corpus %q: %w", name, err)
		}
	}
	return nil
}

// pinnedName is the name in the pin file, whether or not it still exists.
func pinnedName(dir string) (string, error) {
	raw, err := os.ReadFile(filepath.Join(dir, pinFile))
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(raw)), nil
}

// Index ingests paths into corpus name under dir (see local.Index) and
// pins it when this run created the home's first corpus (see PinIfFirst):
// the report says so.
func Index(ctx context.Context, dir, name string, paths []string, opts local.IndexOptions) (local.Report, error) {
	pinned := false
	created := opts.Created
	opts.Created = func() {
		pinned = PinIfFirst(dir, name)
		if created != nil {
			created()
		}
	}
	rep, err := local.Index(ctx, dir, name, paths, opts)
	rep.Pinned = pinned
	return rep, err
}
