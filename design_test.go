package main

// Guards for the layout of DESIGN.md ("Layout"): the layers, test doubles
// kept apart from product code, and no UI or SQLite below the UI. They
// read the import graph of the module's non-test files with `go list`, so
// what a package imports through another counts too.
//
// Adding or moving a package means editing its row below (moving the CLI
// to cli/ and the test doubles to internal/testdouble/ was a five-line
// change); a package in no row fails TestDesignLayers, a row that names no
// package fails TestDesignTableRowsMatch.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
)

const module = "github.com/prefrag/prefrag"

// layers is the layer map, top to bottom. A product package imports only
// packages of its own layer or of a lower one. A pattern is a package path
// relative to the module ("." is the module's root), or "dir/..." for dir
// and every package below it; the longest matching pattern of this table
// and of apart wins.
var layers = []struct {
	name string
	pkgs []string
}{
	{"front: command line, workspace and MCP server", []string{".", "cli", "ui/...", "mcpserve"}},
	{"wiring: a run from the configuration", []string{"app/...", "config"}},
	{"core: engine, store, evaluation", []string{"engine/...", "store/...", "eval/...", "bench/..."}},
	{"sources, LLM backends, prompts", []string{"sources/...", "llm/...", "prompts", "demo"}},
	{"leaves", []string{"internal/lazyre", "internal/plural", "internal/protocol", "internal/searxwire", "internal/suggest", "internal/textsafe", "internal/exportmark", "guide", "evidence"}},
}

// upward are the imports that run up a layer today, each with why and
// what would end it. TestDesignLayers fails on any other, and on one of
// these once it is gone (remove its row then).
var upward = map[[2]string]string{
	// {"pkg", "dep"}: "why, and what would end it",
}

// apart are the packages that are not product code: test doubles (and the
// commands that run one on its own), tests and developer tools. No product
// package imports them; they may import anything.
var apart = map[string]string{
	"internal/testdouble/...": "test double",
	"e2e":                     "tests of the built binary",
	"scripts/...":             "developer tool",
}

// noSQLite are the packages that know nothing of SQLite (nor of
// database/sql), with every leaf. No package below the front layer knows
// anything of a terminal UI.
var noSQLite = []string{"engine/...", "sources/...", "llm/...", "prompts", "demo"}

// uiImports and sqliteImports are import path patterns ("dir/..." for dir
// and everything below it). database/sql/driver (a few interfaces uuid
// implements) is not database/sql.
var (
	uiImports     = []string{"charm.land/...", "github.com/charmbracelet/...", "github.com/muesli/..."}
	sqliteImports = []string{"github.com/mattn/go-sqlite3/...", "modernc.org/sqlite/...", "github.com/glebarez/go-sqlite/...", "database/sql"}
)

// sqlAllowed may use database/sql (never a SQLite driver): Manticore is
// spoken to over the MySQL protocol.
var sqlAllowed = map[string]bool{"sources/manticore": true}

type listedPackage struct {
	ImportPath string
	Imports    []string
	Deps       []string
}

var listed struct {
	sync.Once
	pkgs []listedPackage
	err  error
}

// modulePackages lists the module's packages with their non-test imports
// and transitive dependencies (once per test binary).
func modulePackages(t *testing.T) []listedPackage {
	t.Helper()
	listed.Do(func() { listed.pkgs, listed.err = listPackages() })
	if listed.err != nil {
		t.Fatal(listed.err)
	}
	return listed.pkgs
}

func listPackages() ([]listedPackage, error) {
	cmd := exec.Command("go", "list", "-json", "./...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %v\n%s", err, stderr.String())
	}
	var pkgs []listedPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listedPackage
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return nil, err
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) == 0 {
		return nil, fmt.Errorf("go list found no package")
	}
	return pkgs, statSources()
}

// statSources looks at every folder and Go file of the module from this
// process, so that `go test` caches these tests' results only as long as
// no file changes: `go list` reads them in a process of its own, which the
// test cache does not see.
func statSources() error {
	return filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "." && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(path, ".go") || d.Name() == "go.mod" {
			_, err = os.Stat(path)
		}
		return err
	})
}

// rel is a module path relative to the module ("." for its root); ok is
// false outside the module.
func rel(path string) (string, bool) {
	if path == module {
		return ".", true
	}
	r, ok := strings.CutPrefix(path, module+"/")
	return r, ok
}

// matches reports how specific pattern is for pkg (a package of the
// module, or any import path): 0 when it does not
// match, longer patterns higher, an exact match above a "/..." one.
func matches(pattern, pkg string) int {
	if dir, ok := strings.CutSuffix(pattern, "/..."); ok {
		if pkg == dir || strings.HasPrefix(pkg, dir+"/") {
			return 2 * len(dir)
		}
		return 0
	}
	if pkg == pattern {
		return 2*len(pattern) + 1
	}
	return 0
}

func matchesAny(patterns []string, pkg string) bool {
	for _, p := range patterns {
		if matches(p, pkg) > 0 {
			return true
		}
	}
	return false
}

// place is where a package stands: its layer index (0 is the top), or -1
// when it is apart from product code; ok is false when no row names it.
func place(pkg string) (layer int, ok bool) {
	best := 0
	for pattern := range apart {
		if m := matches(pattern, pkg); m > best {
			best, layer = m, -1
		}
	}
	for i, l := range layers {
		for _, pattern := range l.pkgs {
			if m := matches(pattern, pkg); m > best {
				best, layer = m, i
			}
		}
	}
	return layer, best > 0
}

// TestDesignLayers: every package of the module is in the table, and no
// product package imports a package of a higher layer.
func TestDesignLayers(t *testing.T) {
	seen := map[[2]string]bool{}
	defer func() {
		for imp, why := range upward {
			if !seen[imp] && !t.Failed() {
				t.Errorf("%s no longer imports %s (%s): remove the row from upward", imp[0], imp[1], why)
			}
		}
	}()
	for _, p := range modulePackages(t) {
		pkg, _ := rel(p.ImportPath)
		layer, ok := place(pkg)
		if !ok {
			t.Errorf("package %s is in no row of the layer table: add it to its layer (or to apart) in design_test.go, and to the README's layout", pkg)
			continue
		}
		if layer < 0 {
			continue
		}
		for _, imp := range p.Imports {
			dep, inModule := rel(imp)
			if !inModule {
				continue
			}
			if depLayer, ok := place(dep); ok && depLayer >= 0 && depLayer < layer {
				if _, known := upward[[2]string{pkg, dep}]; known {
					seen[[2]string{pkg, dep}] = true
					continue
				}
				t.Errorf("%s (%s) imports %s (%s): an import running up a layer", pkg, layers[layer].name, dep, layers[depLayer].name)
			}
		}
	}
}

// TestDesignNoTestDoubleInProduct: no product package imports a test
// double, a test or a tool, directly or through another package.
func TestDesignNoTestDoubleInProduct(t *testing.T) {
	for _, p := range modulePackages(t) {
		pkg, _ := rel(p.ImportPath)
		if layer, ok := place(pkg); !ok || layer < 0 {
			continue
		}
		for _, imp := range p.Deps {
			dep, inModule := rel(imp)
			if !inModule {
				continue
			}
			if layer, ok := place(dep); ok && layer < 0 {
				t.Errorf("product package %s depends on %s (%s)", pkg, dep, apartNote(dep))
			}
		}
	}
}

func apartNote(pkg string) string {
	best, note := 0, ""
	for pattern, n := range apart {
		if m := matches(pattern, pkg); m > best {
			best, note = m, n
		}
	}
	return note
}

// TestDesignNoUIBelowTheUI: no product package below the front layer (the
// engine, sources, LLM backends, prompts, the store, app…) imports a
// terminal UI package; the engine, sources, LLM backends, prompts and the
// leaves import no SQLite (nor database/sql); directly or through another
// package.
func TestDesignNoUIBelowTheUI(t *testing.T) {
	pkgs := modulePackages(t)
	// bad: what each checked package must not depend on but does.
	bad := map[string]map[string]string{}
	for _, p := range pkgs {
		pkg, _ := rel(p.ImportPath)
		layer, _ := place(pkg)
		if layer <= 0 {
			continue // the front, or apart from product code
		}
		sqlite := layer == len(layers)-1 || matchesAny(noSQLite, pkg)
		bad[pkg] = map[string]string{}
		for _, dep := range append(append([]string{}, p.Imports...), p.Deps...) {
			switch {
			case matchesAny(uiImports, dep):
				bad[pkg][dep] = "terminal UI"
			case sqlite && matchesAny(sqliteImports, dep) && !(dep == "database/sql" && sqlAllowed[pkg]):
				bad[pkg][dep] = "SQLite"
			}
		}
	}
	if len(bad) == 0 {
		t.Fatal("no package checked: the layer table matches nothing")
	}
	// Name only the packages that bring a forbidden dependency in
	// themselves, not each package that imports one of them.
	for _, p := range pkgs {
		pkg, _ := rel(p.ImportPath)
		var own []string
		for dep, why := range bad[pkg] {
			inherited := false
			for _, imp := range p.Imports {
				if q, ok := rel(imp); ok && bad[q][dep] != "" {
					inherited = true
					break
				}
			}
			if !inherited {
				own = append(own, dep+" ("+why+")")
			}
		}
		if len(own) > 0 {
			own = dedupe(own)
			if len(own) > 3 {
				own = append(own[:3], fmt.Sprintf("and %d more", len(own)-3))
			}
			t.Errorf("%s depends on %s", pkg, strings.Join(own, ", "))
		}
	}
}

func dedupe(s []string) []string {
	sort.Strings(s)
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// TestDesignTableRowsMatch: every row of the tables names at least one
// package, so a moved package does not leave a stale row behind.
func TestDesignTableRowsMatch(t *testing.T) {
	var pkgs []string
	for _, p := range modulePackages(t) {
		pkg, _ := rel(p.ImportPath)
		pkgs = append(pkgs, pkg)
	}
	check := func(pattern, where string) {
		for _, pkg := range pkgs {
			if matches(pattern, pkg) > 0 {
				return
			}
		}
		t.Errorf("%s names %q, which matches no package of the module: update the row", where, pattern)
	}
	for _, l := range layers {
		for _, pattern := range l.pkgs {
			check(pattern, fmt.Sprintf("layer %q", l.name))
		}
	}
	for pattern := range apart {
		check(pattern, "apart")
	}
	for _, pattern := range noSQLite {
		check(pattern, "noSQLite")
	}
}
