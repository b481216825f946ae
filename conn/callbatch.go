package conn

import (
	"context"
	"errors"
	"strconv"

	"github.com/mcpwire/mcpwire/codec"
)

// BatchCall is one element of a batch sent with CallBatch: a request, or
// a notification when Notify is set. The caller fills in Method, Params
// and Notify; CallBatch fills in ID, Result and Err of a request.
type BatchCall struct {
	// Method is the method to call.
	Method string
	// Params are encoded as Call's: nil for none, else a value encoding
	// to a JSON array or object (a codec.Raw is sent verbatim).
	Params any
	// Notify makes the element a notification: sent, never answered.
	Notify bool

	// ID is the id the request went out under.
	ID codec.Raw
	// Result is the request's result, the caller's to keep; nil with Err.
	Result codec.Raw
	// Err is the request's error response (a *codec.Error), or why it got
	// none: a *CanceledCallError when ctx ended first, ErrClosed when the
	// connection ended first, or the error of the write that carried it.
	Err error
}

// ErrEmptyBatch is returned by CallBatch for a batch of no element (a peer
// would answer it with one -32600).
var ErrEmptyBatch = errors.New("conn: a batch needs at least one element")

// CallBatch sends calls as one JSON-RPC batch, one array in one message,
// and waits until every request in it has its response, matched by id in
// whatever order the peer answers, or until ctx ends. Notifications in it
// get no response.
//
// It returns an error, and sends nothing, when the batch is empty
// (ErrEmptyBatch), under Options.SendJSONRPC1 (ErrBatchJSONRPC1), when an element's params do not encode (ErrBadParams,
// or the encoder's error), or when the connection has ended (ErrClosed).
// Otherwise it returns nil once every request is settled, each in its own
// element: Result, or Err. The batch shares the session with Call: their
// ids never collide, and a response reaches only the call it answers.
//
// A peer that refuses a batch whole answers one error with a null id,
// which no element can be matched to (Options.OnUnmatched is told of it):
// the elements then wait for ctx, so give it a deadline.
//
// Sent with the context of a pooled handler serving a body of
// ServeBodySink, the batch goes to that body's Related sink while the body
// is unsettled, as Call's request does.
func (c *Conn) CallBatch(ctx context.Context, calls []BatchCall) error {
	if len(calls) == 0 {
		return ErrEmptyBatch
	}
	if c.opts.SendJSONRPC1 {
		return ErrBatchJSONRPC1
	}
	msg := arrayBufs.Get()
	defer arrayBufs.Put(msg)
	waiting := make([]batchWait, 0, len(calls))
	msg.B = append(msg.B, '[')
	for i := range calls {
		bc := &calls[i]
		var id []byte
		if !bc.Notify {
			if err := c.addBatchCall(&waiting, i); err != nil {
				c.forget(waiting)
				return err
			}
			id = waiting[len(waiting)-1].raw
		}
		if i > 0 {
			msg.B = append(msg.B, ',')
		}
		var err error
		if msg.B, err = appendRequest(msg.B, id, bc.Method, bc.Params); err != nil {
			c.forget(waiting)
			return err
		}
	}
	msg.B = append(msg.B, ']')
	for _, w := range waiting {
		calls[w.elem].ID = w.raw
	}
	if err := c.sendMessage(ctx, msg.B); err != nil {
		for _, w := range waiting {
			calls[w.elem].Result, calls[w.elem].Err = c.calls.abandon(w.id, w.cl, err)
		}
		return nil
	}
	for _, w := range waiting {
		bc := &calls[w.elem]
		select {
		case <-w.cl.done:
			bc.Result, bc.Err = c.calls.finish(w.cl)
		case <-ctx.Done():
			bc.Result, bc.Err = c.calls.abandon(w.id, w.cl, &CanceledCallError{ID: bc.ID, Err: ctx.Err()})
		}
	}
	return nil
}

// batchWait is one request of a batch being sent: its element, its id
// (as a number and as sent), its pending call.
type batchWait struct {
	elem int
	id   uint64
	raw  codec.Raw
	cl   *call
}

// addBatchCall registers a pending call for element i.
func (c *Conn) addBatchCall(waiting *[]batchWait, i int) error {
	id, cl, err := c.calls.add(nil)
	if err != nil {
		return err
	}
	*waiting = append(*waiting, batchWait{elem: i, id: id, raw: strconv.AppendUint(nil, id, 10), cl: cl})
	return nil
}

// forget drops the pending calls of a batch that was never sent.
func (c *Conn) forget(waiting []batchWait) {
	for _, w := range waiting {
		if c.calls.take(w.id) != nil {
			c.calls.finish(w.cl)
		}
	}
}
