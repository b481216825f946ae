package codec

import "github.com/valyala/bytebufferpool"

// CONTRACT STUB — to be replaced by the real encoder (helper: framing).

// Buffer is a pooled output buffer. Get it from a BufferPool, append to B,
// and Put it back when written.
type Buffer = bytebufferpool.ByteBuffer

// BufferPool hands out output buffers; it calibrates its buffer size to the
// traffic it sees. The zero value is ready; safe for concurrent use. Each
// server or connection owns one (no global pool).
type BufferPool struct{ p bytebufferpool.Pool }

// Get returns an empty buffer.
func (p *BufferPool) Get() *Buffer { return p.p.Get() }

// Put returns b to the pool; b must not be used afterwards.
func (p *BufferPool) Put(b *Buffer) { p.p.Put(b) }

// AppendResult appends a success response. id is the raw id (nil: null);
// result is raw JSON, copied verbatim (nil: null).
func AppendResult(dst, id, result []byte) []byte { panic("not implemented") }

// AppendResultValue appends a success response whose result is v: a Raw or
// []byte-backed json value is copied, anything else is encoded with sonic.
// On an encoding error dst is returned unchanged with the error.
func AppendResultValue(dst, id []byte, v any) ([]byte, error) { panic("not implemented") }

// AppendError appends an error response. id is the raw id (nil: null). A
// Data that cannot be encoded is dropped (the error still goes out).
func AppendError(dst, id []byte, e *Error) []byte { panic("not implemented") }

// AppendRequest appends a request (id not nil) or a notification (id nil).
// method is plain text (it is escaped as needed); params is raw JSON (nil: omitted).
func AppendRequest(dst, id []byte, method string, params []byte) []byte { panic("not implemented") }

// AppendValue appends v encoded with sonic (a Raw is copied verbatim).
func AppendValue(dst []byte, v any) ([]byte, error) { panic("not implemented") }
