package main

import (
	"math"
	"strconv"
	"strings"
)

// thousands writes n with its thousands separated by commas: 1,234,567.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	sign := ""
	if n < 0 {
		sign, s = "-", s[1:]
	}
	var b strings.Builder
	b.WriteString(sign)
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// latencyText writes a latency given in microseconds in the unit that
// reads best: 850.0µs, 1.25ms, 2.10s.
func latencyText(us float64) string {
	switch {
	case us >= 1e6:
		return strconv.FormatFloat(us/1e6, 'f', 2, 64) + "s"
	case us >= 1e3:
		return strconv.FormatFloat(us/1e3, 'f', 2, 64) + "ms"
	}
	return strconv.FormatFloat(us, 'f', 1, 64) + "µs"
}

// byteText writes a byte count in decimal units: 999 B, 1.5 KB, 12.0 MB.
func byteText(n int64) string {
	if n < 1000 && n > -1000 {
		return strconv.FormatInt(n, 10) + " B"
	}
	units := [...]string{"KB", "MB", "GB"}
	f, i := float64(n)/1000, 0
	for i < len(units)-1 && math.Abs(f) >= 999.95 { // not "1000.0 KB"
		f /= 1000
		i++
	}
	return strconv.FormatFloat(f, 'f', 1, 64) + " " + units[i]
}

// axisLatency writes a latency in microseconds for an axis: "0",
// "500µs", "2.5ms", "12ms".
func axisLatency(us float64) string {
	unit, scale := "µs", 1.0
	switch {
	case us == 0:
		return "0"
	case math.Abs(us) >= 1e6:
		unit, scale = "s", 1e6
	case math.Abs(us) >= 1e3:
		unit, scale = "ms", 1e3
	}
	return strconv.FormatFloat(math.Round(us/scale*100)/100, 'f', -1, 64) + unit
}
