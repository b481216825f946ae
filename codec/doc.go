// Package codec reads and writes JSON-RPC 2.0 messages: it cuts streams into
// frames, validates and classifies each frame in one pass, and encodes
// responses. It imports nothing else of mcpwire.
//
// What a caller may rely on, in short:
//
//   - A [Framer] (from a [Framing]: [Newline] or [Header]) returns each
//     frame as a view into its read buffer, valid until its next call to
//     Next; a bad frame is a recoverable *[FrameError] and is skipped
//     without being buffered whole.
//   - A [Scanner] accepts exactly the JSON texts of RFC 8259 (with the
//     choices listed under JSONTestSuite below), gives every message of a
//     frame a [Kind] by the envelope rules below, and never reads past
//     [Limits]. Its spans are views into the frame.
//   - The encoders (AppendResult, AppendError, AppendRequest,
//     AppendValue…) append to the caller's buffer and return it; an id is
//     echoed byte for byte. Go values are encoded by sonic.
//   - Error codes are the named constants of [Code], one table for the
//     project; *[Error] compares by code in errors.Is.
//   - Scanners, Framers, Canonicalizers and the token iterators are not
//     safe for concurrent use: one per goroutine. Framings, Limits and the
//     package-level functions are safe for concurrent use, each call with
//     buffers of its own.
//
// # Scanning
//
// A [Scanner] validates a frame as one JSON text (RFC 8259) and, in the same
// pass, records the spans of the envelope members of the top-level object,
// or of each object of a top-level array (a batch). Nothing is unmarshalled:
// [Message] holds views into the frame, and params stay raw bytes until a
// handler decodes them.
//
// Accepted:
//
//   - Any JSON text of RFC 8259 with white space (space, tab, LF, CR) around
//     and between tokens, nested at most Limits.MaxDepth deep.
//   - Numbers of any size and precision: they are checked against the
//     grammar and kept raw, never converted (an id 12345678901234567890 or
//     1.50 is echoed as sent).
//   - Escaped surrogates that do not pair ("\ud800", "\udc00\ud800"). They
//     are grammatical JSON and JavaScript peers emit them; AppendUnescaped
//     turns each into U+FFFD, as encoding/json does.
//
// Rejected as a parse error (-32700, id null): Scan returns a *[SyntaxError]
// with the byte offset of the fault, wrapping one of these sentinels:
//
//   - [ErrSyntax]: anything outside the grammar, an empty frame, a control
//     character (< 0x20) inside a string, a byte order mark.
//   - [ErrInvalidUTF8]: raw bytes that are not UTF-8 (RFC 3629): stray
//     continuation bytes, overlong forms, encoded surrogates U+D800…U+DFFF,
//     code points above U+10FFFF, truncated sequences. UTF-16 and Latin-1
//     texts fall here or under ErrSyntax.
//   - [ErrInvalidEscape]: a backslash not followed by one of "\/bfnrt or by
//     u and four hex digits.
//   - [ErrTooDeep]: more than Limits.MaxDepth nested arrays and objects (a
//     batch counts as one level, its objects as a second). The nesting stack
//     is a bit set sized by MaxDepth when the Scanner is made, so a frame of
//     100,000 "[" is refused at depth MaxDepth+1 without allocating.
//   - [ErrTrailingData]: anything but white space after the value.
//
// A parse error anywhere, even inside one element of a batch, fails the
// whole frame: there is no partial batch.
//
// # Envelope rules
//
// Every message of a valid frame gets a [Kind]:
//
//   - An object with a method member is a request (it has an id member) or a
//     notification (it has none). It is invalid (-32600; the answer carries
//     the id if one could be read, else null) when a member is duplicated,
//     jsonrpc is not exactly the string "2.0" (missing counts), method is not
//     a string, id is not a string, number or null (the answer then carries
//     id null), or params is not an array, an object or null (null params
//     are absent params). The first of these checks to fail, in that order,
//     names the error. A request whose method, unescaped, begins with "rpc."
//     is answered -32601 and keeps its id; a notification with such a name
//     stays a notification and so gets no response at all (no handler can be
//     registered under a reserved name, so it is dropped like any unknown
//     notification).
//   - An object with no method but a result or error member is a response:
//     KindResult or KindError, or KindBadResponse when it has both, has no id
//     member, has a duplicated member, a bad jsonrpc or id, or an error that
//     is not an object. A bad response is never answered (two peers must not
//     loop on each other's errors); its Err says what was wrong, for logs.
//   - Any other object is invalid (-32600, "no method"); a value that is not
//     an object is invalid with id null.
//   - Member names are matched exactly, case-sensitively, after unescaping:
//     "m\u0065thod" is method. Unknown members are ignored, duplicated or not.
//   - Duplicated names inside params, one rule: refused, as the envelope
//     refuses its own. RFC 8259 leaves the meaning of an object with a name
//     given twice open and decoders disagree (sonic keeps the last value, a
//     schema validator may see the first), so params are checked with
//     [DuplicateName] before anything decodes them into Go values (the
//     router's typed handlers, every MCP method, tool arguments included):
//     an object anywhere in them with a name twice, "a" and "\u0061" being
//     one name, is answered -32602 "Invalid params: duplicated member",
//     data {"member": the name, "pointer": its JSON Pointer (RFC 6901) from
//     the message's root, such as "/params/arguments/x"}. A notification
//     so refused gets no response, as for any failing handler. The Scanner
//     itself does not look: tracking names in its pass made a small
//     request's scan 27–41% slower, for params that are decoded at most
//     once; the check costs one walk of the params when they are decoded.
//     Params a handler takes raw (codec.Raw) are its own to check.
//   - A batch [] is one invalid message (-32600) and not a batch; so is a
//     batch of more than Limits.MaxBatch elements, which is still validated
//     whole first. Any other batch gives one message per element, in order.
//
// # JSON-RPC 1.0
//
// A Scanner with SetJSONRPC1 also accepts JSON-RPC 1.0 objects, found in
// the same pass (jsonrpc1.go has the rules): an object at the top level
// without a jsonrpc member, or with "jsonrpc":"1.0", is judged as 1.0 —
// params an array (absent or null: none), "id":null a notification, no
// id refused -32600, object params and class hints (__jsonclass__)
// refused -32600, a response carrying both result and error, one null —
// and marked Message.JSONRPC1, to be answered in the 1.0 shape
// (ToJSONRPC1). 2.0 objects keep every rule above; batch elements are
// always 2.0. Off (the default), a 1.0 object is an invalid request.
//
// # JSONTestSuite
//
// Every y_ case of JSONTestSuite (test_parsing) is accepted and every n_ case
// refused. The implementation-defined i_ cases are decided so:
//
//   - Huge numbers (i_number_*: huge exponents, overflow, underflow, very big
//     integers): accepted; numbers are kept raw.
//   - Escaped surrogates that do not pair (i_string_1st_surrogate_but_2nd_missing,
//     i_string_1st_valid_surrogate_2nd_invalid, i_string_incomplete_surrogate*,
//     i_string_invalid_lonely_surrogate, i_string_invalid_surrogate,
//     i_string_inverted_surrogates_U+1D11E, i_string_lone_second_surrogate,
//     i_object_key_lone_2nd_surrogate): accepted.
//   - Raw bytes that are not UTF-8 (i_string_UTF-8_invalid_sequence,
//     i_string_UTF8_surrogate_U+D800, i_string_invalid_utf-8,
//     i_string_iso_latin_1, i_string_lone_utf8_continuation_byte,
//     i_string_not_in_unicode_range, i_string_overlong_sequence_*,
//     i_string_truncated-utf-8): rejected.
//   - UTF-16 texts, with or without a byte order mark, and a UTF-8 byte order
//     mark (i_string_UTF-16LE_with_BOM, i_string_utf16BE_no_BOM,
//     i_string_utf16LE_no_BOM, i_structure_UTF-8_BOM_empty_object): rejected.
//     RFC 8259 forbids sending a BOM; JSON-RPC peers do not send one.
//   - i_structure_500_nested_arrays: accepted, since 500 <= 512, the default
//     MaxDepth.
//
// # Tokens
//
// Code that must look inside params (the router, the response cache) reads
// them through this package's token API and nowhere else; no other package
// of mcpwire tokenises JSON. It works on text a Scanner has already
// validated and never unmarshals: values are raw spans of the input.
//
//   - [KindOf] tells a value's [ValueKind] by its first byte.
//   - [SkipValue] finds where the value at an offset ends.
//   - [Members] and [Elements] walk an object or an array, one raw value at a
//     time, with byte offsets; they are small values kept on the caller's
//     stack and allocate nothing. A member's name is matched after
//     unescaping, byte for byte ([Members.Name]): JSON names are
//     case-sensitive. [Members.Enter] walks into a member's object
//     without skipping it first.
//   - [Unquote], [AppendUnquote] and [AppendUnescaped] decode strings.
//   - [DuplicateName] finds a member name given twice in one object, at any
//     depth, after unescaping, and [DuplicateNameError] is the -32602 to
//     answer it with (below).
//
// They check what they read (strings, numbers, literals, punctuation) but
// not all of the grammar (how brackets pair inside a skipped value): on
// text that is not valid they return an error where they notice, and never
// panic or loop. Validate untrusted bytes with a Scanner first.
//
// # Canonical form
//
// [AppendCanonical] (and a reusable [Canonicalizer]) writes a JSON text so
// that equal meanings give equal bytes, for cache keys: no white space;
// object members sorted by unescaped name in byte order; strings escaped
// exactly as the encoder escapes them (only '"', '\\' and control
// characters, the short forms where JSON has them, else \u00XX; all other
// characters as UTF-8); numbers and literals verbatim. A repeated member
// name is kept, each occurrence in its original order (the sort is stable),
// so the form never hides which value came last. The canonical form of a
// canonical text is itself. Numbers are not normalised: 1, 1.0 and 1e0 stay
// three keys. An escaped surrogate that does not pair becomes U+FFFD, as
// encoding/json reads it; "\ud800" and "\udfff" thus share a form. FuzzCanonical
// checks these properties against encoding/json.
//
// # Limits
//
// [Limits] bounds what a peer can make the codec do; a zero field takes its
// default: MaxFrameBytes 16 MiB (a longer frame is answered -32600 and
// skipped by the framer without being buffered), MaxDepth 512, MaxBatch 1000
// elements, MaxBatchResponseBytes 32 MiB (a larger batch response is replaced
// by -32003), MaxHeaderBytes 4 KiB (one Content-Length header line),
// MaxHeaderLines 32 (header lines before one body; with MaxHeaderBytes they
// bound what a header block makes the framer buffer).
//
// # Performance
//
// Scanning allocates nothing in the steady state: a Scanner reuses its
// message slice, and member names or jsonrpc values with escapes are
// unescaped into a small buffer it owns. Its hot loops (string bodies, white
// space, digit runs) look at 8 bytes per step in portable Go. On amd64,
// strings longer than 64 bytes are scanned 64 bytes per step in assembly
// (string_wide_amd64.s): two AVX2 vectors, or one AVX-512 vector where
// the CPU has AVX-512 BW and VBMI, chosen once from the CPU's features
// when the package is initialised. Blocks holding multi-byte UTF-8 are
// validated whole (Keiser and Lemire's lookup tables) and escapes are
// found and checked for the whole block at once, so only an error goes
// back to the portable loop. On bench's W5 stream that is several times
// the portable loop's speed and, with AVX-512, above sonic.Valid's (which
// checks neither UTF-8 nor escapes). The purego build tag, other architectures and CPUs without
// AVX2 keep the portable loop. The tests run every loop the CPU has
// (FuzzStringWide holds each to a byte-at-a-time reference), and
// BenchmarkStringLoop measures each.
//
// # Security
//
// The Scanner is the only code of mcpwire that reads untrusted bytes. Other
// decoders, sonic in particular, only ever see bytes it has validated: sonic's
// assembly decoders have crashed on hostile input in the past, and a crash
// there cannot be recovered. The Scanner does not recurse, so no input can
// exhaust the goroutine stack; its memory is bounded by MaxDepth/8 bytes of
// nesting stack and one Message per batch element up to MaxBatch. Its running
// time is linear in the frame size. It is fuzzed (FuzzScan) against
// encoding/json.
//
// Spans in a Message are views into the frame: they are valid as long as the
// frame is unchanged, which for a framer's frame means until its next call to
// Next. Copy what must outlive it.
//
// # Glossary
//
//   - frame: the bytes of one message or batch as the framing delimits
//     them (a line, a Content-Length body, an HTTP body).
//   - span: a [start, end) range of bytes of a frame, such as a member's
//     value.
//   - canonical form: the text [AppendCanonical] writes, equal for equal
//     meanings; used as a cache key.
package codec
