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
	slots []*codec.Buffer // response of element i; nil for none
	left  atomic.Int32    // elements not settled, plus one held by the dispatcher
}

// batchPool recycles batches: send is the last use of one.
var batchPool = sync.Pool{New: func() any { return new(batch) }}

var errBatchTooLarge = codec.NewError(codec.CodeResponseTooLarge, "Response too large: batch response exceeds the limit")

// serveBatch dispatches every element of a batch. Non-inline elements run in
// parallel on the pool, sharing one copy of the frame.
func (c *Conn) serveBatch(frame []byte, msgs []codec.Message, body *bodyReply, reader bool) {
	b := batchPool.Get().(*batch)
	b.c, b.body = c, body
	b.slots = append(b.slots[:0], make([]*codec.Buffer, len(msgs))...)
	b.left.Store(int32(len(msgs)) + 1)
	var ref *frameRef
	for i := range msgs {
		c.serveMessage(frame, &msgs[i], replyTo{b: b, slot: i}, reader, &ref)
	}
	ref.release()
	b.complete(-1, nil, reader) // the dispatcher's own hold
}

// complete records element slot's response (slot -1: the dispatcher's
// hold) and sends the batch if it was the last one.
func (b *batch) complete(slot int, resp *codec.Buffer, reader bool) {
	if slot >= 0 {
		b.slots[slot] = resp
	}
	if b.left.Add(-1) == 0 {
		b.send(reader)
	}
}

// send joins the responses into one array. A batch of notifications only
// emits nothing; an array over MaxBatchResponseBytes is replaced by -32003.
// It recycles b: nothing refers to a batch once its last element is done.
func (b *batch) send(reader bool) {
	c, body := b.c, b.body
	size, n := 1, 0
	for _, r := range b.slots {
		if r != nil {
			size += len(r.B) + 1
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
			for _, r := range b.slots {
				if r != nil {
					out.B = append(append(out.B, sep), r.B...)
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
	b.c, b.body, b.slots = nil, nil, b.slots[:0]
	batchPool.Put(b)
	if out == nil {
		c.emit(body, nil, reader)
		return
	}
	c.emit(body, out.B, reader)
	arrayBufs.Put(out)
}
