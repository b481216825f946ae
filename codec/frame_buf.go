package codec

import (
	"bytes"
	"errors"
	"io"
	"math"
	"math/bits"
	"sync"
)

// The read buffer shared by the framers.
//
// Invariants: 0 <= r <= scan <= w <= len(buf) <= limit.
//
//   - buf[r:w] holds the bytes read but not yet consumed; a frame returned by
//     Next is a sub-slice of it.
//   - buf[r:scan] has already been searched (for '\n', or for
//     "Content-Length:" while resynchronising), so a partial frame is not
//     searched again after every read.
//   - base is the stream offset of buf[0], for error offsets.
//   - err is the reader's first error. Bytes that came with it are used
//     first; once it is set the reader is never called again.
//
// fill reads as much as fits. The buffer starts at 512 bytes (first), so that an
// idle stream (a connection waiting for its next request) holds little,
// and doubles up to 64 KiB while reads fill it, so that a busy stream reads
// much at a time. A stream that has consumed everything it read, the last
// read not filling the buffer, is probably about to wait: fill gives a
// grown buffer back to grownPools and reads into first again; should that
// read fill it, the buffer grows at once to the size it had (recent). fill
// moves the unread tail to the front when little room is left at the end,
// and grows the buffer past that only when a single frame in progress
// needs more than the buffer holds, never past limit: a little over the
// largest frame or header block allowed. A frame over the limit is
// recognised before the buffer would have to grow past it, and is then
// discarded as it is read.
//
// A stream whose bursts outgrow its first buffer (the buffer grew out of
// it since the last wait: without a waiter, the only way to a grown one)
// gets a larger one at the next wait: the size of the grown buffer, up
// to maxFirstFrameBuf. A stream of small messages keeps 512 bytes; one
// of batches reads each in one go.
//
// A reader that can wait without a buffer (a ReadWaiter: a socket) needs
// no first buffer: where another stream would read into first, the
// framer waits with nothing, then takes a pooled buffer (of the recent
// size, or waitFrameBuf) and reads into that.

const (
	firstFrameBuf    = 512      // first buffer size: what an idle stream holds
	maxFirstFrameBuf = 8 << 10  // the most an idle stream holds, once its bursts are larger
	initialFrameBuf  = 64 << 10 // what a busy stream grows to; also the smallest limit
	minFrameRead     = 4 << 10  // compact rather than read less than this
	waitFrameBuf     = 4 << 10  // the buffer taken after a ReadWaiter's first wait
	maxStalls        = 100      // consecutive empty reads before io.ErrNoProgress
)

// errBadRead reports a reader that returned an impossible count.
var errBadRead = errors.New("codec: reader returned an invalid count")

type frameBuf struct {
	rd    io.Reader
	buf   []byte
	r     int
	scan  int
	w     int
	base  int64
	err   error
	limit int // largest len(buf)
	// busySize is the size the buffer grows to, doubling, while reads
	// fill it (the stream is busy: fewer, larger reads); busy says the
	// last read did.
	busySize int
	busy     bool
	// An idle stream gives its grown buffer back unless a size was given:
	// first is the buffer it then reads into; a waiter (nil: none) waits
	// with no buffer instead (first is nil). g boxes buf when it is a
	// grown one, to go back to grownPools; recent is the size of the last
	// grown buffer given back.
	waiter   ReadWaiter
	first    []byte
	g        *grown
	recent   int
	max      int // MaxFrameBytes
	maxHdr   int // MaxHeaderBytes
	maxLines int // MaxHeaderLines
}

func (b *frameBuf) init(r io.Reader, l *Limits, size int) {
	b.rd = r
	b.max = min(l.MaxFrameBytes, math.MaxInt-2) // keeps max+2 from overflowing
	b.maxHdr = min(l.MaxHeaderBytes, math.MaxInt-2)
	b.maxLines = min(l.MaxHeaderLines, math.MaxInt-1)
	// A newline frame needs room for its "\r\n"; a header block for its
	// lines, each with its "\r\n", and one more line (frame_header.go).
	block := math.MaxInt
	if b.maxHdr+2 <= math.MaxInt/(b.maxLines+1) {
		block = (b.maxLines + 1) * (b.maxHdr + 2)
	}
	b.limit = max(initialFrameBuf, b.max+2, block)
	b.busySize = size
	if size <= 0 {
		// Start small, so that an idle stream holds little (a waiter
		// nothing); grow while reads fill the buffer.
		b.busySize = initialFrameBuf
		if b.waiter = WaitingReader(r); b.waiter == nil {
			b.first = make([]byte, firstFrameBuf)
			b.buf = b.first
		}
		return
	}
	b.buf = make([]byte, min(size, b.limit))
}

// drop discards every buffered byte.
func (b *frameBuf) drop() {
	b.base += int64(b.w)
	b.r, b.scan, b.w = 0, 0, 0
}

// skipLine moves past the next newline, discarding bytes up to it. It
// reports false, having dropped everything buffered, when no newline is
// buffered yet.
func (b *frameBuf) skipLine() bool {
	i := bytes.IndexByte(b.buf[b.scan:b.w], '\n')
	if i < 0 {
		b.drop()
		return false
	}
	b.r = b.scan + i + 1
	b.scan = b.r
	return true
}

// fill reads more bytes into the buffer. need is the number of unread bytes
// (counted from r) the caller wants to see; fill makes room for at least
// that many (need <= limit) and returns after one successful read. It
// returns the reader's error once no byte came with it.
func (b *frameBuf) fill(need int) error {
	if b.err != nil {
		return b.err
	}
	if b.r == b.w {
		b.drop()
		if b.g != nil && (b.first != nil || b.waiter != nil) && !b.busy {
			// All consumed and the last read did not fill the buffer: wait
			// with the small one, or none.
			b.recent = len(b.buf)
			putGrown(b.g)
			if b.first != nil && len(b.first) < min(b.recent, maxFirstFrameBuf) {
				// Without a waiter a grown buffer grew out of first:
				// the bursts outgrow it.
				b.first = make([]byte, min(b.recent, maxFirstFrameBuf))
			}
			b.g, b.buf = nil, b.first
		}
	}
	if len(b.buf) == 0 && b.waiter != nil {
		// Idle, holding nothing: wait, then take a buffer to read into.
		if err := b.waiter.WaitRead(); err != nil {
			b.err = err
			return err
		}
		b.g = takeGrown(max(b.recent, waitFrameBuf, need))
		b.buf = b.g.b
	}
	n := len(b.buf)
	if b.r > 0 && (n-b.w < minFrameRead || need > n-b.r) {
		// Move the unread tail (at most one partial frame) to the front.
		copy(b.buf, b.buf[b.r:b.w])
		b.base += int64(b.r)
		b.w -= b.r
		b.scan -= b.r
		b.r = 0
	}
	if need > n || b.w == n || (b.busy && n < b.busySize) {
		b.busy = false
		if n >= b.limit {
			// The framers recognise an oversized frame before this.
			return io.ErrShortBuffer
		}
		size := max(2*n, need)
		if b.g == nil && b.recent > size {
			size = b.recent // busy again after a wait: straight back
		}
		g := takeGrown(min(size, b.limit))
		copy(g.b, b.buf[b.r:b.w])
		b.base += int64(b.r)
		b.w -= b.r
		b.scan -= b.r
		b.r = 0
		if b.g != nil {
			putGrown(b.g)
		}
		b.g, b.buf = g, g.b
	}
	for stalls := 0; ; {
		m, err := b.rd.Read(b.buf[b.w:])
		if m < 0 || m > len(b.buf)-b.w {
			m, err = 0, errBadRead
		}
		b.busy = m == len(b.buf)-b.w
		b.w += m
		if err != nil {
			b.err = err
		}
		if m > 0 {
			return nil
		}
		if err != nil {
			return err
		}
		if stalls++; stalls >= maxStalls {
			b.err = io.ErrNoProgress
			return b.err
		}
	}
}

// grown is a read buffer past a framer's first, boxed so that it goes to
// and from grownPools without an allocation.
type grown struct{ b []byte }

// grownPools share grown buffers of 1 KiB << i between framers: a stream
// that waits gives its buffer back, one that gets busy takes one. Other
// sizes (a frame larger than the buffer) are made and dropped.
var grownPools [7]sync.Pool

// grownClass returns the pool for buffers of size bytes, or -1.
func grownClass(size int) int {
	if size < 2*firstFrameBuf || size&(size-1) != 0 {
		return -1
	}
	i := bits.Len(uint(size)) - bits.Len(uint(2*firstFrameBuf))
	if i >= len(grownPools) {
		return -1
	}
	return i
}

// takeGrown returns a buffer of size bytes, pooled if one is.
func takeGrown(size int) *grown {
	if i := grownClass(size); i >= 0 {
		if g, ok := grownPools[i].Get().(*grown); ok {
			return g
		}
	}
	return &grown{b: make([]byte, size)}
}

// putGrown gives g back to its pool, if it has one.
func putGrown(g *grown) {
	if i := grownClass(len(g.b)); i >= 0 {
		grownPools[i].Put(g)
	}
}

// bufCap reports the size of the read buffer (tests check it stays bounded).
func (b *frameBuf) bufCap() int { return cap(b.buf) }
