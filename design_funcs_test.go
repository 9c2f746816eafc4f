package main

// The guard for "functions a reader can hold" (README, How we write code):
// no product function over maxFuncLines lines or over cyclomatic
// maxCyclomatic. Product code is every non-test Go file of a package in a
// layer of design_test.go's table (the packages apart from it — test
// doubles, e2e, developer scripts — are not measured).

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

const (
	// maxFuncLines is the most lines a function may span, from "func" to
	// its closing brace (we aim at 80).
	maxFuncLines = 100
	// maxCyclomatic is the highest cyclomatic complexity a function may
	// have, counted as gocyclo counts it (the branches of the function
	// literals inside it included).
	maxCyclomatic = 30
)

// bigFuncs are the product functions over a limit today, each with why and
// what ends it, keyed "file Func": TestDesignFunctionSize fails on any
// other, and on one of these once it is within the limits (remove its row
// then).
var bigFuncs = map[string]string{
	// "file Func": "why, and what would end it",
}

// TestDesignFunctionSize: no product function passes maxFuncLines lines
// or cyclomatic maxCyclomatic, but those bigFuncs names.
//
// Mutations this catches (each made by hand once): Trajectory.Apply
// restored as it was before the per-payload split (103 lines, cyclomatic
// 52); ui/styles.New restored as one function (119 lines, cyclomatic 7:
// length alone); the runIndex row removed from bigFuncs; a row added for
// a function within the limits.
func TestDesignFunctionSize(t *testing.T) {
	funcs := productFuncs(t)
	if len(funcs) < 1000 {
		t.Fatalf("only %d product functions measured: the guard is not looking", len(funcs))
	}
	seen := map[string]bool{}
	for _, f := range funcs {
		if f.lines <= maxFuncLines && f.cyclomatic <= maxCyclomatic {
			continue
		}
		if _, ok := bigFuncs[f.key]; ok {
			seen[f.key] = true
			continue
		}
		t.Errorf("%s: %s is %d lines, cyclomatic %d (at most %d and %d): split it by what its parts mean",
			f.pos, f.name, f.lines, f.cyclomatic, maxFuncLines, maxCyclomatic)
	}
	var stale []string
	for k := range bigFuncs {
		if !seen[k] {
			stale = append(stale, k)
		}
	}
	sort.Strings(stale)
	for _, k := range stale {
		t.Errorf("%s is within the limits now (or gone): remove its row from bigFuncs", k)
	}
}

// TestDesignFunctionSizeMeasure checks the measure on functions whose counts are known.
func TestDesignFunctionSizeMeasure(t *testing.T) {
	src := `package p

func a() {}

func (r *T) b(x int) int {
	if x > 0 && x < 9 || x == 20 {
		return 1
	}
	for i := 0; i < x; i++ {
	}
	for range []int{} {
	}
	switch x {
	case 1, 2:
	case 3:
	default:
	}
	select {
	case <-c:
	default:
	}
	f := func() {
		if x == 0 {
		}
	}
	_ = f
	return 0
}

var g = func() int {
	if true {
		return 1
	}
	return 0
}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][2]int{}
	for _, fn := range measureFile(fset, f, "p.go") {
		got[fn.name] = [2]int{fn.lines, fn.cyclomatic}
	}
	want := map[string][2]int{
		"a":            {1, 1},
		"T.b":          {24, 10}, // 1 + if, &&, ||, for, range, 2 cases, 1 select case, the literal's if
		"func literal": {6, 2},
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s: lines and cyclomatic %v, want %v", name, got[name], w)
		}
	}
}

// measuredFunc is one function (a declared one, or a literal outside any)
// of a product file.
type measuredFunc struct {
	key, name, pos    string
	lines, cyclomatic int
}

// productFuncs measures every function of the module's product files.
func productFuncs(t *testing.T) []measuredFunc {
	t.Helper()
	var out []measuredFunc
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != "." && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			if layer, ok := place(filepath.ToSlash(path)); ok && layer < 0 {
				return filepath.SkipDir // a test double, the e2e tests, a script
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		out = append(out, measureFile(fset, f, filepath.ToSlash(path))...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// measureFile measures the declared functions of f and the function
// literals outside them (those inside count to their function).
func measureFile(fset *token.FileSet, f *ast.File, rel string) []measuredFunc {
	var out []measuredFunc
	ast.Inspect(f, func(n ast.Node) bool {
		name := "func literal"
		switch x := n.(type) {
		case *ast.FuncDecl:
			if x.Body == nil {
				return false
			}
			name = funcName(x)
		case *ast.FuncLit:
		default:
			return true
		}
		start, end := fset.Position(n.Pos()), fset.Position(n.End())
		out = append(out, measuredFunc{
			key:        rel + " " + name,
			name:       name,
			pos:        fmt.Sprintf("%s:%d", rel, start.Line),
			lines:      end.Line - start.Line + 1,
			cyclomatic: cyclomatic(n),
		})
		return false
	})
	return out
}

// funcName is a declared function's name, "Type.Method" for a method.
func funcName(d *ast.FuncDecl) string {
	if d.Recv == nil || len(d.Recv.List) == 0 {
		return d.Name.Name
	}
	t := d.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	switch x := t.(type) {
	case *ast.IndexExpr:
		t = x.X
	case *ast.IndexListExpr:
		t = x.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + d.Name.Name
	}
	return d.Name.Name
}

// cyclomatic is 1 plus the decisions under n: if, for, range, each case
// but default, each select case but default, each && and ||.
func cyclomatic(n ast.Node) int {
	c := 1
	ast.Inspect(n, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.IfStmt, *ast.ForStmt, *ast.RangeStmt:
			c++
		case *ast.CaseClause:
			if x.List != nil {
				c++
			}
		case *ast.CommClause:
			if x.Comm != nil {
				c++
			}
		case *ast.BinaryExpr:
			if x.Op == token.LAND || x.Op == token.LOR {
				c++
			}
		}
		return true
	})
	return c
}
