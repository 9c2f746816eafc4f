package llm

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestDesignBackendNamesOnlyInLLM: backends are one table here; no
// product file outside llm/ compares a backend's name, switches on it or
// lists the names again. (Check: put `if s.LLM == "openai" {}` into any
// package outside llm/ and this fails naming the file and line.)
func TestDesignBackendNamesOnlyInLLM(t *testing.T) {
	names := map[string]bool{}
	for _, n := range BackendNames() {
		names[n] = true
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if rel == "llm" || d.Name() == "testdata" || d.Name() == "vendor" || strings.HasPrefix(d.Name(), ".") && rel != "." {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		checked++
		for _, p := range backendNameUses(t, path, names) {
			t.Errorf("%s:%d: %s — ask llm's backend table instead", rel, p.line, p.what)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 50 {
		t.Fatalf("only %d Go files checked under %s", checked, root)
	}
}

type nameUse struct {
	line int
	what string
}

// backendNameUses finds a backend name compared (== or !=), used as a
// switch case, or listed twice or more in one composite literal.
func backendNameUses(t *testing.T, path string, names map[string]bool) []nameUse {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	isName := func(e ast.Expr) (string, bool) {
		lit, ok := e.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(lit.Value)
		return s, err == nil && names[s]
	}
	var out []nameUse
	ast.Inspect(f, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.BinaryExpr:
			if x.Op != token.EQL && x.Op != token.NEQ {
				return true
			}
			for _, side := range []ast.Expr{x.X, x.Y} {
				if s, ok := isName(side); ok {
					out = append(out, nameUse{fset.Position(x.Pos()).Line, "compares the backend name " + strconv.Quote(s)})
				}
			}
		case *ast.CaseClause:
			for _, e := range x.List {
				if s, ok := isName(e); ok {
					out = append(out, nameUse{fset.Position(e.Pos()).Line, "switches on the backend name " + strconv.Quote(s)})
				}
			}
		case *ast.CompositeLit:
			var listed []string
			for _, e := range x.Elts {
				if s, ok := isName(e); ok {
					listed = append(listed, s)
				}
			}
			if len(listed) >= 2 {
				out = append(out, nameUse{fset.Position(x.Pos()).Line, "lists the backend names " + strings.Join(listed, ", ")})
			}
		}
		return true
	})
	return out
}

// Every row of the table is complete, and its words are its own.
func TestBackendTable(t *testing.T) {
	for _, name := range BackendNames() {
		b, _ := LookupBackend(name)
		if b.Title == "" || b.Kind == "" || b.DefaultURL == "" || b.DefaultPort == "" || b.Start == nil || b.ContextHint == "" ||
			b.MissingModel == nil || b.AdviceMissingModel == nil || b.AdviceUnreachable == nil || b.Caps.Structured == "" {
			t.Errorf("row %s is incomplete: %+v", name, b)
		}
		if !strings.Contains(b.DefaultURL, ":"+b.DefaultPort) {
			t.Errorf("row %s: default URL %s is not on its port %s", name, b.DefaultURL, b.DefaultPort)
		}
	}
	if _, ok := LookupBackend(DefaultBackend); !ok {
		t.Errorf("the default backend %q has no row", DefaultBackend)
	}
	if _, err := NewClient("nope", "http://x", "m"); err == nil {
		t.Error("an unknown backend was built")
	}
}
