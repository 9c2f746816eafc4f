package local

import (
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/prefrag/prefrag/internal/exportmark"
)

// isExport reports whether the file at path is one prefrag exported: a text
// file whose first bytes carry the export mark. Binary formats (prefrag
// exports none) and files that cannot be read are not exports; reading
// them reports the trouble.
func isExport(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".docx", ".pdf", ".epub":
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, exportmark.HeadSize)
	n, _ := io.ReadFull(f, head)
	return exportmark.Is(head[:n])
}
