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
// engine imports reflect (the payloads encode themselves). Fields are
// counted through embedded structs of the package and through struct
// types written inline: 14 fields added as one embedded struct are 14.
func TestDesignEventShape(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	structs := map[string]*ast.StructType{}
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
			if ts, ok := n.(*ast.TypeSpec); ok {
				if st, ok := ts.Type.(*ast.StructType); ok {
					structs[ts.Name.Name] = st
				}
			}
			return true
		})
	}
	event, ok := structs["Event"]
	if !ok {
		t.Fatal("Event is not a struct of the package")
	}
	fields := countFields(event, structs, map[string]bool{"Event": true})
	payload := false
	for _, fl := range event.Fields.List {
		if id, ok := fl.Type.(*ast.Ident); ok && id.Name == "Payload" {
			payload = true
		}
	}
	if fields > 8 {
		t.Errorf("Event has %d fields, want at most 8", fields)
	}
	if !payload {
		t.Errorf("Event has no Payload field")
	}
}

// countFields counts the fields of st: an embedded struct of the package
// or a field of an inline struct type counts its own fields.
func countFields(st *ast.StructType, structs map[string]*ast.StructType, seen map[string]bool) int {
	n := 0
	for _, fl := range st.Fields.List {
		typ := fl.Type
		if star, ok := typ.(*ast.StarExpr); ok {
			typ = star.X
		}
		inner, _ := typ.(*ast.StructType)
		if id, ok := typ.(*ast.Ident); ok && len(fl.Names) == 0 && !seen[id.Name] {
			inner = structs[id.Name]
			seen[id.Name] = true
		}
		switch {
		case inner != nil:
			n += max(len(fl.Names), 1) * countFields(inner, structs, seen)
		default:
			n += max(len(fl.Names), 1)
		}
	}
	return n
}
