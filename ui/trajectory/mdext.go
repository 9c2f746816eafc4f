package trajectory

import (
	"fmt"
	"sync"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// This file and mdext_*.go extend goldmark's CommonMark parser with what
// answers use of GitHub Flavored Markdown: tables, strikethrough, task
// list items and bare URLs (plus the tight form of definition lists that
// glamour showed), written against goldmark's public parser API. They
// replace goldmark's own extension package, whose package initialisation
// (compiling the linkify and table regular expressions) cost ~2.5 ms and
// 0.27 MB on every start of the binary, --help included.

// The node kinds of the extensions.
var (
	kindMDTable      = ast.NewNodeKind("PrefragTable")
	kindMDTableRow   = ast.NewNodeKind("PrefragTableRow")
	kindMDTableCell  = ast.NewNodeKind("PrefragTableCell")
	kindMDStrike     = ast.NewNodeKind("PrefragStrikethrough")
	kindMDCheckBox   = ast.NewNodeKind("PrefragTaskCheckBox")
	kindMDDefList    = ast.NewNodeKind("PrefragDefinitionList")
	kindMDDefTerm    = ast.NewNodeKind("PrefragDefinitionTerm")
	kindMDDefDescrip = ast.NewNodeKind("PrefragDefinitionDescription")
)

// mdAlign is a table column's alignment.
type mdAlign uint8

const (
	alignNone mdAlign = iota
	alignLeft
	alignCenter
	alignRight
)

// mdTable is a GFM table: a header row, then body rows (mdTableRow), each
// with one mdTableCell per column.
type mdTable struct {
	ast.BaseBlock
	aligns []mdAlign
}

// mdTableRow is a row of a table; header marks the first.
type mdTableRow struct {
	ast.BaseBlock
	header bool
}

// mdTableCell holds the inline content of one cell.
type mdTableCell struct{ ast.BaseBlock }

// mdStrike is ~~struck-out~~ text.
type mdStrike struct{ ast.BaseInline }

// mdCheckBox is the "[ ]" or "[x]" that starts a task list item.
type mdCheckBox struct {
	ast.BaseInline
	checked bool
}

// mdDefList is a definition list: terms (mdDefTerm) followed by their
// descriptions (mdDefDescrip).
type mdDefList struct{ ast.BaseBlock }
type mdDefTerm struct{ ast.BaseBlock }
type mdDefDescrip struct{ ast.BaseBlock }

func (n *mdTable) Kind() ast.NodeKind      { return kindMDTable }
func (n *mdTableRow) Kind() ast.NodeKind   { return kindMDTableRow }
func (n *mdTableCell) Kind() ast.NodeKind  { return kindMDTableCell }
func (n *mdStrike) Kind() ast.NodeKind     { return kindMDStrike }
func (n *mdCheckBox) Kind() ast.NodeKind   { return kindMDCheckBox }
func (n *mdDefList) Kind() ast.NodeKind    { return kindMDDefList }
func (n *mdDefTerm) Kind() ast.NodeKind    { return kindMDDefTerm }
func (n *mdDefDescrip) Kind() ast.NodeKind { return kindMDDefDescrip }

func (n *mdTable) Dump(src []byte, level int) {
	ast.DumpHelper(n, src, level, map[string]string{"Aligns": fmt.Sprint(n.aligns)}, nil)
}
func (n *mdTableRow) Dump(src []byte, level int) {
	ast.DumpHelper(n, src, level, map[string]string{"Header": fmt.Sprint(n.header)}, nil)
}
func (n *mdTableCell) Dump(src []byte, level int) { ast.DumpHelper(n, src, level, nil, nil) }
func (n *mdStrike) Dump(src []byte, level int)    { ast.DumpHelper(n, src, level, nil, nil) }
func (n *mdCheckBox) Dump(src []byte, level int) {
	ast.DumpHelper(n, src, level, map[string]string{"Checked": fmt.Sprint(n.checked)}, nil)
}
func (n *mdDefList) Dump(src []byte, level int)    { ast.DumpHelper(n, src, level, nil, nil) }
func (n *mdDefTerm) Dump(src []byte, level int)    { ast.DumpHelper(n, src, level, nil, nil) }
func (n *mdDefDescrip) Dump(src []byte, level int) { ast.DumpHelper(n, src, level, nil, nil) }

// mdParser is built on first use: CommonMark plus the extensions above.
var (
	mdParserOnce sync.Once
	mdParser     parser.Parser
)

func newMDParser() parser.Parser {
	return parser.NewParser(
		parser.WithBlockParsers(parser.DefaultBlockParsers()...),
		parser.WithInlineParsers(append(parser.DefaultInlineParsers(),
			util.Prioritized(checkBoxParser{}, 0), // before links: "[ ]" is no link
			util.Prioritized(strikeParser{}, 500),
			util.Prioritized(linkifyParser{}, 999),
		)...),
		parser.WithParagraphTransformers(append(parser.DefaultParagraphTransformers(),
			util.Prioritized(tableTransformer{}, 200),
			util.Prioritized(defListTransformer{}, 300),
		)...),
	)
}

func parseMarkdown(src []byte) ast.Node {
	mdParserOnce.Do(func() { mdParser = newMDParser() })
	return mdParser.Parse(text.NewReader(src))
}

// strikeParser reads "~" and "~~" runs as delimiters of struck-out text
// (GFM: one or two tildes; a longer run is text).
type strikeParser struct{}

func (strikeParser) Trigger() []byte { return []byte{'~'} }

func (strikeParser) Parse(_ ast.Node, block text.Reader, pc parser.Context) ast.Node {
	before := block.PrecendingCharacter()
	line, seg := block.PeekLine()
	d := parser.ScanDelimiter(line, before, 1, strikeDelims{})
	if d == nil || d.OriginalLength > 2 || before == '~' {
		return nil
	}
	d.Segment = seg.WithStop(seg.Start + d.OriginalLength)
	block.Advance(d.OriginalLength)
	pc.PushDelimiter(d)
	return d
}

type strikeDelims struct{}

func (strikeDelims) IsDelimiter(b byte) bool { return b == '~' }

func (strikeDelims) CanOpenCloser(opener, closer *parser.Delimiter) bool {
	return opener.Char == closer.Char
}

func (strikeDelims) OnMatch(int) ast.Node { return &mdStrike{} }

// checkBoxParser reads the "[ ]", "[x]" or "[X]" that starts the first
// paragraph of a list item.
type checkBoxParser struct{}

func (checkBoxParser) Trigger() []byte { return []byte{'['} }

func (checkBoxParser) Parse(parent ast.Node, block text.Reader, _ parser.Context) ast.Node {
	item, ok := parent.Parent().(*ast.ListItem)
	if !ok || item.FirstChild() != parent || parent.HasChildren() {
		return nil
	}
	line, _ := block.PeekLine()
	if len(line) < 3 || line[0] != '[' || line[2] != ']' {
		return nil
	}
	// The mark is white space (as a regexp's \s: a carriage return or a
	// form feed too) or an x.
	switch mark := line[1]; mark {
	case ' ', '\t', '\r', '\f', 'x', 'X':
	default:
		return nil
	}
	n := 3
	for n < len(line) && (line[n] == ' ' || line[n] == '\t') {
		n++
	}
	if n == 3 && n < len(line) && line[n] != '\n' && line[n] != '\r' {
		return nil // "[x]text": not a task (GFM wants white space after)
	}
	block.Advance(n)
	return &mdCheckBox{checked: line[1] == 'x' || line[1] == 'X'}
}

// isSpaceOrTab reports whether b is a space or a tab.
func isSpaceOrTab(b byte) bool { return b == ' ' || b == '\t' }
