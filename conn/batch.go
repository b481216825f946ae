package conn

import (
	"slices"
	"sync"
	"sync/atomic"

	"github.com/mcpwire/mcpwire/codec"
)

// batch collects the responses of one batch's elements, which may finish in
// any order on any goroutine, and sends them as one array in request order
// when the last is done.
type batch struct {
	c     *Conn
	slots []*codec.Buffer // response of element i; nil for none
	left  atomic.Int32    // elements not done, plus one held by the reader
}

// batchPool recycles batches: send is the last use of one.
var batchPool = sync.Pool{New: func() any { return new(batch) }}

var errBatchTooLarge = codec.NewError(codec.CodeResponseTooLarge, "Response too large: batch response exceeds the limit")

// serveBatch dispatches every element of a batch. Non-inline elements run in
// parallel on the pool, sharing one copy of the frame.
func (c *Conn) serveBatch(frame []byte, msgs []codec.Message) {
	b := batchPool.Get().(*batch)
	b.c = c
	b.slots = append(b.slots[:0], make([]*codec.Buffer, len(msgs))...)
	b.left.Store(int32(len(msgs)) + 1)
	var ref *frameRef
	for i := range msgs {
		c.serveMessage(frame, &msgs[i], b, i, &ref)
	}
	ref.release()
	b.complete(-1, nil, true) // the reader's own hold
}

// complete records element slot's response (slot -1: the reader's hold) and
// sends the batch if it was the last one.
func (b *batch) complete(slot int, resp *codec.Buffer, lazy bool) {
	if slot >= 0 {
		b.slots[slot] = resp
	}
	if b.left.Add(-1) == 0 {
		b.send(lazy)
	}
}

// send joins the responses into one array. A batch of notifications only
// sends nothing; an array over MaxBatchResponseBytes is replaced by -32003.
// It recycles b: nothing refers to a batch once its last element is done.
func (b *batch) send(lazy bool) {
	c := b.c
	defer func() {
		b.c, b.slots = nil, b.slots[:0]
		batchPool.Put(b)
	}()
	size, n := 1, 0
	for _, r := range b.slots {
		if r != nil {
			size += len(r.B) + 1
			n++
		}
	}
	if n == 0 {
		return
	}
	// Arrays have their own pool: it calibrates to their size, not to the
	// single responses'.
	out := c.arrays.Get()
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
	for i, r := range b.slots {
		if r != nil {
			c.bufs.Put(r)
			b.slots[i] = nil
		}
	}
	c.write(out.B, lazy)
	c.arrays.Put(out)
}
