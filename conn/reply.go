package conn

import (
	"errors"

	"github.com/mcpwire/mcpwire/codec"
)

// Where answers go: every answer of the connection passes through answer
// or emit below, and nowhere else is that decided.
//
// A message alone in its frame is answered to where the frame came from:
// the ServeBody call that brought it, or the session's stream. On the
// stream, the reader holds the answers it produces itself and hands them to
// the writer before it would block; answers produced elsewhere (workers,
// timers, Shutdown) go to the writer. A message in a batch is answered to
// its slot; the batch emits one array, like a message alone, when its last
// element is settled. Every message is settled exactly once: with its
// response, or with nil when none is due (a notification, a response of
// the peer, a request cancelled silently).

// replyTo is where the answer to one message goes.
type replyTo struct {
	b    *batch     // its batch, or nil when it is alone in its frame
	slot int        // its index in b; alone, 0, or v1Slot for a 1.0 message
	body *bodyReply // the ServeBody call it came in, or nil: the stream
}

// v1Slot is the slot of a JSON-RPC 1.0 message, always alone in its
// frame: the version rides in a field a message alone does not use, so
// that a replyTo stays three words, as every answer passes one by value.
const v1Slot = -1

// v1 reports a JSON-RPC 1.0 message, to be answered in 1.0.
func (to replyTo) v1() bool { return to.slot == v1Slot }

// shape returns msg, a response the codec's encoders wrote for the
// message to, in that message's version: rewritten in place into the 1.0
// shape for a 1.0 message (never in a batch), as it is otherwise.
func (to replyTo) shape(msg []byte) []byte {
	if to.v1() {
		return codec.ToJSONRPC1(msg)
	}
	return msg
}

// answer settles the message to with resp (nil: no response is due) and
// takes resp back to the buffer pool. rd is the reader when the reading
// goroutine calls (it may hold its output back), nil on any other.
func (c *Conn) answer(to replyTo, resp *codec.Buffer, rd *reader) {
	if to.b != nil {
		to.b.complete(to.slot, resp, rd)
		return
	}
	var msg []byte
	if resp != nil {
		msg = to.shape(resp.B)
	}
	c.emit(to.body, msg, rd)
	if resp != nil {
		respBufs.Put(resp)
	}
}

// answerError settles the message to with the error e: a response for a
// request (isCall), nothing for a notification.
func (c *Conn) answerError(to replyTo, rd *reader, isCall bool, id []byte, e *codec.Error) {
	var resp *codec.Buffer
	if isCall {
		resp = errorResponse(id, e)
	}
	c.answer(to, resp, rd)
}

// emit sends the whole answer to one frame — a response or a batch array;
// nil: none — to the ServeBody call it came in (body), or to the stream.
func (c *Conn) emit(body *bodyReply, msg []byte, rd *reader) {
	switch {
	case body != nil:
		body.put(msg)
	case msg == nil:
	case rd != nil:
		rd.held.B = c.s.AppendFrame(rd.held.B, msg)
		rd.heldFull()
	case c.saturated != nil && c.saturated():
		c.sent(c.out.send(msg)) // the tasks queued wait for a busy worker: hold nothing for them
	default:
		c.sent(c.out.sendLater(msg, &c.queued))
	}
}

// sent ends the session when the writer failed (other than by closing).
func (c *Conn) sent(err error) {
	if err != nil && !errors.Is(err, ErrClosed) {
		c.terminate(err)
	}
}

// taskStarted counts a task handed to the pool as started (or refused): the
// last one queued writes what the workers held back for it (sendLater).
func (c *Conn) taskStarted() {
	if c.queued.Add(-1) == 0 {
		c.sent(c.out.flushLater())
	}
}

// errorResponse encodes an error response into a pooled buffer.
func errorResponse(id []byte, e *codec.Error) *codec.Buffer {
	resp := respBufs.Get()
	resp.B = codec.AppendError(resp.B, id, e)
	return resp
}

// Buffer pools belong to the process, not to a connection: a pool per
// connection would keep every connection that ever used it reachable for
// an extra GC cycle (the runtime holds registered sync.Pools), and would
// not share warm buffers across connection churn.
var (
	respBufs  codec.BufferPool // responses and frame copies
	arrayBufs codec.BufferPool // batch responses: they calibrate apart
)

// heldFlushBytes is how much output the writer holds back for queued
// tasks (sendLater) before it flushes.
const heldFlushBytes = 64 << 10

// heldEarlyBytes is how much output the reader holds back while more input
// is buffered before it sends it anyway: a pipelining peer then works on
// the first answers while the reader serves the rest, instead of waiting
// for all of them (tools/call pipelined over stdio, 64 callers: 24% faster
// than holding up to heldFlushBytes, the other rows unchanged).
const heldEarlyBytes = 2 << 10

// heldFull flushes the reader's held output once it is heldEarlyBytes.
func (rd *reader) heldFull() {
	if len(rd.held.B) >= heldEarlyBytes {
		rd.flushHeld()
	}
}

// flushHeld hands the reader's held output to the writer, its answers
// reported first.
func (rd *reader) flushHeld() error {
	if len(rd.held.B) == 0 {
		return nil
	}
	rd.unmark() // the writer may block
	rd.flushTallies()
	var err error
	rd.held.B, err = rd.c.out.sendHeld(rd.held.B)
	rd.c.sent(err)
	return err
}
