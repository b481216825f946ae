package codec

import (
	"bytes"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// FuzzEnvelope: for any frame the scanner accepts as JSON, each message's
// classification (request, notification, result, error, bad response or
// invalid), the error it is answered with, and its id, method, params,
// result and error spans are those of refEnvelope, the wire rules of
// DESIGN §3 stated directly over jsontext's reading of the same bytes.
// Frames the scanner refuses are FuzzScan's business.
func FuzzEnvelope(f *testing.F) {
	for _, c := range envelopeCases {
		f.Add([]byte(c.in))
	}
	for _, m := range mcpStream()[:40] {
		f.Add(m)
	}
	addCorpusSeeds(f)
	for _, s := range []string{
		`[{"jsonrpc":"2.0","method":"a","id":1},{"jsonrpc":"2.0","method":"b"},{"jsonrpc":"2.0","result":1,"id":2}]`,
		`{"jsonrpc":"2.0","m\u0065thod":"rpc\u002eping","id":"x","method":"y"}`,
		`{"jsonrpc":"2\u002e0","method":"rpc.x","id":[1]}`,
		`{"jsonrpc":"2.0","error":{"code":1},"result":null,"id":null}`,
		`{"jsonrpc":"2.0","error":7,"id":1,"params":3}`,
		`[]`, `[1,2,3]`, `{"id":1,"id":2,"method":"x","jsonrpc":"2.0"}`,
	} {
		f.Add([]byte(s))
	}
	def := NewScanner(nil)
	tight := NewScanner(&Limits{MaxBatch: 2})
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, s := range []*Scanner{def, tight} {
			msgs, batch, err := s.Scan(data)
			if err != nil {
				return
			}
			want, wantBatch, ok := refFrame(data, s.limits.MaxBatch)
			if !ok {
				t.Fatalf("jsontext cannot read a frame the scanner accepted")
			}
			if batch != wantBatch || len(msgs) != len(want) {
				t.Fatalf("MaxBatch %d: batch %v with %d messages, want batch %v with %d", s.limits.MaxBatch, batch, len(msgs), wantBatch, len(want))
			}
			for i, m := range msgs {
				refCompare(t, i, m, want[i])
			}
		}
	})
}

// refMessage is what refEnvelope makes of one message.
type refMessage struct {
	kind                      Kind
	err                       *Error
	id, params, result, errob []byte
	method                    string // unescaped; "" unless a request or notification
}

func refCompare(t *testing.T, i int, m Message, w refMessage) {
	t.Helper()
	if m.Kind != w.kind || m.Err != w.err {
		t.Fatalf("message %d: %v %v, the wire rules say %v %v", i, m.Kind, m.Err, w.kind, w.err)
	}
	if !bytes.Equal(m.ID, w.id) || (m.ID == nil) != (w.id == nil) {
		t.Fatalf("message %d (%v): id %q, want %q", i, m.Kind, m.ID, w.id)
	}
	if !bytes.Equal(m.Params, w.params) || !bytes.Equal(m.Result, w.result) || !bytes.Equal(m.ErrorObj, w.errob) {
		t.Fatalf("message %d (%v): params %q result %q error %q, want %q %q %q", i, m.Kind, m.Params, m.Result, m.ErrorObj, w.params, w.result, w.errob)
	}
	if m.Kind == KindRequest || m.Kind == KindNotification {
		if got := string(m.AppendMethod(nil)); got != w.method {
			t.Fatalf("message %d: method %q, want %q", i, got, w.method)
		}
	}
}

// refFrame reads a frame as the wire rules do: a batch (an array) is an
// error when empty or longer than maxBatch, else each element is judged on
// its own; any other value is one message. ok is false when jsontext cannot
// read the frame (allowing what the scanner allows: repeated names, escaped
// lone surrogates).
func refFrame(data []byte, maxBatch int) (msgs []refMessage, batch, ok bool) {
	opts := []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}
	if !jsontext.Value(data).IsValid(opts...) {
		return nil, false, false
	}
	// ReadValue returns each value as it is in the frame, without the
	// white space around it: the spans the scanner records.
	dec := jsontext.NewDecoder(bytes.NewReader(data), opts...)
	if dec.PeekKind() != '[' {
		v, err := dec.ReadValue()
		if err != nil {
			return nil, false, false
		}
		return []refMessage{refEnvelope(v)}, false, true
	}
	dec.ReadToken()
	var elems []jsontext.Value
	for dec.PeekKind() != ']' {
		e, err := dec.ReadValue()
		if err != nil {
			return nil, false, false
		}
		elems = append(elems, bytes.Clone(e))
	}
	switch {
	case len(elems) == 0:
		return []refMessage{{kind: KindInvalid, err: errEmptyBatch}}, false, true
	case len(elems) > maxBatch:
		return []refMessage{{kind: KindInvalid, err: errBatchTooLong}}, false, true
	}
	for _, e := range elems {
		msgs = append(msgs, refEnvelope(e))
	}
	return msgs, true, true
}

// refEnvelope applies DESIGN §3 to one JSON value; the spans it returns
// are jsontext's raw values of the members.
//
//   - Not an object: invalid (-32600), id null.
//   - Member names are matched exactly after unescaping; others are ignored.
//   - The id is kept when there is exactly one and it is a string, a number
//     or null; otherwise the answer's id is null.
//   - With a method member: a repeated envelope member, a jsonrpc that is
//     not the string "2.0", a method that is not a string, an id of another
//     type, params that are neither array, object nor null make it invalid
//     (in that order of precedence); no id member makes it a notification;
//     a name beginning with "rpc." in a request is method not found
//     (-32601); else a request. Null params are absent params.
//   - Without method, with result or error: a response. A repeated member,
//     a bad jsonrpc, a bad id, no id, both result and error, or an error
//     that is not an object make it a bad response, the last three all
//     "malformed response".
//   - Neither: invalid, no method.
func refEnvelope(v jsontext.Value) refMessage {
	if v.Kind() != '{' {
		return refMessage{kind: KindInvalid, err: errNotObject}
	}
	members, _ := jsontextMembers(v)
	one := func(name string) []byte {
		if vs := members[name]; len(vs) == 1 {
			return vs[0]
		}
		return nil
	}
	last := func(name string) []byte {
		if vs := members[name]; len(vs) > 0 {
			return vs[len(vs)-1]
		}
		return nil
	}
	has := func(name string) bool { return len(members[name]) > 0 }
	dup := false
	for _, name := range []string{"jsonrpc", "id", "method", "params", "result", "error"} {
		dup = dup || len(members[name]) > 1
	}
	badID := false
	for _, id := range members["id"] {
		badID = badID || !strings.ContainsRune(`"-0123456789n`, rune(id[0]))
	}
	var r refMessage
	if !badID {
		r.id = one("id")
	}
	version := last("jsonrpc")
	versionOK := version != nil && jsontext.Value(version).Kind() == '"' && refString(version) == "2.0"
	switch {
	case has("method"):
		method := last("method")
		params := last("params")
		badParams := params != nil && params[0] != '[' && params[0] != '{' && params[0] != 'n'
		switch {
		case dup:
			r.kind, r.err = KindInvalid, errDupMember
		case !versionOK:
			r.kind, r.err = KindInvalid, errBadVersion
		case method[0] != '"':
			r.kind, r.err = KindInvalid, errBadMethod
		case badID:
			r.kind, r.err = KindInvalid, errBadID
		case badParams:
			r.kind, r.err = KindInvalid, errBadParams
		case !has("id"):
			r.kind = KindNotification
		case strings.HasPrefix(refString(method), "rpc."):
			r.kind, r.err = KindInvalid, errReservedMethod
		default:
			r.kind = KindRequest
		}
		if r.kind == KindRequest || r.kind == KindNotification {
			r.method = refString(method)
			if params != nil && params[0] != 'n' {
				r.params = params
			}
		}
	case has("result") || has("error"):
		r.kind = KindBadResponse
		errob := last("error")
		switch {
		case dup:
			r.err = errDupMember
		case !versionOK:
			r.err = errBadVersion
		case badID:
			r.err = errBadID
		case !has("id"), has("result") && has("error"), errob != nil && errob[0] != '{':
			r.err = errBadResponse
		case has("result"):
			r.kind, r.result = KindResult, last("result")
		default:
			r.kind, r.errob = KindError, errob
		}
	default:
		r.kind, r.err = KindInvalid, errNoMethod
	}
	return r
}

// refString unescapes a JSON string with jsontext (lone surrogates become
// U+FFFD, as AppendMethod makes them).
func refString(raw []byte) string {
	dec := jsontext.NewDecoder(bytes.NewReader(raw), jsontext.AllowInvalidUTF8(true))
	tok, err := dec.ReadToken()
	if err != nil {
		return "\x00not a string"
	}
	return tok.String()
}
