package engine

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// The design tests of this file read every product Go file of the module
// outside package engine itself (engine/fold and every other package
// included), so that a new renderer is guarded without being listed.

// productFile is one parsed product file.
type productFile struct {
	rel  string
	fset *token.FileSet
	f    *ast.File
	// engine is the name the file imports package engine as ("" when it
	// does not); inEngine: the file is of package engine.
	engine   string
	inEngine bool
}

const enginePath = "github.com/prefrag/prefrag/engine"

// productFiles parses the module's product files (no tests, no testdata),
// those of package engine's own directory included when withEngine.
func productFiles(t *testing.T, withEngine bool) []productFile {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	var out []productFile
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if d.Name() == "testdata" || d.Name() == "vendor" || strings.HasPrefix(d.Name(), ".") && rel != "." {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		if filepath.Dir(rel) == "engine" && !withEngine {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		pf := productFile{rel: rel, fset: fset, f: f, inEngine: filepath.Dir(rel) == "engine"}
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == enginePath {
				pf.engine = "engine"
				if imp.Name != nil {
					pf.engine = imp.Name.Name
				}
			}
		}
		out = append(out, pf)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) < 100 {
		t.Fatalf("only %d product files under %s", len(out), root)
	}
	return out
}

// engineName returns the name e refers to in package engine (X for
// engine.X in a file importing it, X for X in package engine), "" if none.
func (pf productFile) engineName(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.SelectorExpr:
		if id, ok := x.X.(*ast.Ident); ok && pf.engine != "" && id.Name == pf.engine {
			return x.Sel.Name
		}
	case *ast.Ident:
		if pf.inEngine {
			return x.Name
		}
	}
	return ""
}

// eventTypeNames are the event types of the decoder table.
func eventTypeNames() map[string]bool {
	out := map[string]bool{}
	for typ := range payloadDecoders {
		out[typ] = true
	}
	return out
}

// payloadTypeNames are the Go types of the decoder table's payloads
// ("Thought", …), by event type.
func payloadTypeNames(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for typ, decode := range payloadDecoders {
		p, err := decode([]byte(`{}`))
		if err != nil {
			t.Fatalf("%s: %v", typ, err)
		}
		out[typ] = reflect.TypeOf(p).Name()
	}
	return out
}

// isTypeCall reports whether e is a call of a method Type without
// arguments (Event.Type()).
func isTypeCall(e ast.Expr) bool {
	c, ok := e.(*ast.CallExpr)
	if !ok || len(c.Args) != 0 {
		return false
	}
	sel, ok := c.Fun.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == "Type"
}

// TestDesignRenderersReadPayloads: what shows or keeps a run (the CLI's
// text and spinner, the workspace, the exports, the fold, the store, the
// evaluation: every package but engine itself) reads an event through its
// payload type, never by comparing or switching on the type's name: an
// engine.Event… constant, or a string literal naming an event type set
// against an event's Type().
//
// Mutations this catches (each made by hand once): `if typ !=
// engine.EventSelection` in store/verdicts.go (as it was), `case
// engine.EventFinal:`, `if ev.Type() == "final"`, `switch ev.Type() { case
// "answer": }`.
func TestDesignRenderersReadPayloads(t *testing.T) {
	for _, pf := range productFiles(t, false) {
		for _, u := range typeNameUses(pf, eventTypeNames()) {
			t.Errorf("%s — read the payload's type instead", u)
		}
	}
}

func TestDesignRenderersGuardCatches(t *testing.T) {
	src := `package x

import ev "github.com/prefrag/prefrag/engine"

func f(e ev.Event, typ string) {
	if typ != ev.EventSelection {}
	switch typ {
	case ev.EventFinal:
	}
	if e.Type() == "final" {}
	switch e.Type() {
	case "answer", "later":
	}
	if e.Type() == "" {}
	if typ == "final" {}
}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "x.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	got := typeNameUses(productFile{rel: "x.go", fset: fset, f: f, engine: "ev"}, eventTypeNames())
	want := []string{
		"x.go:6:5: compares an event type name",
		"x.go:8:7: switches on an event type name",
		"x.go:10:5: compares an event's type with \"final\"",
		"x.go:12:7: switches an event's type on \"answer\"",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("found\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// typeNameUses finds the places of pf that read an event by its type name.
func typeNameUses(pf productFile, types map[string]bool) []string {
	isConst := func(e ast.Expr) bool {
		n := pf.engineName(e)
		return strings.HasPrefix(n, "Event") && n != "Event" && !pf.inEngine
	}
	isTypeLit := func(e ast.Expr) (string, bool) {
		lit, ok := e.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(lit.Value)
		return s, err == nil && types[s]
	}
	var out []string
	at := func(n ast.Node, what string) {
		pos := pf.fset.Position(n.Pos())
		out = append(out, fmt.Sprintf("%s:%d:%d: %s", pf.rel, pos.Line, pos.Column, what))
	}
	ast.Inspect(pf.f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SwitchStmt:
			for _, c := range n.Body.List {
				for _, e := range c.(*ast.CaseClause).List {
					if isConst(e) {
						at(e, "switches on an event type name")
					} else if s, ok := isTypeLit(e); ok && n.Tag != nil && isTypeCall(n.Tag) {
						at(e, "switches an event's type on "+strconv.Quote(s))
					}
				}
			}
			return true
		case *ast.BinaryExpr:
			if n.Op != token.EQL && n.Op != token.NEQ {
				return true
			}
			if isConst(n.X) || isConst(n.Y) {
				at(n, "compares an event type name")
				return true
			}
			for _, pair := range [][2]ast.Expr{{n.X, n.Y}, {n.Y, n.X}} {
				if s, ok := isTypeLit(pair[1]); ok && isTypeCall(pair[0]) {
					at(n, "compares an event's type with "+strconv.Quote(s))
				}
			}
		}
		return true
	})
	return out
}

// TestDesignPayloadSwitchesExhaustive: a type switch that names three or
// more payload types renders (or folds) events, and names every payload
// type of the decoder table: those it shows in cases of their own, the
// others in a case it leaves empty, so that a new payload type fails here
// until each renderer says what it does with it. A switch over the payload
// of a note block (engine/fold's KindNote: the gate, a rewrite, …) names
// every payload type fold makes a note of instead. A switch naming one or
// two payload types picks them out and is left alone.
//
// Mutations this catches (each made by hand once): a payload type added to
// the decoder table and rendered nowhere; `case engine.Evidence:` removed
// from cli/render.go's switch; engine.Refinement left out of the HTML
// export's note switch.
func TestDesignPayloadSwitchesExhaustive(t *testing.T) {
	names := payloadTypeNames(t)
	all := map[string]bool{}
	for _, n := range names {
		all[n] = true
	}
	files := productFiles(t, true)
	notes := noteTypes(t, files)
	if len(notes) < 3 {
		t.Fatalf("fold makes notes of %v: the guard cannot find them", notes)
	}
	switches := 0
	for _, pf := range files {
		for _, sw := range payloadSwitches(pf, all) {
			if len(sw.named) < 3 {
				continue
			}
			switches++
			want, what := all, "payload type"
			if subset(sw.named, notes) {
				want, what = notes, "note payload type"
			}
			var missing []string
			for n := range want {
				if !sw.named[n] {
					missing = append(missing, n)
				}
			}
			sort.Strings(missing)
			if len(missing) > 0 {
				t.Errorf("%s: the %s switch names no case for %s — render them, or list them in a case left empty",
					sw.pos, what, strings.Join(missing, ", "))
			}
		}
	}
	if switches < 6 {
		t.Errorf("only %d payload type switches found: the guard is not looking", switches)
	}
}

func subset(a, b map[string]bool) bool {
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

// noteTypes are the payload types engine/fold makes a note block of: those
// of the type switch case whose body names KindNote.
func noteTypes(t *testing.T, files []productFile) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, pf := range files {
		if filepath.ToSlash(filepath.Dir(pf.rel)) != "engine/fold" {
			continue
		}
		ast.Inspect(pf.f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSwitchStmt)
			if !ok {
				return true
			}
			for _, c := range ts.Body.List {
				cc := c.(*ast.CaseClause)
				kind := false
				for _, st := range cc.Body {
					ast.Inspect(st, func(m ast.Node) bool {
						if id, ok := m.(*ast.Ident); ok && id.Name == "KindNote" {
							kind = true
						}
						return !kind
					})
				}
				if !kind {
					continue
				}
				for _, e := range cc.List {
					if name := pf.engineName(e); name != "" {
						out[name] = true
					}
				}
			}
			return true
		})
	}
	return out
}

type payloadSwitch struct {
	pos   string
	named map[string]bool
}

// payloadSwitches lists the type switches of pf with the payload types
// their cases name.
func payloadSwitches(pf productFile, payloads map[string]bool) []payloadSwitch {
	var out []payloadSwitch
	ast.Inspect(pf.f, func(n ast.Node) bool {
		ts, ok := n.(*ast.TypeSwitchStmt)
		if !ok {
			return true
		}
		pos := pf.fset.Position(ts.Pos())
		sw := payloadSwitch{pos: fmt.Sprintf("%s:%d", pf.rel, pos.Line), named: map[string]bool{}}
		for _, c := range ts.Body.List {
			for _, e := range c.(*ast.CaseClause).List {
				if name := pf.engineName(e); payloads[name] {
					sw.named[name] = true
				}
			}
		}
		if len(sw.named) > 0 {
			out = append(out, sw)
		}
		return true
	})
	return out
}
