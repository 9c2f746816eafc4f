package cli

import (
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/prefrag/prefrag/config"
)

// flagDeclarers are the methods of flag.FlagSet (and the package's
// functions) that declare a flag by name.
var flagDeclarers = map[string]bool{
	"Bool": true, "BoolVar": true, "BoolFunc": true, "String": true, "StringVar": true, "Int": true, "IntVar": true,
	"Int64": true, "Int64Var": true, "Uint": true, "UintVar": true, "Uint64": true, "Uint64Var": true, "Float64": true,
	"Float64Var": true, "Duration": true, "DurationVar": true, "Var": true, "Func": true, "TextVar": true,
}

// flagDeclarations finds, in every non-test Go file of the module, the
// calls that declare a flag named one of names, as "file:line".
func flagDeclarations(t *testing.T, names ...string) map[string][]string {
	t.Helper()
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	out := map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) && path != ".." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || !flagDeclarers[sel.Sel.Name] {
				return true
			}
			for _, a := range call.Args {
				lit, ok := a.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					continue
				}
				if s, err := strconv.Unquote(lit.Value); err == nil && want[s] {
					p := fset.Position(lit.Pos())
					out[s] = append(out[s], filepath.ToSlash(p.Filename)+":"+strconv.Itoa(p.Line))
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// The output flags are declared once, in outputflags.go: a command says
// what its --json prints, it does not declare the flag again. (Before,
// --json was declared in eleven places and --tokens in config.)
func TestOutputFlagsDeclaredOnce(t *testing.T) {
	decl := flagDeclarations(t, "json", "tokens")
	for _, name := range []string{"json", "tokens"} {
		if got := decl[name]; len(got) != 1 || !strings.HasPrefix(got[0], "../cli/outputflags.go:") {
			t.Errorf("--%s is declared at %v; declare it once, in cli/outputflags.go (bindJSON, bindEventOutput)", name, got)
		}
	}
}

// The commands that take ask's flags keep the contract's output flags.
func TestRunFlagsKeepTheContract(t *testing.T) {
	cfg, err := config.Load(func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	fs := flag.NewFlagSet("ask", flag.ContinueOnError)
	rf, out := bindRunFlags(fs, cfg)
	if err := fs.Parse([]string{"--json", "--tokens", "--k", "7"}); err != nil {
		t.Fatal(err)
	}
	if err := rf.Apply(); err != nil {
		t.Fatal(err)
	}
	if !out.JSON || !out.Tokens || !rf.Set("json") || !rf.Set("tokens") || cfg.Settings.K != 7 {
		t.Errorf("json %v tokens %v set %v/%v k %d", out.JSON, out.Tokens, rf.Set("json"), rf.Set("tokens"), cfg.Settings.K)
	}
	for name, help := range map[string]string{"json": jsonEventsHelp, "tokens": tokensHelp} {
		if f := fs.Lookup(name); f == nil || f.Usage != help {
			t.Errorf("--%s: %+v", name, f)
		}
	}
}
