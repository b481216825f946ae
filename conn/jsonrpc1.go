package conn

import (
	"errors"

	"github.com/mcpwire/mcpwire/codec"
)

// JSON-RPC 1.0 (Options.JSONRPC1, Options.SendJSONRPC1). The codec finds a
// 1.0 message in its one pass and marks it (codec.Message.JSONRPC1); the
// session serves it as any other and, at the one place every answer to a
// message alone passes (replyTo.shape, from answer and a task's emit),
// rewrites the answer into the 1.0 shape (codec.ToJSONRPC1). A 1.0
// message never takes the reader's held-output shortcut (replyTo.held), so
// no answer escapes the rewrite; a 2.0 message pays one test of a flag.

// ErrParamsNotArray is returned by Call and Notify under
// Options.SendJSONRPC1 for params that do not encode to a JSON array (or
// null, sent as []): JSON-RPC 1.0 params are positional.
var ErrParamsNotArray = errors.New("conn: JSON-RPC 1.0 params must be an array")

// ErrBatchJSONRPC1 is returned by CallBatch under Options.SendJSONRPC1:
// JSON-RPC 1.0 has no batches.
var ErrBatchJSONRPC1 = errors.New("conn: JSON-RPC 1.0 has no batches")

// appendRequest1 appends the JSON-RPC 1.0 request (or, id nil, the 1.0
// notification, id null) with params encoded in place: an array, or nil
// or null for []. On an error dst is returned unchanged.
func appendRequest1(dst, id []byte, method string, params any) ([]byte, error) {
	start := len(dst)
	dst = codec.AppendRequest1(dst, id, method, nil) // … "params":[]}
	if params == nil {
		return dst, nil
	}
	end := len(dst) - len("[]}")
	dst, err := codec.AppendValue(dst[:end], params)
	if err == nil {
		switch ps := dst[end:]; {
		case len(ps) > 0 && ps[0] == '[':
			return append(dst, '}'), nil
		case string(ps) == "null":
			return append(dst[:end], "[]}"...), nil
		}
		err = ErrParamsNotArray
	}
	return dst[:start], err
}

// JSONRPC1Metrics may be implemented by a Metrics to count apart the
// JSON-RPC 1.0 messages a session with Options.JSONRPC1 serves (they are
// reported to Answered and Refused too, as any other). Implementations
// must be safe for concurrent use and must not block.
type JSONRPC1Metrics interface {
	// JSONRPC1 reports one 1.0 request or notification received, by
	// method: a registered name, UnknownMethod, or InvalidMessage for a
	// 1.0 object that is no valid request.
	JSONRPC1(method string)
}

// counted1 reports m, a 1.0 message, to Metrics if it counts them: a
// request or notification by its method, an invalid one as
// InvalidMessage; responses are not counted. It looks the method up
// itself, so that dispatch takes no test for 1.0.
func (c *Conn) counted1(m *codec.Message) {
	mm, ok := c.opts.Metrics.(JSONRPC1Metrics)
	if !ok {
		return
	}
	switch m.Kind {
	case codec.KindRequest, codec.KindNotification:
		method := UnknownMethod
		if e, ok := c.opts.Router.Lookup(m.AppendMethod(nil)); ok {
			method = e.Method
		}
		mm.JSONRPC1(method)
	case codec.KindInvalid:
		mm.JSONRPC1(InvalidMessage)
	}
}
