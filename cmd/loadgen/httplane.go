package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"sync"
	"syscall"

	"github.com/mcpwire/mcpwire/codec"
)

// A lane is one keep-alive connection of an httpStream, with at most
// httpStream.pipe POSTs in flight (one: no pipelining). The writer adds
// each POST to its ring and sends them; the lane's goroutine (run) reads
// their answers in order, serves them, and takes them off the ring. A
// lane with room is listed in httpStream.idle, once.
type lane struct {
	s    *httpStream
	nc   net.Conn
	br   *bufio.Reader
	done chan struct{} // a waited-for POST was answered

	mu     sync.Mutex // guards what follows
	posts  []post     // a ring: the POSTs in flight, oldest at first
	first  int
	n      int
	listed bool // in httpStream.idle
	dead   bool // closed, or closing: never used again

	// The writer's: the requests not yet sent.
	out     []byte
	touched bool

	// The goroutine's own.
	head  []byte          // the last answer's head, as read
	data  []byte          // the data of an event stream's events, one after another
	spans []span          // each event's data in data
	ready []*codec.Buffer // the answers to queue once the lane is listed
	sc    *codec.Scanner  // for messages not laid out as loadgen's (made on first use)
}

// post is a POST in flight: its message (the slot's buffer, reused) and
// whether the writer waits for its answer.
type post struct {
	msg  []byte
	wait bool
}

// span is a part of a buffer: [from, to).
type span struct{ from, to int }

// errLaneDone ends a lane whose connection is not to be reused: the
// server said Connection: close, or a body was not read whole.
var errLaneDone = errors.New("the connection is not reusable")

// errUnasked ends a lane on which an answer came with nothing in flight.
var errUnasked = errors.New("the server answered a request never sent")

// run serves the lane's answers until its connection ends; a connection
// that ends with POSTs in flight ends the stream.
func (l *lane) run() {
	for {
		err := l.serve()
		if err == nil {
			continue
		}
		l.mu.Lock()
		l.dead = true
		inFlight := l.n
		l.mu.Unlock()
		l.nc.Close()
		l.s.forget(l)
		if inFlight > 0 && l.s.ctx.Err() == nil {
			if err == errLaneDone || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) {
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
	l.mu.Lock()
	p := l.posts[l.first] // its slot is not written again before it is taken off
	n := l.n
	l.mu.Unlock()
	if n == 0 {
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
	l.ready = l.ready[:0]
	fast := complete && l.fast(&h, body, p.msg)
	var rareSent, rareHead []byte
	if !fast {
		rareSent = append([]byte(nil), p.msg...)
		rareHead = append([]byte(nil), l.head...)
	}
	keep := complete && h.keepAlive
	l.mu.Lock()
	l.first = (l.first + 1) % len(l.posts)
	l.n--
	relist := keep && !l.listed
	l.listed = l.listed || relist
	if !keep {
		l.dead = true
	}
	l.mu.Unlock()
	if relist { // listed before its answers are queued: whoever reads them finds room
		s.idle <- l
	}
	if !fast {
		s.rare.serve(rareHead, body, rareSent)
	}
	if p.wait {
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
