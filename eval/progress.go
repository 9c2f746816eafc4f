package eval

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/prefrag/prefrag/internal/textsafe"
)

// Progress draws the evaluation's progress line: questions done of the
// total, rate, ETA and the running accuracy of the current strategy. On a
// terminal the line is redrawn in place; elsewhere a line is printed at
// most every Interval and at the end of each strategy. A nil *Progress
// prints nothing.
type Progress struct {
	w   io.Writer
	tty bool
	// Interval between lines when not on a terminal.
	Interval time.Duration
	now      func() time.Time

	mu        sync.Mutex
	dataset   string
	total     int
	finished  int // answered or failed in this process
	start     time.Time
	name      string
	nth, of   int
	left      int // questions of the current strategy still to answer
	accSum    float64
	accN      int
	lastPrint time.Time
	width     int
}

// NewProgress writes to w; tty says whether w is a terminal.
func NewProgress(w io.Writer, tty bool) *Progress {
	return &Progress{w: w, tty: tty, Interval: 10 * time.Second, now: time.Now}
}

func (p *Progress) begin(dataset string, total int) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.dataset, p.total, p.finished, p.start = dataset, total, 0, p.now()
}

func (p *Progress) strategy(name string, nth, of int, accSum float64, accN, todo int) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.name, p.nth, p.of, p.accSum, p.accN, p.left = name, nth, of, accSum, accN, todo
	if p.tty {
		p.drawLocked(true)
	}
}

func (p *Progress) done(acc float64) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.finished++
	p.left--
	p.accSum += acc
	p.accN++
	p.drawLocked(p.left == 0)
}

func (p *Progress) skip() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.finished++
	p.left--
	p.drawLocked(p.left == 0)
}

// note prints a message on its own line, keeping the progress line.
func (p *Progress) note(msg string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clearLocked()
	fmt.Fprintln(p.w, "prefrag eval:", msg)
	p.drawLocked(true)
}

func (p *Progress) end() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tty && p.width > 0 {
		fmt.Fprintln(p.w)
		p.width = 0
	}
}

func (p *Progress) lineLocked() string {
	elapsed := p.now().Sub(p.start)
	rate := 0.0
	if elapsed > 0 {
		rate = float64(p.finished) / elapsed.Seconds()
	}
	eta := "–"
	if rate > 0 && p.total > p.finished {
		eta = (time.Duration(float64(p.total-p.finished)/rate) * time.Second).Round(time.Second).String()
	} else if p.total == p.finished {
		eta = "0s"
	}
	acc := "–"
	if p.accN > 0 {
		acc = fmt.Sprintf("%.2f", Percent(p.accSum, p.accN))
	}
	return fmt.Sprintf("eval %s · %s (%d/%d) · %d/%d questions · %.2f q/s · ETA %s · Acc %s",
		textsafe.ForTerminal(p.dataset), textsafe.ForTerminal(p.name), p.nth, p.of, p.finished, p.total, rate, eta, acc)
}

func (p *Progress) drawLocked(force bool) {
	if !p.tty {
		if force || p.now().Sub(p.lastPrint) >= p.Interval {
			p.printLocked()
		}
		return
	}
	line := p.lineLocked()
	pad := ""
	if n := p.width - len(line); n > 0 {
		pad = strings.Repeat(" ", n)
	}
	fmt.Fprintf(p.w, "\r%s%s", line, pad)
	p.width = len(line)
}

func (p *Progress) printLocked() {
	fmt.Fprintln(p.w, p.lineLocked())
	p.lastPrint = p.now()
}

func (p *Progress) clearLocked() {
	if p.tty && p.width > 0 {
		fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", p.width))
		p.width = 0
	}
}
