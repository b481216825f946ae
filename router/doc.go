// Package router maps JSON-RPC method names to handlers, and adapts typed
// Go functions to handlers.
//
// # Method table
//
// A Router is safe for concurrent use. Lookup never blocks, takes no lock
// and does not allocate; it sees the table as it was before or after a
// concurrent Register, Unregister or Use, never a mixture. An *Entry that
// Lookup returns is never modified: a caller may keep it for the duration
// of one call.
//
// Method names are matched exactly, byte for byte, after the codec has
// unescaped them. Register refuses names beginning with "rpc." (reserved by
// JSON-RPC 2.0: ErrReservedName), the empty name (ErrEmptyName) and a nil
// handler (ErrNilHandler).
//
// # Middleware
//
// Use adds middleware around every method, those already registered and
// those registered later; the first added is the outermost. Entry.Handler
// is the wrapped handler, so a call pays nothing to assemble the chain.
//
// # Response cache
//
// MethodOptions.Cache puts a Cache (package cache provides one) in front of
// a method. A stored result is answered by the method's Interceptor, on
// the goroutine that dispatches the request, before admission and any
// hand-off to a worker; a miss runs the handler through Cache.Do, which
// runs identical concurrent calls once, encodes the result once and stores
// it. A result that cannot be encoded fails the call (-32603) and is not
// stored; neither is an error. Notifications bypass the cache.
//
// Middleware applies to every call, a cache hit included: a hit is
// answered through Entry.Intercepted, the middleware around the stored
// result, so authentication, authorisation and rate limits hold for hits
// as for misses, and that middleware must not block. A cached method can
// be neither Inline nor have an Interceptor of its own (ErrCacheConflict).
//
// # Typed handlers
//
// Func adapts func(ctx, P) (R, error) to a Handler. It decodes the params
// into a P, under these rules:
//
//   - params absent (or null): P is its zero value;
//   - params an object: decoded by name into a struct (json tags and
//     field visibility as in encoding/json) or a map;
//   - params an array: decoded into a slice or array P element by element,
//     or into a struct P by position: element i goes to the i-th member in
//     declaration order (the fields the object form would fill, fields of
//     embedded structs in place). More elements than members is an error;
//     fewer is one when a member left without its element is required;
//   - P = codec.Raw, or a field of type codec.Raw, receives the JSON as
//     sent (a copy).
//
// Member names are matched exactly, byte for byte after unescaping, as
// JSON Schema validation matches them, at any depth and on every platform:
// {"MINUEND":1} does not fill a field named minuend. A name that differs
// from a field's only by case is an unknown member, and unknown members are
// ignored. A name given twice in one object, at any depth ("a" and "\u0061"
// are one name), is refused before decoding with -32602 and data
// {"member": "x", "pointer": "/params/a/0/x"} (codec.DuplicateNameError).
//
// A member of a struct is required unless its field is a pointer, is
// tagged omitempty or omitzero, or is promoted from an embedded pointer
// (the rule JSON Schema generation follows). This applies to P's members
// and to those of a struct member held by value and given as an object;
// not inside pointers, slices or maps. A member given as null is present.
// A handler thus never mistakes a member the caller left out for a zero it
// sent.
//
// Params that do not fit P are answered with a -32602 *codec.Error that
// names the first value at fault and what was expected:
//
//	invalid params: field "minuend": cannot use string as int
//	invalid params: element 1 ("subtrahend"): cannot use string as int
//	invalid params: field "center.y": missing required member
//	invalid params: too few elements: 1 given, element 1 ("subtrahend") is required
//
// Its Data is a map with "field" (a path such as "point.x" or "items[2]")
// and, for an array, "index" (the element at fault).
//
// P's strings do not alias the request: a handler may keep P after it
// returns. R becomes the result: a codec.Raw is written verbatim, anything
// else is encoded with sonic. An error from f is returned as it is.
//
// Params must be valid JSON, as a connection's scanner guarantees; any other
// caller must validate them first.
//
// # Design
//
// The method table is copy-on-write: an immutable map behind an atomic
// pointer, replaced whole by writers, which serialise on a mutex.
//
// Typed params take a fast path and, only when it fails, a slow one. The
// fast path decodes with codec.ExactDecoder (sonic, where sonic has a
// decoder of its own) into a pooled P, then checks required members by
// testing each required field for its zero value, at offsets computed once
// per type; only a zero field makes it walk the params' member names. The
// slow path decodes the params again with codec.ExplainExact
// (go-json-experiment/json under the same rules), whose error carries the
// JSON Pointer of the value at fault: that pointer becomes "field". Which
// field a member name fills is asked of the decoder (codec.ExactTarget)
// once per type, so positional params and required members follow the
// decoder's field rules rather than a copy of them.
//
// # Glossary
//
//   - entry: one registered method, with its handler as wrapped by the
//     middleware (Entry).
//   - interceptor: code that may answer a request for a method before its
//     handler runs, on the dispatching goroutine (Interceptor).
//   - member: a name/value pair of a JSON object; the members of a struct
//     type are the names its fields are decoded from.
package router
