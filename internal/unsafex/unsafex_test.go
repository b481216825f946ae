package unsafex

import (
	"testing"
	"unsafe"
)

func TestIsZero(t *testing.T) {
	var v struct {
		A int8
		B [11]byte
		C float64
		D string
	}
	p := unsafe.Pointer(&v)
	offs := []struct{ off, size uintptr }{
		{unsafe.Offsetof(v.A), 1}, {unsafe.Offsetof(v.B), 11}, {unsafe.Offsetof(v.C), 8}, {unsafe.Offsetof(v.D), 16},
	}
	for _, o := range offs {
		if !IsZero(p, o.off, o.size) {
			t.Fatalf("zero field at %d reported non-zero", o.off)
		}
	}
	v.A, v.B[10], v.C, v.D = 1, 1, negZero(), "x"
	for _, o := range offs {
		if IsZero(p, o.off, o.size) {
			t.Errorf("non-zero field at %d reported zero", o.off)
		}
	}
}

func negZero() float64 {
	z := 0.0
	return -z
}
