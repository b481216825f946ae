package transport

import (
	"bufio"
	"encoding/binary"
	"sync"
)

// wsServerStream is the server side of a WebSocket connection as a
// conn.Stream whose writes coalesce: the session lays out each answer as a
// whole WebSocket frame (unmasked, as a server's are) and hands many of
// them to Write at once, which sends them in one system call, where
// coder/websocket's Write flushes each message on its own. Reads, control
// frames (pongs, pings, the closing handshake) and Close stay with
// coder/websocket (wsConn).
//
// Both write to the connection underneath, never interleaving within a
// frame: coder/websocket buffers each of its frames whole and sends it in
// one Write, and a net.Conn's Writes do not interleave. The session stops
// writing before it closes the stream, so no data frame follows our close
// frame; one that follows the peer's is refused by the closed connection.
type wsServerStream struct {
	*wsConn
	br *bufio.Reader // coder/websocket's read buffer, for Buffered

	// mu orders Buffered against Close: the closing handshake reads br on
	// the closing goroutine, and Buffered must not look at it meanwhile.
	mu      sync.Mutex
	closing bool
}

// Close runs the closing handshake (wsConn.Close); Buffered reports false
// from now on.
func (s *wsServerStream) Close() error {
	s.mu.Lock()
	s.closing = true
	s.mu.Unlock()
	return s.wsConn.Close()
}

// Next returns the next message (wsConn.ReadMessage).
func (s *wsServerStream) Next() ([]byte, error) { return s.ReadMessage() }

// Buffered reports whether a whole message is buffered: a single final
// data frame, complete. A control frame, a fragment or a partial frame
// counts as nothing (Next might block), so the session sends what it holds
// first.
func (s *wsServerStream) Buffered() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return false
	}
	n := s.br.Buffered()
	if n < 2 {
		return false
	}
	b, _ := s.br.Peek(min(n, 14))
	if b[0]&0x80 == 0 || b[0]&0x0f == 0 || b[0]&0x08 != 0 { // not final, continuation, or control
		return false
	}
	hdr, size := 2, int(b[1]&0x7f)
	switch size {
	case 126:
		hdr += 2
		if len(b) < hdr {
			return false
		}
		size = int(binary.BigEndian.Uint16(b[2:]))
	case 127:
		hdr += 8
		if len(b) < hdr {
			return false
		}
		u := binary.BigEndian.Uint64(b[2:])
		if u > uint64(n) {
			return false
		}
		size = int(u)
	}
	if b[1]&0x80 != 0 { // masked, as a client's frames are
		hdr += 4
	}
	return n >= hdr+size
}

// wsHeaderLen is the length of the header of an unmasked frame carrying n
// bytes.
func wsHeaderLen(n int) int {
	switch {
	case n < 126:
		return 2
	case n <= 0xffff:
		return 4
	}
	return 10
}

// putWSHeader writes the header of a final, unmasked text frame of n bytes
// into b, which holds wsHeaderLen(n) bytes.
func putWSHeader(b []byte, n int) {
	b[0] = 0x81 // FIN, text
	switch len(b) {
	case 2:
		b[1] = byte(n)
	case 4:
		b[1] = 126
		binary.BigEndian.PutUint16(b[2:], uint16(n))
	default:
		b[1] = 127
		binary.BigEndian.PutUint64(b[2:], uint64(n))
	}
}

// AppendFrame appends msg as one WebSocket text frame.
func (s *wsServerStream) AppendFrame(dst, msg []byte) []byte {
	h := wsHeaderLen(len(msg))
	start := len(dst)
	dst = append(dst, make([]byte, h)...)
	putWSHeader(dst[start:start+h], len(msg))
	return append(dst, msg...)
}

// FrameInPlace makes the message buf holds from start on one WebSocket
// text frame, moving it past its header.
func (s *wsServerStream) FrameInPlace(buf []byte, start int) []byte {
	n := len(buf) - start
	h := wsHeaderLen(n)
	buf = append(buf, make([]byte, h)...)
	copy(buf[start+h:], buf[start:start+n])
	putWSHeader(buf[start:start+h], n)
	return buf
}

// Write sends frames, whole WebSocket frames, in one write.
func (s *wsServerStream) Write(frames []byte) error {
	_, err := s.nc.Write(frames)
	return err
}
