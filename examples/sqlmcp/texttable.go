package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// The text mirror of a query's result: the rows as an aligned table, as
// a terminal client would print them, for clients that show text only.

// maxTextCell bounds a cell in the text table (the structured result
// holds it whole, up to maxCellBytes).
const maxTextCell = 60

// textTable writes r as an aligned table with a line of totals.
func textTable(r *queryResult) string {
	cells := make([][]string, 0, len(r.Rows)+1)
	cells = append(cells, r.Columns)
	for _, row := range r.Rows {
		line := make([]string, len(row))
		for i, v := range row {
			line[i] = textCell(v)
		}
		cells = append(cells, line)
	}
	width := make([]int, len(r.Columns))
	for _, line := range cells {
		for i, c := range line {
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	var b strings.Builder
	for n, line := range cells {
		for i, c := range line {
			if i > 0 {
				b.WriteString(" | ")
			}
			b.WriteString(c)
			if i < len(line)-1 {
				b.WriteString(strings.Repeat(" ", width[i]-utf8.RuneCountInString(c)))
			}
		}
		b.WriteByte('\n')
		if n == 0 {
			for i, w := range width {
				if i > 0 {
					b.WriteString("-+-")
				}
				b.WriteString(strings.Repeat("-", w))
			}
			b.WriteByte('\n')
		}
	}
	rows := "rows"
	if len(r.Rows) == 1 {
		rows = "row"
	}
	fmt.Fprintf(&b, "(%d %s", len(r.Rows), rows)
	if r.Truncated {
		fmt.Fprintf(&b, "; truncated: the statement has more, raise max_rows or add a LIMIT")
	}
	fmt.Fprintf(&b, "; %.1f ms)", r.ElapsedMS)
	return b.String()
}

// textCell writes one value on one line, cut to maxTextCell characters.
func textCell(v any) string {
	var s string
	switch x := v.(type) {
	case nil:
		s = "NULL"
	case string:
		s = x
	case json.Number:
		s = x.String()
	default:
		s = fmt.Sprint(x)
	}
	s = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "\t", " ").Replace(s)
	if utf8.RuneCountInString(s) > maxTextCell {
		s = string([]rune(s)[:maxTextCell-1]) + "…"
	}
	return s
}
