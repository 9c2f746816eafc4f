package chromium

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// Phone widths, in CSS pixels, the report must read at without scrolling
// sideways: a common phone today and the narrowest one still in use.
const (
	PhoneWidth  = 390
	NarrowWidth = 320
)

// Overflow is what the overflow probe measured of a page laid out at a
// given CSS width.
type Overflow struct {
	// Width is the frame's width the page was laid out in.
	Width int `json:"width"`
	// ClientWidth is the width of the page's viewport (its root element's
	// clientWidth), ScrollWidth the width its content spans (the larger of
	// the root's and the body's scrollWidth): when ScrollWidth exceeds
	// ClientWidth, the page scrolls sideways.
	ClientWidth int `json:"clientWidth"`
	ScrollWidth int `json:"scrollWidth"`
	// Wide lists what reaches past the viewport's right edge (the page
	// scrolls sideways to it) or its left edge (nothing scrolls to it):
	// elements and runs of text, except those inside an element that
	// scrolls sideways on its own (overflow-x auto or scroll) — that
	// element itself must fit — or one that cuts them off (overflow-x
	// hidden or clip), which Clipped lists instead. Only the first ones
	// are listed; More counts the others.
	Wide    []Wide `json:"wide"`
	Clipped []Wide `json:"clipped"`
	More    int    `json:"more"`
}

// Wide is one element, or one element's text, that reaches past the
// viewport.
type Wide struct {
	// Path names the element: its tag, id and classes, and its ancestors'
	// up to the body ("main > article > section.answer > div.answer-text").
	Path string `json:"path"`
	// Text is set when it is the element's own text, not its box, that
	// reaches past the edge: its visible characters (the span from the
	// first word past an edge to the last; Sample starts at that word),
	// not the white space that hangs at a line's end.
	Text bool `json:"text"`
	// Left and Right are the box's edges, Width its width, in CSS pixels.
	Left  float64 `json:"left"`
	Right float64 `json:"right"`
	Width float64 `json:"width"`
	// Sample is the start of its text.
	Sample string `json:"sample"`
}

// Scrolls tells whether the page scrolls sideways.
func (o Overflow) Scrolls() bool { return o.ScrollWidth > o.ClientWidth }

// Fits tells whether the page reads at its width without scrolling
// sideways: it does not scroll, and nothing but what is cut off on purpose
// or scrolls on its own reaches past an edge.
func (o Overflow) Fits() bool { return !o.Scrolls() && len(o.Wide) == 0 }

// String is a report for a test's failure message.
func (o Overflow) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "at %d px: the page spans %d px in a %d px viewport", o.Width, o.ScrollWidth, o.ClientWidth)
	for _, l := range []struct {
		what string
		list []Wide
	}{{"past the edge", o.Wide}, {"cut off", o.Clipped}} {
		for _, w := range l.list {
			what := "box"
			if w.Text {
				what = "text"
			}
			fmt.Fprintf(&b, "\n  %s: %s (%s), %.0f px wide, %.0f–%.0f px: %q", l.what, w.Path, what, w.Width, w.Left, w.Right, w.Sample)
		}
	}
	if o.More > 0 {
		fmt.Fprintf(&b, "\n  … and %d more", o.More)
	}
	return b.String()
}

// probeScript runs in the wrapper page, never in the page probed: once the
// frame has loaded, it opens every <details> of the framed page (a reader
// may open any of them), measures the page and every element and text run
// in it (what reaches past an edge, and whether an ancestor scrolls or
// cuts it off), and writes the result, URI-encoded JSON between markers, into
// the wrapper's DOM, which --dump-dom prints.
const probeScript = `
window.addEventListener('load', function () {
  var out = {wide: [], clipped: [], more: 0};
  try {
    var f = document.getElementById('probed');
    var d = f.contentDocument, win = f.contentWindow;
    d.querySelectorAll('details').forEach(function (x) { x.open = true; });
    var de = d.documentElement, body = d.body;
    var vw = de.clientWidth;
    out.clientWidth = vw;
    out.scrollWidth = Math.max(de.scrollWidth, body ? body.scrollWidth : 0);
    // How an element's ancestors hold it: 'scroll' inside one that scrolls
    // sideways on its own, 'clip' inside one that cuts it off, '' neither.
    var held = function (el) {
      for (var a = el; a && a !== body && a !== de; a = a.parentElement) {
        var o = win.getComputedStyle(a).overflowX;
        if (o === 'auto' || o === 'scroll') return 'scroll';
        if (o === 'hidden' || o === 'clip') return 'clip';
      }
      return '';
    };
    var name = function (el) {
      var s = el.tagName.toLowerCase();
      if (el.id) s += '#' + el.id;
      if (typeof el.className === 'string' && el.className.trim()) s += '.' + el.className.trim().split(/\s+/).join('.');
      return s;
    };
    var path = function (el) {
      var parts = [];
      for (var a = el; a && a !== body && a !== de; a = a.parentElement) parts.unshift(name(a));
      return parts.join(' > ');
    };
    var record = function (how, el, r, text, sample) {
      var list = how === 'clip' ? out.clipped : out.wide;
      if (list.length >= 40) { out.more++; return; }
      list.push({path: path(el), text: text, left: r.left, right: r.right, width: r.width,
        sample: (sample || '').replace(/\s+/g, ' ').trim().slice(0, 80)});
    };
    var past = function (r) { return r.width > 0 && (r.right > vw + 0.5 || r.left < -0.5); };
    var walker = d.createTreeWalker(body, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
    for (var n = walker.nextNode(); n; n = walker.nextNode()) {
      if (n.nodeType === 1) {
        // An element's own box is held by its ancestors only: a code block
        // that scrolls on its own must itself fit.
        var r = n.getBoundingClientRect();
        if (past(r)) {
          var how = held(n.parentElement);
          if (how !== 'scroll') record(how, n, r, false, n.textContent);
        }
      } else if (n.data.trim()) {
        var range = d.createRange();
        range.selectNodeContents(n);
        if (!past(range.getBoundingClientRect())) continue;
        // The text as a whole reaches past an edge; its words may not:
        // preserved spaces at the end of a line (pre-wrap) hang past the
        // edge unseen and scroll nothing. Measure each run of visible
        // characters, and report the span of those past an edge.
        var el = n.parentElement, h = held(el);
        if (h === 'scroll') continue;
        var words = /\S+/g, m, span = null, first = '';
        while ((m = words.exec(n.data)) !== null) {
          range.setStart(n, m.index);
          range.setEnd(n, m.index + m[0].length);
          var wr = range.getBoundingClientRect();
          if (!past(wr)) continue;
          if (span === null) { span = {left: wr.left, right: wr.right}; first = n.data.slice(m.index); }
          span.left = Math.min(span.left, wr.left);
          span.right = Math.max(span.right, wr.right);
        }
        if (span !== null) {
          span.width = span.right - span.left;
          record(h, el, span, true, first);
        }
      }
    }
  } catch (e) {
    out.error = String(e);
  }
  var p = document.createElement('pre');
  p.id = 'probe-result';
  // The markers are split here so that this source never matches them.
  p.textContent = 'PROBE' + '[' + encodeURIComponent(JSON.stringify(out)) + ']' + 'PROBE';
  document.body.appendChild(p);
});
`

var probeResult = regexp.MustCompile(`PROBE\[([^\]]*)\]PROBE`)

// Overflow lays file's page out at width CSS pixels and measures how far it
// reaches sideways. Headless Chromium does not make a window narrower than
// about 500 px, so the page is framed: a wrapper page, written next to the
// browser's profile, holds it in an iframe (srcdoc, so the wrapper may
// read it) width pixels wide, and the wrapper's own script measures the
// framed document and writes the result into the wrapper's DOM. The page
// itself is loaded as it is: no script is added to it.
func (b *Browser) Overflow(ctx context.Context, file string, width int) (Overflow, error) {
	page, err := os.ReadFile(file)
	if err != nil {
		return Overflow{}, err
	}
	b.runs++
	wrapper := filepath.Join(b.dir, "probe-"+strconv.Itoa(b.runs)+".html")
	doc := `<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>overflow probe</title>
<style>html, body { margin: 0; padding: 0; } iframe { display: block; border: 0; }</style>
</head><body>
<iframe id="probed" style="width: ` + strconv.Itoa(width) + `px; height: 844px" srcdoc="` + html.EscapeString(string(page)) + `"></iframe>
<script>` + probeScript + `</script>
</body></html>
`
	if err := os.WriteFile(wrapper, []byte(doc), 0o644); err != nil {
		return Overflow{}, err
	}
	out, err := b.run(ctx, wrapper, Laptop, false, "--virtual-time-budget=5000", "--dump-dom")
	if err != nil {
		return Overflow{}, err
	}
	// The result is the wrapper's last element: a framed page that holds
	// the markers itself comes before it, in the frame's srcdoc.
	all := probeResult.FindAllSubmatch(out, -1)
	if len(all) == 0 {
		return Overflow{}, fmt.Errorf("the overflow probe wrote no result (did the frame load?):\n%s", tail(string(out), 2000))
	}
	raw, err := url.PathUnescape(string(all[len(all)-1][1]))
	if err != nil {
		return Overflow{}, fmt.Errorf("the overflow probe's result: %w", err)
	}
	var res struct {
		Overflow
		Error string `json:"error"`
	}
	if err := json.Unmarshal([]byte(raw), &res); err != nil {
		return Overflow{}, fmt.Errorf("the overflow probe's result %s: %w", raw, err)
	}
	if res.Error != "" {
		return Overflow{}, fmt.Errorf("the overflow probe failed in the browser: %s", res.Error)
	}
	res.Overflow.Width = width
	return res.Overflow, nil
}
