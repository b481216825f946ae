package mcp

import (
	"context"
	"errors"

	"github.com/mcpwire/mcpwire/codec"
)

// errNotInitialize is Restore's error for a message that is not an
// initialize request.
var errNotInitialize = errors.New("mcp: Restore: the message is not an initialize request")

// Restore initializes a new session from the initialize request its
// client sent before (the message as received), and marks it initialized
// as notifications/initialized would: a transport re-creating a session
// that another instance of the server started, or that this one forgot,
// from a SessionStore's record. Unlike the client's own messages, the
// request does not go through the server's middleware: it is not a call
// of the client's now, and a rate limit or metrics counting it would
// charge the client for the instance its request happened to reach.
//
// The InitializedHandler, if any, runs on a goroutine of its own with
// ctx's values and without its cancellation. Restore fails, leaving the
// session uninitialized, when msg is not an initialize request whose
// params decode, or the session is initialized already.
func (ss *ServerSession) Restore(ctx context.Context, msg []byte) error {
	if m, ok := codec.Member(msg, "method"); !ok || string(m) != `"initialize"` {
		return errNotInitialize
	}
	var p InitializeParams
	if params, ok := codec.Member(msg, "params"); ok {
		if err := codec.UnmarshalExact(params, &p); err != nil {
			return errors.Join(errNotInitialize, err)
		}
	}
	s := ss.srv
	if _, err := s.initialize(ctx, ss, nil, &p); err != nil {
		return err
	}
	if h := s.opts.InitializedHandler; s.markInitialized(ss) && h != nil {
		go h(context.WithoutCancel(ctx), ss)
	}
	return nil
}
