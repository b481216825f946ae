package main

import (
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Values between JSON and the database: parameters from the model's
// arguments, and cells of a result as JSON values.

// maxCellBytes bounds one text cell of a result; a longer one is cut and
// ends in "…".
const maxCellBytes = 8 << 10

// bindParams turns the JSON values of params into the driver's: a whole
// number becomes an int64, any other number a float64; strings, booleans
// and null pass. Arrays and objects are refused.
func bindParams(params []any) ([]any, error) {
	out := make([]any, len(params))
	for i, p := range params {
		switch v := p.(type) {
		case nil, string, bool, int64:
			out[i] = v
		case float64:
			out[i] = number(v)
		case json.Number:
			if n, err := v.Int64(); err == nil {
				out[i] = n
			} else if f, err := v.Float64(); err == nil {
				out[i] = f
			} else {
				return nil, refuse("params[%d]: %q is not a number", i, v)
			}
		default:
			return nil, refuse("params[%d]: want a string, a number, a boolean or null, not %T", i, p)
		}
	}
	return out, nil
}

// number is f as an int64 when it is a whole number that fits.
func number(f float64) any {
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return int64(f)
	}
	return f
}

// cellValue turns a scanned cell into a JSON value: numbers stay
// numbers (DECIMAL and NUMERIC as exact JSON numbers), text stays text,
// dates are ISO 8601, and bytes that are not UTF-8 are written in hex
// ("\x…", as PostgreSQL does).
func cellValue(v any, ct *sql.ColumnType) any {
	switch x := v.(type) {
	case nil, bool, int64, float64, int, int32, int16, int8, uint64, uint32, uint16, uint8, float32:
		return x
	case time.Time:
		if x.Hour() == 0 && x.Minute() == 0 && x.Second() == 0 && x.Nanosecond() == 0 && x.Location() == time.UTC {
			return x.Format(time.DateOnly)
		}
		return x.Format(time.RFC3339Nano)
	case []byte:
		// Only a value's head is shown: a long one is cut before it is
		// copied or encoded, so it costs no more than its head.
		if !utf8.Valid(x) {
			return cut(`\x` + hex.EncodeToString(x[:min(len(x), maxCellBytes/2)]))
		}
		if len(x) > maxCellBytes+utf8.UTFMax {
			return cut(string(x[:maxCellBytes+utf8.UTFMax]))
		}
		return textValue(string(x), ct)
	case string:
		return textValue(x, ct)
	}
	return cut(fmt.Sprint(v))
}

// cell is one value of a row, scanned straight into its JSON value:
// database/sql hands a Scanner the driver's value without copying it, so
// a long value is cut before anything else holds a copy.
type cell struct {
	ct *sql.ColumnType
	v  any
}

// Scan sets c's value from src, the driver's, which it does not keep.
func (c *cell) Scan(src any) error {
	c.v = cellValue(src, c.ct)
	return nil
}

// textValue is s, or the number it spells when its column is numeric
// (MySQL sends numbers as text; pgx sends NUMERIC so).
func textValue(s string, ct *sql.ColumnType) any {
	if ct != nil && isNumericType(ct.DatabaseTypeName()) {
		if _, err := strconv.ParseFloat(s, 64); err == nil {
			return json.Number(s)
		}
	}
	return cut(s)
}

// isNumericType reports whether a column type holds numbers.
func isNumericType(name string) bool {
	name = strings.ToUpper(name)
	for _, t := range []string{"INT", "DECIMAL", "NUMERIC", "FLOAT", "DOUBLE", "REAL"} {
		if strings.Contains(name, t) {
			return true
		}
	}
	return false
}

// cut shortens s to maxCellBytes, on a character boundary.
func cut(s string) string {
	if len(s) <= maxCellBytes {
		return s
	}
	n := maxCellBytes
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
