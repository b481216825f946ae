package conn

import (
	"encoding/binary"
	"time"

	"github.com/mcpwire/mcpwire/codec"
)

// MessageConn carries one whole message per unit: a WebSocket, an
// in-memory pipe. NewMessageStream makes a Stream of it.
type MessageConn interface {
	// ReadMessage returns the next message: valid until the next call.
	// io.EOF is a clean end.
	ReadMessage() ([]byte, error)
	// WriteMessage sends one message; msg is not retained.
	WriteMessage(msg []byte) error
	// Close closes the connection; a blocked ReadMessage or WriteMessage
	// returns.
	Close() error
}

// NewMessageStream makes a Stream of mc. A message longer than
// l.MaxFrameBytes (nil: the default) is answered -32600 and skipped. The
// deadline methods of mc, if it has them, are the stream's.
func NewMessageStream(mc MessageConn, l *codec.Limits) Stream {
	lim := l.WithDefaults()
	return &messageStream{mc: mc, max: lim.MaxFrameBytes}
}

// messageStream lays out outgoing messages with a 4-byte big-endian length
// before each, and Write cuts them apart again: the session coalesces
// them the same way as on a byte stream, the transport sends them one by
// one.
type messageStream struct {
	mc  MessageConn
	max int
}

const lenPrefix = 4

func (s *messageStream) Next() ([]byte, error) {
	msg, err := s.mc.ReadMessage()
	if err == nil && len(msg) > s.max {
		return nil, &codec.FrameError{Err: codec.ErrFrameTooLarge}
	}
	return msg, err
}

func (s *messageStream) Buffered() bool {
	b, ok := s.mc.(interface{ Buffered() bool })
	return ok && b.Buffered()
}

func (s *messageStream) AppendFrame(dst, msg []byte) []byte { return appendLenFrame(dst, msg) }

func (s *messageStream) FrameInPlace(buf []byte, start int) []byte {
	return lenFrameInPlace(buf, start)
}

// appendLenFrame appends msg after its length, as eachMessage reads it.
func appendLenFrame(dst, msg []byte) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(msg)))
	return append(dst, msg...)
}

// lenFrameInPlace lays out the message buf holds from start on as
// appendLenFrame would have.
func lenFrameInPlace(buf []byte, start int) []byte {
	n := len(buf) - start
	buf = append(buf, 0, 0, 0, 0)
	copy(buf[start+lenPrefix:], buf[start:start+n])
	binary.BigEndian.PutUint32(buf[start:], uint32(n))
	return buf
}

// framesWriter is a MessageConn that takes Write's frames whole (Pipe).
type framesWriter interface{ writeFrames(frames []byte) error }

func (s *messageStream) Write(frames []byte) error {
	if w, ok := s.mc.(framesWriter); ok {
		return w.writeFrames(frames)
	}
	return eachMessage(frames, s.mc.WriteMessage)
}

// eachMessage calls f with each message of frames, laid out as
// AppendFrame lays them out, until f fails.
func eachMessage(frames []byte, f func(msg []byte) error) error {
	for len(frames) >= lenPrefix {
		n := int(binary.BigEndian.Uint32(frames))
		if err := f(frames[lenPrefix : lenPrefix+n : lenPrefix+n]); err != nil {
			return err
		}
		frames = frames[lenPrefix+n:]
	}
	return nil
}

func (s *messageStream) Close() error { return s.mc.Close() }

func (s *messageStream) SetReadDeadline(t time.Time) error {
	if d, ok := s.mc.(readDeadliner); ok {
		return d.SetReadDeadline(t)
	}
	return errNoDeadline
}

func (s *messageStream) SetWriteDeadline(t time.Time) error {
	if d, ok := s.mc.(writeDeadliner); ok {
		return d.SetWriteDeadline(t)
	}
	return errNoDeadline
}
