package export

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/prefrag/prefrag/store"
)

// ErrTargetExists is matched (errors.Is, also fs.ErrExist) when an export
// would overwrite a file and force was not given.
var ErrTargetExists = errors.New("export target exists")

// ErrOutsideFolder is matched when an export name would leave the chosen
// folder ("..", an absolute name, or a symlink that points outside).
var ErrOutsideFolder = errors.New("export path leaves the chosen folder")

// TargetExistsError names the file that was not overwritten.
type TargetExistsError struct{ Path string }

func (e *TargetExistsError) Error() string {
	return fmt.Sprintf("%s already exists; pass --force to overwrite it", e.Path)
}

func (e *TargetExistsError) Is(target error) bool {
	return target == ErrTargetExists || target == fs.ErrExist
}

// OutsideFolderError names the refused path.
type OutsideFolderError struct {
	Dir, Name string
	Err       error // what os.Root said, when it refused
}

func (e *OutsideFolderError) Error() string {
	return fmt.Sprintf("refusing to write %q: it leads outside %s; choose a name inside that folder", e.Name, e.Dir)
}

func (e *OutsideFolderError) Is(target error) bool { return target == ErrOutsideFolder }
func (e *OutsideFolderError) Unwrap() error        { return e.Err }

// Target splits an output flag into the folder an export is confined to and
// the name inside it. An empty out means defaultName in the current folder;
// an existing folder (or a path ending in a separator) receives defaultName;
// anything else is a file path, confined to its own parent folder.
func Target(out, defaultName string) (dir, name string) {
	switch {
	case out == "":
		return ".", defaultName
	case strings.HasSuffix(out, string(filepath.Separator)) || strings.HasSuffix(out, "/"):
		return out, defaultName
	}
	if fi, err := os.Stat(out); err == nil && fi.IsDir() {
		return out, defaultName
	}
	return filepath.Dir(out), filepath.Base(out)
}

// WriteExport writes data to name inside dir and returns the path written.
// name must stay inside dir: "..", absolute names and symlinks leading out
// are refused (*OutsideFolderError). An existing file is only replaced when
// force is set (*TargetExistsError otherwise). Missing folders under dir are
// created.
//
// The file appears whole or not at all: data goes to a temporary file in
// the same folder, synced, which then takes the name — renamed over it with
// force, hard-linked to it without (a link never replaces a file that
// appeared meanwhile). A killed process, a full disk or a file size limit
// leave the earlier file, or no file, never a cut one.
func WriteExport(dir, name string, data []byte, force bool) (string, error) {
	if !filepath.IsLocal(name) {
		return "", &OutsideFolderError{Dir: dir, Name: name}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("create export folder: %w", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return "", fmt.Errorf("open export folder: %w", err)
	}
	defer root.Close()
	full := filepath.Join(dir, name)
	refuse := func(err error) error {
		if isEscape(err) {
			return &OutsideFolderError{Dir: dir, Name: name, Err: err}
		}
		return fmt.Errorf("write export %s: %w", full, err)
	}
	if sub := filepath.Dir(name); sub != "." {
		if err := root.MkdirAll(sub, 0o755); err != nil {
			return "", refuse(err)
		}
	}
	switch fi, err := root.Lstat(name); {
	case err == nil && !force:
		return "", &TargetExistsError{Path: full}
	case err == nil && fi.IsDir():
		return "", fmt.Errorf("write export %s: %w: it is a folder", full, ErrTargetExists)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return "", refuse(err)
	}
	tmp := filepath.Join(filepath.Dir(name), ".prefrag-export-"+randomHex()+".tmp")
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return "", refuse(err)
	}
	defer root.Remove(tmp) // gone after a rename; the second name after a link
	_, werr := f.Write(data)
	if err := errors.Join(werr, f.Sync(), f.Close()); err != nil {
		return "", fmt.Errorf("write export %s: %w", full, err)
	}
	if force {
		// Rename replaces the name itself: a symlink there is replaced,
		// never followed.
		if err := root.Rename(tmp, name); err != nil {
			return "", refuse(err)
		}
		return full, nil
	}
	return full, linkNew(root, tmp, name, full, refuse)
}

// linkNew gives the written temporary file tmp the name name, which must
// still be free. A folder whose file system has no hard links gets a rename
// after a last look (a file appearing in between would be replaced).
func linkNew(root *os.Root, tmp, name, full string, refuse func(error) error) error {
	err := root.Link(tmp, name)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, fs.ErrExist):
		return &TargetExistsError{Path: full}
	case isEscape(err):
		return refuse(err)
	}
	if _, serr := root.Lstat(name); serr == nil {
		return &TargetExistsError{Path: full}
	}
	if err := root.Rename(tmp, name); err != nil {
		return refuse(err)
	}
	return nil
}

// isEscape reports os.Root's refusal of a path that leaves the root.
func isEscape(err error) bool {
	return err != nil && strings.Contains(err.Error(), "path escapes from parent")
}

func randomHex() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Extension is the file extension of a format (".json" for a name that is
// none).
func Extension(format string) string {
	if f, ok := LookupFormat(format); ok {
		return f.Ext
	}
	return ".json"
}

// FileName is a safe default file name for an export of sess: the start
// date, a slug of the question and the start of the id, e.g.
// "2025-03-14-in-what-year-did-the-danish-plant-0b4f6c2e.md".
func FileName(sess store.Session, format string) string {
	slug := slugify(sess.Question, 40)
	id := slugify(sess.ID, 8)
	parts := []string{sess.Started.UTC().Format("2006-01-02")}
	for _, p := range []string{slug, id} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, "-") + Extension(format)
}

// slugify keeps ASCII letters and digits, lowercased, joined by single
// dashes, cut at a dash to at most max bytes.
func slugify(s string, max int) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
			continue
		}
		dash = true
	}
	out := b.String()
	if len(out) > max {
		out = out[:max]
		if i := strings.LastIndexByte(out, '-'); i > max/2 {
			out = out[:i]
		}
		out = strings.TrimRight(out, "-")
	}
	return out
}

// Save renders recs in format and writes them to out: a file, or a folder
// (existing, or ending in a separator) that gets the default file name;
// "" means the current directory. It returns the path written; an existing
// file is only replaced with force (the error then matches ErrTargetExists).
func Save(out, format string, force bool, recs ...*store.Record) (string, error) {
	if len(recs) == 0 {
		return "", errors.New("no session to export")
	}
	if f, ok := LookupFormat(format); ok && f.PerSession && len(recs) > 1 {
		return saveEach(out, format, force, recs)
	}
	var buf bytes.Buffer
	if err := Write(&buf, format, recs...); err != nil {
		return "", err
	}
	name := FileName(recs[0].Session, format)
	if len(recs) > 1 {
		name = "prefrag-sessions" + Extension(format)
	}
	dir, file := Target(out, name)
	return WriteExport(dir, file, buf.Bytes(), force)
}

// ErrNotFolder is matched when several sessions are exported one file
// each (a PerSession format: HTML) and the output names a file rather than a folder.
var ErrNotFolder = errors.New("export of several sessions needs a folder")

// saveEach writes every session to its own file (its default name) in the
// folder out ("" is the current one; a missing folder is created) and
// returns the folder. A name that already exists there is not replaced
// without force; nothing is written then.
func saveEach(out, format string, force bool, recs []*store.Record) (string, error) {
	dir := out
	if dir == "" {
		dir = "."
	}
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return "", fmt.Errorf("%w: %s is a file; name a folder to write one %s file per session into", ErrNotFolder, dir, Extension(format))
	} else if err != nil && strings.EqualFold(filepath.Ext(dir), Extension(format)) {
		return "", fmt.Errorf("%w: %s looks like a file name; name a folder to write one %s file per session into", ErrNotFolder, dir, Extension(format))
	}
	pages := make([][]byte, len(recs))
	names := make([]string, len(recs))
	seen := map[string]bool{}
	for i, rec := range recs {
		var buf bytes.Buffer
		if err := Write(&buf, format, rec); err != nil {
			return "", err
		}
		pages[i] = buf.Bytes()
		name := FileName(rec.Session, format)
		for k := 2; seen[name]; k++ {
			name = strings.TrimSuffix(FileName(rec.Session, format), Extension(format)) + fmt.Sprintf("-%d", k) + Extension(format)
		}
		seen[name] = true
		names[i] = name
		if !force {
			if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
				return "", &TargetExistsError{Path: filepath.Join(dir, name)}
			}
		}
	}
	for i := range recs {
		if _, err := WriteExport(dir, names[i], pages[i], force); err != nil {
			return "", err
		}
	}
	return dir, nil
}
