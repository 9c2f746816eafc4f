package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/prefrag/prefrag/engine"
)

// isWebKeyLine reports whether l is a `web = …` line of a config file.
func isWebKeyLine(l string) bool {
	rest, ok := strings.CutPrefix(strings.TrimSpace(l), "web")
	return ok && strings.HasPrefix(strings.TrimSpace(rest), "=")
}

// SaveWeb records the user's web policy (the workspace's first-run
// choice) as the `web` key of the config file, creating the file when
// there is none and keeping every other line as it was. The choice then
// counts as made: WebChosen is true from the next start.
func (c *Config) SaveWeb(policy string) error {
	switch policy {
	case engine.WebAuto, engine.WebAsk, engine.WebNever:
	default:
		return fmt.Errorf("%w: web must be auto, ask or never, not %q", ErrConfig, policy)
	}
	path := c.FilePath
	if path == "" {
		return fmt.Errorf("%w: there is no config file to save the web policy in (set PREFRAG_CONFIG or HOME)", ErrConfig)
	}
	b, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w: cannot read %s: %v", ErrConfig, path, err)
	}
	line := fmt.Sprintf("web = %q", policy)
	lines := strings.SplitAfter(string(b), "\n")
	replaced := false
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "[") {
			break // a table starts: keys after it are not top-level
		}
		if isWebKeyLine(l) {
			lines[i] = line + "\n"
			replaced = true
			break
		}
	}
	text := strings.Join(lines, "")
	if !replaced {
		// At the top: a key after a [table] header would belong to it.
		text = line + "  # chosen in the workspace's first-run dialog\n" + text
	}
	mode := fs.FileMode(0o644)
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("%w: cannot create %s: %v", ErrConfig, filepath.Dir(path), err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(text), mode); err != nil {
		return fmt.Errorf("%w: cannot write %s: %v", ErrConfig, path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("%w: cannot write %s: %v", ErrConfig, path, err)
	}
	c.Settings.Web = policy
	c.setOrigin("web", Origin{Kind: FromFile})
	c.File = path
	return nil
}
