package middleware

import (
	"strings"
	"testing"
)

const validTP = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

func TestValidTraceparent(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want bool
	}{
		{validTP, true},
		{"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00", true},
		{"", false},
		{validTP[:54], false},
		{validTP + "-", false},                 // version 00 is exactly 55
		{"01" + validTP[2:] + "-future", true}, // a later version may go on
		{"01" + validTP[2:] + "x", false},      // behind a '-'
		{"01" + validTP[2:], true},             // or not
		{"ff" + validTP[2:], false},            // version ff is invalid
		{"0g" + validTP[2:], false},            // not hex
		{strings.ToUpper(validTP), false},      // lowercase only
		{"00-00000000000000000000000000000000-00f067aa0ba902b7-01", false},     // zero trace id
		{"00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01", false},     // zero parent id
		{"00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", false},     // separators
		{"00-4bf92f3577b34da6a3ce929d0e0e4736_00f067aa0ba902b7-01", false},     //
		{"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7_01", false},     //
		{"00-4bf92f3577b34da6a3ce929d0e0e473-600f067aa0ba902b7-01", false},     // fields shifted
		{"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0g", false},     // flags not hex
		{"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01 ", false},    // trailing space
		{"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01\x00", false}, // trailing NUL
	} {
		if got := validTraceparent(tc.s); got != tc.want {
			t.Errorf("%q: %v, want %v", tc.s, got, tc.want)
		}
	}
}

func TestValidTracestate(t *testing.T) {
	members := func(n int) string {
		var b strings.Builder
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString("k")
			b.WriteString(strings.Repeat("x", i))
			b.WriteString("=v")
		}
		return b.String()
	}
	for _, tc := range []struct {
		s    string
		want bool
	}{
		{"", true},
		{"rojo=00f067aa0ba902b7", true},
		{"rojo=00f067aa0ba902b7,congo=t61rcWkgMzE", true},
		{" rojo=1 ,\tcongo=2\t", true},
		{"rojo=1,,congo=2", true}, // empty members are allowed
		{"tenant1@sys=x", true},
		{"0tenant@sys=x", true},
		{"a_-*/9=x", true},
		{"k=" + strings.Repeat("v", 256), true},
		{"k=" + strings.Repeat("v", 257), false},
		{"k" + strings.Repeat("x", 255) + "=v", true},
		{"k" + strings.Repeat("x", 256) + "=v", false},
		{"t@" + strings.Repeat("s", 14) + "=v", true},
		{"t@" + strings.Repeat("s", 15) + "=v", false},
		{strings.Repeat("t", 241) + "@s=v", true},
		{strings.Repeat("t", 242) + "@s=v", false},
		{members(32), true},
		{members(33), false},
		{"rojo=1,rojo=2", false}, // keys are unique
		{"Rojo=1", false},
		{"0rojo=1", false},
		{"rojo", false},
		{"rojo=", false},
		{"rojo=a,b", false},
		{"rojo=a=b", false},
		{"rojo=caf\u00e9", false},
		{"rojo=a\x7f", false},
		{"@sys=x", false},
		{"t@=x", false},
		{"t@0sys=x", false},
		{"t@s@s=x", false},
		{strings.Repeat(" ", maxTracestateBytes+1), false},
	} {
		if got := validTracestate(tc.s); got != tc.want {
			t.Errorf("%.60q: %v, want %v", tc.s, got, tc.want)
		}
	}
}
