package e2e

import (
	"bufio"
	"bytes"
	"debug/buildinfo"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// notLinked are modules whose package initialisation cost start-up time on
// every command (chroma's lexer and style registries alone ~20 ms) and that
// the binary no longer needs: glamour (and with it chroma, bluemonday,
// goldmark-emoji) was replaced by ui/trajectory/mdrender.go.
var notLinked = []string{
	"charm.land/glamour/v2",
	"github.com/alecthomas/chroma/v2",
	"github.com/microcosm-cc/bluemonday",
	"github.com/yuin/goldmark-emoji",
	"github.com/charmbracelet/glamour",
}

// notInitialised are packages whose init was heavy and that the binary no
// longer links: goldmark's extension package compiled its linkify and
// table regular expressions at every start (~2.5 ms, 0.27 MB); the GFM
// extensions are ours now (ui/trajectory/mdext*.go). inittrace names every
// linked package that has initialisation work.
var notInitialised = []string{
	"github.com/yuin/goldmark/extension",
	"github.com/yuin/goldmark/renderer/html",
}

// lazyFrom are the first versions of modules whose tables are built on
// first use instead of in init (go-runewidth up to v0.0.27 filled 2×1.1 MB
// width tables at start-up: ~28 ms on every command).
var lazyFrom = map[string]int{"github.com/mattn/go-runewidth": 28}

// Start-up budget of package initialisation, in what GODEBUG=inittrace
// counts independently of the machine: heap bytes and allocations of all
// inits together. Before this guard: 7.4 MB and 103k allocations; with it
// about 2.2 MB and 34k (bleve's scorch alone 1.1 MB and 26k).
const (
	maxInitBytes  = 4 << 20
	maxInitAllocs = 60000
)

// maxOwnInitBytes bounds what prefrag's own packages allocate in their
// inits together (regular expressions compile on first use through
// internal/lazyre): about 290 KB before this guard, about 48 KB with it.
const maxOwnInitBytes = 64 << 10

// The binary keeps start-up work small: the modules with heavy package
// initialisation are not linked, lazy versions are used, and the inits of
// all linked packages stay within a generous allocation budget.
func TestBinaryLinksNoHeavyInit(t *testing.T) {
	info, err := buildinfo.ReadFile(binary)
	if err != nil {
		t.Fatal(err)
	}
	for _, dep := range info.Deps {
		for _, m := range notLinked {
			if dep.Path == m {
				t.Errorf("%s %s is linked again; its package init runs on every command (go mod why -m %s)", dep.Path, dep.Version, dep.Path)
			}
		}
		if min, ok := lazyFrom[dep.Path]; ok {
			if n := patch(dep.Version); n < min {
				t.Errorf("%s %s builds its tables at start-up; use v0.0.%d or later", dep.Path, dep.Version, min)
			}
		}
	}

	cmd := exec.Command(binary, "--help")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1", "HOME="+t.TempDir(), "XDG_CONFIG_HOME=", "XDG_DATA_HOME=")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("prefrag --help: %v\n%s", err, stderr.String())
	}
	trace := stderr.String()
	var bytesSum, allocs, pkgs int
	top, topBytes := "", 0
	ownBytes, ownTop := 0, []string(nil)
	sc := bufio.NewScanner(strings.NewReader(trace))
	for sc.Scan() {
		// init PKG @0.1 ms, 0.2 ms clock, 1234 bytes, 5 allocs
		f := strings.Fields(sc.Text())
		if len(f) != 11 || f[0] != "init" || f[8] != "bytes," || f[10] != "allocs" {
			continue
		}
		b, err1 := strconv.Atoi(f[7])
		a, err2 := strconv.Atoi(f[9])
		if err1 != nil || err2 != nil {
			t.Fatalf("unexpected inittrace line %q", sc.Text())
		}
		for _, p := range notInitialised {
			if f[1] == p {
				t.Errorf("%s is linked again and initialises at start-up: %s", p, sc.Text())
			}
		}
		if strings.HasPrefix(f[1], "github.com/prefrag/prefrag/") {
			ownBytes += b
			if b >= 8<<10 {
				ownTop = append(ownTop, f[1]+" "+f[7])
			}
		}
		pkgs++
		bytesSum += b
		allocs += a
		if b > topBytes {
			top, topBytes = f[1], b
		}
	}
	if pkgs == 0 {
		t.Fatalf("no inittrace lines in:\n%s", trace)
	}
	t.Logf("%d package inits: %d bytes, %d allocs (largest %s: %d bytes)", pkgs, bytesSum, allocs, top, topBytes)
	if ownBytes > maxOwnInitBytes {
		t.Errorf("prefrag's own package inits allocate %d bytes (budget %d); compile regexps on first use (internal/lazyre) and build tables lazily; largest: %s",
			ownBytes, maxOwnInitBytes, strings.Join(ownTop, ", "))
	}
	if bytesSum > maxInitBytes || allocs > maxInitAllocs {
		t.Errorf("package initialisation allocates %d bytes in %d allocations (budget %d, %d); largest: %s %d bytes; see GODEBUG=inittrace=1 prefrag --help",
			bytesSum, allocs, maxInitBytes, maxInitAllocs, top, topBytes)
	}
}

// patch returns N of a v0.0.N version, -1 for anything else.
func patch(v string) int {
	rest, ok := strings.CutPrefix(v, "v0.0.")
	if !ok {
		return -1
	}
	if i := strings.IndexAny(rest, "-+"); i >= 0 {
		rest = rest[:i]
	}
	n, err := strconv.Atoi(rest)
	if err != nil {
		return -1
	}
	return n
}
