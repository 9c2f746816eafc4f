package llm

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestDesignBackendNamesOnlyInLLM: backends are one table here; no
// product file outside llm/ compares a backend's name (==, !=,
// strings.EqualFold or any other call given the name), switches on it,
// keys a map or indexes one by it, or lists the names again. A name is
// matched in any case ("OpenAI" is "openai").
//
// Mutations this catches (each made by hand once): `if s.LLM == "openai"`,
// `strings.EqualFold(s.LLM, "OpenAI")`, `case "llamacpp":`,
// `map[string]string{"llamacpp": "…"}`, `hints["ollama"]`,
// `[]string{"ollama", "openai"}`.
func TestDesignBackendNamesOnlyInLLM(t *testing.T) {
	names := map[string]bool{}
	for _, n := range BackendNames() {
		names[strings.ToLower(n)] = true
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
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range backendNameUses(t, path, src, names) {
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

// TestDesignBackendGuardCatches: the guard finds each way of naming a
// backend a person would write, and leaves a name inside a sentence alone.
func TestDesignBackendGuardCatches(t *testing.T) {
	names := map[string]bool{"ollama": true, "llamacpp": true, "openai": true}
	src := `package x

import "strings"

func f(s string, m map[string]int) {
	if s == "openai" {}
	if strings.EqualFold(s, "OpenAI") {}
	switch s {
	case "llamacpp":
	}
	_ = map[string]string{"llamacpp": "a llama.cpp server"}
	_ = m["ollama"]
	_ = []string{"ollama", "openai"}
	_ = strings.HasPrefix(s, "ollama")
	_ = "start ollama first"
	_ = struct{ a, b string }{"openai", "x"}
}
`
	var got []string
	for _, u := range backendNameUses(t, "x.go", []byte(src), names) {
		got = append(got, fmt.Sprintf("%d %s", u.line, u.what))
	}
	want := []string{
		`6 compares the backend name "openai"`,
		`7 passes the backend name "OpenAI" to strings.EqualFold`,
		`9 switches on the backend name "llamacpp"`,
		`11 keys a map by the backend name "llamacpp"`,
		`12 indexes by the backend name "ollama"`,
		`13 lists the backend names ollama, openai`,
		`14 passes the backend name "ollama" to strings.HasPrefix`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("found\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

type nameUse struct {
	line int
	what string
}

// backendNameUses finds a backend name compared (== or !=), given to a
// call, used as a switch case, a map key or an index, or listed twice or
// more in one composite literal.
func backendNameUses(t *testing.T, path string, src []byte, names map[string]bool) []nameUse {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	isName := func(e ast.Expr) (string, bool) {
		lit, ok := e.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(lit.Value)
		return s, err == nil && names[strings.ToLower(s)]
	}
	var out []nameUse
	use := func(n ast.Node, what string) {
		out = append(out, nameUse{fset.Position(n.Pos()).Line, what})
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.BinaryExpr:
			if x.Op != token.EQL && x.Op != token.NEQ {
				return true
			}
			for _, side := range []ast.Expr{x.X, x.Y} {
				if s, ok := isName(side); ok {
					use(x, "compares the backend name "+strconv.Quote(s))
				}
			}
		case *ast.CallExpr:
			for _, a := range x.Args {
				if s, ok := isName(a); ok {
					use(a, "passes the backend name "+strconv.Quote(s)+" to "+callee(x.Fun))
				}
			}
		case *ast.CaseClause:
			for _, e := range x.List {
				if s, ok := isName(e); ok {
					use(e, "switches on the backend name "+strconv.Quote(s))
				}
			}
		case *ast.IndexExpr:
			if s, ok := isName(x.Index); ok {
				use(x, "indexes by the backend name "+strconv.Quote(s))
			}
		case *ast.CompositeLit:
			var listed []string
			for _, e := range x.Elts {
				if kv, ok := e.(*ast.KeyValueExpr); ok {
					if s, ok := isName(kv.Key); ok {
						use(kv, "keys a map by the backend name "+strconv.Quote(s))
					}
					continue
				}
				if s, ok := isName(e); ok {
					listed = append(listed, s)
				}
			}
			if len(listed) >= 2 {
				use(x, "lists the backend names "+strings.Join(listed, ", "))
			}
		}
		return true
	})
	return out
}

// callee names the function a call calls, as written.
func callee(fun ast.Expr) string {
	switch f := fun.(type) {
	case *ast.Ident:
		return f.Name
	case *ast.SelectorExpr:
		return callee(f.X) + "." + f.Sel.Name
	}
	return "a function"
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
