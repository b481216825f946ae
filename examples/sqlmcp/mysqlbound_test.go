package main

import (
	"bytes"
	"errors"
	"io"
	"net"
	"testing"
)

// boundedConn follows the server's packets however the reads split them,
// passes a logical packet of maxMessageBytes, and refuses one byte more
// from its header, also when it is split over full packets.

// packets writes a logical packet of n bytes as the server does: full
// packets of maxPacket bytes, then one shorter (empty if n is a multiple).
func packets(n int) []byte {
	var b bytes.Buffer
	for {
		size := min(n, maxPacket)
		b.Write([]byte{byte(size), byte(size >> 8), byte(size >> 16), 0})
		b.Write(make([]byte, size))
		n -= size
		if size < maxPacket {
			return b.Bytes()
		}
	}
}

// readAll reads c in chunks of size until EOF or an error.
func readAll(c *boundedConn, size int) (int, error) {
	buf := make([]byte, size)
	total := 0
	for {
		n, err := c.Read(buf)
		total += n
		if err != nil {
			return total, err
		}
	}
}

// pipeConn is a net.Conn that reads from r.
type pipeConn struct {
	net.Conn
	r io.Reader
}

func (p pipeConn) Read(b []byte) (int, error) { return p.r.Read(b) }

func TestBoundedConn_followsPackets(t *testing.T) {
	small := bytes.Repeat(packets(100), 3)
	for _, tc := range []struct {
		name   string
		stream []byte
		refuse bool
	}{
		{"small packets", small, false},
		{"empty packet", packets(0), false},
		{"at the bound", append(packets(maxMessageBytes), small...), false},
		{"one byte past", append(small, packets(maxMessageBytes+1)...), true},
		{"past it over full packets", append(small, packets(2*maxPacket+10)...), true},
	} {
		for _, chunk := range []int{1, 3, 4096, 1 << 20} {
			if chunk == 1 && len(tc.stream) > 1<<20 {
				continue // a byte at a time through 16 MiB is slow and adds nothing
			}
			before := rowsRefused.Load()
			c := &boundedConn{Conn: pipeConn{r: bytes.NewReader(tc.stream)}}
			n, err := readAll(c, chunk)
			switch {
			case tc.refuse && !errors.Is(err, errRowTooLong):
				t.Errorf("%s, reads of %d: read %d bytes, then %v; want the row refused", tc.name, chunk, n, err)
			case tc.refuse && n > len(small)+maxMessageBytes+8+chunk: // the packets before, the row's first full packet and two headers
				t.Errorf("%s, reads of %d: read %d bytes before refusing", tc.name, chunk, n)
			case tc.refuse && rowsRefused.Load() != before+1:
				t.Errorf("%s: refusals counted %d, want 1", tc.name, rowsRefused.Load()-before)
			case !tc.refuse && (err != io.EOF || n != len(tc.stream)):
				t.Errorf("%s, reads of %d: read %d of %d bytes, then %v; want all and EOF", tc.name, chunk, n, len(tc.stream), err)
			}
		}
	}
}
