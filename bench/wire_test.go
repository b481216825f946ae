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

// elements calls fn with each element of a JSON array of objects.
func elements(arr []byte, fn func([]byte) error) error {
	if len(arr) < 2 || arr[0] != '[' {
		return fmt.Errorf("not an array: %.80q", arr)
	}
	vr := &valueReader{buf: arr[1:], w: len(arr) - 1}
	for {
		v, ok := vr.find()
		if !ok {
			return nil
		}
		if err := fn(vr.buf[vr.r0 : vr.r0+v]); err != nil {
			return err
		}
		vr.r0 += v
		vr.scan = 0
		for vr.r0 < vr.w && (vr.buf[vr.r0] == ',' || vr.buf[vr.r0] == ' ') {
			vr.r0++
		}
	}
}

var (
	idKey     = []byte(`"id":`)
	resultKey = []byte(`"result":"` + echoMsg + `"`)
	errorKey  = []byte(`"error"`)
	version   = []byte(`"jsonrpc":"2.0"`)
)

// answerID checks that v answers an echo request with echoMsg and returns
// its id. The fast path reads the compact JSON every server writes; any
// other shape is decoded in full.
func answerID(v []byte) (int64, error) {
	if bytes.Contains(v, resultKey) && bytes.Contains(v, version) && !bytes.Contains(v, errorKey) {
		if i := bytes.Index(v, idKey); i >= 0 {
			j := i + len(idKey)
			k := j
			for k < len(v) && v[k] >= '0' && v[k] <= '9' {
				k++
			}
			if id, err := strconv.ParseInt(string(v[j:k]), 10, 64); err == nil && k < len(v) && (v[k] == ',' || v[k] == '}') {
				return id, nil
			}
		}
	}
	return answerIDSlow(v)
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
