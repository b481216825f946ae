// Package router maps JSON-RPC method names to handlers.
//
// # Table
//
// A Router holds an immutable table (method name → *Entry) behind an atomic
// pointer. Lookup reads it with one atomic load and one map access: no lock,
// no allocation, and it never waits for a writer. Register, Unregister and Use
// build a new table under a mutex that only writers take, and swap it in;
// a Lookup that raced with the swap sees the old table or the new one, never
// a mixture. An *Entry is never modified once published, so a caller may keep
// it for the duration of one call.
//
// Method names are matched exactly, byte for byte, after the codec has
// unescaped them. Names beginning with "rpc." are reserved by JSON-RPC 2.0
// for the protocol itself and are refused by Register (ErrReservedName), as is
// the empty name (ErrEmptyName).
//
// # Middleware
//
// Use appends middleware that wraps every method, those already registered and
// those registered later; the first added is the outermost. Each Entry.Handler
// is the fully wrapped handler, built when the method is registered or the
// middleware changes, so dispatch pays nothing to assemble the chain.
//
// # Response cache
//
// MethodOptions.Cache puts a Cache (package cache provides one) in front
// of a method. Register makes it the method's interceptor, so a stored
// result is answered on the connection's reader before admission and
// hand-off, and wraps the handler, under the router's middleware: a call
// that misses runs through the cache's Do, which folds identical
// concurrent calls into one run of the handler; the handler's result is
// encoded once (a codec.Raw is copied: it may be a view into the
// request), stored, and answered verbatim as a codec.Raw. A result that
// cannot be encoded fails the call (-32603) and is not stored; neither is
// an error. Notifications go straight to the handler.
//
// Middleware sees every call: a miss on the handler side, those that
// wait for another call's run included, and a hit too, which is answered
// through the middleware around the stored result (Entry.Intercepted;
// Request.Intercepted holds the result) on the goroutine that looked it
// up, a connection's reader — so authentication, authorisation and rate
// limits hold for hits as for misses, and middleware must not block, as
// for an Inline method. A hit the middleware refuses is answered with the
// middleware's error. Without middleware a hit costs nothing more.
//
// A cached method cannot also be Inline (a miss may wait for another
// call's run, which the reader must never do) nor have an Intercept of
// its own: Register refuses both with ErrCacheConflict.
//
// # Typed handlers
//
// Func adapts a function func(ctx, P) (R, error) to a Handler. Params are
// decoded with sonic, once, into a P:
//
//   - params absent (or null): P is its zero value;
//   - params an object: decoded by name into a struct (json tags as in
//     encoding/json) or a map. Names are matched exactly, byte for byte
//     after unescaping, as JSON Schema validation matches them, and unlike
//     encoding/json, which folds case: {"MINUEND":1} does not fill a field
//     named minuend, at any depth. Unknown names (those that differ only by
//     case included) are ignored, as encoding/json does. A name given
//     twice in one object, at any depth, after unescaping ("a" and
//     "\u0061" are one name), is refused before decoding: -32602 "Invalid
//     params: duplicated member" with data {"member": "x", "pointer":
//     "/params/a/0/x"} (codec.DuplicateName), as the envelope refuses its
//     own duplicates; sonic alone would keep the last value;
//   - params an array: decoded into a slice or array P element by element, or
//     into a struct P by position: element i goes to the i-th field in
//     declaration order (exported fields and those promoted from embedded
//     structs, the ones encoding/json would see; fields tagged `json:"-"` are
//     skipped). More elements than fields is an error; fewer is one when a
//     field left without its element is required (below);
//   - P = codec.Raw receives the params verbatim (a copy), and so does a
//     field of type codec.Raw.
//
// A member of a struct is required unless its field is a pointer, is tagged
// omitempty or omitzero, or is promoted from an embedded pointer (the rule
// JSON Schema generation follows). A required member that is absent (by
// name), or left without its element (by position), is answered with
// -32602 naming it; a member given as null is present. The rule applies to
// P's members and to the members of a struct member held by value when it
// is given as an object; not inside pointers, slices or maps. A handler thus
// never mistakes a member the caller left out for a zero it sent. Checking
// costs nothing when every required field decodes to a value other than
// zero; otherwise the params' top-level names are walked once.
//
// Decoded strings share one copy of the params, made per call, so a handler
// may keep P after it returns. Any mismatch is answered with -32602 (a
// *codec.Error) whose message names the offending field, for example
//
//	invalid params: field "minuend": cannot use string as int
//	invalid params: element 1 ("subtrahend"): cannot use string as int
//	invalid params: field "center.y": missing required member
//	invalid params: too few elements: 1 given, element 1 ("subtrahend") is required
//
// and whose Data is a map with "field" (a path such as "point.x" or
// "items[2]") and, for positional params, "index".
//
// The result R is returned as the handler's result; a codec.Raw is written to
// the wire verbatim, anything else is encoded with sonic.
//
// Params must be valid JSON: the connection only passes bytes its scanner
// has validated, and so must any other caller (sonic is not made to read
// hostile input).
package router
