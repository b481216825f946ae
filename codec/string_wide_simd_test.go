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

// TestEscapeClass holds escapeClass' tables to the classes they stand
// for, for every byte.
func TestEscapeClass(t *testing.T) {
	if !wideStrings {
		t.Skip("no AVX2")
	}
	for base := 0; base < 256; base += 32 {
		var in, out [32]byte
		for k := range in {
			in[k] = byte(base + k)
		}
		escapeClass(archsimd.LoadUint8x32(&in)).Store(&out)
		for k, c := range in {
			class := out[k]
			isHex := '0' <= c && c <= '9' || 'a' <= c|0x20 && c|0x20 <= 'f'
			if got, want := class&classEscape != 0, strings.IndexByte(`"\/bfnrtu`, c) >= 0; got != want {
				t.Errorf("%q: escape %v, want %v", c, got, want)
			}
			if got := class&classHex != 0; got != isHex {
				t.Errorf("%q: hex %v, want %v", c, got, isHex)
			}
			if got, want := class&classControl != 0, c < 0x20; got != want {
				t.Errorf("%q: control %v, want %v", c, got, want)
			}
		}
	}
}
