package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"sync/atomic"
	"syscall"

	"github.com/mcpwire/mcpwire/codec"
)

// A lane is one keep-alive connection of an httpStream, with at most one
// POST in flight. The writer claims an idle lane, fills out, bodyAt and
// wait, marks it busy and sends; the lane's goroutine (run) reads the
// answer, serves it and marks the lane idle again. The state's atomic
// stores and loads order those hand-overs.
type lane struct {
	s     *httpStream
	nc    net.Conn
	br    *bufio.Reader
	state atomic.Int32
	done  chan struct{} // a waited-for POST was answered

	// The writer's, while the lane is claimed; the goroutine's once busy.
	out    []byte // the request sent: its head, then the message from bodyAt
	bodyAt int
	wait   bool // the writer waits for the answer (done)

	// The goroutine's own.
	head  []byte          // the last answer's head, as read
	data  []byte          // the data of an event stream's events, one after another
	spans []span          // each event's data in data
	ready []*codec.Buffer // the answers to queue once the lane is idle
	sc    *codec.Scanner  // for messages not laid out as loadgen's (made on first use)
}

// span is a part of a buffer: [from, to).
type span struct{ from, to int }

// errLaneDone ends a lane whose connection is not to be reused: the
// server said Connection: close, or a body was not read whole.
var errLaneDone = errors.New("the connection is not reusable")

// errUnasked ends a lane on which an answer came with nothing in flight.
var errUnasked = errors.New("the server answered a request never sent")

// run serves the lane's answers until its connection ends; a connection
// that fails with a request in flight ends the stream.
func (l *lane) run() {
	for {
		err := l.serve()
		if err == nil {
			continue
		}
		quiet := err == errLaneDone || l.state.CompareAndSwap(laneIdle, laneDead) || l.s.ctx.Err() != nil
		l.state.Store(laneDead)
		l.nc.Close()
		l.s.forget(l)
		if !quiet {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) {
				err = errClosedByPeer
			}
			l.s.fail(err)
		}
		return
	}
}

// serve reads one answer and serves it: the fast path queues what it
// brings; anything else goes to the rare path.
func (l *lane) serve() error {
	h, err := l.readHead()
	if err != nil {
		return err
	}
	if l.state.Load() != laneBusy {
		return errUnasked
	}
	s := l.s
	body := s.bodies.Get()
	complete, err := l.readBody(&h, body)
	if err != nil {
		s.bodies.Put(body)
		return err
	}
	if s.mcp && h.session != nil {
		s.gotSession(h.session)
	}
	sent := l.out[l.bodyAt:]
	l.ready = l.ready[:0]
	fast := complete && l.fast(&h, body, sent)
	var rareSent, rareHead []byte
	if !fast {
		rareSent = append([]byte(nil), sent...)
		rareHead = append([]byte(nil), l.head...)
	}
	waited := l.wait
	keep := complete && h.keepAlive
	if keep { // idle before its answers are queued: whoever reads them finds it so
		l.state.Store(laneIdle)
		s.idle <- l
	}
	if !fast {
		s.rare.serve(rareHead, body, rareSent)
	}
	if waited {
		l.done <- struct{}{}
	}
	for _, b := range l.ready {
		s.deliver(answer{b: b})
	}
	if !keep {
		return errLaneDone
	}
	return nil
}

// fast serves an answer the fast path knows, queuing its messages in
// l.ready; false leaves it to the rare path. JSON-RPC over HTTP: a 2xx
// with a JSON body or none. MCP: 202, or 200 with a JSON message or an
// event stream that holds the answer to the request sent (if it was one).
func (l *lane) fast(h *head, body *codec.Buffer, sent []byte) bool {
	s := l.s
	if !s.mcp {
		switch {
		case h.status/100 != 2:
			return false
		case len(body.B) == 0:
			s.bodies.Put(body)
			return true
		case h.json:
			l.ready = append(l.ready, body)
			return true
		}
		return false
	}
	switch {
	case h.status == 202:
		s.bodies.Put(body)
		return true
	case h.status != 200:
		return false
	case h.json && len(bytes.TrimSpace(body.B)) > 0:
		l.ready = append(l.ready, body)
		return true
	case !h.sse:
		return false
	}
	l.events(body.B)
	if id := requestID(sent, l.scanner()); id != nil && !l.answered(id) {
		return false
	}
	for _, sp := range l.spans {
		ev := l.data[sp.from:sp.to]
		if len(bytes.TrimSpace(ev)) == 0 {
			continue // a priming event
		}
		b := s.bodies.Get()
		b.B = append(b.B[:0], ev...)
		l.ready = append(l.ready, b)
	}
	s.bodies.Put(body)
	return true
}

// answered reports whether one of the events read holds the answer to
// request id.
func (l *lane) answered(id []byte) bool {
	for _, sp := range l.spans {
		if ev := l.data[sp.from:sp.to]; len(bytes.TrimSpace(ev)) > 0 && responseTo(ev, id, l.scanner()) {
			return true
		}
	}
	return false
}

func (l *lane) scanner() *codec.Scanner {
	if l.sc == nil {
		l.sc = codec.NewScanner(nil)
	}
	return l.sc
}

// events reads the events of an event stream's body (the whole of it)
// into l.data and l.spans: each event's data lines, joined by newlines.
// An event not ended by a blank line is dropped, as the event stream
// format says.
func (l *lane) events(body []byte) {
	l.data, l.spans = l.data[:0], l.spans[:0]
	from, has := 0, false
	for len(body) > 0 {
		var line []byte
		line, body = cutLine(body)
		if len(line) == 0 {
			if has {
				l.spans = append(l.spans, span{from, len(l.data)})
			}
			from, has = len(l.data), false
			continue
		}
		value, ok := bytes.CutPrefix(line, []byte("data"))
		switch {
		case !ok:
			continue // another field, or a comment
		case len(value) == 0:
		case value[0] != ':':
			continue // a field whose name begins with data
		default:
			value = value[1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		if has {
			l.data = append(l.data, '\n')
		}
		l.data = append(l.data, value...)
		has = true
	}
}

// cutLine cuts b after its first line, which it returns without its
// line ending (\n or \r\n).
func cutLine(b []byte) (line, rest []byte) {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return b, nil
	}
	line, rest = b[:i], b[i+1:]
	if len(line) > 0 && line[len(line)-1] == '\r' {
		line = line[:len(line)-1]
	}
	return line, rest
}

// requestID returns the id of msg if it is a request: nil for a
// notification, a response, a batch or what is not JSON-RPC. A message
// laid out as loadgen writes requests is read as it is; any other by sc
// (nil: not at all, so nil).
func requestID(msg []byte, sc *codec.Scanner) []byte {
	if rest, ok := bytes.CutPrefix(msg, []byte(resultPrefix)); ok {
		if i := bytes.IndexByte(rest, ','); i > 0 && simpleID(rest[:i]) && bytes.HasPrefix(rest[i:], []byte(`,"method":`)) {
			return rest[:i]
		}
	}
	if sc == nil {
		return nil
	}
	msgs, batch, err := sc.Scan(msg)
	if err != nil || batch || len(msgs) != 1 || msgs[0].Kind != codec.KindRequest {
		return nil
	}
	return msgs[0].ID
}

// simpleID reports whether id is digits or a string with no escape, as
// loadgen's ids are.
func simpleID(id []byte) bool {
	if len(id) >= 2 && id[0] == '"' && id[len(id)-1] == '"' {
		return !bytes.ContainsAny(id[1:len(id)-1], `"\`)
	}
	for _, c := range id {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(id) > 0
}

// responseTo reports whether msg is the answer (result or error) to the
// request id: read as it is when laid out as servers mostly write
// answers, else by sc.
func responseTo(msg, id []byte, sc *codec.Scanner) bool {
	if rest, ok := bytes.CutPrefix(msg, []byte(resultPrefix)); ok {
		if rest, ok := bytes.CutPrefix(rest, id); ok && (bytes.HasPrefix(rest, []byte(`,"result":`)) || bytes.HasPrefix(rest, []byte(`,"error":`))) {
			return true
		}
	}
	msgs, batch, err := sc.Scan(msg)
	if err != nil || batch || len(msgs) != 1 {
		return false
	}
	k := msgs[0].Kind
	return (k == codec.KindResult || k == codec.KindError) && bytes.Equal(msgs[0].ID, id)
}
