package bench

import (
	"errors"
	"os"
	"testing"
)

// osPipes returns two os.Pipe pairs: the server reads sr what the client
// writes to cw, the client reads cr what the server writes to sw.
func osPipes(tb testing.TB) (sr, cw, cr, sw *os.File) {
	sr, cw, err := os.Pipe()
	if err != nil {
		tb.Fatal(err)
	}
	cr, sw, err = os.Pipe()
	if err != nil {
		tb.Fatal(err)
	}
	return sr, cw, cr, sw
}

// pipeRWC is one side's ends of the two pipes as one stream; Close closes
// both.
type pipeRWC struct {
	r, w *os.File
}

func (p *pipeRWC) Read(b []byte) (int, error)  { return p.r.Read(b) }
func (p *pipeRWC) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p *pipeRWC) Close() error                { return errors.Join(p.w.Close(), p.r.Close()) }
