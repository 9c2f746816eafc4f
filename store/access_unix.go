//go:build unix

package store

import (
	"errors"
	"syscall"
)

// cannotWrite tells why this process may not write path ("" when it may).
// access(2) asks the kernel without opening the file, so no SQLite lock of
// this process is disturbed; it also reports a read-only file system to root.
func cannotWrite(path string) string {
	err := syscall.Access(path, 2 /* W_OK */)
	switch {
	case err == nil:
		return ""
	case errors.Is(err, syscall.EROFS):
		return "read-only file system"
	case errors.Is(err, syscall.ENOENT):
		return "missing"
	}
	return "no write permission"
}
