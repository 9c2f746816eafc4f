package engine

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestDesignEventShape: an event is a header and one payload. Event has at
// most 8 fields, one of them the payload, and no product file of the
// engine imports reflect (the payloads encode themselves).
func TestDesignEventShape(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	fields := -1
	payload := false
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == "reflect" {
				t.Errorf("%s imports reflect", name)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok || ts.Name.Name != "Event" {
				return true
			}
			st, ok := ts.Type.(*ast.StructType)
			if !ok {
				t.Fatalf("Event is not a struct")
			}
			fields = 0
			for _, fl := range st.Fields.List {
				fields += max(len(fl.Names), 1)
				if id, ok := fl.Type.(*ast.Ident); ok && id.Name == "Payload" {
					payload = true
				}
			}
			return false
		})
	}
	if fields < 0 || fields > 8 {
		t.Errorf("Event has %d fields, want at most 8", fields)
	}
	if !payload {
		t.Errorf("Event has no Payload field")
	}
}

// TestDesignRenderersReadPayloads: what shows a run (the CLI's text and
// spinner, the workspace, the exports, the fold, the evaluation) reads an
// event through its payload type, never by comparing or switching on the
// type's name (engine.Event… constants).
func TestDesignRenderersReadPayloads(t *testing.T) {
	var files []string
	for _, dir := range []string{"fold", "../cli", "../app/delivery", "../ui", "../ui/trajectory", "../store/export", "../eval", "../mcpserve"} {
		fs, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(fs) == 0 {
			t.Fatalf("%s: no Go files (%v)", dir, err)
		}
		files = append(files, fs...)
	}
	fset := token.NewFileSet()
	isTypeName := func(e ast.Expr) bool {
		sel, ok := e.(*ast.SelectorExpr)
		if !ok {
			return false
		}
		pkg, ok := sel.X.(*ast.Ident)
		return ok && pkg.Name == "engine" && strings.HasPrefix(sel.Sel.Name, "Event") && sel.Sel.Name != "Event"
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CaseClause:
				for _, e := range n.List {
					if isTypeName(e) {
						t.Errorf("%s: switches on an event type name", fset.Position(e.Pos()))
					}
				}
			case *ast.BinaryExpr:
				if (n.Op == token.EQL || n.Op == token.NEQ) && (isTypeName(n.X) || isTypeName(n.Y)) {
					t.Errorf("%s: compares an event type name", fset.Position(n.Pos()))
				}
			}
			return true
		})
	}
}
