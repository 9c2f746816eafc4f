package engine

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// Settings hold only what the engine reads (issue 20): every Settings field
// is read somewhere in the engine's product code, and no Wiring field is,
// outside runconfig.go, which writes the session's config object. The
// check type-checks the package, so a field read through a RunConfig (its
// promoted fields) counts as well.
func TestDesignSettingsOnlyWhatEngineReads(t *testing.T) {
	fset := token.NewFileSet()
	var files []*ast.File
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	info := &types.Info{Selections: map[*ast.SelectorExpr]*types.Selection{}}
	conf := types.Config{Importer: importer.ForCompiler(fset, "gc", exportData(t))}
	pkg, err := conf.Check("github.com/prefrag/prefrag/engine", fset, files, info)
	if err != nil {
		t.Fatal(err)
	}
	fieldsOf := func(name string) map[*types.Var]string {
		st := pkg.Scope().Lookup(name).Type().Underlying().(*types.Struct)
		out := map[*types.Var]string{}
		for i := range st.NumFields() {
			out[st.Field(i)] = st.Field(i).Name()
		}
		return out
	}
	settings, wiring := fieldsOf("Settings"), fieldsOf("Wiring")
	read := map[string]bool{}
	for sel, s := range info.Selections {
		if s.Kind() != types.FieldVal {
			continue
		}
		v, _ := s.Obj().(*types.Var)
		if name, ok := settings[v]; ok {
			read[name] = true
		}
		if name, ok := wiring[v]; ok {
			if file := filepath.Base(fset.Position(sel.Pos()).Filename); file != "runconfig.go" {
				t.Errorf("%s reads Wiring.%s: the engine does not read its wiring; move the field to Settings if it must", fset.Position(sel.Pos()), name)
			}
		}
	}
	var unread []string
	for _, name := range settings {
		if !read[name] {
			unread = append(unread, name)
		}
	}
	sort.Strings(unread)
	if len(unread) > 0 {
		t.Errorf("Settings fields the engine never reads: %v; they belong in Wiring", unread)
	}
	// The test reads the same struct as the compiler.
	if n := reflect.TypeFor[Settings]().NumField(); n != len(settings) {
		t.Fatalf("Settings has %d fields, the type check saw %d", n, len(settings))
	}
}

// exportData finds the compiled export data of the engine's dependencies
// with `go list -export`, for the gc importer.
func exportData(t *testing.T) func(path string) (io.ReadCloser, error) {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	out, err := exec.Command("go", "list", "-export", "-deps", "-f", "{{.ImportPath}} {{.Export}}", ".").Output()
	if err != nil {
		t.Fatalf("go list -export: %v", err)
	}
	files := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if path, file, ok := strings.Cut(line, " "); ok && file != "" {
			files[path] = file
		}
	}
	return func(path string) (io.ReadCloser, error) {
		file, ok := files[path]
		if !ok {
			return nil, os.ErrNotExist
		}
		return os.Open(file)
	}
}
