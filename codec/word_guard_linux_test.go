package codec

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestWord_readsNothingPastTheFrame places each input, cut at every
// length, so that it ends where a page the process may not read begins,
// and scans it every way the package can: word (word_le.go) loads 8 bytes
// at once, so a load past the frame's end would fault here and end the
// test binary; the wide string loops (string_wide_amd64.s) are checked
// the same way, each loop of wideModes in turn. Inputs: the scanner's cases, the fuzz seeds, the
// JSONTestSuite files and an MCP stream's messages.
func TestWord_readsNothingPastTheFrame(t *testing.T) {
	page := os.Getpagesize()
	mem, err := syscall.Mmap(-1, 0, 2*page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Skip("mmap:", err)
	}
	defer syscall.Munmap(mem)
	if err := syscall.Mprotect(mem[page:], syscall.PROT_NONE); err != nil {
		t.Skip("mprotect:", err)
	}
	var inputs [][]byte
	for _, c := range envelopeCases {
		inputs = append(inputs, []byte(c.in))
	}
	for _, c := range scanSyntaxCases {
		inputs = append(inputs, []byte(c.in))
	}
	for _, c := range scanValidCases {
		inputs = append(inputs, []byte(c))
	}
	inputs = append(inputs, mcpStream()...)
	for _, glob := range []string{"testdata/seeds/*.json", jsonTestSuiteDir + "/*.json"} {
		names, _ := filepath.Glob(glob)
		for _, name := range names {
			data, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			inputs = append(inputs, data)
		}
	}
	if len(inputs) < 300 {
		t.Fatalf("only %d inputs", len(inputs))
	}
	defer setWide(defaultWide)
	for _, m := range wideModes() {
		setWide(m)
		scanEveryWay(mem[:page], inputs)
	}
}

// scanEveryWay scans each input, cut at every length, every way the
// package can, placed so that it ends where mem ends.
func scanEveryWay(mem []byte, inputs [][]byte) {
	page := len(mem)
	s := NewScanner(nil)
	for _, in := range inputs {
		if len(in) > page {
			in = in[:page]
		}
		for n := 0; n <= len(in); n++ {
			frame := mem[page-n : page : page]
			copy(frame, in[:n])
			s.Valid(frame)
			s.Scan(frame)
			var c Canonicalizer
			c.Append(nil, frame)
			SkipValue(frame, 0)
			KindOf(frame)
			Unquote(frame)
			var ms Members
			for ms.Reset(frame); ms.Next(); {
			}
			var el Elements
			for el.Reset(frame); el.Next(); {
			}
		}
	}
}
