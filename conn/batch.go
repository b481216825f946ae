package conn

import (
	"slices"
	"sync"
	"sync/atomic"

	"github.com/mcpwire/mcpwire/codec"
)

// batch collects the responses of one batch's elements, which may finish in
// any order on any goroutine, and emits them as one array in request order
// when the last is settled.
type batch struct {
	c     *Conn
	body  *bodyReply      // the ServeBody call it came in, or nil: the stream
	slots []*codec.Buffer // response of element i, from a pooled buffer
	spans []span          // or in arena, encoded there by the dispatcher
	arena codec.Buffer    // the responses of inline elements, back to back
	left  atomic.Int32    // elements not settled, plus one held by the dispatcher
}

// span locates an element's response in its batch's arena; end 0: none.
type span struct{ start, end int }

// maxKeptArena bounds the arena a recycled batch keeps.
const maxKeptArena = 64 << 10

// batchPool recycles batches: send is the last use of one.
var batchPool = sync.Pool{New: func() any { return new(batch) }}

var errBatchTooLarge = codec.NewError(codec.CodeResponseTooLarge, "Response too large: batch response exceeds the limit")

// serveBatch dispatches every element of a batch. Non-inline elements run in
// parallel on the pool, sharing one copy of the frame.
func (c *Conn) serveBatch(frame []byte, msgs []codec.Message, body *bodyReply, rd *reader) {
	b := batchPool.Get().(*batch)
	b.c, b.body = c, body
	b.slots = append(b.slots[:0], make([]*codec.Buffer, len(msgs))...)
	b.spans = append(b.spans[:0], make([]span, len(msgs))...)
	b.left.Store(int32(len(msgs)) + 1)
	var ref *frameRef
	for i := range msgs {
		c.serveMessage(frame, &msgs[i], replyTo{b: b, slot: i}, rd, &ref)
	}
	ref.release()
	if rd != nil {
		rd.flushTallies() // before anyone can send the inline elements' answers
	}
	b.complete(-1, nil, rd) // the dispatcher's own hold
}

// complete records element slot's response (slot -1: the dispatcher's
// hold) and sends the batch if it was the last one.
func (b *batch) complete(slot int, resp *codec.Buffer, rd *reader) {
	if slot >= 0 {
		b.slots[slot] = resp
	}
	if b.left.Add(-1) == 0 {
		b.send(rd)
	}
}

// inArena is where the dispatcher encodes an inline element's response:
// the batch's arena, no pooled buffer per element. Dispatcher only, before
// it releases its hold: nothing else touches the arena until send.
func (b *batch) inArena() (*codec.Buffer, int) { return &b.arena, len(b.arena.B) }

// completeInArena settles element slot with the response the dispatcher
// encoded into the arena from start on.
func (b *batch) completeInArena(slot, start int, rd *reader) {
	b.spans[slot] = span{start, len(b.arena.B)}
	b.complete(slot, nil, rd)
}

// response returns element i's response, or nil for none.
func (b *batch) response(i int) []byte {
	if r := b.slots[i]; r != nil {
		return r.B
	}
	if sp := b.spans[i]; sp.end > sp.start {
		return b.arena.B[sp.start:sp.end]
	}
	return nil
}

// send joins the responses into one array. A batch of notifications only
// emits nothing; an array over MaxBatchResponseBytes is replaced by -32003.
// It recycles b: nothing refers to a batch once its last element is done.
func (b *batch) send(rd *reader) {
	c, body := b.c, b.body
	size, n := 1, 0
	for i := range b.slots {
		if r := b.response(i); r != nil {
			size += len(r) + 1
			n++
		}
	}
	var out *codec.Buffer
	if n > 0 {
		out = arrayBufs.Get()
		if size > c.opts.Limits.MaxBatchResponseBytes {
			out.B = codec.AppendError(out.B, nil, errBatchTooLarge)
		} else {
			out.B = slices.Grow(out.B, size)
			sep := byte('[')
			for i := range b.slots {
				if r := b.response(i); r != nil {
					out.B = append(append(out.B, sep), r...)
					sep = ','
				}
			}
			out.B = append(out.B, ']')
		}
	}
	for i, r := range b.slots {
		if r != nil {
			respBufs.Put(r)
			b.slots[i] = nil
		}
	}
	b.c, b.body, b.slots, b.spans = nil, nil, b.slots[:0], b.spans[:0]
	b.arena.B = b.arena.B[:0]
	if cap(b.arena.B) > maxKeptArena {
		b.arena.B = nil
	}
	batchPool.Put(b)
	if out == nil {
		c.emit(body, nil, rd)
		return
	}
	c.emit(body, out.B, rd)
	arrayBufs.Put(out)
}
