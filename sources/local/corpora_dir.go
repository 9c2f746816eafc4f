package local

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/blevesearch/bleve/v2"
)

// Exists reports whether corpus name under dir is a local index (a valid
// name whose folder holds one).
func Exists(dir, name string) bool {
	return ValidateName(name) == nil && exists(filepath.Join(dir, name))
}

// ReadStats opens corpus name under dir briefly to read its statistics. A
// corpus being indexed by another process fails with ErrBusy, a damaged one
// with ErrDamaged.
func ReadStats(dir, name string) (Stats, error) {
	path, err := corpusPath(dir, name)
	if err != nil {
		return Stats{}, err
	}
	return statsAt(path, name)
}

// Remove deletes the index of corpus name under dir. It fails with ErrBusy
// when another process is indexing or searching it, and with ErrNotFound
// when there is no such index. A damaged corpus can always be removed.
func Remove(dir, name string) error {
	path, err := corpusPath(dir, name)
	if err != nil {
		return err
	}
	if !exists(path) {
		return &NotFoundError{Name: name}
	}
	// Take the write lock for a moment: nobody may be indexing it. A
	// damaged corpus, even one the index library panics on, can still be
	// deleted.
	if err := lockForDelete(path, name); err != nil {
		return err
	}
	if err := os.RemoveAll(path); err != nil {
		return fmt.Errorf("deleting corpus %q: %w", name, err)
	}
	return nil
}

// lockForDelete opens the index for writing and closes it again, to make
// sure no other process holds it. Only a busy corpus is an error.
func lockForDelete(path, name string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = nil // damaged: nobody can be using it
		}
	}()
	idx, err := bleve.OpenUsing(path, map[string]interface{}{"bolt_timeout": WriteLockTimeout.String()})
	if err != nil {
		if isLockTimeout(err) {
			return &BusyError{Name: name, Writing: true}
		}
		return nil
	}
	if err := idx.Close(); err != nil {
		return fmt.Errorf("deleting corpus %q: %w", name, err)
	}
	return nil
}
