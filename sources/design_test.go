package sources

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

// theOnePlace is where a source name is written and read (name.go) and
// the kinds table that holds the schemes (kind.go).
var theOnePlace = map[string]bool{"sources/name.go": true, "sources/kind.go": true}

// splitsOther are product files that split some other text at a colon or
// by a word that is also a scheme; each says what it splits. A new entry
// needs a reason that is not a source name.
var splitsOther = map[string]string{
	"evidence/concepts.go": `concept groups "name: words"`,
	"config/save.go":       `the config file's "web = …" line`,
	"mcpserve/search.go":   `the MCP fetch tool's passage id "CORPUS:PASSAGE" (a corpus name, then a passage id)`,
}

// notProduct are folders of test doubles, tests and tools: they may spell
// a source name out (a recorded session says "local:wiki").
var notProduct = []string{"internal/testdouble", "e2e", "scripts"}

// TestDesignSourceNamesOnlyInSources: a source's name is written and read
// in one place (Name, ParseName); no product file outside it spells a
// scheme prefix ("local:", "mcp:", "web:"), passes a scheme to a prefix
// function (strings.HasPrefix(src, "web")), or splits text at the name's
// colon (strings.Cut(src, ":")). (Check: put `strings.HasPrefix(d.Source,
// "local:")` into engine/run.go and this fails naming the file and line.)
func TestDesignSourceNamesOnlyInSources(t *testing.T) {
	schemes := map[string]bool{}
	for _, k := range kinds[:] {
		schemes[k.Scheme] = true
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
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if d.Name() == "testdata" || d.Name() == "vendor" || strings.HasPrefix(d.Name(), ".") && rel != "." {
				return filepath.SkipDir
			}
			for _, skip := range notProduct {
				if rel == skip {
					return filepath.SkipDir
				}
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || theOnePlace[rel] {
			return nil
		}
		checked++
		for _, u := range sourceNameUses(t, path, schemes, splitsOther[rel] != "") {
			t.Errorf("%s:%d: %s — build a sources.Name or call sources.ParseName (sources/name.go)", rel, u.line, u.what)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("only %d Go files checked under %s", checked, root)
	}
}

type nameUse struct {
	line int
	what string
}

// splitters are the strings and bytes functions that take text apart.
var splitters = map[string]bool{
	"Cut": true, "CutPrefix": true, "CutSuffix": true, "HasPrefix": true, "TrimPrefix": true,
	"Split": true, "SplitN": true, "SplitAfter": true, "SplitAfterN": true,
	"Index": true, "IndexByte": true, "IndexRune": true, "IndexAny": true, "LastIndex": true, "LastIndexByte": true,
}

// sourceNameUses finds a literal that starts with a scheme and its colon,
// and a splitter called with a scheme or a colon (unless the file splits
// other text, splitsOther).
func sourceNameUses(t *testing.T, path string, schemes map[string]bool, allowSplit bool) []nameUse {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var out []nameUse
	ast.Inspect(f, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.BasicLit:
			if x.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(x.Value)
			if err != nil {
				return true
			}
			if scheme, _, ok := strings.Cut(s, ":"); ok && schemes[scheme] {
				out = append(out, nameUse{fset.Position(x.Pos()).Line, "spells the source name prefix " + strconv.Quote(scheme+":")})
			}
		case *ast.CallExpr:
			sel, ok := x.Fun.(*ast.SelectorExpr)
			if !ok || !splitters[sel.Sel.Name] || allowSplit || len(x.Args) < 2 {
				return true
			}
			if pkg, ok := sel.X.(*ast.Ident); !ok || pkg.Name != "strings" && pkg.Name != "bytes" {
				return true
			}
			for _, a := range x.Args[1:] {
				lit, ok := a.(*ast.BasicLit)
				if !ok {
					continue
				}
				v := lit.Value
				if s, err := strconv.Unquote(v); err == nil {
					v = s
				}
				if v == ":" || lit.Kind == token.CHAR && lit.Value == "':'" || schemes[v] {
					out = append(out, nameUse{fset.Position(x.Pos()).Line, "splits text by " + lit.Value + " with strings." + sel.Sel.Name})
				}
			}
		}
		return true
	})
	return out
}
