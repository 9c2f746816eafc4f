// Package chromium renders a local HTML file in a real browser for tests:
// Debian's chromium in headless mode, offline (every request goes to a
// proxy on a closed port, so any fetch fails), reading back the DOM the
// browser built (--dump-dom), a screenshot (--screenshot) and the page
// printed to PDF (--print-to-pdf), checking the PDF with poppler's
// pdfinfo and pdftotext, and measuring whether a page laid out at a phone's
// width scrolls sideways (Overflow, overflow.go).
//
// Tests skip (t.Skip, saying what is missing) where chromium or poppler is
// not installed: `apt-get install chromium poppler-utils` (.ci/run does).
// Each chromium run is a separate process with its own profile folder and
// a generous timeout; a browser test should render its page once and share
// the result across its subtests.
package chromium

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Timeout bounds one chromium run: the machines the tests run on are busy.
const Timeout = 3 * time.Minute

// Browser runs chromium headless.
type Browser struct {
	path string
	dir  string
	runs int
}

// Find returns the chromium binary, or "" when none is installed.
func Find() string {
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// New returns a browser, or skips the test when chromium is missing.
func New(t testing.TB) *Browser {
	t.Helper()
	p := Find()
	if p == "" {
		t.Skip("chromium is not installed (apt-get install chromium): the browser checks are skipped")
	}
	return &Browser{path: p, dir: t.TempDir()}
}

// Size is a browser window's size in CSS pixels.
type Size struct{ Width, Height int }

// Laptop and Phone are the window sizes the report is checked at.
var (
	Laptop = Size{1280, 900}
	Phone  = Size{390, 844}
)

// run starts chromium on file with the extra flags and returns its
// standard output.
func (b *Browser) run(ctx context.Context, file string, size Size, dark bool, extra ...string) ([]byte, error) {
	abs, err := filepath.Abs(file)
	if err != nil {
		return nil, err
	}
	b.runs++
	profile := filepath.Join(b.dir, "profile-"+strconv.Itoa(b.runs))
	args := []string{
		"--headless",
		"--disable-gpu",
		"--disable-dev-shm-usage",
		"--no-first-run",
		"--no-default-browser-check",
		"--disable-extensions",
		"--disable-background-networking",
		"--disable-component-update",
		"--disable-sync",
		"--disable-default-apps",
		"--mute-audio",
		"--hide-scrollbars",
		"--run-all-compositor-stages-before-draw",
		// Offline: every request, loopback ones too, goes to a proxy on a
		// port nothing listens on.
		"--proxy-server=127.0.0.1:1",
		"--proxy-bypass-list=<-loopback>",
		"--user-data-dir=" + profile,
		fmt.Sprintf("--window-size=%d,%d", size.Width, size.Height),
	}
	if os.Geteuid() == 0 {
		args = append(args, "--no-sandbox")
	}
	if dark {
		args = append(args, "--force-dark-mode", "--blink-settings=preferredColorScheme=0")
	}
	args = append(args, extra...)
	args = append(args, "file://"+filepath.ToSlash(abs))
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, b.path, args...)
	cmd.Env = append(os.Environ(), "HOME="+b.dir, "XDG_CONFIG_HOME="+b.dir, "XDG_CACHE_HOME="+b.dir)
	// The browser's helpers share its process group: a timeout ends them
	// all.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // helpers left behind
	}
	if err != nil {
		return nil, fmt.Errorf("chromium %s: %w\n%s", strings.Join(extra, " "), err, tail(errOut.String(), 2000))
	}
	return out.Bytes(), nil
}

// DOM is the document chromium built from file, serialised.
func (b *Browser) DOM(ctx context.Context, file string) (string, error) {
	out, err := b.run(ctx, file, Laptop, false, "--dump-dom")
	return string(out), err
}

// Screenshot is a PNG of file's first screen at size, in the dark colour
// scheme when dark is set.
func (b *Browser) Screenshot(ctx context.Context, file string, size Size, dark bool) ([]byte, error) {
	b.runs++
	shot := filepath.Join(b.dir, "shot-"+strconv.Itoa(b.runs)+".png")
	if _, err := b.run(ctx, file, size, dark, "--screenshot="+shot); err != nil {
		return nil, err
	}
	return os.ReadFile(shot)
}

// PDF prints file to a PDF (no header or footer) and returns its path.
func (b *Browser) PDF(ctx context.Context, file string) (string, error) {
	b.runs++
	pdf := filepath.Join(b.dir, "print-"+strconv.Itoa(b.runs)+".pdf")
	if _, err := b.run(ctx, file, Laptop, false, "--no-pdf-header-footer", "--print-to-pdf="+pdf); err != nil {
		return "", err
	}
	if fi, err := os.Stat(pdf); err != nil || fi.Size() == 0 {
		return "", fmt.Errorf("chromium wrote no PDF at %s", pdf)
	}
	return pdf, nil
}

// Ink measures a screenshot: the share of pixels that differ clearly from
// the background (the top-left pixel's colour), and that colour's
// luminance (0 black … 255 white).
func Ink(pngData []byte) (share float64, background uint8, err error) {
	img, err := png.Decode(bytes.NewReader(pngData))
	if err != nil {
		return 0, 0, err
	}
	bounds := img.Bounds()
	if bounds.Empty() {
		return 0, 0, errors.New("empty screenshot")
	}
	br, bg, bb := rgb(img, bounds.Min.X, bounds.Min.Y)
	ink, total := 0, 0
	for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
		for x := bounds.Min.X; x < bounds.Max.X; x++ {
			r, g, b := rgb(img, x, y)
			if absDiff(r, br)+absDiff(g, bg)+absDiff(b, bb) > 48 {
				ink++
			}
			total++
		}
	}
	lum := (299*int(br) + 587*int(bg) + 114*int(bb)) / 1000
	return float64(ink) / float64(total), uint8(lum), nil
}

func rgb(img image.Image, x, y int) (r, g, b uint8) {
	R, G, B, _ := img.At(x, y).RGBA()
	return uint8(R >> 8), uint8(G >> 8), uint8(B >> 8)
}

func absDiff(a, b uint8) int {
	if a > b {
		return int(a - b)
	}
	return int(b - a)
}

// Poppler skips the test when pdfinfo or pdftotext is missing.
func Poppler(t testing.TB) {
	t.Helper()
	for _, tool := range []string{"pdfinfo", "pdftotext"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (apt-get install poppler-utils): the PDF checks are skipped", tool)
		}
	}
}

var pagesLine = regexp.MustCompile(`(?m)^Pages:\s+(\d+)`)

// PDFPages is the page count pdfinfo reads from the PDF at path.
func PDFPages(path string) (int, error) {
	out, err := exec.Command("pdfinfo", path).Output()
	if err != nil {
		return 0, fmt.Errorf("pdfinfo: %w", err)
	}
	m := pagesLine.FindSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("pdfinfo printed no page count:\n%s", out)
	}
	return strconv.Atoi(string(m[1]))
}

// PDFText is the text pdftotext reads from the PDF at path, pages
// separated by form feeds.
func PDFText(path string) (string, error) {
	out, err := exec.Command("pdftotext", "-enc", "UTF-8", path, "-").Output()
	if err != nil {
		return "", fmt.Errorf("pdftotext: %w", err)
	}
	return string(out), nil
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}
