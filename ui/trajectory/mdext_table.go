package trajectory

import (
	"bytes"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// tableTransformer turns a paragraph whose lines are a header row, a
// delimiter row ("|:--|--:|") and body rows into a table (GFM): lines
// before the header stay a paragraph; a header with another number of
// cells than the delimiter row is no table.
type tableTransformer struct{}

func (tableTransformer) Transform(node *ast.Paragraph, reader text.Reader, _ parser.Context) {
	src := reader.Source()
	lines := node.Lines()
	for i := 1; i < lines.Len(); i++ {
		seg := lines.At(i)
		aligns := delimiterRow(seg.Value(src))
		if aligns == nil {
			continue
		}
		header := tableRow(src, lines.At(i-1), aligns, true)
		if header.ChildCount() != len(aligns) {
			return
		}
		table := &mdTable{aligns: aligns}
		table.AppendChild(table, header)
		for j := i + 1; j < lines.Len(); j++ {
			table.AppendChild(table, tableRow(src, lines.At(j), aligns, false))
		}
		parent := node.Parent()
		parent.InsertAfter(parent, node, table)
		lines.SetSliced(0, i-1)
		if lines.Len() == 0 {
			parent.RemoveChild(parent, node)
			return
		}
		last := lines.At(lines.Len() - 1)
		lines.Set(lines.Len()-1, last.TrimRightSpace(src))
		return
	}
}

// delimiterRow returns the column alignments of a delimiter row, nil if
// line is not one.
func delimiterRow(line []byte) []mdAlign {
	if w, _ := util.IndentWidth(line, 0); w > 3 {
		return nil
	}
	for _, b := range line {
		switch b {
		case ' ', '\t', '\n', '\r', '-', '|', ':':
		default:
			return nil
		}
	}
	if t := util.TrimRightSpace(line); len(t) >= 2 && t[len(t)-1] == '|' && t[len(t)-2] == '|' {
		return nil // an empty last cell ("|--||")
	}
	cells := splitCells(line)
	if len(cells) == 0 {
		return nil
	}
	aligns := make([]mdAlign, 0, len(cells))
	for _, cell := range cells {
		c := util.TrimRightSpace(util.TrimLeftSpace(line[cell[0]:cell[1]]))
		left, right := len(c) > 0 && c[0] == ':', len(c) > 1 && c[len(c)-1] == ':'
		dashes := c
		if left {
			dashes = dashes[1:]
		}
		if right {
			dashes = dashes[:len(dashes)-1]
		}
		if len(dashes) == 0 {
			return nil
		}
		for _, b := range dashes {
			if b != '-' {
				return nil
			}
		}
		switch {
		case left && right:
			aligns = append(aligns, alignCenter)
		case left:
			aligns = append(aligns, alignLeft)
		case right:
			aligns = append(aligns, alignRight)
		default:
			aligns = append(aligns, alignNone)
		}
	}
	return aligns
}

// splitCells returns the [start, stop) of each cell of a row: split at
// pipes not escaped by a backslash, without the optional outer pipes.
func splitCells(line []byte) [][2]int {
	start, stop := 0, len(line)
	for start < stop && util.IsSpace(line[start]) {
		start++
	}
	for stop > start && util.IsSpace(line[stop-1]) {
		stop--
	}
	if start < stop && line[start] == '|' {
		start++
	}
	if stop > start && line[stop-1] == '|' && (stop-2 < start || line[stop-2] != '\\') {
		stop--
	}
	var cells [][2]int
	from := start
	for i := start; i < stop; i++ {
		switch line[i] {
		case '\\':
			i++ // the next byte is escaped (i may pass stop: the loop ends)
		case '|':
			cells = append(cells, [2]int{from, i})
			from = i + 1
		}
	}
	if from < stop {
		cells = append(cells, [2]int{from, stop})
	}
	return cells
}

// tableRow makes a row of a table from one line: a body row has exactly
// one cell per column (extra cells dropped, missing ones empty); a header
// keeps all its cells so that a mismatch can be seen.
func tableRow(src []byte, seg text.Segment, aligns []mdAlign, header bool) *mdTableRow {
	row := &mdTableRow{header: header}
	// The cells' offsets are into src: the line as it stands there, without
	// the padding a tab expanded into (Value would prepend it, shifting
	// every offset).
	line := src[seg.Start:seg.Stop]
	for i, c := range splitCells(line) {
		if i >= len(aligns) && !header {
			break
		}
		cell := &mdTableCell{}
		cs := text.NewSegment(seg.Start+c[0], seg.Start+c[1])
		cs = cs.TrimLeftSpace(src)
		cs = cs.TrimRightSpace(src)
		cell.Lines().Append(cs)
		row.AppendChild(row, cell)
	}
	for row.ChildCount() < len(aligns) {
		row.AppendChild(row, &mdTableCell{})
	}
	return row
}

// defListTransformer turns a paragraph whose lines continue with
// ": description" lines into a definition list (the tight form of PHP
// Markdown Extra's, which glamour showed): each line before the first
// description is a term; each ":" line starts a description, and the
// lines after it continue it.
type defListTransformer struct{}

func (defListTransformer) Transform(node *ast.Paragraph, reader text.Reader, _ parser.Context) {
	src := reader.Source()
	lines := node.Lines()
	first := -1
	col0 := column(src, lines.At(0).Start)
	for i := 1; i < lines.Len(); i++ {
		seg := lines.At(i)
		if _, ok := descriptionStart(src, seg); ok {
			if _, top := node.Parent().(*ast.Document); !top && column(src, seg.Start) < col0 {
				return // a lazy continuation line ("- a\n: b"), no description
			}
			first = i
			break
		}
	}
	if first < 0 {
		return
	}
	list := &mdDefList{}
	for i := 0; i < first; i++ {
		term := &mdDefTerm{}
		seg := lines.At(i)
		seg = seg.TrimLeftSpace(src)
		term.Lines().Append(seg.TrimRightSpace(src))
		list.AppendChild(list, term)
	}
	var tb *ast.TextBlock
	for i := first; i < lines.Len(); i++ {
		seg := lines.At(i)
		if start, ok := descriptionStart(src, seg); ok {
			desc := &mdDefDescrip{}
			tb = ast.NewTextBlock()
			desc.AppendChild(desc, tb)
			list.AppendChild(list, desc)
			seg = seg.WithStart(start)
		} else {
			seg = seg.TrimLeftSpace(src)
		}
		if i+1 == lines.Len() {
			seg = seg.TrimRightSpace(src)
		} else if _, ok := descriptionStart(src, lines.At(i+1)); ok {
			seg = seg.TrimRightSpace(src) // the last line of a description
		}
		tb.Lines().Append(seg)
	}
	parent := node.Parent()
	parent.InsertAfter(parent, node, list)
	parent.RemoveChild(parent, node)
}

// descriptionStart returns where the text of a ": description" line
// starts.
func descriptionStart(src []byte, seg text.Segment) (int, bool) {
	line := seg.Value(src)
	if len(line) < 2 || line[0] != ':' || !isSpaceOrTab(line[1]) {
		return 0, false
	}
	i := 1
	for i < len(line) && isSpaceOrTab(line[i]) {
		i++
	}
	if i == len(line) || line[i] == '\n' || line[i] == '\r' {
		return 0, false
	}
	return seg.Start + i, true
}

// column returns how far pos is from the start of its line, in bytes.
func column(src []byte, pos int) int {
	return pos - (bytes.LastIndexByte(src[:pos], '\n') + 1)
}
