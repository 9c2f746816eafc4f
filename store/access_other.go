//go:build !unix

package store

// cannotWrite cannot ask the kernel here; SQLite's own errors tell.
func cannotWrite(string) string { return "" }
