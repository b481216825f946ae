package reqmeta

import (
	"context"
	"hash/maphash"
)

// A transport that has read a request's View (to check the headers that
// mirror its body) hands it to the engine through the context it serves
// the body with (With; conn.BodyContext finds that context again in the
// handler's), and the engine takes it (From) instead of walking the
// params again. What travels is not the View's slices, which are views
// into the transport's buffer, reused once the body is served, but where
// they lie in the params; From puts them back onto the params the
// handler has (conn's copy), and only when these are, byte for byte as
// far as a 64-bit hash of the process's seed tells, the params the View
// was read from: a middleware that gave the handler other params gets no
// View, and the engine reads them.

// seed is the seed of the params' hashes.
var seed = maphash.MakeSeed()

// span is where a View's member lies in its params: an offset and a
// length; off < 0 for a member absent.
type span struct{ off, n int32 }

// spanOf returns where member, a sub-slice of params or nil, lies in
// params (see With), and ok when ok was and it lies within them.
func spanOf(params, member []byte, ok bool) (span, bool) {
	if member == nil {
		return span{-1, 0}, ok
	}
	off := cap(params) - cap(member)
	return span{int32(off), int32(len(member))}, ok && off >= 0 && off+len(member) <= len(params)
}

// in returns the member s locates in params, or nil.
func (s span) in(params []byte) []byte {
	if s.off < 0 {
		return nil
	}
	return params[s.off : s.off+s.n] // a sub-slice, as Read's
}

// carried is a View in a context: a context of its own, one allocation.
type carried struct {
	context.Context        // the parent
	n               int    // len(params)
	sum             uint64 // maphash.Bytes(seed, params)
	// Where the View's members lie, field by field.
	version, caps, info, logLevel, responses, state, progress, name, args span
	others, uncommon, repeated                                            bool
}

type key struct{}

// Value implements context.Context.
func (c *carried) Value(k any) any {
	if k == (key{}) {
		return c
	}
	return c.Context.Value(k)
}

// With returns parent carrying v, a View Read has made whole of params;
// parent itself when v is not whole or is not a view of params.
//
// It relies on how codec.Members makes its values, which View's members
// are: each a sub-slice of params made without a full slice expression,
// so that its capacity runs to the end of params' and its offset in
// params is cap(params) - cap(member) (as codec.Message.Rebase relies on
// the Scanner's spans). A member that is not within params voids the
// View.
func With(parent context.Context, params []byte, v *View) context.Context {
	if !v.Whole || len(params) > 1<<30 {
		return parent
	}
	c := &carried{Context: parent, n: len(params), others: v.Others, uncommon: v.Uncommon, repeated: v.Repeated}
	ok := true
	c.version, ok = spanOf(params, v.Version, ok)
	c.caps, ok = spanOf(params, v.Caps, ok)
	c.info, ok = spanOf(params, v.Info, ok)
	c.logLevel, ok = spanOf(params, v.LogLevel, ok)
	c.responses, ok = spanOf(params, v.Responses, ok)
	c.state, ok = spanOf(params, v.State, ok)
	c.progress, ok = spanOf(params, v.Progress, ok)
	c.name, ok = spanOf(params, v.Name, ok)
	c.args, ok = spanOf(params, v.Args, ok)
	if !ok {
		return parent
	}
	c.sum = maphash.Bytes(seed, params)
	return c
}

// From sets *v to the View ctx carries (With), put onto params, and
// reports whether it did: when ctx carries one, read from params' very
// bytes. Otherwise v is left as it is.
func From(ctx context.Context, params []byte, v *View) bool {
	c, _ := ctx.Value(key{}).(*carried)
	if c == nil || c.n != len(params) || c.sum != maphash.Bytes(seed, params) {
		return false
	}
	// Field by field: a View literal is built aside, then copied. Every
	// field is set (TestWith_carriesTheViewOntoACopy).
	v.Version, v.Caps, v.Info, v.LogLevel = c.version.in(params), c.caps.in(params), c.info.in(params), c.logLevel.in(params)
	v.Responses, v.State, v.Progress = c.responses.in(params), c.state.in(params), c.progress.in(params)
	v.Name, v.Args = c.name.in(params), c.args.in(params)
	v.Others, v.Uncommon, v.Repeated, v.Whole = c.others, c.uncommon, c.repeated, true
	return true
}
