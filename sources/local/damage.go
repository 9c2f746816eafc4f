package local

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/util"
	bolt "go.etcd.io/bbolt"

	"github.com/prefrag/prefrag/sources"
)

// ErrDamaged is matched by errors about a corpus whose index files are
// damaged (corrupted, truncated, a segment file missing).
var ErrDamaged = errors.New("corpus damaged")

// ErrDiskFull is matched when writing a corpus failed because its disk is
// full.
var ErrDiskFull = errors.New("disk full")

// DamagedError names the damaged corpus and says what to do.
type DamagedError struct {
	Name   string
	Reason string
}

func (e *DamagedError) Error() string {
	return fmt.Sprintf("corpus %q is damaged (%s); delete it with `prefrag corpora rm %s` and index its folders again",
		e.Name, e.Reason, e.Name)
}

// Is matches ErrDamaged, and sources.ErrUnavailable: to the engine a
// damaged corpus is a source that cannot answer.
func (e *DamagedError) Is(target error) bool {
	return target == ErrDamaged || target == sources.ErrUnavailable
}

// ErrReadOnly is matched when a corpus cannot be written here: its folder is
// on a read-only file system or this user may not write it.
var ErrReadOnly = errors.New("corpus cannot be written here")

// ReadOnlyError names the corpus that cannot be written and why. The corpus
// itself is as it was (it is not damaged).
type ReadOnlyError struct {
	Name string
	Path string
	Why  string // "read-only file system" or "no write permission"
}

func (e *ReadOnlyError) Error() string {
	return fmt.Sprintf("corpus %q cannot be written: %s is read-only here (%s); nothing was changed — make it writable, or set PREFRAG_HOME to a writable folder",
		e.Name, e.Path, e.Why)
}

func (e *ReadOnlyError) Is(target error) bool { return target == ErrReadOnly }

// readOnlyWhy says why err refused a write for lack of write access ("" for
// any other error). The index library reports some of these as text only.
func readOnlyWhy(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, syscall.EROFS) || strings.Contains(err.Error(), syscall.EROFS.Error()):
		return "read-only file system"
	case errors.Is(err, fs.ErrPermission) || strings.Contains(err.Error(), syscall.EACCES.Error()):
		return "no write permission"
	}
	return ""
}

// DiskFullError says that writing a corpus stopped for lack of space.
type DiskFullError struct {
	Name string
	Path string
	Err  error
}

func (e *DiskFullError) Error() string {
	return fmt.Sprintf("writing corpus %q stopped: the disk holding %s is full; what was indexed before this batch is kept — free some space and run the same command again",
		e.Name, e.Path)
}

func (e *DiskFullError) Unwrap() error { return e.Err }

func (e *DiskFullError) Is(target error) bool { return target == ErrDiskFull }

// recoverDamaged turns a panic of the index library, raised while reading
// corpus name, into a DamagedError in *err. Use it deferred.
func recoverDamaged(name string, err *error) {
	if r := recover(); r != nil {
		*err = &DamagedError{Name: name, Reason: "its index files are corrupted: " + oneLineValue(r)}
	}
}

// recoverWrite is recoverDamaged for writes: a panic while the disk is full
// is a DiskFullError.
func recoverWrite(name, path string, err *error) {
	if r := recover(); r != nil {
		if diskFull(path) {
			*err = &DiskFullError{Name: name, Path: path, Err: fmt.Errorf("%v", r)}
			return
		}
		*err = &DamagedError{Name: name, Reason: "writing its index files failed: " + oneLineValue(r)}
	}
}

// oneLineValue is v on one line, at most 160 bytes.
func oneLineValue(v any) string {
	s := strings.Join(strings.Fields(fmt.Sprint(v)), " ")
	if len(s) > 160 {
		s = strings.ToValidUTF8(s[:160], "") + "…"
	}
	return s
}

// writeFailure classifies an error of a write to the corpus at path.
func writeFailure(name, path string, err error) error {
	if err == nil {
		return nil
	}
	if isNoSpace(err) || diskFull(path) {
		return &DiskFullError{Name: name, Path: path, Err: err}
	}
	return fmt.Errorf("writing corpus %q: %w", name, err)
}

// isNoSpace matches ENOSPC, which the index library reports as text only
// in some places.
func isNoSpace(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || strings.Contains(err.Error(), syscall.ENOSPC.Error())
}

// minFreeBytes is the free space under which a failed write is put down to
// a full disk.
const minFreeBytes = 1 << 20

// diskFull reports whether the file system holding path has (almost) no
// space left.
func diskFull(path string) bool {
	var st syscall.Statfs_t
	if err := syscall.Statfs(path, &st); err != nil {
		return false
	}
	return st.Bavail*uint64(st.Bsize) < minFreeBytes
}

// damagedOpen classifies an error of opening the index at path: lock
// timeouts are busy, a missing index is not found, a write refused by the
// file system is read-only, permissions are said as such, anything else is
// damage.
func damagedOpen(name, path string, err error, writing bool) error {
	if isLockTimeout(err) || errors.Is(err, bleve.ErrorIndexPathDoesNotExist) || errors.Is(err, bleve.ErrorIndexMetaMissing) {
		return openError(name, path, err, writing)
	}
	if why := readOnlyWhy(err); why != "" && writing {
		return &ReadOnlyError{Name: name, Path: path, Why: why}
	}
	if errors.Is(err, fs.ErrPermission) {
		return fmt.Errorf("cannot open corpus %q at %s: permission denied", name, path)
	}
	if isNoSpace(err) {
		return &DiskFullError{Name: name, Path: path, Err: err}
	}
	return &DamagedError{Name: name, Reason: oneLineValue(err)}
}

// checkSegments verifies that every segment file of the newest snapshot
// recorded in the corpus's root.bolt exists. Bleve itself, when one is
// missing, logs a line and silently opens an older snapshot or an empty
// index, which would show a damaged corpus as holding fewer or no
// documents.
func checkSegments(name, path string, timeout time.Duration, writing bool) (err error) {
	defer recoverDamaged(name, &err)
	store := filepath.Join(path, "store")
	root := filepath.Join(store, "root.bolt")
	if _, serr := os.Stat(root); errors.Is(serr, fs.ErrNotExist) {
		return nil // not written yet
	}
	db, err := bolt.Open(root, 0o600, &bolt.Options{ReadOnly: true, Timeout: timeout})
	if err != nil {
		return damagedOpen(name, path, err, writing)
	}
	defer db.Close()
	var missing string
	err = db.View(func(tx *bolt.Tx) error {
		snaps := tx.Bucket(util.BoltSnapshotsBucket)
		if snaps == nil {
			return nil
		}
		c := snaps.Cursor()
		for k, v := c.Last(); k != nil; k, v = c.Prev() {
			snap := snaps.Bucket(k)
			if v != nil || snap == nil || snap.Bucket(util.BoltMetaDataKey) == nil {
				continue
			}
			sc := snap.Cursor()
			for sk, sv := sc.First(); sk != nil; sk, sv = sc.Next() {
				seg := snap.Bucket(sk)
				if sv != nil || seg == nil {
					continue
				}
				p := seg.Get(util.BoltPathKey)
				if p == nil {
					continue
				}
				if _, err := os.Stat(filepath.Join(store, string(p))); errors.Is(err, fs.ErrNotExist) {
					missing = string(p)
					return nil
				}
			}
			return nil // only the newest snapshot matters
		}
		return nil
	})
	if err != nil {
		return damagedOpen(name, path, err, writing)
	}
	if missing != "" {
		return &DamagedError{Name: name, Reason: "its segment file " + missing + " is missing"}
	}
	return nil
}
