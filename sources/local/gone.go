package local

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// confirmedGone reports whether an indexed file that a walk did not find is
// really gone: the system says it does not exist (or a folder on its path
// is no longer a folder), or it is no longer a regular file. Anything else
// (permission denied, an I/O error, a file still there in a folder that
// could not be listed) is not a confirmation, and its passages are kept.
func confirmedGone(path string) bool {
	info, err := os.Lstat(path)
	switch {
	case err == nil:
		return !info.Mode().IsRegular()
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		return true
	}
	return false
}

// canOpen checks that a file can be opened for reading.
func canOpen(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	return f.Close()
}

// isUnreadable reports whether err is the system refusing to read a path
// (permission denied, I/O error), as opposed to a file that was read and
// could not be parsed.
func isUnreadable(err error) bool {
	return errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EIO) || errors.Is(err, syscall.EACCES)
}

// unreadableReason is the Failure reason of a path the system would not
// read.
func unreadableReason(err error, folder bool) string {
	why := err.Error()
	var pe *fs.PathError
	if errors.As(err, &pe) {
		why = pe.Err.Error()
	}
	if folder {
		return "cannot read this folder (" + why + "); what was indexed from it is kept"
	}
	return "cannot read this file (" + why + "); what was indexed from it is kept"
}
