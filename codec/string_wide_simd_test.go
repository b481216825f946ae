//go:build goexperiment.simd && amd64

package codec

import (
	"math/rand/v2"
	"simd/archsimd"
	"strings"
	"testing"
)

// TestHexDigits holds hexDigits' multiplication to the four shifts it
// stands for wherever escaped us can be (six or more bytes apart in a
// valid body, across the block's end too), and checks that two us closer
// than that (a body that is not valid) still flag the second one's
// backslash, the byte before it.
func TestHexDigits(t *testing.T) {
	shifts := func(us uint64) (hex, hexOut uint64) {
		return us<<1 | us<<2 | us<<3 | us<<4, us>>63 | us>>62 | us>>61 | us>>60
	}
	for a := range 64 {
		for b := a; b < 64; b++ {
			us := uint64(1)<<a | uint64(1)<<b
			hex, hexOut := hexDigits(us, 0)
			if b-a >= 6 || b == a {
				if wh, wo := shifts(us); hex != wh || hexOut != wo {
					t.Fatalf("hexDigits(%#x) = %#x, %#x; want %#x, %#x", us, hex, hexOut, wh, wo)
				}
			} else if b-a >= 2 && hex&(1<<(b-1)) == 0 {
				t.Fatalf("hexDigits(%#x) = %#x: the backslash before u at %d is not flagged", us, hex, b)
			}
		}
	}
	if hex, _ := hexDigits(1<<5, 0b11); hex != 0b11|0b1111<<6 {
		t.Fatalf("hexDigits with hexNext = %#b", hex)
	}
}

// TestEscapes holds escapes to a byte-at-a-time reference over blocks
// of backslash runs of every length and place, random ones, and each
// carry in.
func TestEscapes(t *testing.T) {
	ref := func(bs, escaped uint64) (escapedBytes, escapedOut uint64) {
		next := escaped == 1 // this byte is escaped
		for k := range 64 {
			if next {
				escapedBytes |= 1 << k
				next = false
			} else if bs&(1<<k) != 0 {
				next = true
			}
		}
		if next {
			escapedOut = 1
		}
		return escapedBytes, escapedOut
	}
	check := func(bs uint64) {
		for escaped := range uint64(2) {
			e, o := escapes(bs, escaped)
			if we, wo := ref(bs, escaped); e != we || o != wo {
				t.Fatalf("escapes(%#b, %d) = %#b, %d; want %#b, %d", bs, escaped, e, o, we, wo)
			}
		}
	}
	for at := range 64 {
		for n := 1; at+n <= 64; n++ {
			run := (uint64(1)<<n - 1) << at
			if n == 64 {
				run = ^uint64(0)
			}
			check(run)
			check(run | run<<(n+1)) // two runs a byte apart
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 100000 {
		check(r.Uint64() & r.Uint64())
	}
}

// everyByte holds the 256 byte values in order, for tests that look every
// one up in a vector (32 or 64 at a time).
var everyByte = func() (v [256]byte) {
	for k := range v {
		v[k] = byte(k)
	}
	return v
}()

// classesOf says which of escapeClass' classes c is in, by their
// definitions.
func classesOf(c byte) (escape, hex, control bool) {
	return strings.IndexByte(`"\/bfnrtu`, c) >= 0,
		'0' <= c && c <= '9' || 'a' <= c|0x20 && c|0x20 <= 'f',
		c < 0x20
}

// TestEscapeClass holds escapeClass' tables to the classes they stand
// for, for every byte.
func TestEscapeClass(t *testing.T) {
	if !wideStrings {
		t.Skip("no AVX2")
	}
	for base := 0; base < 256; base += 32 {
		var out [32]byte
		escapeClass(archsimd.LoadUint8x32((*[32]byte)(everyByte[base:]))).Store(&out)
		for k, class := range out {
			c := byte(base + k)
			escape, hex, control := classesOf(c)
			if class&classEscape != 0 != escape || class&classHex != 0 != hex || class&classControl != 0 != control {
				t.Errorf("%q: class %#x, want escape %v, hex %v, control %v", c, class, escape, hex, control)
			}
		}
	}
}
