package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/mcpwire/mcpwire/bench/echo"
)

// The raw client of W1, W2, W3, W6 and W7: it writes echo requests as
// bytes and reads the answers as JSON values, the same for every server,
// so that only the servers differ; it costs little and allocates nothing
// per call, so that its cost drowns as little of theirs as it can.

// echoMsg is the message every echo request sends.
const echoMsg = "hello, world"

// appendRequest appends the echo request with id, without a newline.
func appendRequest(dst []byte, id int64) []byte {
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	dst = strconv.AppendInt(dst, id, 10)
	return append(dst, `,"method":"`+echo.Method+`","params":["`+echoMsg+`"]}`...)
}

// valueReader reads one JSON value at a time from a newline-delimited
// stream (every server here writes one: x/exp/jsonrpc2's through a
// newline added after each message); find splits a batch's elements.
type valueReader struct {
	r    io.Reader
	buf  []byte
	r0   int // start of unread bytes
	w    int // end of read bytes; 0 <= r0 <= w <= len(buf)
	scan int // bytes of buf[r0:w] already searched
	st   valueState
}

// valueState is where the scan of a value stands.
type valueState struct {
	depth   int
	inStr   bool
	escaped bool
}

// newValueReader reads r with a buffer of size bytes to begin with (it
// grows to hold a longer value).
func newValueReader(r io.Reader, size int) *valueReader {
	return &valueReader{r: r, buf: make([]byte, size)}
}

// next returns the next line that is not blank, valid until the next
// call.
func (vr *valueReader) next() ([]byte, error) {
	for {
		if i := bytes.IndexByte(vr.buf[vr.r0+vr.scan:vr.w], '\n'); i >= 0 {
			end := vr.r0 + vr.scan + i
			v := bytes.TrimSpace(vr.buf[vr.r0:end])
			vr.r0, vr.scan = end+1, 0
			if len(v) > 0 {
				return v, nil
			}
			continue
		}
		vr.scan = vr.w - vr.r0
		if vr.r0 > 0 { // make room: move the partial line to the front
			vr.w = copy(vr.buf, vr.buf[vr.r0:vr.w])
			vr.r0 = 0
		}
		if vr.w == len(vr.buf) {
			vr.buf = append(vr.buf, make([]byte, len(vr.buf))...)
		}
		n, err := vr.r.Read(vr.buf[vr.w:])
		vr.w += n
		if n == 0 && err != nil {
			return nil, err
		}
	}
}

// find scans the unread bytes for the end of a whole value (elements
// uses it on a batch), from where the last scan stopped; it returns the
// value's length from r0 (leading white space skipped).
func (vr *valueReader) find() (int, bool) {
	b := vr.buf[vr.r0:vr.w]
	if vr.scan == 0 { // skip white space before the value
		for len(b) > 0 && (b[0] == ' ' || b[0] == '\n' || b[0] == '\r' || b[0] == '\t') {
			b = b[1:]
			vr.r0++
		}
		vr.st = valueState{}
	}
	st := &vr.st
	for i := vr.scan; i < len(b); i++ {
		c := b[i]
		switch {
		case st.inStr:
			switch {
			case st.escaped:
				st.escaped = false
			case c == '\\':
				st.escaped = true
			case c == '"':
				st.inStr = false
			}
		case c == '"':
			st.inStr = true
		case c == '{' || c == '[':
			st.depth++
		case c == '}' || c == ']':
			st.depth--
			if st.depth == 0 {
				return i + 1, true
			}
		}
	}
	vr.scan = len(b)
	return 0, false
}

// answers checks each element of a JSON array as answerID checks an
// answer, and calls fn with its id.
func answers(arr []byte, fn func(id int64) error) error {
	if len(arr) < 2 || arr[0] != '[' {
		return fmt.Errorf("not an array: %.80q", arr)
	}
	vr := &valueReader{buf: arr[1:], w: len(arr) - 1}
	for {
		id, n, fast := echoAnswer(vr.buf[vr.r0:vr.w])
		if !fast {
			var ok bool
			if n, ok = vr.find(); !ok {
				return nil
			}
			var err error
			if id, err = answerIDSlow(vr.buf[vr.r0 : vr.r0+n]); err != nil {
				return err
			}
		}
		if err := fn(id); err != nil {
			return err
		}
		vr.r0 += n
		vr.scan = 0
		for vr.r0 < vr.w && (vr.buf[vr.r0] == ',' || vr.buf[vr.r0] == ' ') {
			vr.r0++
		}
	}
}

// answerID checks that v answers an echo request with echoMsg and returns
// its id. The fast path reads the compact JSON every server writes; any
// other shape is decoded in full.
func answerID(v []byte) (int64, error) {
	if id, n, ok := echoAnswer(v); ok && n == len(v) {
		return id, nil
	}
	return answerIDSlow(v)
}

// The values echoAnswer wants, quotes included.
var (
	versionValue = []byte(`"2.0"`)
	resultValue  = []byte(`"` + echoMsg + `"`)
)

// echoAnswer reads, in one pass, the compact echo answer v begins with:
// {"jsonrpc":"2.0","id":N,"result":"<echoMsg>"}, its three members in any
// order, no white space, N a non-negative integer of at most 18 digits.
// It returns N and the answer's length; ok false for any other shape
// (white space, escapes, an error member, another member), which the
// callers then read in full. It is the clients' share of every workload
// that reads answers, the same for every implementation: the less it
// costs, the more of what is measured is the server.
func echoAnswer(v []byte) (id int64, n int, ok bool) {
	if len(v) == 0 || v[0] != '{' {
		return 0, 0, false
	}
	const jsonrpc, hasID, result = 1, 2, 4
	seen := 0
	for i := 1; ; {
		if i >= len(v) || v[i] != '"' {
			return 0, 0, false
		}
		k := bytes.IndexByte(v[i+1:], '"')
		if k < 0 {
			return 0, 0, false
		}
		key := v[i+1 : i+1+k]
		if i += k + 2; i >= len(v) || v[i] != ':' {
			return 0, 0, false
		}
		i++
		var member, size int
		switch string(key) {
		case "jsonrpc":
			member, size = jsonrpc, len(versionValue)
			if !bytes.HasPrefix(v[i:], versionValue) {
				return 0, 0, false
			}
		case "result":
			member, size = result, len(resultValue)
			if !bytes.HasPrefix(v[i:], resultValue) {
				return 0, 0, false
			}
		case "id":
			member = hasID
			for i+size < len(v) && v[i+size]-'0' < 10 && size <= 18 {
				id = id*10 + int64(v[i+size]-'0')
				size++
			}
			if size == 0 || size > 18 || size > 1 && v[i] == '0' {
				return 0, 0, false
			}
		default:
			return 0, 0, false
		}
		if seen&member != 0 {
			return 0, 0, false
		}
		seen |= member
		if i += size; i >= len(v) {
			return 0, 0, false
		}
		switch v[i] {
		case ',':
			i++
		case '}':
			return id, i + 1, seen == jsonrpc|hasID|result
		default:
			return 0, 0, false
		}
	}
}

// answerIDSlow is answerID's full decode.
func answerIDSlow(v []byte) (int64, error) {
	var a struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      *int64          `json:"id"`
		Result  *string         `json:"result"`
		Error   json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(v, &a); err != nil {
		return 0, fmt.Errorf("answer %.120q: %v", v, err)
	}
	switch {
	case a.Error != nil:
		return 0, fmt.Errorf("error answer %.200s", v)
	case a.JSONRPC != "2.0" || a.ID == nil:
		return 0, fmt.Errorf("not an answer: %.200s", v)
	case a.Result == nil || *a.Result != echoMsg:
		return 0, fmt.Errorf("wrong result: %.200s", v)
	}
	return *a.ID, nil
}

// idSet records the ids answered: each must be one sent, answered once.
type idSet struct{ seen []bool }

func newIDSet(n int) *idSet { return &idSet{seen: make([]bool, n)} }

// add records id; it fails for an id never sent or answered before.
func (s *idSet) add(id int64) error {
	if id < 0 || id >= int64(len(s.seen)) {
		return fmt.Errorf("answer to id %d, never sent", id)
	}
	if s.seen[id] {
		return fmt.Errorf("id %d answered twice", id)
	}
	s.seen[id] = true
	return nil
}
